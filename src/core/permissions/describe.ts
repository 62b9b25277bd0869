import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** The permission mode changed. */
export function describe(e: EventOf<"mode_change">): EventNote {
  return { level: "info", text: `Permission mode: ${e.mode} (was ${e.from}).` };
}
