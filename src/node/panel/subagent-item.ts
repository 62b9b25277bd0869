// A sub-agent's card in the panel: its progress, nested under its task call.
import type { SessionEvent } from "../../core/events";
import type { ViewItem } from "../../protocol/messages";
import { oneLine } from "./view-text";

/** Steps of a sub-agent the panel keeps (the latest); the child's own session has them all. */
const SUBAGENT_STEPS = 50;
type SubagentItem = Extract<ViewItem, { kind: "subagent" }>;

export function subagentItem(existing: ViewItem | undefined, e: Extract<SessionEvent, { type: "subagent" }>): SubagentItem {
  const base: SubagentItem =
    existing?.kind === "subagent"
      ? existing
      : { kind: "subagent", id: `sub:${e.callId}`, callId: e.callId, childId: e.childId, description: e.description ?? "", status: "running", steps: [], omittedSteps: 0 };
  if (e.phase === "step") {
    const steps = [...base.steps, { tool: e.tool ?? "", summary: oneLine(e.summary ?? ""), isError: e.isError ?? false }];
    const drop = Math.max(0, steps.length - SUBAGENT_STEPS);
    return { ...base, steps: steps.slice(drop), omittedSteps: base.omittedSteps + drop };
  }
  if (e.phase === "finished") {
    return {
      ...base,
      status: e.status ?? "completed",
      ...(e.toolCalls !== undefined ? { toolCalls: e.toolCalls } : {}),
      ...(e.filesChanged?.length ? { filesChanged: e.filesChanged } : {}),
      ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
      ...(e.error ? { error: e.error } : {}),
    };
  }
  return base;
}
