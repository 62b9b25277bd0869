/**
 * What a session cost, per turn: tokens in and out, what the prompt cache served and wrote, the
 * price, the requests, what each tool's results added to the conversation, the sub-agents' spend
 * and the cache breaks. One reading of the log for the panel, the CLI and `yoke run --json`.
 */
import { tokensOfText } from "../compaction/tokens";
import type { EventOf, SessionEvent } from "../events";

export interface CostTotals {
  requests: number;
  /** Uncached input. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** USD; absent when no request had a known price. */
  costUsd?: number;
}

export interface ToolCost {
  name: string;
  calls: number;
  /** Estimated tokens its results added to the conversation (4 characters a token). */
  resultTokens: number;
}

export interface TurnCost extends CostTotals {
  /** 1-based, in the order of the user's messages in the log. */
  turn: number;
  /** seq of the user's message that started the turn (-1: spend before any message). */
  userSeq: number;
  /** Share of the prompt the cache served (cache reads / all input), or null without input. */
  cacheHitShare: number | null;
  cacheBreaks: Array<{ detail: string; cause?: string }>;
  tools: ToolCost[];
  subagents: Array<{ childId: string; description: string; costUsd?: number; toolCalls?: number }>;
}

export interface SessionCost {
  turns: TurnCost[];
  total: CostTotals & { cacheHitShare: number | null; cacheBreaks: number };
}

const emptyTotals = (): CostTotals => ({ requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function hitShare(t: Pick<CostTotals, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): number | null {
  const all = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  return all > 0 ? t.cacheReadTokens / all : null;
}

export function addUsage(into: CostTotals, e: EventOf<"usage">): void {
  into.requests++;
  into.inputTokens += e.usage.inputTokens;
  into.outputTokens += e.usage.outputTokens;
  into.cacheReadTokens += e.usage.cacheReadTokens;
  into.cacheWriteTokens += e.usage.cacheWriteTokens;
  if (e.costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + e.costUsd;
}

/** Every request is counted, rewound turns included: they were paid. */
export function sessionCost(events: readonly SessionEvent[]): SessionCost {
  const turns: TurnCost[] = [];
  let current: TurnCost | undefined;
  const open = (userSeq: number): TurnCost => {
    const t: TurnCost = { ...emptyTotals(), turn: turns.length + 1, userSeq, cacheHitShare: null, cacheBreaks: [], tools: [], subagents: [] };
    turns.push(t);
    return t;
  };
  const total = { ...emptyTotals(), cacheHitShare: null as number | null, cacheBreaks: 0 };
  for (const e of events) {
    if (e.type === "user_message" && (e.from ?? "user") === "user") {
      current = open(e.seq);
      continue;
    }
    if (e.type === "usage") {
      current ??= open(-1);
      addUsage(current, e);
      addUsage(total, e);
    } else if (e.type === "cache_break") {
      current ??= open(-1);
      current.cacheBreaks.push({ detail: e.detail, ...(e.cause ? { cause: e.cause } : {}) });
      total.cacheBreaks++;
    } else if (e.type === "tool_result") {
      current ??= open(-1);
      let tool = current.tools.find((t) => t.name === e.name);
      if (!tool) current.tools.push((tool = { name: e.name, calls: 0, resultTokens: 0 }));
      tool.calls++;
      tool.resultTokens += tokensOfText(e.output.length);
    } else if (e.type === "subagent" && e.phase === "finished") {
      current ??= open(-1);
      current.subagents.push({
        childId: e.childId,
        description: e.description ?? "",
        ...(e.costUsd === undefined ? {} : { costUsd: e.costUsd }),
        ...(e.toolCalls === undefined ? {} : { toolCalls: e.toolCalls }),
      });
      // A sub-agent's spend is part of its parent's (its tokens are in its own session).
      if (e.costUsd !== undefined) {
        current.costUsd = (current.costUsd ?? 0) + e.costUsd;
        total.costUsd = (total.costUsd ?? 0) + e.costUsd;
      }
    }
  }
  for (const t of turns) {
    t.cacheHitShare = hitShare(t);
    t.tools.sort((a, b) => b.resultTokens - a.resultTokens || a.name.localeCompare(b.name));
  }
  total.cacheHitShare = hitShare(total);
  return { turns, total };
}

/** 12345 → "12.3k". */
export function compactTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatUsd(usd: number | undefined): string {
  if (usd === undefined) return "price unknown";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** One line for a turn or a session: "18.2k in (91% cached) · 412 out · $0.0123 · 4 requests". */
export function costLine(t: CostTotals & { cacheBreaks?: number | readonly unknown[] }): string {
  const input = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  const share = hitShare(t);
  const cached = share === null ? "" : ` (${Math.round(share * 100)}% cached${t.cacheWriteTokens ? `, ${compactTokens(t.cacheWriteTokens)} written` : ""})`;
  const breaks = typeof t.cacheBreaks === "number" ? t.cacheBreaks : (t.cacheBreaks?.length ?? 0);
  const parts = [`${compactTokens(input)} in${cached}`, `${compactTokens(t.outputTokens)} out`, formatUsd(t.costUsd), `${t.requests} request${t.requests === 1 ? "" : "s"}`];
  if (breaks) parts.push(`${breaks} cache break${breaks === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/** The tools whose results cost the most, for a tooltip: "read_file 3× 2.1k · grep 2× 800". */
export function toolsLine(tools: readonly ToolCost[], max = 5): string {
  const shown = tools.slice(0, max).map((t) => `${t.name} ${t.calls}× ${compactTokens(t.resultTokens)}`);
  if (tools.length > max) shown.push(`${tools.length - max} more`);
  return shown.join(" · ");
}

/** The notice a cache break shows: what changed and why. */
export function cacheBreakText(e: Pick<EventOf<"cache_break">, "detail" | "cause">): string {
  const why =
    e.cause === "compaction"
      ? " after a compaction (expected: the conversation was summarised)"
      : e.cause === "rewind"
        ? " after a conversation restore (expected)"
        : e.cause === "fallback"
          ? " after a switch to a fallback model"
          : "";
  return `Prompt cache break${why}: ${e.detail}. The next request pays full price for what follows the change.`;
}
