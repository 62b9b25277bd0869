/**
 * Token accounting of the task benchmark: what one request to the model costs in input tokens
 * (fresh and cached prefix) and what its answer costs in output tokens, counted with a real
 * tokenizer (js-tiktoken o200k_base) over the text the model would see.
 */
import { createRequire } from "node:module";
import type { RecordedRequest } from "../../demo/types";

type Encoder = { encode(text: string): number[] };

let encoder: Encoder | undefined;

/** js-tiktoken (o200k_base), loaded at run time so its ranks stay out of the CLI bundle. */
function tokenizer(): Encoder {
  if (encoder) return encoder;
  const req = createRequire(__filename);
  const { Tiktoken } = req("js-tiktoken/lite") as { Tiktoken: new (ranks: unknown) => Encoder };
  const ranks = req("js-tiktoken/ranks/o200k_base") as { default?: unknown };
  encoder = new Tiktoken(ranks.default ?? ranks);
  return encoder;
}

const memo = new Map<string, number>();

/** Tokens of a text (memoised: the same message is counted once per run of the bench). */
export function countTokens(text: string): number {
  let n = memo.get(text);
  if (n === undefined) {
    n = text ? tokenizer().encode(text).length : 0;
    if (memo.size > 50_000) memo.clear();
    memo.set(text, n);
  }
  return n;
}

/** Chat-format overhead per message (role markers), as in OpenAI's token-counting guide. */
export const TOKENS_PER_MESSAGE = 3;

type Json = Record<string, unknown>;
const asArray = (x: unknown): Json[] => (Array.isArray(x) ? (x as Json[]) : []);

/** The text of a message's content: a string, or blocks (text, tool calls, tool results) in either wire format. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((p) => {
      if (p.type === "tool_use") return `${String(p.name)} ${JSON.stringify(p.input ?? {})}`;
      if (p.type === "tool_result") return contentText(p.content);
      return typeof p.text === "string" ? p.text : "";
    })
    .join("\n");
}

/**
 * The request as the segments a provider's prompt cache sees, in order: the tool definitions,
 * the system prompt, then each message (role, text, tool calls with their JSON arguments, tool results).
 */
export function requestSegments(req: RecordedRequest): string[] {
  const segments = [JSON.stringify(req.body.tools ?? [])];
  if (req.body.system !== undefined) segments.push(`system\n${contentText(req.body.system)}`);
  for (const m of asArray(req.body.messages)) {
    const calls = asArray(m.tool_calls).map((c) => {
      const fn = (c.function ?? {}) as Json;
      return `\n${String(fn.name)} ${typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {})}`;
    });
    segments.push(`${String(m.role)}\n${contentText(m.content)}${calls.join("")}`);
  }
  return segments;
}

/**
 * The shortest prefix the priced model's prompt cache keeps (Claude Sonnet 4.5: 1,024 tokens, per
 * Anthropic's prompt-caching documentation; OpenAI's automatic caching starts at 1,024 too): a
 * request whose shared prefix is shorter is served nothing from the cache and pays it all as fresh.
 */
export const MIN_CACHEABLE_TOKENS = 1024;

export interface RequestTokens {
  input: number;
  /** Tokens of the leading segments equal to the previous request's: what an ideal prompt cache would serve. */
  shared: number;
  /** What the priced model's cache serves of it: `shared`, or 0 when it is shorter than MIN_CACHEABLE_TOKENS. */
  cached: number;
}

/** Input tokens of a request, and how many of them the previous request of the same run already had as its prefix. */
export function requestTokens(segments: string[], previous: string[] | undefined, minCacheable = MIN_CACHEABLE_TOKENS): RequestTokens {
  let input = 0;
  let shared = 0;
  let prefix = previous !== undefined;
  segments.forEach((s, i) => {
    const n = countTokens(s) + (i === 0 ? 0 : TOKENS_PER_MESSAGE);
    input += n;
    if (prefix && previous![i] === s) shared += n;
    else prefix = false;
  });
  return { input, shared, cached: shared >= minCacheable ? shared : 0 };
}

/** Output tokens of an answer: its text and each tool call's name and JSON arguments. */
export function answerTokens(text: string | undefined, calls: Array<{ name: string; input: unknown }>): number {
  return countTokens(text ?? "") + calls.reduce((n, c) => n + countTokens(`${c.name} ${JSON.stringify(c.input)}`), 0);
}

/** The stated price table (USD per million tokens). */
export const PRICES = { name: "Claude Sonnet 4.5 list prices", inputPerM: 3, cacheWritePerM: 3.75, cachedInputPerM: 0.3, outputPerM: 15 };

/**
 * The price of a run's tokens: `fresh` input (not served from the cache), of which `written` went
 * into the cache (5-minute cache writes cost 1.25x input), `cached` input read from it, and output.
 */
export function costUsd(fresh: number, cached: number, output: number, written = 0): number {
  return ((fresh - written) * PRICES.inputPerM + written * PRICES.cacheWritePerM + cached * PRICES.cachedInputPerM + output * PRICES.outputPerM) / 1e6;
}

/**
 * What a request writes to the cache: Yoke marks its newest message (Anthropic's cache_control),
 * so every fresh token is written, once the prompt reaches MIN_CACHEABLE_TOKENS (shorter: nothing).
 */
export function writtenTokens(t: Pick<RequestTokens, "input" | "cached">, minCacheable = MIN_CACHEABLE_TOKENS): number {
  return t.input >= minCacheable ? t.input - t.cached : 0;
}

/**
 * Where a request's input tokens go, by part: each tool definition (`tool NAME`), the system
 * prompt (`system`), and the messages (`messages`). Adds up to `requestTokens(…).input`.
 */
export function requestParts(req: RecordedRequest): Map<string, number> {
  const parts = new Map<string, number>();
  const tools = asArray(req.body.tools);
  // The tool list is one segment (one JSON array): its tokens are shared out by each definition's own count, the rest ("[", ",", "]") to the list.
  const whole = countTokens(JSON.stringify(req.body.tools ?? []));
  let shared = 0;
  for (const t of tools) {
    const n = countTokens(JSON.stringify(t));
    parts.set(`tool ${String(t.name)}`, n);
    shared += n;
  }
  if (whole > shared) parts.set("tool list (separators)", whole - shared);
  const segments = requestSegments(req);
  let i = 1;
  if (req.body.system !== undefined) parts.set("system", countTokens(segments[i++]!) + TOKENS_PER_MESSAGE);
  let messages = 0;
  for (; i < segments.length; i++) messages += countTokens(segments[i]!) + TOKENS_PER_MESSAGE;
  parts.set("messages", messages);
  return parts;
}

/**
 * The fresh part of a request (segments after the prefix it shares with the previous one), by
 * what each segment is: `call NAME` (the model's tool calls, by the first call's tool), `result
 * NAME` (the tool results that follow), `text` (other messages). For run_command the command's
 * first word is part of the name (`run_command:grep`), so a bash-only policy's reads, searches and
 * edits can be told apart.
 */
export function freshParts(segments: string[], previous: string[] | undefined, into: Map<string, number>): void {
  let i = 0;
  if (previous) while (i < segments.length && i < previous.length && segments[i] === previous[i]) i++;
  let last = "text";
  for (; i < segments.length; i++) {
    const s = segments[i]!;
    const n = countTokens(s) + (i === 0 ? 0 : TOKENS_PER_MESSAGE);
    let key: string;
    if (i === 0) key = "tool definitions";
    else if (s.startsWith("system\n")) key = "system";
    else if (s.startsWith("assistant\n")) {
      const call = /^assistant\n(\w+) (\{.*)?/s.exec(s);
      if (call) {
        const cmd = call[1] === "run_command" ? /"command":"(\S+?)[\s"]/.exec(call[2] ?? "") : null;
        last = cmd ? `run_command:${cmd[1]!.replace(/\\.*/, "")}` : call[1]!;
        key = `call ${last}`;
      } else key = "text";
    } else if (s.startsWith("user\n") && last !== "text") key = `result ${last}`;
    else key = "text";
    into.set(key, (into.get(key) ?? 0) + n);
  }
}
