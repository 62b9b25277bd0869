import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** A call waits for a free place in its concurrency gate. */
export function describe(e: EventOf<"tool_queued">): EventNote {
  return { level: "info", text: `${e.name} is queued: at most ${e.limit} ${e.gate} run at once (position ${e.position}).`, mark: "…" };
}
