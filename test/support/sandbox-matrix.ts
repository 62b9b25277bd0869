/**
 * The matrix the sandbox security tests run over — identity (test/support/identities) × backend
 * (bwrap, firejail) — and the set-up each cell repeats: a folder of its own with a HOME whose
 * ~/.yoke/settings.json picks the backend, committed git workspaces owned by the identity, and a
 * `yoke run --permission-mode bypassPermissions` session as that identity against the scripted model.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { probeFirejail } from "../../src/node/commands/sandbox/firejail";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliPath, ensureBuilt } from "./cli";
import { chownTree, identities, spawnAs, type Identity } from "./identities";
import { removeTemps } from "./teardown";
import { scriptedRunArgs, toldOf } from "./scripted-run";

export type SandboxBackend = "bwrap" | "firejail";

/** Why firejail cannot run here (undefined: it can). */
export function firejailUsable(): string | undefined {
  try {
    probeFirejail();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The backends for `describe.each`, each with why it cannot run here (undefined: it can). */
export function sandboxBackends(): Array<[SandboxBackend, string | undefined]> {
  return [
    ["bwrap", undefined],
    ["firejail", firejailUsable()],
  ];
}

/** A run_command turn of the scripted model. */
export const bash = (command: string): ScriptedTurn => ({ toolCalls: [{ name: "run_command", input: { command } }] });

/**
 * A new folder (mode 755, pushed on `temps`) for one identity × backend cell, with `home` below it:
 * ~/.yoke/settings.json holds `settings` (the user's own choice of backend; a function is given the
 * folder), `files` are written relative to the home; all of it given to `id`.
 */
export function cellFolder(prefix: string, id: Identity, temps: string[], settings: unknown | ((base: string) => unknown), files: Record<string, string> = {}): { base: string; home: string } {
  const base = mkdtempSync(join(tmpdir(), prefix));
  temps.push(base);
  chmodSync(base, 0o755);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(home, rel), text);
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify(typeof settings === "function" ? settings(base) : settings));
  chownTree(base, id);
  return { base, home };
}

/** A git repository at `ws` with `files` committed on main (author t), given to `id`. */
export function committedWorkspace(ws: string, files: Record<string, string>, id: Identity): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  execFileSync("git", ["-C", ws, "add", "-A"]);
  execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
  chownTree(ws, id);
  return ws;
}

/** A new session folder given to `id`. */
export function sessionFolder(path: string, id: Identity): string {
  mkdirSync(path, { recursive: true });
  chownTree(path, id);
  return path;
}

/** How `sessionAs` runs: the permission mode (bypassPermissions unless given; null: no flag), a settings file, more argv before the message, more environment, the message ("go" unless given). */
export interface SessionOptions {
  mode?: string | null;
  message?: string;
  settings?: string;
  extra?: string[];
  env?: Record<string, string>;
}

/**
 * One `yoke run --trust` session as `id` (HOME `home`) in `ws`, the scripted model playing `script`
 * then "done"; killed after 200 s. Returns the exit code, stderr, what the model was told (toldOf)
 * and every request's body as JSON text (`all`: where a secret must not appear).
 */
export async function sessionAs(
  id: Identity,
  home: string,
  ws: string,
  sessions: string,
  script: ScriptedTurn[],
  options: SessionOptions = {},
): Promise<{ code: number | null; stderr: string; told: string; all: string }> {
  sessionFolder(sessions, id);
  const server = await startScriptedLlmServer({ script: [...script, { text: "done" }] });
  try {
    const args = [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions)];
    if (options.mode !== null) args.push("--permission-mode", options.mode ?? "bypassPermissions");
    args.push(...(options.settings ? ["--settings", options.settings] : []), ...(options.extra ?? []), options.message ?? "go");
    const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home, ...options.env }) });
    let stderr = "";
    child.stdout!.on("data", () => undefined);
    child.stderr!.on("data", (d) => (stderr += d));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearTimeout(timer);
    return { code, stderr, told: toldOf(server.requests), all: server.requests.map((r) => JSON.stringify(r.body)).join("\n") };
  } finally {
    await server.close();
  }
}

/** `sessionAs` in bypassPermissions with an optional settings file. */
export function bypassSessionAs(id: Identity, home: string, ws: string, sessions: string, script: ScriptedTurn[], settings?: string): Promise<{ code: number | null; stderr: string; told: string }> {
  return sessionAs(id, home, ws, sessions, script, { settings });
}

/**
 * A committed workspace at a new folder below `base` with `files`, then the user's work after the
 * commit (`after`: files written but not committed), given to `id`.
 */
export function workspaceWithWork(base: string, files: Record<string, string>, after: Record<string, string>, id: Identity): string {
  const ws = join(base, `ws-${Math.random().toString(36).slice(2, 8)}`);
  committedWorkspace(ws, files, id);
  for (const [rel, text] of Object.entries(after)) writeFileSync(join(ws, rel), text);
  chownTree(ws, id);
  return ws;
}

/**
 * The set-up every full-session security suite repeats, registered in the calling test file: long
 * timeouts, the built CLI, the temporary folders removed at the end, and a first test that says
 * which identities and backends run (and why one cannot). Returns the identities, the backends
 * (for `describe.each`) and the list to push temporary folders on.
 */
export function securityMatrix(): { who: Identity[]; backends: Array<[SandboxBackend, string | undefined]>; temps: string[] } {
  vi.setConfig({ testTimeout: 300_000, hookTimeout: 180_000 });
  const { list: who, missing } = identities();
  const temps: string[] = [];
  const backends = sandboxBackends();
  beforeAll(() => ensureBuilt(), 180_000);
  afterAll(() => removeTemps(temps));
  it("runs as root and as an unprivileged user, with bwrap and firejail (or says why it cannot)", () => {
    if (missing) console.warn(missing);
    for (const [b, why] of backends) if (why) console.warn(`${b}: ${why}`);
    expect(who.length).toBeGreaterThan(0);
  });
  return { who, backends, temps };
}
