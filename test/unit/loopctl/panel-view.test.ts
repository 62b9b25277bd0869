// The panel shows the loop-control events as notices in the transcript.
import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { SessionViewModel } from "../../../src/node/panel/view-model";

describe("loop-control events in the panel", () => {
  it("become notices", () => {
    const events: NewEvent[] = [
      { type: "breaker", scope: "tool", key: "lookup", state: "open", failures: 5, message: "Circuit open for tool lookup after 5 consecutive failure(s); calls are refused for 30 s." },
      { type: "fallback", from: "anthropic:a", to: "anthropic:b", reason: "anthropic:a failed and its circuit opened" },
      { type: "budget", limit: "cost", turns: 2, costUsd: 0.8, elapsedS: 3, report: "Stopped: the cost budget of $0.5000 is used up." },
      { type: "stuck", pattern: "repeat", action: "nudge", detail: "you called read_file with the same arguments 4 times" },
      { type: "tool_queued", callId: "c1", name: "run_command", gate: "commands", position: 1, limit: 4 },
    ];
    const vm = new SessionViewModel();
    const views = events.flatMap((e, seq) => vm.apply({ ...e, seq, ts: "2026-12-01T00:00:00Z" } as SessionEvent));
    expect(views.map((v) => (v as { text?: string }).text)).toEqual([
      "Circuit open for tool lookup after 5 consecutive failure(s); calls are refused for 30 s.",
      "Switched model: anthropic:a → anthropic:b (anthropic:a failed and its circuit opened).",
      "Stopped: the cost budget of $0.5000 is used up.",
      "The agent seems stuck; it was nudged: you called read_file with the same arguments 4 times.",
      "run_command is queued: at most 4 commands run at once (position 1).",
    ]);
    expect(views.every((v) => v.kind === "notice")).toBe(true);
  });
});
