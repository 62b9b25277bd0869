// Pure text formatting for the panel (tested in node).
import type { UsageView, ViewState } from "../src/protocol/messages";

/** 950 -> "950", 12_345 -> "12.3k", 1_234_567 -> "1.23M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(2).replace(/\.?0+$/, "")}M`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd < 0.01) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

/** "12.3k in · 1.2k out · $0.04"; without a price, tokens only. */
export function formatUsage(u: UsageView): string {
  const parts = [`${formatTokens(u.inputTokens)} in`, `${formatTokens(u.outputTokens)} out`];
  if (u.costUsd !== undefined) parts.push(formatCost(u.costUsd));
  return parts.join(" · ");
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const RUNNING_STATES: ReadonlySet<ViewState> = new Set(["thinking", "waiting_tool", "waiting_user"]);

const STATE_HINT: Record<ViewState, string> = {
  idle: "idle",
  thinking: "thinking",
  waiting_tool: "running tools",
  waiting_user: "waiting for you",
  done: "done",
  error: "error",
  cancelled: "cancelled",
  interrupted: "interrupted",
};

/** A longer description of a loop state, for tooltips (the status text itself is the raw state). */
export function stateHint(state: ViewState): string {
  return STATE_HINT[state];
}

/** "2026-11-30T10:00:00Z" -> "10:00" today, else "Nov 30". */
export function formatWhen(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  if (d.toDateString() === now.toDateString()) return d.toTimeString().slice(0, 5);
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric" });
}
