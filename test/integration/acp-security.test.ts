/**
 * The editor's file system is used only for paths Yoke's permission gate checked: a model that
 * writes through a symbolic link leading out of the workspace, with the editor offering
 * fs/write_text_file, gets nothing written outside — the editor is never asked to write there.
 * Run as root and as an unprivileged user, the real `yoke acp` over stdio.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
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

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

describe.each(list)("yoke acp as $label: the editor's file system behind the permission gate", (who) => {
  it.each(["acceptEdits", "bypassPermissions"])("in %s, a write through a link out of the workspace reaches neither the disk nor the editor", async (mode) => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-acp-sec-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    const outside = join(dir, "outside");
    mkdirSync(ws);
    mkdirSync(outside);
    writeFileSync(join(ws, "README.md"), "# w\n");
    symlinkSync(outside, join(ws, "linkdir"));
    chownTree(dir, who);
    server = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "write_file", input: { path: "linkdir/pwned.sh", content: "echo pwned\n" } }] },
        { toolCalls: [{ name: "edit_file", input: { path: "linkdir/../linkdir/pwned2.sh", edits: [{ old_string: "", new_string: "x" }] } }] },
        { text: "done" },
      ],
    });
    const writes: string[] = [];
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--session-dir", join(dir, "sessions"), "--permission-mode", mode],
      {
        // Whatever Yoke asks about a path outside the workspace, the user says no.
        permission: (q) => ({ outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === "reject_once")!.optionId } }),
        readTextFile: () => ({ content: "" }),
        writeTextFile: (req) => {
          writes.push(req.path);
          writeFileSync(req.path, req.content);
        },
      },
      { cwd: ws, env: { HOME: who.home }, uid: who.uid, gid: who.gid },
    );
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    expect(readdirSync(outside)).toEqual([]);
    expect(writes.filter((p) => !p.startsWith(ws + "/") || p.startsWith(join(ws, "linkdir")))).toEqual([]);
    // The model was told why: the link leads out of the workspace (the gate refused before any file system was used).
    const results = (server.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> }).messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toContain("a symbolic link on the way leads outside it");
    expect(writes).toEqual([]);
  });
});

describe.each(list)("yoke acp as $label: commands in the editor's terminal", (who) => {
  it("stay in the sandbox and never get the editor's environment: protected paths and hidden secrets hold", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-acp-term-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, "README.md"), "# w\n");
    writeFileSync(join(ws, ".env"), "DB_PASSWORD=hunter2-acp\n");
    mkdirSync(join(ws, ".claude"));
    writeFileSync(join(ws, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Read(./.env)"] } }));
    // Hidden from the gate in a script: only the sandbox stands between it and the files.
    writeFileSync(join(ws, "x.sh"), 'echo pwned > .git/hooks/pre-commit; cat .env; echo "editor=[$EDITOR_TOKEN]"\n');
    chownTree(dir, who);
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "sh x.sh; echo done-$?" } }] }, { text: "done" }] });
    const host = testTerminalHost({ ...process.env, HOME: who.home, EDITOR_TOKEN: "ghp_editor_5521" }, { uid: who.uid, gid: who.gid });
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--session-dir", join(dir, "sessions"), "--permission-mode", "bypassPermissions"],
      { terminal: host },
      { cwd: ws, env: { HOME: who.home }, uid: who.uid, gid: who.gid },
    );
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { terminal: true } });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    expect(host.created, "the editor's terminal ran the command").toHaveLength(1);
    expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
    const told = JSON.stringify(server.requests.at(-1)!.body);
    expect(told).toContain("done-");
    expect(told).not.toContain("hunter2-acp");
    expect(told).not.toContain("ghp_editor_5521");
    expect(told).toContain("editor=[]");
    expect(host.open()).toBe(0);
  });
});

it.runIf(missing !== undefined)("reports why the root half cannot run here", () => {
  expect(missing).toMatch(/not run as root/);
});
