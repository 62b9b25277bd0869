/**
 * `yoke acp`: the question a project command's `allowed-tools` raise is for the whole run
 * (PermissionQuestion.forRun), and the editor is offered exactly that — "Allow for this run"
 * (`allow_run`) and "Ask each time" (`ask_each_time`), no allow-once and no rule. Driven by the ACP
 * SDK's own client over the built CLI's stdio, with the scripted model over real HTTP; asserts the
 * options the client was sent and what is on disk after each choice.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { startAcpClient, type AcpClientHandlers, type AcpTestClient } from "../support/acp-client";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];

const COMMAND = "---\ndescription: Write the notes\nallowed-tools: Write\n---\nWrite a.md and b.md.\n";
const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "write_file", input: { path: "a.md", content: "a\n" } }] },
  { toolCalls: [{ name: "write_file", input: { path: "b.md", content: "b\n" } }] },
  { text: "Done." },
  // A plain prompt afterwards: no grant for it.
  { toolCalls: [{ name: "write_file", input: { path: "later.md", content: "later\n" } }] },
  { text: "Done again." },
];

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-for-run-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(join(ws, ".claude/commands"), { recursive: true });
  writeFileSync(join(ws, ".claude/commands/notes.md"), COMMAND);
  return ws;
}

async function start(ws: string, handlers: AcpClientHandlers) {
  server = await startScriptedLlmServer({ script: SCRIPT });
  const c = startAcpClient(["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--session-dir", join(ws, "..", "sessions")], handlers, {
    cwd: ws,
    env: { HOME: join(ws, "..") },
  });
  clients.push(c);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
  const prompt = async (text: string) => (await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).stopReason;
  return { c, prompt };
}

const isForRun = (p: acp.RequestPermissionRequest) => p.options.some((o) => o.optionId === "allow_run");
const pick = (optionId: string): acp.RequestPermissionResponse => ({ outcome: { outcome: "selected", optionId } });

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("yoke acp: a project command's for-run question", () => {
  it("offers Allow for this run / Ask each time only; allow_run lets the run's two writes land with no other question, and the next prompt is asked as usual", async () => {
    const ws = workspace();
    const { c, prompt } = await start(ws, { permission: (p) => (isForRun(p) ? pick("allow_run") : pick("reject_once")) });
    expect(await prompt("/notes")).toBe("end_turn");
    expect(c.permissions).toHaveLength(1);
    expect(c.permissions[0]!.options).toEqual([
      { optionId: "allow_run", name: "Allow for this run", kind: "allow_always" },
      { optionId: "ask_each_time", name: "Ask each time", kind: "reject_once" },
    ]);
    expect(JSON.stringify(c.permissions[0]!.toolCall)).toContain("this command asks for: Write");
    expect(readFileSync(join(ws, "a.md"), "utf8")).toBe("a\n");
    expect(readFileSync(join(ws, "b.md"), "utf8")).toBe("b\n");
    // The grant ended with the run: the next write is an ordinary question (allow once, deny…), refused here.
    expect(await prompt("write later.md")).toBe("end_turn");
    expect(c.permissions).toHaveLength(2);
    expect(c.permissions[1]!.options.map((o) => o.optionId)).toEqual(expect.arrayContaining(["allow_once", "reject_once"]));
    expect(c.permissions[1]!.options.some((o) => o.optionId === "allow_run")).toBe(false);
    expect(existsSync(join(ws, "later.md"))).toBe(false);
  }, 180_000);

  it("ask_each_time grants nothing: each write of the run is asked on its own (one allowed, one refused: only that one lands)", async () => {
    const ws = workspace();
    const { c, prompt } = await start(ws, {
      permission: (p) => (isForRun(p) ? pick("ask_each_time") : JSON.stringify(p.toolCall).includes("a.md") ? pick("allow_once") : pick("reject_once")),
    });
    expect(await prompt("/notes")).toBe("end_turn");
    expect(c.permissions.map(isForRun)).toEqual([true, false, false]);
    expect(c.permissions[1]!.options.map((o) => o.optionId)).toContain("allow_once");
    expect(readFileSync(join(ws, "a.md"), "utf8")).toBe("a\n");
    expect(existsSync(join(ws, "b.md"))).toBe(false);
  }, 180_000);
});
