/**
 * Budgets of a task: maximum cost (USD) and maximum wall time, next to the loop's own max turns.
 * A task starts with the user's message (or where a previous budget stop left off, so continuing
 * after a stop gets a fresh budget). When a budget runs out the loop stops — before the next tool
 * call or after the turn — with a report of where it stopped (turns, cost, time, what was in
 * progress), recorded as a `budget` event; the user continues by sending a message or `yoke resume`.
 */
import type { SessionEvent } from "../events";
import type { Extension, SessionInfo } from "../extensions/types";

export interface Budgets {
  maxCostUsd?: number;
  maxTimeS?: number;
}

export interface BudgetOptions extends Budgets {
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
}

/** The `budgets` setting (contract section 4): `{maxTurns, maxCostUsd, maxTimeS}`, each a positive number. */
export function parseBudgets(value: unknown, where = "budgets"): Budgets & { maxTurns?: number } {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new Error(`${where} must be an object: {"maxTurns": N, "maxCostUsd": USD, "maxTimeS": S}`);
  const v = value as Record<string, unknown>;
  const out: Budgets & { maxTurns?: number } = {};
  for (const key of ["maxTurns", "maxCostUsd", "maxTimeS"] as const) {
    const x = v[key];
    if (x === undefined) continue;
    if (typeof x !== "number" || !Number.isFinite(x) || x <= 0 || (key === "maxTurns" && !Number.isInteger(x))) {
      throw new Error(`${where}.${key} must be a positive ${key === "maxTurns" ? "integer" : "number"} (got ${JSON.stringify(x)})`);
    }
    out[key] = x;
  }
  return out;
}

interface Spent {
  turns: number;
  costUsd: number;
  /** Requests whose model has no known price. */
  unpriced: Set<string>;
  startedAt: number;
  inProgress: string;
}

/** Where the current task began: the user's last message, or the last budget stop after it. */
function taskStart(events: readonly SessionEvent[]): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "budget" || (e.type === "user_message" && (e.from === undefined || e.from === "user"))) return i;
  }
  return 0;
}

function spent(events: readonly SessionEvent[]): Spent {
  const from = taskStart(events);
  const out: Spent = { turns: 0, costUsd: 0, unpriced: new Set(), startedAt: Date.parse(events[from]?.ts ?? "") || Date.now(), inProgress: "" };
  let todo = "";
  let lastCall = "";
  for (let i = from; i < events.length; i++) {
    const e = events[i]!;
    if (e.type === "assistant_message") out.turns++;
    else if (e.type === "usage") {
      if (e.costUsd === undefined) out.unpriced.add(e.model);
      else out.costUsd += e.costUsd;
    } else if (e.type === "subagent" && e.phase === "finished" && e.costUsd !== undefined) out.costUsd += e.costUsd;
    else if (e.type === "tool_call") lastCall = e.name;
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "todos") {
      todo = e.todos.find((t) => t.status === "in_progress")?.content ?? "";
      break;
    }
  }
  const msg = [...events].reverse().find((e) => e.type === "assistant_message");
  const answered = new Set(events.flatMap((e) => (e.type === "tool_result" ? [e.callId] : [])));
  const label = (c: { name: string; summary?: string }) => (c.summary ? `${c.name} ${c.summary}` : c.name);
  const calls = msg?.type === "assistant_message" ? msg.toolCalls : [];
  const open = calls.filter((c) => !answered.has(c.id)).map(label);
  const done = calls.filter((c) => answered.has(c.id)).map(label);
  const step = open.length
    ? `the call${open.length > 1 ? "s" : ""} ${open.join(", ")} (not run)`
    : done.length
      ? `the call${done.length > 1 ? "s" : ""} ${done.join(", ")} had just finished`
      : lastCall && `the call ${lastCall} had just finished`;
  out.inProgress = [todo && `the task "${todo}"`, step].filter(Boolean).join("; ");
  return out;
}

const usd = (x: number) => `$${x < 1 ? x.toFixed(4) : x.toFixed(2)}`;

function duration(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

export function budgetsExtension(opts: BudgetOptions): Extension {
  const now = opts.now ?? Date.now;
  // The sessions set up with this extension, by id. A sub-agent is set up with the same extension
  // (its parent's list), so a task's budget covers the whole tree: what the parent spent, what its
  // finished sub-agents cost, and what the running ones have spent so far.
  const live = new Map<string, SessionInfo>();
  const rootOf = (session: SessionInfo): SessionInfo => {
    let s = session;
    for (let p = s.parentId && live.get(s.parentId); p; p = s.parentId && live.get(s.parentId)) s = p;
    return s;
  };
  const treeCost = (session: SessionInfo, seen = new Set<string>()): number => {
    seen.add(session.id);
    const events = session.events();
    let cost = spent(events).costUsd;
    const finished = new Set(events.flatMap((e) => (e.type === "subagent" && e.phase === "finished" ? [e.childId] : [])));
    for (const c of live.values()) if (c.parentId === session.id && !finished.has(c.id) && !seen.has(c.id)) cost += treeCost(c, seen);
    return cost;
  };
  return {
    name: "budgets",
    setup(api) {
      if (opts.maxCostUsd === undefined && opts.maxTimeS === undefined) return;
      live.set(api.session.id, api.session);
      api.on("session.end", () => {
        live.delete(api.session.id);
      });
      const check = (session: SessionInfo): string | undefined => {
        const events = session.events();
        const s = spent(events);
        const root = rootOf(session);
        const sub = root !== session;
        const costUsd = treeCost(root);
        const startedAt = sub ? spent(root.events()).startedAt : s.startedAt;
        const elapsedS = Math.max(0, (now() - startedAt) / 1000);
        let limit: "cost" | "time" | undefined;
        let what = "";
        if (opts.maxCostUsd !== undefined && costUsd >= opts.maxCostUsd) {
          limit = "cost";
          what = `the cost budget of ${usd(opts.maxCostUsd)} is used up (${usd(costUsd)} spent${sub ? " by the task this sub-agent works for" : ""})`;
        } else if (opts.maxTimeS !== undefined && elapsedS >= opts.maxTimeS) {
          limit = "time";
          what = `the time budget of ${duration(opts.maxTimeS)} is used up (${duration(elapsedS)} elapsed${sub ? " in the task this sub-agent works for" : ""})`;
        }
        if (!limit) return undefined;
        const unpriced = opts.maxCostUsd !== undefined && s.unpriced.size ? ` (not counted: requests to ${[...s.unpriced].join(", ")}, whose price is unknown)` : "";
        const report =
          `Stopped: ${what}${unpriced}. This ${sub ? "sub-agent" : "task"} ran ${s.turns} model turn${s.turns === 1 ? "" : "s"}, cost ${usd(s.costUsd)} and took ${duration(sub ? Math.max(0, (now() - s.startedAt) / 1000) : elapsedS)}. ` +
          `${s.inProgress ? `In progress: ${s.inProgress}.` : "Nothing was in progress."} ` +
          (sub ? "Its parent decides what happens next." : `Send a message (or run \`yoke resume ${session.id}\`) to continue with a new budget.`);
        api.record({ type: "budget", limit, turns: s.turns, costUsd, elapsedS: Math.round(elapsedS * 10) / 10, report });
        return report;
      };
      api.on("tool.before", (_input, ctx) => {
        const stop = check(ctx.session);
        return stop ? { stop } : undefined;
      });
      api.on("turn.after", (input, ctx) => {
        if (input.final) return undefined;
        const stop = check(ctx.session);
        return stop ? { stop } : undefined;
      });
    },
  };
}
