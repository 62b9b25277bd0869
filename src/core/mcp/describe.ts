import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/**
 * An MCP server that failed, stopped or is misconfigured: its tools are not there. The other
 * states (running, cached, not approved, disabled…) are shown in the panel's MCP list, not as lines.
 */
export function describe(e: EventOf<"mcp_server">): EventNote | undefined {
  const detail = e.detail ? `: ${e.detail}` : "";
  if (e.state === "failed") return { level: "warning", text: `MCP server ${e.server} failed${detail}. Its tools are not available.` };
  if (e.state === "stopped") return { level: "warning", text: `MCP server ${e.server} stopped${detail}. Its tools are not available.` };
  if (e.state === "config_error") return { level: "warning", text: `MCP server ${e.server} is not configured correctly${detail}.` };
  return undefined;
}
