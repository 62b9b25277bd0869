/**
 * Stuck detection over the event log, by content (tool name + arguments, and what came back), not
 * by call ids. Patterns, counted since the user's last message, the last file write and the last
 * stop: the same action with the same result 4 times; the same error 3 times; two actions
 * alternating A/B over 6 calls; 3 assistant turns without a tool call while a todo is open.
 * The first time a pattern is seen the model gets a nudge naming it; if the pattern goes on after
 * the nudge, the loop stops and asks the user.
 */
import type { SessionEvent } from "../events";
import type { Extension } from "../extensions/types";

export type StuckPattern = "repeat" | "same_error" | "alternation" | "no_progress";

export interface StuckThresholds {
  repeat: number;
  sameError: number;
  alternation: number;
  noProgress: number;
}

export const DEFAULT_STUCK_THRESHOLDS: StuckThresholds = { repeat: 4, sameError: 3, alternation: 6, noProgress: 3 };

export interface Detection {
  pattern: StuckPattern;
  /** Model-facing: names the pattern. */
  detail: string;
  /** Seq of the newest event that is part of the pattern. */
  lastSeq: number;
}

interface Action {
  sig: string;
  name: string;
  result: string;
  isError: boolean;
  seq: number;
}

/** Arguments in a stable form: keys sorted, so {a,b} and {b,a} are the same action. */
function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

/** A result without what differs between identical runs (timings, command ids). */
function normalise(text: string): string {
  return text
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, "<t>")
    .replace(/\bcmd-[\w-]+\b/g, "<id>")
    .trim();
}

function oneLine(text: string, max = 160): string {
  const line =
    text
      .trim()
      .split("\n")
      .find((l) => l.trim()) ?? "";
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A reviewed change reached a file: the count starts again (direct writes are seen in tool.after). */
function isWrite(e: SessionEvent): boolean {
  return e.type === "review_decision" && (e.status === "accepted" || e.status === "partial");
}

/** Index of the first event of the window the patterns are counted in. */
function windowStart(events: readonly SessionEvent[], writtenAt = 0): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (isWrite(e) || (e.type === "user_message" && (e.from === undefined || e.from === "user")) || (e.type === "stuck" && e.action === "stop") || e.type === "budget")
      return Math.max(i + 1, writtenAt);
  }
  return writtenAt;
}

function actionsOf(events: readonly SessionEvent[], from: number): Action[] {
  const inputs = new Map<string, { name: string; input: unknown }>();
  const out: Action[] = [];
  for (let i = from; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === "assistant_message") for (const c of e.toolCalls) inputs.set(c.id, { name: c.name, input: c.input });
    else if (e.type === "tool_result") {
      const call = inputs.get(e.callId);
      const name = call?.name ?? e.name;
      out.push({ sig: `${name} ${stable(call?.input)}`, name, result: normalise(e.output), isError: e.isError, seq: e.seq });
    }
  }
  return out;
}

/** The first pattern the events since the last reset show, if any. */
export function detectStuck(events: readonly SessionEvent[], t: StuckThresholds = DEFAULT_STUCK_THRESHOLDS, writtenAt = 0): Detection | undefined {
  const from = windowStart(events, writtenAt);
  const actions = actionsOf(events, from);
  const last = actions[actions.length - 1];
  if (last) {
    const same = actions.filter((a) => a.sig === last.sig && a.result === last.result);
    if (same.length >= t.repeat) {
      return {
        pattern: "repeat",
        detail: `you called ${last.name} with the same arguments ${same.length} times and got the same result each time ("${oneLine(last.result)}")`,
        lastSeq: last.seq,
      };
    }
    if (last.isError) {
      const errors = actions.filter((a) => a.isError && a.result === last.result);
      if (errors.length >= t.sameError) {
        return { pattern: "same_error", detail: `the same error came back ${errors.length} times: "${oneLine(last.result)}"`, lastSeq: last.seq };
      }
    }
  }
  if (actions.length >= t.alternation) {
    const tail = actions.slice(-t.alternation);
    const [a, b] = [tail[0]!.sig, tail[1]!.sig];
    if (a !== b && tail.every((x, i) => x.sig === (i % 2 === 0 ? a : b))) {
      return {
        pattern: "alternation",
        detail: `you alternated between two actions ${t.alternation} times (${tail[0]!.name} and ${tail[1]!.name}, the same arguments each time) without getting anywhere`,
        lastSeq: tail[tail.length - 1]!.seq,
      };
    }
  }
  const todos = [...events].reverse().find((e) => e.type === "todos");
  const open = todos?.type === "todos" ? todos.todos.filter((x) => x.status !== "completed") : [];
  if (open.length > 0) {
    const turns = events.slice(from).filter((e) => e.type === "assistant_message");
    const tail = turns.slice(-t.noProgress);
    if (tail.length >= t.noProgress && tail.every((e) => e.type === "assistant_message" && e.toolCalls.length === 0)) {
      return {
        pattern: "no_progress",
        detail: `${t.noProgress} replies in a row used no tool while ${open.length} todo item(s) are still open (first: "${oneLine(open[0]!.content)}")`,
        lastSeq: tail[tail.length - 1]!.seq,
      };
    }
  }
  return undefined;
}

/** The model-facing nudge for a pattern. */
export function nudgeText(d: Detection): string {
  const advice: Record<StuckPattern, string> = {
    repeat: "Repeating it will not change the result. Do not call it again with the same arguments.",
    same_error: "Retrying the same way will fail the same way. Read the error message closely and fix its cause before trying again.",
    alternation: "Going back and forth does not move the task on. Decide on one approach.",
    no_progress: "Either continue the open todo items with a tool call, mark them completed or cancelled with todo_write, or say what blocks you.",
  };
  return (
    `[Yoke stuck detector] It looks like you are stuck: ${d.detail}. ${advice[d.pattern]} ` +
    `Step back: check your assumptions (the file's current content, the path, the arguments), try a different approach, ` +
    `or if you cannot make progress, stop and explain to the user what is blocking you.`
  );
}

export interface StuckOptions {
  thresholds?: Partial<StuckThresholds>;
}

export function stuckExtension(opts: StuckOptions = {}): Extension {
  const t = { ...DEFAULT_STUCK_THRESHOLDS, ...opts.thresholds };
  return {
    name: "stuck",
    setup(api) {
      // Where the last successful file write (a tool that writes files without running commands) left the log.
      let writtenAt = 0;
      api.on("tool.after", ({ tool, output }, ctx) => {
        if (tool.capabilities.writes && !tool.capabilities.runs && !output.isError) writtenAt = ctx.session.events().length;
      });
      api.on("turn.after", (_input, ctx) => {
        const events = ctx.session.events();
        const d = detectStuck(events, t, writtenAt);
        if (!d) return undefined;
        const from = windowStart(events, writtenAt);
        // One nudge per window: a pattern that goes on after it (or turns into another) stops the loop.
        const nudged = events.slice(from).find((e) => e.type === "stuck" && e.action === "nudge");
        if (nudged && d.lastSeq < nudged.seq) return undefined; // nothing new since the nudge
        if (!nudged) {
          api.record({ type: "stuck", pattern: d.pattern, action: "nudge", detail: d.detail });
          return { nudge: nudgeText(d) };
        }
        const reason = `the agent seems stuck: ${d.detail}, and it went on after being told. Tell it how to proceed, or send a message to let it continue`;
        api.record({ type: "stuck", pattern: d.pattern, action: "stop", detail: d.detail });
        return { stop: reason };
      });
    },
  };
}
