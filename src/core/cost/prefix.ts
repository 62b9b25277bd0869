/**
 * Prompt-cache prefix watch: a provider's prompt cache serves the longest prefix a request shares
 * with an earlier one (tools, then the system prompt, then the messages). A request whose prefix
 * stops matching the previous request's pays for everything after the first difference again.
 * `findCacheBreak` compares two requests and names the first difference, so the user (and the
 * bench) can see when and why the cache stopped serving.
 */
import type { ModelMessage, ToolSpec } from "../providers/types";

/** What a prompt cache keys on, in the order providers lay a request out. */
export interface RequestShape {
  model: string;
  /** One canonical text per tool, in the request's order. */
  tools: readonly string[];
  toolNames: readonly string[];
  system: string;
  /** One canonical text per message. */
  messages: readonly string[];
  roles: readonly ModelMessage["role"][];
}

export type CacheBreakKind = "model" | "tools" | "system" | "messages";

export interface CacheBreak {
  kind: CacheBreakKind;
  /** One line, for the user: what changed. */
  detail: string;
  /** The first message (0-based) that differs, for `messages`. */
  messageIndex?: number;
  /** How many of the previous request's messages are still the same. */
  keptMessages: number;
}

function messageText(m: ModelMessage): string {
  switch (m.role) {
    case "user":
      return `user\n${m.text}`;
    case "assistant":
      return `assistant\n${m.text}\n${JSON.stringify(m.toolCalls)}`;
    case "tool":
      return `tool ${m.callId} ${m.name} ${m.isError ? "error" : "ok"}\n${m.content}`;
  }
}

export function requestShape(req: { model: string; system: string; tools: readonly ToolSpec[]; messages: readonly ModelMessage[] }): RequestShape {
  return {
    model: req.model,
    tools: req.tools.map((t) => JSON.stringify([t.name, t.description, t.inputSchema])),
    toolNames: req.tools.map((t) => t.name),
    system: req.system,
    messages: req.messages.map(messageText),
    roles: req.messages.map((m) => m.role),
  };
}

const list = (names: readonly string[]) => (names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", "));

function toolsChange(prev: RequestShape, next: RequestShape): string {
  const before = new Map(prev.toolNames.map((n, i) => [n, prev.tools[i]]));
  const after = new Map(next.toolNames.map((n, i) => [n, next.tools[i]]));
  const added = next.toolNames.filter((n) => !before.has(n));
  const removed = prev.toolNames.filter((n) => !after.has(n));
  const changed = next.toolNames.filter((n) => before.has(n) && before.get(n) !== after.get(n));
  const parts = [added.length ? `added ${list(added)}` : "", removed.length ? `removed ${list(removed)}` : "", changed.length ? `changed ${list(changed)}` : ""].filter(Boolean);
  return parts.length ? parts.join("; ") : "the same tools in another order";
}

/**
 * The first difference that keeps `next` from reusing `prev`'s cached prefix, or undefined when
 * `next` only appends to it. The last message of `prev` may grow (a provider lays appended text of
 * the same role after it), every earlier one must be equal.
 */
export function findCacheBreak(prev: RequestShape, next: RequestShape): CacheBreak | undefined {
  if (prev.model !== next.model) return { kind: "model", detail: `the model changed (${prev.model} → ${next.model}); a cache belongs to one model`, keptMessages: 0 };
  if (prev.tools.length !== next.tools.length || prev.tools.some((t, i) => t !== next.tools[i])) {
    return { kind: "tools", detail: `the tool list changed (${toolsChange(prev, next)})`, keptMessages: 0 };
  }
  if (prev.system !== next.system) return { kind: "system", detail: "the system prompt changed", keptMessages: 0 };
  const n = prev.messages.length;
  for (let i = 0; i < n; i++) {
    const a = prev.messages[i]!;
    const b = next.messages[i];
    if (b === a) continue;
    const last = i === n - 1;
    if (b !== undefined && last && prev.roles[i] === next.roles[i] && b.startsWith(a)) continue;
    if (b === undefined) {
      return { kind: "messages", detail: `${n - i} earlier message(s) were removed (the conversation is shorter than the previous request's)`, messageIndex: i, keptMessages: i };
    }
    return { kind: "messages", detail: `message ${i + 1} of ${n} was rewritten (${prev.roles[i]}${prev.roles[i] === next.roles[i] ? "" : ` → ${next.roles[i]}`})`, messageIndex: i, keptMessages: i };
  }
  return undefined;
}
