// Issue 22, open from session 19: an ACP editor that passed an MCP server (session/new
// `mcpServers`) which cannot start was told nothing, and the model met only "Unknown tool". Now the
// editor gets an agent message (the one session update ACP's schema has for words to the person)
// and the model is told with its next request. The SDK's own client, the built `yoke acp`, a real
// server beside the broken one (server-everything), every update checked against the SDK's schema.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import * as schema from "../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { chunkText, startAcpClient } from "../support/acp-client";
import { ensureBuilt } from "../support/cli";
import { EVERYTHING } from "../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

it("session/new with a server that cannot start: the editor gets an agent message naming it, the model is told, the other server's tools work", async () => {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp20-acp-", {}, temps, { realpath: true });
  const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__fine__echo", input: { message: "ok" } }] }, { text: "done" }] });
  const c = startAcpClient(
    ["--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--session-dir", join(home, "sessions"), "--permission-mode", "bypassPermissions"],
    {},
    { cwd, env: { HOME: home, XDG_CONFIG_HOME: undefined } },
  );
  try {
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await c.agent.request("session/new", {
      cwd,
      mcpServers: [
        { name: "broken", command: join(cwd, "no-such-server"), args: [], env: [] },
        { name: "fine", command: process.execPath, args: [EVERYTHING, "stdio"], env: [] },
      ],
    });
    const deadline = Date.now() + 20_000;
    while (!chunkText(c.updates, "agent_message_chunk").includes("broken") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const told = chunkText(c.updates, "agent_message_chunk");
    expect(told).toMatch(/MCP server broken failed.*command not found.*Its tools are not available/s);
    expect(told).not.toContain("fine");
    for (const u of c.updates) expect(() => schema.zSessionNotification.parse(u)).not.toThrow();
    expect(c.updates.every((u) => u.sessionId === sessionId)).toBe(true);

    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    const first = JSON.stringify(llm.requests[0]!.body.messages);
    expect(first).toContain('The MCP server \\"broken\\" failed to start: its tools are not available in this session');
    expect(first).not.toContain("command not found"); // the reason is the person's to read
    expect(JSON.stringify(llm.requests[1]!.body.messages)).toContain("Echo: ok");
  } finally {
    await c.close();
    await llm.close();
  }
}, 120_000);
