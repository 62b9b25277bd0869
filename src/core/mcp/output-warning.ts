/**
 * Claude Code warns the person when an MCP tool result or resource is over 10,000 tokens (whatever
 * MAX_MCP_OUTPUT_TOKENS is): a large result fills the context quickly. Yoke records an `mcp_output`
 * event for it (the panel and the CLI show it, src/core/mcp/describe.ts); the model is never told.
 * Tokens are counted as the context meter counts them (CHARS_PER_TOKEN characters a token), on the
 * whole result (text and described content), before any bound cuts it.
 */
import { CHARS_PER_TOKEN } from "../compaction/tokens";
import type { ToolContext } from "../tools/types";

export const MCP_OUTPUT_WARN_TOKENS = 10_000;

/** Records the warning when `text` (the whole result) is over MCP_OUTPUT_WARN_TOKENS. */
export function warnLargeOutput(ctx: Pick<ToolContext, "record" | "callId">, from: { server: string; tool: string } | { server: string; uri: string }, text: string, boundTokens?: number): void {
  const tokens = Math.ceil(text.length / CHARS_PER_TOKEN);
  if (tokens <= MCP_OUTPUT_WARN_TOKENS) return;
  ctx.record({ type: "mcp_output", callId: ctx.callId, ...from, tokens, ...(boundTokens ? { boundTokens } : {}) });
}
