import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** The session switched to the fallback model. */
export function describe(e: EventOf<"fallback">): EventNote {
  return { level: "warning", text: `Switched model: ${e.from} → ${e.to} (${e.reason}).`, mark: "↪" };
}
