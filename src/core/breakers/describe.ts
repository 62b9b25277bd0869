import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** A circuit breaker opened (a warning) or closed again. */
export function describe(e: EventOf<"breaker">): EventNote {
  return { level: e.state === "open" ? "warning" : "info", text: e.message, mark: "⚡" };
}
