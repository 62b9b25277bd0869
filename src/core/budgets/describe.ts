import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** A budget (cost, time, turns) stopped the task: its report. */
export function describe(e: EventOf<"budget">): EventNote {
  return { level: "warning", text: e.report, mark: "■" };
}
