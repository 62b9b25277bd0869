import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** The agent seemed stuck: it was nudged, or stopped. */
export function describe(e: EventOf<"stuck">): EventNote {
  return { level: "warning", text: `${e.action === "stop" ? "Stopped: the agent seems stuck" : "The agent seems stuck; it was nudged"}: ${e.detail}.`, mark: "↻" };
}
