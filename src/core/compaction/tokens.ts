/**
 * Token counts for compaction decisions. The fill of the window comes from what the provider
 * reported for the last request (uncached + cached input) plus an estimate for what was added
 * since; the estimate is 4 characters a token. A real tokenizer was weighed and left out: the
 * threshold leaves a margin far larger than the estimate's error, the provider's own count
 * corrects it every turn, and an encoder table would add megabytes to the bundle.
 */
import type { SessionEvent } from "../events";
import type { ModelMessage } from "../providers/types";
import { lastCompaction, projectConversation } from "../session/projection";

export const CHARS_PER_TOKEN = 4;
/** Per message framing (role, separators) in the providers' counts, roughly. */
const MESSAGE_OVERHEAD = 4;

export const tokensOfText = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

export function messageChars(m: ModelMessage): number {
  if (m.role === "user") return m.text.length;
  if (m.role === "tool") return m.content.length + m.callId.length;
  return m.text.length + m.toolCalls.reduce((n, c) => n + c.name.length + c.id.length + JSON.stringify(c.input ?? null).length, 0);
}

export function estimateMessages(messages: readonly ModelMessage[]): number {
  return messages.reduce((n, m) => n + tokensOfText(messageChars(m)) + MESSAGE_OVERHEAD, 0);
}

/** Estimated tokens of the request the log projects to: the conversation plus the fixed part (system prompt and tools). */
export function estimateRequest(events: readonly SessionEvent[], fixedTokens: number): number {
  return fixedTokens + estimateMessages(projectConversation(events));
}

export interface Fill {
  /** Tokens the next request is expected to hold. */
  tokens: number;
  /** Part of it the provider counted (the rest is estimated). */
  reported: number;
  source: "usage" | "estimate";
}

/**
 * The fill of the context: the last reported usage (input + cache read + cache write, as the
 * providers report uncached input apart) plus the estimate of the messages after that request's
 * answer; an estimate of the whole request when no usage was reported since the last compaction.
 */
export function contextFill(events: readonly SessionEvent[], fixedTokens: number): Fill {
  let usageIdx = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    // (A request that answered an MCP server's sampling request is not this conversation's context.)
    if (e.type === "usage" && !e.sampling) {
      usageIdx = i;
      break;
    }
  }
  const compaction = lastCompaction(events);
  const usage = usageIdx >= 0 ? events[usageIdx] : undefined;
  if (!usage || usage.type !== "usage" || (compaction && compaction.seq > usage.seq)) {
    return { tokens: estimateRequest(events, fixedTokens), reported: 0, source: "estimate" };
  }
  const reported = usage.usage.inputTokens + usage.usage.cacheReadTokens + usage.usage.cacheWriteTokens;
  // The answer to that request was logged just before its usage; everything from it on is new input.
  let from = usageIdx;
  while (from > 0 && events[from]!.type !== "assistant_message") from--;
  const before = estimateMessages(projectConversation(events.slice(0, from)));
  const all = estimateMessages(projectConversation(events));
  return { tokens: reported + Math.max(0, all - before), reported, source: "usage" };
}
