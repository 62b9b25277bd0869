/** Conversation fixes both wire formats need before a history is sent. */
import type { ModelMessage } from "./types";

const MISSING = "No result: the tool call was interrupted before it finished.";

/**
 * Every tool call gets a result right after its assistant message (a placeholder when the log
 * has none, e.g. after a crash), and results without a call become plain user text: both APIs
 * reject unpaired tool calls and results.
 */
export function pairToolResults(messages: ModelMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  let pending = new Map<string, string>();
  const flush = () => {
    for (const [callId, name] of pending) out.push({ role: "tool", callId, name, content: MISSING, isError: true });
    pending = new Map();
  };
  for (const m of messages) {
    if (m.role === "tool") {
      if (pending.delete(m.callId)) out.push(m);
      else out.push({ role: "user", text: `[result of ${m.name}]\n${m.content}`, ...(m.images?.length ? { images: m.images } : {}) });
      continue;
    }
    flush();
    out.push(m);
    if (m.role === "assistant") for (const c of m.toolCalls) pending.set(c.id, c.name);
  }
  flush();
  return out;
}

/** Tool-call arguments as an object (Anthropic) — a raw string that is JSON is parsed, anything else becomes {}. */
export function inputObject(input: unknown): Record<string, unknown> {
  if (input && typeof input === "object" && !Array.isArray(input)) return input as Record<string, unknown>;
  if (typeof input === "string") {
    try {
      const parsed: unknown = JSON.parse(input);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // not JSON: fall through
    }
  }
  return {};
}

/** Tool-call arguments as the JSON string OpenAI expects (a raw string is sent back as it was). */
export function inputString(input: unknown): string {
  return typeof input === "string" ? input : JSON.stringify(input ?? {});
}

/** Parsed JSON arguments, or the raw string when they do not parse. Empty means no arguments. */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
