import type { EventNote } from "../event-note";
import type { EventOf } from "../events";
import { MCP_OUTPUT_WARN_TOKENS } from "./output-warning";

/**
 * An MCP server that failed, stopped or is misconfigured: its tools are not there. The other
 * states (running, cached, not approved, disabled…) are shown in the panel's MCP list, not as lines.
 */
export function describe(e: EventOf<"mcp_server">): EventNote | undefined {
  const detail = e.detail ? `: ${e.detail}` : "";
  if (e.state === "failed") return { level: "warning", text: `MCP server ${e.server} failed${detail}. Its tools are not available.` };
  if (e.state === "stopped") return { level: "warning", text: `MCP server ${e.server} stopped${detail}. Its tools are not available.` };
  if (e.state === "config_error") return { level: "warning", text: `MCP server ${e.server} is not configured correctly${detail}.` };
  // A running server with a detail: its tool list changed.
  if (e.state === "running" && e.detail) return { level: "info", text: `MCP server ${e.server}: ${e.detail}.` };
  return undefined;
}

/** A running call's progress: "⋯ everything: trigger-long-running-operation 3/6 (50%) message". */
export function describeProgress(e: EventOf<"mcp_progress">): EventNote {
  const of = e.total !== undefined && e.total > 0 ? `${e.progress}/${e.total} (${Math.round((e.progress / e.total) * 100)}%)` : `${e.progress}`;
  return { level: "info", mark: "  ⋯", text: `${e.server}: ${e.tool} ${of}${e.message ? ` ${e.message}` : ""}` };
}

/** A server's sampling request or elicitation and its outcome: "MCP server everything asked the model (sampling): answered — 12 tokens". */
export function describeRequest(e: EventOf<"mcp_request">): EventNote {
  const what = e.kind === "sampling" ? "asked the model (sampling)" : "asked you for input (elicitation)";
  const bad = e.outcome === "denied" || e.outcome === "failed";
  return { level: bad ? "warning" : "info", text: `MCP server ${e.server} ${what}: ${e.outcome}${e.detail ? ` — ${e.detail}` : ""}` };
}

/**
 * A large MCP result (over 10,000 tokens, as Claude Code warns): what returned it, how large, and
 * what the model was shown of it. "⚠ MCP tool everything: echo returned about 11,300 tokens…".
 */
export function describeOutput(e: EventOf<"mcp_output">): EventNote {
  const what = e.uri !== undefined ? `MCP resource ${e.server}: ${e.uri}` : `MCP tool ${e.server}: ${e.tool ?? "?"}`;
  const shown =
    e.boundTokens !== undefined
      ? `the model was shown at most ${e.boundTokens.toLocaleString("en-US")} tokens of it (MAX_MCP_OUTPUT_TOKENS=${e.boundTokens}); the whole is kept for recall`
      : "large results fill the context quickly (MAX_MCP_OUTPUT_TOKENS bounds what the model is shown of one)";
  return { level: "warning", text: `Large MCP output: ${what} returned about ${e.tokens.toLocaleString("en-US")} tokens, over ${MCP_OUTPUT_WARN_TOKENS.toLocaleString("en-US")}: ${shown}.` };
}
