import type { EventNote } from "../event-note";
import type { EventOf } from "../events";
import { turnTimeLine } from "./index";

/** Where a run's time went, under the answer (beside the output in the CLI). */
export function describe(e: EventOf<"turn_time">): EventNote {
  return { level: "info", text: turnTimeLine(e), mark: "⏱", aside: true };
}
