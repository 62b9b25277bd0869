/**
 * Red team round 9: `yoke acp` commands in the editor's terminal. The runner's environment for a
 * command (with a secret the user gave commands on purpose: `sandbox.env`, `sandbox.allowEnv`) was
 * passed as `env -i NAME=VALUE …` on the command line the editor starts: a command line is
 * readable by every local user (/proc/PID/cmdline) and is what the editor shows and logs for the
 * terminal, where the environment (/proc/PID/environ) is the user's alone. Class: a secret moved
 * from a private channel to a public one. Run as root and as an unprivileged user, the real
 * `yoke acp` over stdio, an editor's terminal as Zed does it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities } from "../support/identities";
import { startAcpClient, type AcpTestClient } from "../support/acp-client";
import { testTerminalHost } from "../support/acp-terminal";
import { closeServerAndRemoveTemps } from "../support/teardown";

const { list, missing } = identities();
let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];
const SECRET = "npm_red9_cmdline_7731";

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

/** Every process's command line that carries `needle` (what any local user can read). */
function cmdlinesWith(needle: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const c = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (c.includes(needle)) out.push(c.replace(/\0/g, " "));
    } catch {
      // gone
    }
  }
  return out;
}

describe.each(list)("yoke acp as $label: a command's environment in the editor's terminal", (who) => {
  it("the user's sandbox.env secret reaches the command but never a command line nor the editor's terminal request", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-red9-acp-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(ws);
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(ws, "README.md"), "# w\n");
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { env: { NPM_TOKEN: SECRET } } }));
    chownTree(dir, who);
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "run_command", input: { command: 'case "$NPM_TOKEN" in npm_red9_cmd*7731) echo token-ok;; esac; sleep 3; echo done-$?' } }] }, { text: "done" }],
    });
    const host = testTerminalHost({ ...process.env, HOME: home }, { uid: who.uid, gid: who.gid });
    const seen: string[] = [];
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--session-dir", join(dir, "sessions"), "--permission-mode", "bypassPermissions"],
      { terminal: host },
      { cwd: ws, env: { HOME: home }, uid: who.uid, gid: who.gid },
    );
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { terminal: true } });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    const prompt = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    const watch = setInterval(() => seen.push(...cmdlinesWith(SECRET)), 100);
    try {
      expect((await prompt).stopReason).toBe("end_turn");
    } finally {
      clearInterval(watch);
    }
    expect(host.created, "the editor's terminal ran the command").toHaveLength(1);
    const told = JSON.stringify(server.requests.at(-1)!.body);
    // The command got it (the user's choice)...
    expect(told).toContain("token-ok");
    // ...but no command line carried it, and the editor was not handed it to show.
    expect(seen).toEqual([]);
    expect(JSON.stringify(host.created[0]!.args ?? [])).not.toContain(SECRET);
    expect(host.created[0]!.command).not.toContain(SECRET);
  }, 120_000);
});

it.runIf(missing !== undefined)("reports why the root half cannot run here", () => {
  expect(missing).toMatch(/not run as root/);
});
