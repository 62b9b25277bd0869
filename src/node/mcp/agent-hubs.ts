/**
 * The MCP servers custom agents brought (their inline `mcpServers`, src/node/subagent-settings.ts):
 * each agent run has its own hub, started with the agent and stopped when it ends, invisible to
 * the session's own hub. This registry lists them for the panel's MCP view (src/host/mcp.ts),
 * under their agent: live while the agent runs, then kept as the run left them (state `stopped`)
 * until the window's next session begins.
 *
 * Kept on globalThis: the host's bundle and the session's bundle each have their own copy of
 * this module (as src/node/mcp/oauth-redirect.ts's sign-ins).
 */
import type { McpHub, McpServerStatus } from "../../core/mcp/types";

export interface AgentServers {
  /** The agent's name and the file that defines it. */
  agent: string;
  agentSource: string;
  /** Its run still goes on (its servers may run). */
  running: boolean;
  servers: McpServerStatus[];
}

/** At most this many finished agent runs are kept (the newest). */
const KEEP_FINISHED = 20;

export class AgentMcpRegistry {
  private readonly entries: Array<{ agent: string; agentSource: string; hub?: McpHub; ended?: McpServerStatus[] }> = [];
  private readonly listeners = new Set<() => void>();

  /** An agent's hub for its run; call the result when the run ends (before the hub is disposed). */
  add(agent: { name: string; source: string }, hub: McpHub): () => void {
    const entry: { agent: string; agentSource: string; hub?: McpHub; ended?: McpServerStatus[] } = { agent: agent.name, agentSource: agent.source, hub };
    this.entries.push(entry);
    const sub = hub.onChange(() => this.fire());
    this.fire();
    return () => {
      if (!entry.hub) return;
      sub.dispose();
      entry.ended = hub.status().map((s) => ({ ...s, state: "stopped" as const, detail: `the agent ${agent.name} finished: its servers stopped with it` }));
      delete entry.hub;
      const finished = this.entries.filter((e) => e.ended);
      for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) this.entries.splice(this.entries.indexOf(old), 1);
      this.fire();
    };
  }

  list(): AgentServers[] {
    return this.entries.map((e) => ({ agent: e.agent, agentSource: e.agentSource, running: !!e.hub, servers: e.hub ? e.hub.status() : (e.ended ?? []) }));
  }

  /** Forgets the finished runs (a new session begins); the running ones stay. */
  clearFinished(): void {
    const before = this.entries.length;
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.ended) this.entries.splice(i, 1);
    if (this.entries.length !== before) this.fire();
  }

  onChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(): void {
    for (const l of [...this.listeners]) l();
  }
}

const KEY = Symbol.for("yoke.mcp.agentHubs");

/** The process's one registry (an extension host serves one window). */
export function agentMcpRegistry(): AgentMcpRegistry {
  const g = globalThis as { [KEY]?: AgentMcpRegistry };
  return (g[KEY] ??= new AgentMcpRegistry());
}
