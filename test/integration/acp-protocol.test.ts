/**
 * `yoke acp` against the protocol as the installed SDK defines it (@agentclientprotocol/sdk, its
 * v1 schema): what a client may send beyond the full session of acp.test.ts — version
 * negotiation, unknown and extension (`_`-prefixed) methods, the slash commands the agent
 * announces (available_commands_update: custom commands, MCP prompts) and their expansion,
 * session/resume and session/close, the editor's MCP servers over HTTP on session/load, and
 * prompt content the agent did not declare (image, audio). Driven by the SDK's own client app over
 * the built CLI's stdio, with the scripted model over real HTTP.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { chunkText, startAcpClient, updatesOf, type AcpClientHandlers, type AcpTestClient } from "../support/acp-client";
import { startRecordingMcpServer, type RecordingMcpServer } from "../support/mcp-http-server";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
let mcpHttp: RecordingMcpServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];
const probe = join(__dirname, "../support/mcp-probe-server.cjs");

function workspace(): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-proto-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(join(ws, ".claude", "commands"), { recursive: true });
  writeFileSync(join(ws, "count.ts"), "export function count(xs: number[]): number {\n  return xs.length;\n}\n");
  writeFileSync(join(ws, ".claude", "commands", "explain.md"), "---\ndescription: Explain a file in one line\nargument-hint: <file>\n---\nExplain $ARGUMENTS in one line.\n");
  return { ws, sessions: join(dir, "sessions") };
}

async function start(script: ScriptedTurn[], ws: string, sessions: string, handlers: AcpClientHandlers = {}, extra: string[] = [], protocolVersion = 1) {
  server ??= await startScriptedLlmServer({ script });
  const c = startAcpClient(["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "local-model", "--session-dir", sessions, ...extra], handlers, {
    cwd: ws,
    env: { HOME: join(ws, "..") },
  });
  clients.push(c);
  const init = await c.agent.request("initialize", { protocolVersion, clientCapabilities: {} });
  return { c, init };
}

async function until<T>(what: () => T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The latest slash-command list the agent announced for a session. */
function commandsOf(c: AcpTestClient, sessionId: string): acp.AvailableCommand[] | undefined {
  return updatesOf(
    c.updates.filter((n) => n.sessionId === sessionId),
    "available_commands_update",
  ).at(-1)?.availableCommands;
}

const rpcError = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code: number; message: string },
  );

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  await mcpHttp?.close();
  mcpHttp = undefined;
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("yoke acp: the protocol as the SDK defines it", () => {
  it("initialize: its capabilities in the schema's terms, the version negotiated; unknown and `_` extension methods answered 'method not found', extension notifications ignored", async () => {
    const { ws, sessions } = workspace();
    // A client of a later protocol version: the agent answers the latest it supports (1).
    const { c, init } = await start([{ text: "still here" }], ws, sessions, {}, [], 7);
    expect(init.protocolVersion).toBe(1);
    expect(init.authMethods).toEqual([]);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
    });
    expect(await rpcError(c.agent.request("session/frobnicate", {}))).toMatchObject({ code: -32601 });
    expect(await rpcError(c.agent.request("_zed/custom_thing", { x: 1 }))).toMatchObject({ code: -32601 });
    await c.agent.notify("_zed/some_notice", { hello: true });
    // A session the agent does not have: resource not found.
    expect(await rpcError(c.agent.request("session/prompt", { sessionId: "no-such-session", prompt: [{ type: "text", text: "hi" }] }))).toMatchObject({ code: -32002 });
    // The connection still works.
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "are you there?" }] })).stopReason).toBe("end_turn");
    expect(chunkText(c.updates, "agent_message_chunk")).toBe("still here");
  }, 120_000);

  it("announces its slash commands (custom commands, output-style, the editor's MCP server's prompts) and expands the one a prompt starts with", async () => {
    const { ws, sessions } = workspace();
    const { c } = await start([{ text: "It counts them." }, { text: "Hello to you." }], ws, sessions);
    const tag = `acp-proto-probe-${process.pid}-${Date.now()}`;
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [{ name: "probe", command: process.execPath, args: [probe, tag], env: [] }] });
    const commands = await until(() => {
      const list = commandsOf(c, sessionId);
      return list?.some((x) => x.name === "mcp__probe__hello") ? list : undefined;
    });
    expect(commands.find((x) => x.name === "explain")).toMatchObject({ description: expect.stringContaining("Explain a file in one line"), input: { hint: "<file>" } });
    expect(commands.find((x) => x.name === "output-style")).toBeDefined();
    expect(commands.find((x) => x.name === "mcp__probe__hello")).toMatchObject({ description: expect.stringContaining("Says hello"), input: { hint: expect.stringContaining("who") } });
    // A prompt starting with /explain reaches the model as the command's text.
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/explain count.ts" }] })).stopReason).toBe("end_turn");
    expect(JSON.stringify(server!.requests.at(-1)!.body)).toContain("Explain count.ts in one line.");
    // And the MCP prompt as the server's messages.
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/mcp__probe__hello Ada" }] })).stopReason).toBe("end_turn");
    expect(JSON.stringify(server!.requests.at(-1)!.body)).toContain("Hello, Ada.");
  }, 120_000);

  it("session/load with the editor's MCP server over HTTP offers its tools; session/resume continues without replaying; session/close ends the session and frees it for another process", async () => {
    const { ws, sessions } = workspace();
    mcpHttp = await startRecordingMcpServer("streamable");
    const first = await start([{ text: "Noted." }, { toolCalls: [{ name: "mcp__rec__add", input: { a: 2, b: 3 } }] }, { text: "5." }, { text: "Resumed." }], ws, sessions, {}, [
      "--permission-mode",
      "bypassPermissions",
    ]);
    const { sessionId } = await first.c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await first.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Remember the number 5." }] });
    expect((await first.c.close()).code).toBe(0);
    clients.splice(clients.indexOf(first.c), 1);

    // Load, with an HTTP MCP server from the editor: its tool is offered and called.
    const second = await start([], ws, sessions, {}, ["--permission-mode", "bypassPermissions"]);
    await second.c.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [{ type: "http", name: "rec", url: mcpHttp.url, headers: [{ name: "x-editor", value: "acp-test" }] }] });
    expect(chunkText(second.c.updates, "user_message_chunk")).toBe("Remember the number 5.");
    expect((await second.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "Add 2 and 3 with the tool." }] })).stopReason).toBe("end_turn");
    const tools = (server!.requests.at(-2)!.body as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
    expect(tools).toContain("mcp__rec__add");
    expect(mcpHttp.calls).toEqual([expect.objectContaining({ tool: "add", args: { a: 2, b: 3 } })]);
    expect(mcpHttp.calls[0]!.headers["x-editor"]).toBe("acp-test");
    expect(updatesOf(second.c.updates, "tool_call_update").at(-1)).toMatchObject({ status: "completed", rawOutput: { output: expect.stringContaining("sum=5") } });

    // Close: the session ends here (a prompt to it is refused), and another process can take it.
    expect(await second.c.agent.request("session/close", { sessionId })).toEqual({});
    expect(await rpcError(second.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] }))).toMatchObject({ code: -32002 });
    const third = await start([], ws, sessions);
    await third.c.agent.request("session/resume", { sessionId, cwd: ws, mcpServers: [] });
    // Resume replays nothing: the editor has the history.
    expect(updatesOf(third.c.updates, "user_message_chunk")).toEqual([]);
    expect(updatesOf(third.c.updates, "tool_call")).toEqual([]);
    expect((await third.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "And now?" }] })).stopReason).toBe("end_turn");
    expect(chunkText(third.c.updates, "agent_message_chunk")).toBe("Resumed.");
    expect(JSON.stringify(server!.requests.at(-1)!.body)).toContain("Remember the number 5.");
  }, 120_000);

  it("session/close stops the session's MCP servers and a running turn; closing it again is not an error", async () => {
    const { ws, sessions } = workspace();
    const tag = `acp-close-probe-${process.pid}-${Date.now()}`;
    const { c } = await start([{ toolCalls: [{ name: "mcp__probe__wait", input: { ms: 60_000 } }] }, { text: "never" }], ws, sessions, {}, ["--permission-mode", "bypassPermissions"]);
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [{ name: "probe", command: process.execPath, args: [probe, tag], env: [] }] });
    const turn = c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "wait a minute" }] });
    await until(() => (updatesOf(c.updates, "tool_call_update").some((u) => u.status === "in_progress") ? true : undefined));
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).toContain(tag);
    await c.agent.request("session/close", { sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(tag);
    expect(await c.agent.request("session/close", { sessionId })).toEqual({});
  }, 120_000);

  it("an image or audio block (not in its prompt capabilities) is not dropped silently: the model is told it was attached and cannot be seen", async () => {
    const { ws, sessions } = workspace();
    const { c } = await start([{ text: "I cannot see it." }], ws, sessions);
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    const res = await c.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What is in these?" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      ],
    });
    expect(res.stopReason).toBe("end_turn");
    const sent = JSON.stringify(server!.requests.at(-1)!.body);
    expect(sent).toContain("The user attached an image, which this agent cannot see.");
    expect(sent).toContain("The user attached a recording, which this agent cannot see.");
  }, 120_000);
});
