/**
 * What one compaction does, computed from the log alone (a pure function): phases cheapest
 * first, each stopping the next when the context is small enough.
 *
 * 1. reasoning: Yoke never re-sends a model's reasoning (it stays in the log), so this phase
 *    frees nothing and is logged as such;
 * 2. tool_results: large tool results outside the recent turns become a stub naming the call
 *    and a `ref` that `recall` answers with the original bytes;
 * 3. summary: the turns before a boundary become an anchored summary (extractive, or an LLM's
 *    when the caller supplies one), and the user's constraint messages, the guidance in force
 *    and the open todo list are re-sent verbatim.
 */
import type { EventOf, SessionEvent } from "../events";
import { lastCompaction, projectConversation } from "../session/projection";
import { pickUserMessages } from "./constraints";
import { extractItems, renderSummary } from "./extractive";
import { refOf, stubText } from "./render";
import { estimateMessages, tokensOfText } from "./tokens";

export type CompactionTrigger = EventOf<"compaction">["trigger"];
export type CompactionEventData = Omit<EventOf<"compaction">, "seq" | "ts">;

/** What compaction needs to know about a tool (from its definition), never its name. */
export interface ToolFacts {
  reads?: boolean;
  writes?: boolean;
  /** Arguments that name paths. */
  pathArgs?: readonly string[];
}

export interface PlanOptions {
  trigger: CompactionTrigger;
  /** Tokens of the system prompt and tool list (sent with every request). */
  fixedTokens: number;
  /** The context should hold at most this many tokens after the compaction. */
  targetTokens: number;
  /** Tokens of recent conversation kept verbatim when turns are summarised. */
  keepTailTokens: number;
  /** Tool results at least this long are candidates for a stub. */
  minStubChars?: number;
  /** The most recent tool results never stubbed. */
  keepRecentResults?: number;
  describeTool?: (name: string) => ToolFacts | undefined;
  /** The summary of the events before the boundary, when the caller wrote one (strategy "llm"). */
  summarize?: (input: SummaryInput) => string | undefined;
  /** Instructions from compaction handlers (a PreCompact hook): recorded, and given to an LLM summary. */
  instructions?: string[];
  /** Forces phase 3 even when stubs alone would do (a manual compaction). */
  forceSummary?: boolean;
}

export interface SummaryInput {
  previous?: string;
  events: readonly SessionEvent[];
  boundary: number;
}

export interface CompactionPlan {
  event: CompactionEventData;
  /** Nothing could be freed: no event should be appended. */
  empty: boolean;
}

const DEFAULT_MIN_STUB = 2_000;
const DEFAULT_KEEP_RECENT = 4;

export function planCompaction(events: readonly SessionEvent[], opts: PlanOptions): CompactionPlan {
  const prev = lastCompaction(events);
  const visibleFrom = prev?.firstKeptSeq ?? 0;
  const conv = (c: CompactionEventData) => opts.fixedTokens + estimateMessages(projectConversation([...events, { ...c, seq: nextSeq(events), ts: "" }]));
  const before = opts.fixedTokens + estimateMessages(projectConversation(events));
  const calls = callIndex(events);

  // Phase 1: reasoning.
  const reasoningChars = events.reduce((n, e) => n + (e.type === "assistant_message" && e.seq >= visibleFrom ? (e.reasoning?.length ?? 0) : 0), 0);
  const phases: CompactionEventData["phases"] = [
    { name: "reasoning", savedTokens: 0, detail: `reasoning is never re-sent to the model (${reasoningChars.toLocaleString("en-US")} characters of it stay in the log only)` },
  ];

  // Phase 2: stubs for large old tool results.
  const stubs = new Map((prev?.stubs ?? []).map((s) => [s.seq, s.ref]));
  const results = events.filter((e): e is EventOf<"tool_result"> => e.type === "tool_result" && e.seq >= visibleFrom);
  const candidates = results
    .slice(0, Math.max(0, results.length - (opts.keepRecentResults ?? DEFAULT_KEEP_RECENT)))
    .filter((r) => r.output.length >= (opts.minStubChars ?? DEFAULT_MIN_STUB) && !stubs.has(r.seq));
  let estimate = before;
  let stubSaved = 0;
  let stubbed = 0;
  for (const r of candidates) {
    if (estimate <= opts.targetTokens) break;
    const ref = refOf(r.callId);
    const saved = tokensOfText(r.output.length) - tokensOfText(stubText(r, ref, calls.get(r.callId)?.summary).length);
    if (saved <= 0) continue;
    stubs.set(r.seq, ref);
    estimate -= saved;
    stubSaved += saved;
    stubbed++;
  }
  phases.push({ name: "tool_results", savedTokens: stubSaved, detail: `${stubbed} large tool result(s) replaced by a stub with a recall ref` });

  const base = (firstKeptSeq: number, summary: string, extra: Partial<CompactionEventData> = {}): CompactionEventData => ({
    type: "compaction",
    trigger: opts.trigger,
    strategy: "extractive",
    firstKeptSeq,
    summary,
    keptUserSeqs: prev?.keptUserSeqs ?? [],
    persistedSeqs: prev?.persistedSeqs ?? [],
    ...(prev?.todosSeq !== undefined ? { todosSeq: prev.todosSeq } : {}),
    stubs: [...stubs].filter(([seq]) => seq >= firstKeptSeq).map(([seq, ref]) => ({ seq, ref })),
    references: references(events, calls),
    ...files(events, calls, opts.describeTool),
    phases,
    tokensBefore: before,
    tokensAfter: 0,
    ...(opts.instructions?.length ? { instructions: opts.instructions } : {}),
    ...extra,
  });

  let event = base(visibleFrom, prev?.summary ?? "");
  if (estimate > opts.targetTokens || opts.forceSummary) {
    const boundary = chooseBoundary(events, visibleFrom, opts.keepTailTokens, stubs);
    if (boundary !== undefined) {
      const compacted = events.filter((e) => e.seq >= visibleFrom && e.seq < boundary);
      const allBefore = events.filter((e) => e.seq < boundary);
      const userMsgs = allBefore.filter((e): e is EventOf<"user_message"> => e.type === "user_message");
      const keptUser = pickUserMessages(userMsgs, Math.max(2_000, opts.targetTokens * 4 * 0.25));
      const keptSet = new Set(keptUser);
      const summarisedUser = new Set(userMsgs.filter((m) => !keptSet.has(m.seq)).map((m) => m.seq));
      const firstUser = userMsgs[0];
      const llm = opts.summarize?.({ previous: prev?.summary || undefined, events: compacted, boundary });
      const summary = llm ?? renderSummary(prev?.summary || undefined, firstUser && !keptSet.has(firstUser.seq) ? firstUser.text.slice(0, 600) : undefined, extractItems(compacted, summarisedUser));
      const persisted = allBefore.filter((e) => e.type === "context" && e.persist === true).map((e) => e.seq);
      const todos = [...events].reverse().find((e) => e.type === "todos");
      const todosSeq = todos && todos.seq < boundary ? todos.seq : undefined;
      const withSummary = base(boundary, summary, {
        strategy: llm !== undefined ? "llm" : "extractive",
        keptUserSeqs: keptUser,
        persistedSeqs: persisted,
        ...(todosSeq !== undefined ? { todosSeq } : {}),
      });
      if (todosSeq === undefined) delete (withSummary as { todosSeq?: number }).todosSeq;
      const afterStubs = conv(event);
      const afterSummary = conv(withSummary);
      phases.push({
        name: "summary",
        savedTokens: afterStubs - afterSummary,
        detail: `events ${visibleFrom}–${boundary - 1} summarised (${llm !== undefined ? "LLM" : "extractive"}); ${keptUser.length} user message(s), ${persisted.length} persisted context(s) kept verbatim`,
      });
      event = withSummary;
    } else {
      phases.push({ name: "summary", savedTokens: 0, detail: "no earlier turn to summarise: the recent turns alone fill the context" });
    }
  }
  event.tokensAfter = conv(event);
  const changed = event.firstKeptSeq !== visibleFrom || event.stubs.length !== (prev?.stubs.filter((s) => s.seq >= event.firstKeptSeq).length ?? 0) || stubbed > 0;
  return { event, empty: !changed };
}

function nextSeq(events: readonly SessionEvent[]): number {
  return events.length ? events[events.length - 1]!.seq + 1 : 0;
}

function callIndex(events: readonly SessionEvent[]): Map<string, { name: string; input: unknown; summary?: string }> {
  const out = new Map<string, { name: string; input: unknown; summary?: string }>();
  for (const e of events) if (e.type === "assistant_message") for (const c of e.toolCalls) out.set(c.id, c);
  return out;
}

/**
 * Where the kept part begins: the latest user message (else assistant message) after which at
 * least `keepTailTokens` of conversation remain, and after the previous boundary. A boundary
 * never splits a tool call from its result.
 */
function chooseBoundary(events: readonly SessionEvent[], after: number, keepTailTokens: number, stubs: ReadonlyMap<number, string>): number | undefined {
  let tail = 0;
  let fallback: number | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.seq <= after) break;
    // A stubbed result counts as its stub (about 300 characters).
    tail += tokensOfText(stubs.has(e.seq) ? 300 : eventChars(e));
    if (tail < keepTailTokens) continue;
    if (e.type === "user_message") return e.seq;
    if (e.type === "assistant_message" && fallback === undefined) fallback = e.seq;
  }
  return fallback;
}

function eventChars(e: SessionEvent): number {
  switch (e.type) {
    case "user_message":
      return e.text.length + (e.context?.length ?? 0);
    case "context":
      return e.text.length;
    case "assistant_message":
      return e.text.length + JSON.stringify(e.toolCalls).length;
    case "tool_result":
      return e.output.length;
    default:
      return 0;
  }
}

function references(events: readonly SessionEvent[], calls: ReturnType<typeof callIndex>): CompactionEventData["references"] {
  return events
    .filter((e): e is EventOf<"tool_result"> => e.type === "tool_result" && e.output.length >= DEFAULT_MIN_STUB)
    .map((e) => ({ ref: refOf(e.callId), tool: e.name, summary: calls.get(e.callId)?.summary ?? "", chars: e.output.length }));
}

function files(events: readonly SessionEvent[], calls: ReturnType<typeof callIndex>, describe?: (name: string) => ToolFacts | undefined): { filesRead: string[]; filesModified: string[] } {
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const e of events) {
    if (e.type === "review_proposed") modified.add(e.relPath);
    if (e.type !== "tool_result" || e.isError) continue;
    const call = calls.get(e.callId);
    const facts = call && describe?.(call.name);
    if (!call || !facts) continue;
    const input = (call.input ?? {}) as Record<string, unknown>;
    for (const arg of facts.pathArgs ?? []) {
      const v = input[arg];
      if (typeof v !== "string" || !v) continue;
      if (facts.writes) modified.add(v);
      else if (facts.reads) read.add(v);
    }
  }
  for (const m of modified) read.delete(m);
  return { filesRead: [...read].slice(-50), filesModified: [...modified].slice(-50) };
}
