/**
 * What the panel's MCP view shows (src/host/mcp.ts posts it, webview/views/mcp-servers.ts draws
 * it): the session's servers, then the servers each custom agent brought (its inline
 * `mcpServers`, src/node/mcp/agent-hubs.ts) under that agent. Plain code: unit-tested.
 */
import type { McpServerStatus } from "../../core/mcp/types";
import type { AgentServers } from "./agent-hubs";

/** What the panel shows of one server. */
export interface McpServerView {
  name: string;
  state: string;
  detail?: string;
  source: string;
  tools: string[];
  lastError?: string;
  workspace?: boolean;
  /** The custom agent that brought it (its own `mcpServers`); absent: the session's. */
  agent?: string;
  /** That agent's run goes on (false: it finished, and its servers stopped with it). */
  agentRunning?: boolean;
  /** Its last log messages (MCP logging), oldest first: "HH:MM:SS level text". */
  logs?: string[];
}

/** Log messages the view shows per server, at most (the status keeps MCP_LOG_KEPT). */
export const VIEW_LOGS = 10;

export function serverView(s: McpServerStatus): McpServerView {
  return {
    name: s.config.name,
    state: s.state,
    ...(s.detail ? { detail: s.detail } : {}),
    source: s.config.sourcePath,
    tools: (s.tools ?? []).map((t) => t.name),
    ...(s.lastError ? { lastError: `${s.lastError.message} (${s.lastError.at.slice(11, 19)} UTC)` } : {}),
    ...(s.config.workspace ? { workspace: true } : {}),
    ...(s.logs?.length ? { logs: s.logs.slice(-VIEW_LOGS).map((l) => `${l.at.slice(11, 19)} ${l.level} ${l.text}`) } : {}),
  };
}

/**
 * The session's servers, then each agent run's servers marked with the agent. An agent's server
 * is not the session's: no `workspace` mark (its approval is `yoke mcp approve NAME` or the
 * agent's start, not this view's buttons); its source is the agent's file.
 */
export function serverViews(session: readonly McpServerStatus[], agents: readonly AgentServers[]): McpServerView[] {
  const rows = session.map(serverView);
  for (const a of agents)
    for (const s of a.servers) {
      const { workspace: _w, ...v } = serverView(s);
      void _w;
      rows.push({ ...v, source: a.agentSource, agent: a.agent, agentRunning: a.running });
    }
  return rows;
}
