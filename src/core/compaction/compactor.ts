/**
 * The compaction mechanism of one session (the entry point: `createCompaction`). It decides when
 * to compact (a share of the model's window, the provider rejecting a request as too long, the
 * user asking), asks the `compaction` point (a PreCompact hook may veto or add instructions),
 * plans the phases, guards against compactions that free nothing or repeat, and appends the
 * `compaction` event. It also offers `recall` and spills results over 50 k characters to the
 * session folder as they arrive.
 */
import type { EventOf, NewEvent, SessionEvent } from "../events";
import type { Extension } from "../extensions/types";
import type { Logger, SessionStore } from "../ports";
import { contextWindowOf } from "../providers/context-windows";
import type { Provider } from "../providers/types";
import { lastCompaction, projectConversation } from "../session/projection";
import type { ToolDefinition } from "../tools/types";
import { planCompaction, type CompactionEventData, type CompactionTrigger, type SummaryInput, type ToolFacts } from "./plan";
import { blobKey, recallTool } from "./recall";
import { refOf, SPILL_CHARS, spillPreview } from "./render";
import { DEFAULT_COMPACTION, type CompactionSettings } from "./settings";
import { contextFill, estimateMessages, tokensOfText, type Fill } from "./tokens";

/** After a compaction the context should be at most this share of the window. */
const TARGET_SHARE = 0.5;
/** Recent conversation kept verbatim, as a share of the window. */
const KEEP_TAIL_SHARE = 0.2;
/** Compactions without a user message in between before automatic ones stop. */
export const MAX_IN_A_ROW = 3;

export interface CompactionDeps {
  sessionId(): string;
  events(): readonly SessionEvent[];
  append(event: NewEvent): SessionEvent;
  store: SessionStore;
  model: string;
  /** Tokens of what every request carries besides the conversation (system prompt, tool list). */
  fixedTokens(): number;
  /** Runs the `compaction` point: a handler may veto (its reason) or add instructions. */
  ask(trigger: "manual" | "auto", signal: AbortSignal): Promise<{ veto?: { by: string; reason: string }; instructions: string[] }>;
  /** After a compaction was recorded (the `compaction.after` point): its context is appended. */
  after?(trigger: "manual" | "auto", event: EventOf<"compaction">, signal: AbortSignal): Promise<void>;
  describeTool(name: string): ToolFacts | undefined;
  settings?: Partial<CompactionSettings>;
  /** Overrides the table (tests, embedders, a server's configured window). */
  contextWindow?: number;
  /** Writes an LLM summary (strategy "llm"); absent: the extractive summary is used. */
  summaryProvider?: Provider;
  log?: Logger;
}

export type CompactionOutcome =
  | { status: "compacted"; event: EventOf<"compaction"> | CompactionEventData; dryRun: boolean }
  | { status: "vetoed"; reason: string; by: string }
  | { status: "refused"; reason: string }
  | { status: "not_needed"; fill: Fill };

export interface ContextMeter {
  tokens: number;
  window: number;
  windowKnown: boolean;
  threshold: number;
  /** tokens / window. */
  share: number;
  /** What a compaction now would leave (estimate), when it would do anything. */
  afterCompaction?: number;
}

export interface Compaction {
  readonly extension: Extension;
  readonly settings: CompactionSettings;
  window(): { tokens: number; known: boolean };
  meter(): ContextMeter;
  /** Compacts now (manual: always tried; the guards still apply). */
  compact(trigger: CompactionTrigger, signal: AbortSignal, opts?: { dryRun?: boolean }): Promise<CompactionOutcome>;
  /** Before a request: compacts when the fill passed the threshold. */
  maybeCompact(signal: AbortSignal): Promise<CompactionOutcome>;
}

export function createCompaction(deps: CompactionDeps): Compaction {
  const settings: CompactionSettings = { ...DEFAULT_COMPACTION, ...deps.settings };
  const window = () => (deps.contextWindow ? { tokens: deps.contextWindow, known: true } : contextWindowOf(deps.model));
  /** A threshold compaction refused at this many user messages is not tried again before the next one. */
  let refusedAtUserCount = -1;

  const userCount = (events: readonly SessionEvent[]) => events.reduce((n, e) => n + (e.type === "user_message" && (e.from ?? "user") === "user" ? 1 : 0), 0);

  function inARow(events: readonly SessionEvent[]): number {
    let n = 0;
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.type === "user_message" && (e.from ?? "user") === "user") break;
      if (e.type === "compaction" && e.trigger !== "manual") n++;
    }
    return n;
  }

  function plan(events: readonly SessionEvent[], trigger: CompactionTrigger, instructions: string[], summarize?: (i: SummaryInput) => string | undefined) {
    const w = window().tokens;
    let target = Math.floor(w * Math.min(TARGET_SHARE, settings.threshold * 0.75));
    let keepTail = Math.floor(w * KEEP_TAIL_SHARE);
    if (trigger !== "threshold") {
      // Asked for now (the user), or the provider counts more than the table says fits: aim at
      // half of what the context holds, keeping its most recent quarter verbatim.
      // Shares of the conversation: the system prompt and tools are sent whatever happens.
      const fixed = deps.fixedTokens();
      const conversation = Math.max(0, contextFill(events, fixed).tokens - fixed);
      target = Math.min(target, fixed + Math.floor(conversation * TARGET_SHARE));
      keepTail = Math.min(keepTail, Math.floor(conversation * 0.25));
    }
    return planCompaction(events, {
      trigger,
      fixedTokens: deps.fixedTokens(),
      targetTokens: target,
      keepTailTokens: keepTail,
      describeTool: deps.describeTool,
      instructions,
      forceSummary: trigger === "manual",
      summarize,
    });
  }

  function refuse(reason: string, trigger: CompactionTrigger, events: readonly SessionEvent[]): CompactionOutcome {
    if (trigger === "threshold") refusedAtUserCount = userCount(events);
    deps.append({ type: "error", message: reason, code: "compaction_refused" });
    deps.log?.warn(reason);
    return { status: "refused", reason };
  }

  async function llmSummary(input: SummaryInput, instructions: string[], signal: AbortSignal): Promise<string | undefined> {
    const provider = deps.summaryProvider;
    if (!provider) return undefined;
    const transcript = projectConversation(input.events)
      .map((m) =>
        m.role === "user"
          ? `USER: ${m.text}`
          : m.role === "assistant"
            ? `ASSISTANT: ${m.text}${m.toolCalls.map((c) => `\n[call ${c.name} ${JSON.stringify(c.input)}]`).join("")}`
            : `TOOL ${m.name}${m.isError ? " (error)" : ""}: ${m.content.slice(0, 1500)}`,
      )
      .join("\n\n");
    const system =
      "You update the running summary of a coding session so the agent can continue without the compacted turns. " +
      "Keep the sections '## Goal', '## Decisions', '## Conclusions', '## Commitments', '## Results' as bullet lists. Keep every bullet of the previous summary unless it was superseded; add what the new turns decided, found, promised and achieved. " +
      "Be specific: file names, commands, numbers, error messages. Do not restate the user's requirements (they are kept verbatim separately). Answer with the summary only.";
    const text = `${input.previous ? `Previous summary:\n${input.previous}\n\n` : ""}${instructions.length ? `Also keep in mind:\n${instructions.join("\n")}\n\n` : ""}New turns to fold in:\n${transcript}`;
    let out = "";
    try {
      for await (const ev of provider.stream({ system, messages: [{ role: "user", text }], tools: [], signal, maxOutputTokens: 2_000 })) if (ev.type === "text_delta") out += ev.text;
    } catch (err) {
      if (signal.aborted) throw err;
      deps.append({ type: "error", message: `The LLM summary failed (${err instanceof Error ? err.message : String(err)}); the extractive summary was used instead.`, code: "compaction_llm" });
      return undefined;
    }
    return out.trim() || undefined;
  }

  async function compact(trigger: CompactionTrigger, signal: AbortSignal, opts: { dryRun?: boolean } = {}): Promise<CompactionOutcome> {
    const events = deps.events();
    if (trigger !== "manual" && inARow(events) >= MAX_IN_A_ROW) {
      return refuse(
        `Context compaction stopped: it already ran ${MAX_IN_A_ROW} times in a row without a new message from you, and the context keeps filling up. Start a new session or send a shorter request; nothing was compacted this time.`,
        trigger,
        events,
      );
    }
    const asked = await deps.ask(trigger === "manual" ? "manual" : "auto", signal);
    if (asked.veto) {
      if (!opts.dryRun) deps.append({ type: "error", message: `Compaction blocked by ${asked.veto.by}: ${asked.veto.reason}`, code: "compaction_blocked" });
      return { status: "vetoed", reason: asked.veto.reason, by: asked.veto.by };
    }
    let p = plan(events, trigger, asked.instructions);
    if (settings.strategy === "llm" && deps.summaryProvider && p.event.firstKeptSeq > (lastCompaction(events)?.firstKeptSeq ?? 0)) {
      const boundary = p.event.firstKeptSeq;
      const prevFrom = lastCompaction(events)?.firstKeptSeq ?? 0;
      const summary = await llmSummary(
        { previous: lastCompaction(events)?.summary || undefined, events: events.filter((e) => e.seq >= prevFrom && e.seq < boundary), boundary },
        asked.instructions,
        signal,
      );
      if (summary) p = plan(events, trigger, asked.instructions, () => summary);
    }
    const { event } = p;
    const freed = event.tokensBefore - event.tokensAfter;
    if (!freesEnough(p)) {
      const msg = `Context compaction freed ${Math.max(0, freed).toLocaleString("en-US")} of ${event.tokensBefore.toLocaleString("en-US")} tokens, too little to help: nothing was compacted. The recent turns alone are this large; start a new session or ask for smaller steps.`;
      return opts.dryRun ? { status: "refused", reason: msg } : refuse(msg, trigger, events);
    }
    const limit = settings.threshold * window().tokens;
    if (trigger === "threshold" && event.tokensAfter >= limit) {
      const msg = `Context compaction would leave ${event.tokensAfter.toLocaleString("en-US")} tokens, still over the ${Math.round(settings.threshold * 100)} % threshold of ${window().tokens.toLocaleString("en-US")}: not compacted, so it does not run again at once. Start a new session or ask for smaller steps.`;
      return opts.dryRun ? { status: "refused", reason: msg } : refuse(msg, trigger, events);
    }
    if (opts.dryRun) return { status: "compacted", event, dryRun: true };
    for (const ph of event.phases) deps.log?.info(`compaction ${ph.name}: saved ${ph.savedTokens} tokens (${ph.detail})`);
    const stored = deps.append(event as NewEvent) as EventOf<"compaction">;
    await deps.after?.(trigger === "manual" ? "manual" : "auto", stored, signal);
    return { status: "compacted", event: stored, dryRun: false };
  }

  const meter = (): ContextMeter => {
    const events = deps.events();
    const w = window();
    const fill = contextFill(events, deps.fixedTokens());
    let after: number | undefined;
    try {
      const p = plan(events, "manual", []);
      // What the context would hold: the fill less what the compaction frees.
      if (freesEnough(p)) after = Math.max(0, fill.tokens - (p.event.tokensBefore - p.event.tokensAfter));
    } catch {
      after = undefined;
    }
    return { tokens: fill.tokens, window: w.tokens, windowKnown: w.known, threshold: settings.threshold, share: fill.tokens / w.tokens, ...(after !== undefined ? { afterCompaction: after } : {}) };
  };

  const extension: Extension = {
    name: "compaction",
    setup(api) {
      api.addTools([recallTool({ sessionId: deps.sessionId, events: deps.events, store: deps.store })]);
      // Last of the request.prepare handlers: the threshold check sees the context as it will be sent.
      api.on(
        "request.prepare",
        async (_input, { signal }) => {
          await compaction.maybeCompact(signal);
          return undefined;
        },
        { priority: -1000 },
      );
      // Last of the tool.after handlers, so it spills what the model would be told.
      if (deps.store.writeBlob) {
        api.on(
          "tool.after",
          ({ call, tool, output }) => {
            // A tool that bounded its own output hands the whole of it (`full`): that is what is kept and previewed.
            const whole = output.full ?? output.text;
            // A tool with its own bound (outputBound: MAX_MCP_OUTPUT_TOKENS for MCP tools) decides what
            // the model sees: a result within it is not spilled, a longer one is previewed at that size.
            const bound = tool.outputBound;
            if (output.full === undefined && whole.length <= (bound ? bound.chars : SPILL_CHARS)) return undefined;
            const ref = refOf(call.id);
            try {
              deps.store.writeBlob!(deps.sessionId(), blobKey(ref), whole);
            } catch (err) {
              deps.log?.warn(`could not spill the result of ${call.name}: ${err instanceof Error ? err.message : String(err)}`);
              return undefined;
            }
            return { text: spillPreview(whole, ref, bound) };
          },
          { priority: -1000 },
        );
      }
    },
  };

  const compaction: Compaction = {
    extension,
    settings,
    window,
    meter,
    compact,
    async maybeCompact(signal) {
      const events = deps.events();
      const fill = contextFill(events, deps.fixedTokens());
      if (fill.tokens < settings.threshold * window().tokens) return { status: "not_needed", fill };
      if (refusedAtUserCount === userCount(events)) return { status: "not_needed", fill };
      return compact("threshold", signal);
    },
  };
  return compaction;
}

/** A compaction worth appending: it changes the context and frees at least 5 % of it (and 200 tokens). */
function freesEnough(p: { empty: boolean; event: CompactionEventData }): boolean {
  return !p.empty && p.event.tokensBefore - p.event.tokensAfter >= Math.max(200, Math.floor(p.event.tokensBefore * 0.05));
}

/** Tokens of the system prompt and tool specs, as every request carries them. */
export function fixedTokensOf(system: string, tools: readonly ToolDefinition[] | ReadonlyArray<{ name: string; description: string; inputSchema: unknown }>): number {
  const specs = tools.map((t) => ("inputSchema" in t ? JSON.stringify(t) : `${t.name}${t.description}`));
  return tokensOfText(system.length) + estimateMessages([]) + specs.reduce((n, s) => n + tokensOfText(s.length), 0);
}
