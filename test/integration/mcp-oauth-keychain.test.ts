// The CLI keeps MCP sign-ins in the system keychain where there is one (issue 22: "tokens in VS
// Code's SecretStorage or the OS keychain for the CLI"). A real freedesktop Secret Service: a
// private D-Bus session bus (dbus-daemon) with GNOME Keyring on it, in a temporary HOME; the
// real `secret-tool`. Against the real OAuth authorization server of test/support (SDK pieces),
// through the built CLI: `yoke mcp login` (the test plays the browser), `yoke run` with the
// scripted model, `yoke mcp logout`. Asserted on what is where: the tokens in the keychain's item
// and in no file under HOME; a later run signs in with no browser; logout removes the item; a
// sign-in kept in the file by an earlier Yoke is still used and moves to the keychain on its next
// write; with no Secret Service (a dead bus) the 0600 file is used, as before.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { keychainKey } from "../../src/node/mcp/keychain";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { startOAuthMcpServer, type OAuthMcpServer } from "../support/mcp-oauth-server";

const have = (cmd: string): boolean => {
  try {
    execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
// scripts/setup-e2e.sh installs these (libsecret-tools, gnome-keyring, dbus); only their absence skips.
const missing = ["secret-tool", "gnome-keyring-daemon", "dbus-daemon"].filter((c) => !have(c));

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
const children: ChildProcess[] = [];
let server: OAuthMcpServer;
let base: string;
let bus: { env: Record<string, string>; pid: number };
const buses: number[] = [];

async function startKeychain(home: string, name = "runtime", unlock = true): Promise<{ env: Record<string, string>; pid: number }> {
  const runtime = join(base, name);
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  chmodSync(runtime, 0o700);
  const env = { HOME: home, XDG_RUNTIME_DIR: runtime, PATH: process.env.PATH ?? "/usr/bin:/bin" };
  // The bus where a systemd user session has it ($XDG_RUNTIME_DIR/bus), so both ways of finding it
  // are tried. No service folders: nothing is started by D-Bus activation, so the Secret Service on
  // this bus is the unlocked GNOME Keyring below and not a locked one a lookup would start first.
  const config = join(base, `${name}.conf`);
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${join(runtime, "bus")}</listen>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>`,
  );
  const out = execFileSync("dbus-daemon", [`--config-file=${config}`, "--fork", "--print-address=1", "--print-pid=1"], {
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [address, pid] = out.trim().split("\n");
  const busEnv = { ...env, DBUS_SESSION_BUS_ADDRESS: address! };
  // --unlock with a password creates and unlocks the "login" collection; without it there is none,
  // and storing fails (GNOME Keyring would prompt, and there is no display).
  const keyring = spawn("gnome-keyring-daemon", ["--foreground", "--replace", ...(unlock ? ["--unlock"] : []), "--components=secrets"], { env: busEnv, stdio: ["pipe", "ignore", "ignore"] });
  keyring.stdin!.end(unlock ? "test-password" : "");
  children.push(keyring);
  // Ready when the Secret Service answers a lookup (exit 1, nothing said: no such item).
  for (let i = 0; i < 200; i++) {
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn("secret-tool", ["lookup", "service", "ready", "key", "x"], { env: busEnv });
      let err = "";
      c.stderr.on("data", (d) => (err += String(d)));
      c.on("close", (code) => resolve({ code, err }));
    });
    if (r.code === 1 && !r.err.trim()) return { env: busEnv, pid: Number(pid) };
    await new Promise((r2) => setTimeout(r2, 100));
  }
  throw new Error("the Secret Service did not start");
}

beforeAll(async () => {
  if (missing.length) return;
  base = mkdtempSync(join(tmpdir(), "yoke-keychain-"));
  temps.push(base);
  mkdirSync(join(base, "home"), { recursive: true });
  bus = await startKeychain(join(base, "home"));
  buses.push(bus.pid);
  server = await startOAuthMcpServer();
}, 60_000);
afterAll(async () => {
  await server?.close();
  for (const c of children) c.kill("SIGKILL");
  for (const pid of buses) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const CALL: ScriptedTurn[] = [{ toolCalls: [{ name: "mcp__secure__whoami", input: {} }] }, { text: "done" }];
type Req = { body: Record<string, unknown> };

function workspace(home: string, name: string): string {
  const cwd = join(base, name);
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".yoke"), { recursive: true });
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { secure: { type: "http", url: server.url } }, permissions: { allow: ["mcp__secure"] } }));
  return cwd;
}

async function browse(url: string): Promise<string> {
  const r = await fetch(url, { redirect: "manual" });
  const to = r.headers.get("location");
  if (r.status !== 302 || !to) throw new Error(`the authorization server answered ${r.status}: ${await r.text()}`);
  return (await fetch(to)).text();
}

async function login(cwd: string, env: Record<string, string | undefined>) {
  const child = startCli(["mcp", "login", "secure", "--cwd", cwd], { env });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 30_000);
    child.stderr!.on("data", (d) => {
      stderr += String(d);
      const m = /Open this URL in your browser[^\n]*\n\s+(\S+)/.exec(stderr);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
  });
  expect(await browse(url)).toContain("signed in to the MCP server secure");
  return child.result;
}

async function run(cwd: string, env: Record<string, string | undefined>) {
  const llm = await startScriptedLlmServer({ script: CALL });
  try {
    const r = await runCli(
      ["run", "--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--cwd", cwd, "--session-dir", join(base, "sessions"), "call the protected tool"],
      { env },
    );
    const msgs = (llm.requests as Req[]).at(-1)!.body.messages as Array<{ role: string; content?: unknown }>;
    const tool = msgs.filter((m) => m.role === "tool").pop();
    return { ...r, tool: typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content) };
  } finally {
    await llm.close();
  }
}

function keychainItem(env: Record<string, string>): { code: number; text: string } {
  try {
    return {
      code: 0,
      text: execFileSync("secret-tool", ["lookup", "service", "yoke-mcp-oauth", "key", keychainKey(new URL(server.url).href)], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }),
    };
  } catch (e) {
    return { code: (e as { status: number }).status, text: "" };
  }
}

/** Every file under a folder, for "no token written anywhere here". */
function allText(dir: string): string {
  let out = "";
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out += allText(p);
    else if (e.isFile() && !p.includes("/keyrings/")) out += readFileSync(p, "latin1");
  }
  return out;
}

describe.skipIf(missing.length > 0)(`MCP sign-ins in the system keychain (Secret Service)${missing.length ? ` — not installed: ${missing.join(", ")}` : ""}`, () => {
  it("keeps the tokens in the keychain, not in a file; a later run uses them; logout removes them", async () => {
    const home = join(base, "home");
    const cwd = workspace(home, "ws1");
    // No DBUS_SESSION_BUS_ADDRESS: the bus is found at $XDG_RUNTIME_DIR/bus, as in a systemd user session.
    const env = { ...bus.env, DBUS_SESSION_BUS_ADDRESS: undefined };
    const done = await login(cwd, env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("secure: connected (1 tools)");
    expect(done.stdout).toContain("kept for the next runs in the system keychain (Secret Service)");

    const item = keychainItem(bus.env);
    expect(item.code).toBe(0);
    const rec = JSON.parse(item.text) as { tokens?: { access_token?: string } };
    expect(server.accessTokens).toContain(rec.tokens?.access_token);
    expect(existsSync(join(home, ".yoke", "mcp-oauth.json"))).toBe(false);
    const files = allText(home);
    for (const t of [...server.accessTokens, ...server.refreshTokens]) expect(files.includes(t), "a token in a file under HOME").toBe(false);

    const before = server.events.length;
    const after = await run(cwd, env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.tool).toMatch(/protected answer for client-\d+/);
    expect(server.events.slice(before).filter((e) => /^(register|authorize|exchange)/.test(e))).toEqual([]);

    const out = await runCli(["mcp", "logout", "secure", "--cwd", cwd], { env });
    expect(out.stdout).toContain("secure: signed out");
    expect(keychainItem(bus.env).code).toBe(1);
  }, 120_000);

  it("a sign-in an earlier Yoke kept in the file is still used, and moves to the keychain when it is next written", async () => {
    const home = join(base, "home2");
    mkdirSync(home, { recursive: true });
    const cwd = workspace(home, "ws2");
    // Signed in with the file, as every Yoke before this one did.
    const done = await login(cwd, { ...bus.env, HOME: home, YOKE_MCP_CREDENTIALS: "file" });
    expect(done.code, done.stderr).toBe(0);
    const file = join(home, ".yoke", "mcp-oauth.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("access_token");
    expect(keychainItem(bus.env).code).toBe(1);

    // Now with the keychain: the kept sign-in works with no browser.
    const env = { ...bus.env, HOME: home };
    const before = server.events.length;
    const first = await run(cwd, env);
    expect(first.tool).toMatch(/protected answer for client-\d+/);
    expect(server.events.slice(before).filter((e) => /^(register|authorize|exchange)/.test(e))).toEqual([]);

    // An expired token is refreshed: the new tokens are written — to the keychain, and the file forgets them.
    server.expireAll();
    const second = await run(cwd, env);
    expect(second.tool).toMatch(/protected answer for client-\d+/);
    expect(keychainItem(bus.env).code).toBe(0);
    expect(readFileSync(file, "utf8")).not.toContain("access_token");
  }, 120_000);

  it("with no Secret Service answering (a dead bus, or no bus at all), the sign-in is kept in the 0600 file as before", async () => {
    execFileSync("secret-tool", ["clear", "service", "yoke-mcp-oauth", "key", keychainKey(new URL(server.url).href)], { env: bus.env });
    expect(keychainItem(bus.env).code).toBe(1);
    const noBus = join(base, "runtime-without-bus");
    mkdirSync(noBus, { recursive: true, mode: 0o700 });
    for (const [name, busEnv] of [
      ["home3", { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(base, "no-bus")}` }],
      ["home4", { DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: noBus }],
    ] as const) {
      const home = join(base, name);
      mkdirSync(home, { recursive: true });
      const cwd = workspace(home, `ws-${name}`);
      const done = await login(cwd, { ...bus.env, HOME: home, ...busEnv });
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain(`kept for the next runs in ${join(home, ".yoke", "mcp-oauth.json")}`);
      const file = join(home, ".yoke", "mcp-oauth.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, "utf8")).toContain("access_token");
    }
    expect(keychainItem(bus.env).code).toBe(1);
  }, 120_000);

  it("a keychain that answers but refuses to store (no login collection) does not lose the sign-in: it is kept in the 0600 file, and said so", async () => {
    const home = join(base, "home5");
    mkdirSync(home, { recursive: true });
    const locked = await startKeychain(home, "runtime-locked", false);
    buses.push(locked.pid);
    const cwd = workspace(home, "ws5");
    const done = await login(cwd, { ...locked.env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`kept for the next runs in ${join(home, ".yoke", "mcp-oauth.json")} (the system keychain refused it: could not keep the MCP sign-in in the system keychain:`);
    const file = join(home, ".yoke", "mcp-oauth.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("access_token");
    // The next run finds it there (the keychain's lookup says "no such item"), with no browser.
    const before = server.events.length;
    const again = await run(cwd, { ...locked.env });
    expect(again.tool).toMatch(/protected answer for client-\d+/);
    expect(server.events.slice(before).filter((e) => /^(register|authorize|exchange)/.test(e))).toEqual([]);
  }, 120_000);

  // Red team O (session 19): a server's URL may itself be a secret (a token in its path or query,
  // as hosted MCP servers hand out). The keychain is asked through `secret-tool`, whose argv any
  // user of the machine reads in /proc/PID/cmdline (ps). The URL was the item's `key` attribute and
  // in its label, so every run put it there; now the attribute is a hash of it, the label its origin.
  it("a server URL holding a secret never reaches secret-tool's argv; its sign-in is still found by that URL", async () => {
    const home = join(base, "home6");
    mkdirSync(home, { recursive: true });
    const shim = join(base, "shim");
    mkdirSync(shim, { recursive: true });
    const log = join(base, "secret-tool-argv.log");
    const real = execFileSync("sh", ["-c", "command -v secret-tool"], { encoding: "utf8" }).trim();
    writeFileSync(join(shim, "secret-tool"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const secretUrl = `${server.url}?api_key=URL-SECRET-4711`;
    const cwd = join(base, "ws6");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { secure: { type: "http", url: secretUrl } }, permissions: { allow: ["mcp__secure"] } }));
    const env = { ...bus.env, HOME: home, PATH: `${shim}:${bus.env.PATH}` };
    const done = await login(cwd, env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("kept for the next runs in the system keychain (Secret Service)");
    const again = await run(cwd, env);
    expect(again.tool).toMatch(/protected answer for client-\d+/);
    const argv = readFileSync(log, "utf8");
    expect(argv).toMatch(/^store /m);
    expect(argv).toMatch(/^lookup /m);
    expect(argv).not.toContain("URL-SECRET-4711");
    expect(argv).not.toContain(new URL(server.url).pathname);
    expect(argv).toContain(`Yoke MCP sign-in: ${new URL(server.url).origin}`);
  }, 120_000);
});
