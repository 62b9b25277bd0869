/**
 * The identities security tests run under: root (CI, dev containers and Codespaces often run as
 * root) and an unprivileged user. Running as root, the unprivileged user is created on first use
 * (useradd); running as a normal user, that user is the unprivileged identity and the root runs
 * cannot happen (`identities()` says so with a reason instead of pretending).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, lchownSync, existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { cliPath, repoRoot, type CliResult } from "./cli";

export const TEST_USER = "yoke-sectest";

export interface Identity {
  label: "root" | "user";
  uid: number;
  gid: number;
  home: string;
  name: string;
}

export const isRoot = (): boolean => process.getuid?.() === 0;

function lookup(name: string): Identity | undefined {
  const r = spawnSync("getent", ["passwd", name], { encoding: "utf8" });
  if (r.status !== 0) return undefined;
  const [, , uid, gid, , home] = r.stdout.trim().split(":");
  return { label: "user", name, uid: Number(uid), gid: Number(gid), home: home! };
}

let cachedUser: Identity | undefined;

/** The unprivileged identity; created with useradd when we run as root. */
export function unprivilegedUser(): Identity {
  if (cachedUser) return cachedUser;
  if (!isRoot()) {
    const me = userInfo();
    cachedUser = { label: "user", name: me.username, uid: me.uid, gid: me.gid, home: me.homedir };
    return cachedUser;
  }
  let user = lookup(TEST_USER);
  if (!user) {
    // Test files run two at a time: another one may be creating the user (useradd then says it
    // exists, or that /etc/passwd is locked). What counts is that the user is there afterwards.
    let why = "";
    for (let i = 0; i < 50 && !user; i++) {
      try {
        execFileSync("useradd", ["--create-home", "--shell", "/bin/bash", "--user-group", TEST_USER], { stdio: "pipe" });
      } catch (err) {
        why = String((err as { stderr?: Buffer }).stderr ?? err);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      }
      user = lookup(TEST_USER);
    }
    if (!user) throw new Error(`useradd ${TEST_USER} did not create the user: ${why}`);
  }
  if (!existsSync(user.home)) {
    mkdirSync(user.home, { recursive: true });
    chownSync(user.home, user.uid, user.gid);
  }
  cachedUser = user;
  return user;
}

export function rootIdentity(): Identity | undefined {
  if (!isRoot()) return undefined;
  const me = userInfo();
  return { label: "root", name: me.username, uid: 0, gid: 0, home: me.homedir };
}

/**
 * Both identities, for `describe.each`. Not root: only the user (and `missing` explains why the
 * root half cannot run here, for the test to report).
 */
export function identities(): { list: Identity[]; missing?: string } {
  const root = rootIdentity();
  const user = unprivilegedUser();
  return root ? { list: [root, user] } : { list: [user], missing: "the tests do not run as root, so the root half of the security corpus cannot run here (CI runs as root)" };
}

/** Gives a folder tree to `who` (a workspace the unprivileged user must be able to write). */
export function chownTree(path: string, who: Identity): void {
  if (!isRoot()) return;
  const walk = (p: string) => {
    // lchown: a link keeps its target (and a dangling link is given too).
    lchownSync(p, who.uid, who.gid);
    if (lstatSync(p).isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(path);
}

/** The spawn options that run a child as `who`, with that identity's HOME and a plain environment. */
export function spawnAs(who: Identity, env: Record<string, string | undefined> = {}) {
  const base: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? "C.UTF-8",
    HOME: who.home,
    USER: who.name,
    LOGNAME: who.name,
    ...env,
  };
  return {
    ...(who.uid !== process.getuid?.() ? { uid: who.uid, gid: who.gid } : {}),
    env: Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)),
  };
}

/** Runs the built CLI (dist/cli.js) as `who`. */
export function runCliAs(who: Identity, args: string[], opts: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [cliPath, ...args], { cwd: opts.cwd ?? repoRoot, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(who, opts.env) });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  child.stdin!.end(opts.input ?? "");
  const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs) : undefined;
  return new Promise((resolve) =>
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}
