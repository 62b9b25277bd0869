// What the status-bar item says (pure: see src/host/status-bar.ts for the item itself and
// test/unit/palette/status-view.test.ts): Yoke's state, the permission mode and the model.
import type { ViewState } from "../protocol/messages";
import { shownLabel } from "./shown-text";

/** The three states a person cares about in the status bar. */
export type StatusBarState = "idle" | "working" | "waiting";

export interface StatusBarFacts {
  /** The panel session's state (idle while no session runs). */
  state: ViewState;
  /** A permission question is open. */
  asking: boolean;
  /** Changes wait for the user's review. */
  reviewing: number;
  mode: string;
  model: string;
}

export const MODE_LABELS: Readonly<Record<string, string>> = {
  default: "Ask",
  acceptEdits: "Accept edits",
  plan: "Plan",
  bypassPermissions: "Bypass",
};

/** Waiting for the user wins over working: a question or a review blocks the run until answered. */
export function statusBarState(f: Pick<StatusBarFacts, "state" | "asking" | "reviewing">): StatusBarState {
  if (f.asking || f.state === "waiting_user" || f.reviewing > 0) return "waiting";
  return f.state === "thinking" || f.state === "waiting_tool" ? "working" : "idle";
}

const STATE_TEXT: Record<StatusBarState, { icon: string; label: string }> = {
  idle: { icon: "$(hubot)", label: "idle" },
  working: { icon: "$(loading~spin)", label: "working" },
  waiting: { icon: "$(bell-dot)", label: "waiting for you" },
};

export function statusBarView(f: StatusBarFacts): { state: StatusBarState; text: string; tooltip: string; accessibility: string } {
  const state = statusBarState(f);
  const s = STATE_TEXT[state];
  const mode = MODE_LABELS[f.mode] ?? f.mode;
  // The model's name comes from settings a repository can commit: one line, escapes, no $(icon) (shown-text.ts).
  const model = shownLabel(f.model || "no model");
  const why = state === "waiting" ? (f.asking || f.state === "waiting_user" ? "a permission question is open" : `${f.reviewing} change${f.reviewing === 1 ? "" : "s"} to review`) : "";
  return {
    state,
    text: `${s.icon} Yoke: ${s.label} · ${mode} · ${model}`,
    tooltip: [`Yoke is ${s.label}${why ? ` (${why})` : ""}.`, `Permission mode: ${mode} (${f.mode}).`, `Model: ${model}.`, "Click to open the Yoke chat."].join("\n"),
    accessibility: `Yoke: ${s.label}${why ? `, ${why}` : ""}; permission mode ${mode}; model ${model}`,
  };
}
