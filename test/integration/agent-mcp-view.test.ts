// The panel's MCP view lists the servers a custom agent brought (its inline `mcpServers`), under
// that agent, with their state and tools (src/node/mcp/agent-hubs.ts → src/node/mcp/server-views.ts,
// which src/host/mcp.ts posts to the panel). A full in-process session with the scripted model and
// a real MCP server from npm (@modelcontextprotocol/server-everything): while the agent's request
// is being answered the view shows the agent running and its server running with its tools; after
// the agent ends, the agent finished and its server stopped; a new session clears it.
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import { agentMcpRegistry } from "../../src/node/mcp/agent-hubs";
import { serverViews, type McpServerView } from "../../src/node/mcp/server-views";
import { ensureBuilt } from "../support/cli";
import { pidsOf } from "../support/processes";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
type Json = Record<string, unknown>;
const depthOf = (r: RecordedRequest) => Number(/You are a sub-agent \(depth (\d+)\)/.exec(String(((r.body.messages as Json[])[0] as { content?: unknown }).content ?? ""))?.[1] ?? 0);

describe("the MCP view lists an agent's own servers", () => {
  it("under the agent, running with its tools while it runs; stopped once it finished; cleared by a new session", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-mcp-view-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    write(join(ws, "README.md"), "# app\n");
    write(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__agentsrv"] } }));
    const cmd = [process.execPath, EVERYTHING, "stdio", `--yoke-test=view-${process.pid}`];
    const agentFile = join(home, ".claude", "agents", "echoer.md");
    write(
      agentFile,
      [
        "---",
        "name: echoer",
        "description: Echoes through its own server",
        "tools: Read, mcp__agentsrv",
        "mcpServers:",
        "  - agentsrv:",
        `      command: ${JSON.stringify(cmd[0])}`,
        `      args: ${JSON.stringify(cmd.slice(1))}`,
        "---",
        "You echo.",
        "",
      ].join("\n"),
    );
    // What the view showed while the agent's second request was answered (its server had run its call).
    let during: McpServerView[] = [];
    const queues: Record<number, ScriptedTurn[]> = {
      0: [{ toolCalls: [{ name: "task", input: { description: "Echo", prompt: "Echo 'hi'.", subagent_type: "echoer" } }] }, { text: "Done." }],
      1: [{ toolCalls: [{ name: "mcp__agentsrv__echo", input: { message: "hi" } }] }, { text: "Echoed." }],
    };
    const llm = await startScriptedLlmServer({
      script: async (r: RecordedRequest) => {
        const depth = depthOf(r);
        if (depth === 1 && queues[1]!.length === 1) during = serverViews([], agentMcpRegistry().list());
        return queues[depth]?.shift() ?? { text: "(no more turns)" };
      },
    });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const setup = await buildCliSession({ cwd: ws, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(dir, "sessions"), json: false, trust: true });
      const s = await AgentSession.create(setup.options);
      await s.send("echo it");
      await setup.dispose();
    } finally {
      process.env.HOME = saved;
      await llm.close();
    }
    const row = during.find((v) => v.name === "agentsrv");
    expect(row).toMatchObject({ agent: "echoer", agentRunning: true, state: "running", source: "~/.claude/agents/echoer.md" });
    expect(row!.tools).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(row!.workspace).toBeUndefined();
    // The agent ended: listed as finished, its server stopped with it (and no process is left).
    const after = serverViews([], agentMcpRegistry().list()).filter((v) => v.agent === "echoer");
    expect(after).toEqual([expect.objectContaining({ name: "agentsrv", agent: "echoer", agentRunning: false, state: "stopped", detail: "the agent echoer finished: its servers stopped with it" })]);
    expect(after[0]!.tools).toEqual(expect.arrayContaining(["echo"]));
    expect(pidsOf(cmd)).toEqual([]);
    // A new session of the window (src/host/mcp.ts) clears the finished runs.
    agentMcpRegistry().clearFinished();
    expect(agentMcpRegistry().list()).toEqual([]);
  }, 180_000);
});
