// The panel's MCP view model (src/node/mcp/server-views.ts) with custom agents' own servers
// (src/node/mcp/agent-hubs.ts): the session's rows first, then each agent's under it (marked with
// the agent and whether it still runs, its file as the source, never approvable here); the
// registry follows an agent run's hub live, keeps its last state (stopped) once it ends, and
// forgets finished runs when a new session begins.
import { describe, expect, it } from "vitest";
import type { McpHub, McpServerStatus } from "../../../src/core/mcp/types";
import { AgentMcpRegistry } from "../../../src/node/mcp/agent-hubs";
import { serverViews, VIEW_LOGS } from "../../../src/node/mcp/server-views";

function status(name: string, state: McpServerStatus["state"], o: { workspace?: boolean; tools?: string[]; source?: string } = {}): McpServerStatus {
  return {
    config: {
      name,
      transport: "stdio",
      command: "node",
      args: [],
      sourcePath: o.source ?? ".mcp.json",
      source: "workspace-mcp-json",
      workspace: o.workspace ?? false,
    } as unknown as McpServerStatus["config"],
    state,
    ...(o.tools ? { tools: o.tools.map((t) => ({ name: t, inputSchema: {} })) } : {}),
  };
}

/** A hub stand-in: its status and change listeners (the registry uses nothing else). */
function fakeHub(initial: McpServerStatus[]) {
  let current = initial;
  const listeners = new Set<(s: McpServerStatus) => void>();
  const hub = {
    status: () => current,
    onChange: (l: (s: McpServerStatus) => void) => (listeners.add(l), { dispose: () => listeners.delete(l) }),
  } as unknown as McpHub;
  return { hub, set: (next: McpServerStatus[]) => ((current = next), listeners.forEach((l) => l(next[0]!))), listeners };
}

describe("serverViews", () => {
  it("the session's servers, then each agent's under it; an agent's server is never a workspace server of this view", () => {
    const rows = serverViews(
      [status("fs", "running", { tools: ["read"] }), status("repo", "not_approved", { workspace: true })],
      [{ agent: "echoer", agentSource: ".claude/agents/echoer.md", running: true, servers: [status("agentsrv", "running", { workspace: true, tools: ["echo", "add"] })] }],
    );
    expect(rows).toEqual([
      { name: "fs", state: "running", source: ".mcp.json", tools: ["read"] },
      { name: "repo", state: "not_approved", source: ".mcp.json", tools: [], workspace: true },
      { name: "agentsrv", state: "running", source: ".claude/agents/echoer.md", tools: ["echo", "add"], agent: "echoer", agentRunning: true },
    ]);
  });
});

describe("AgentMcpRegistry", () => {
  it("follows a run's hub live, keeps its last state as stopped when it ends, and clears finished runs", () => {
    const reg = new AgentMcpRegistry();
    let fired = 0;
    reg.onChange(() => fired++);
    const h = fakeHub([status("agentsrv", "starting")]);
    const end = reg.add({ name: "echoer", source: "~/.claude/agents/echoer.md" }, h.hub);
    expect(fired).toBe(1);
    expect(reg.list()).toEqual([{ agent: "echoer", agentSource: "~/.claude/agents/echoer.md", running: true, servers: [expect.objectContaining({ state: "starting" })] }]);
    h.set([status("agentsrv", "running", { tools: ["echo"] })]);
    expect(fired).toBe(2);
    expect(reg.list()[0]!.servers[0]!.state).toBe("running");
    end();
    expect(h.listeners.size).toBe(0);
    expect(reg.list()).toEqual([
      {
        agent: "echoer",
        agentSource: "~/.claude/agents/echoer.md",
        running: false,
        servers: [expect.objectContaining({ state: "stopped", detail: "the agent echoer finished: its servers stopped with it", tools: [{ name: "echo", inputSchema: {} }] })],
      },
    ]);
    end(); // twice: nothing more
    expect(fired).toBe(3);
    const running = reg.add({ name: "other", source: "a.md" }, fakeHub([status("s", "running")]).hub);
    reg.clearFinished();
    expect(reg.list().map((e) => [e.agent, e.running])).toEqual([["other", true]]);
    running();
  });
  it("keeps at most 20 finished runs (the newest)", () => {
    const reg = new AgentMcpRegistry();
    for (let i = 0; i < 25; i++) reg.add({ name: `a${i}`, source: "x.md" }, fakeHub([status("s", "running")]).hub)();
    const names = reg.list().map((e) => e.agent);
    expect(names).toHaveLength(20);
    expect(names[0]).toBe("a5");
    expect(names[19]).toBe("a24");
  });
  it("a server's last log messages (at most VIEW_LOGS, oldest first) go to its row", () => {
    const logs = Array.from({ length: 14 }, (_, i) => ({ level: i % 2 ? "error" : "info", text: `line ${i}`, at: `2026-12-05T21:40:${String(i).padStart(2, "0")}.000Z` }));
    const [row] = serverViews([{ ...status("everything", "running"), logs }], []);
    expect(row?.logs).toHaveLength(VIEW_LOGS);
    expect(row?.logs?.[0]).toBe("21:40:04 info line 4");
    expect(row?.logs?.at(-1)).toBe("21:40:13 error line 13");
    expect(serverViews([status("quiet", "running")], [])[0]).not.toHaveProperty("logs");
  });
});
