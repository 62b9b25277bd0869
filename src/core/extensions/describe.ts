import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** An extension that failed at one of its points: the session goes on without it. Its other outcomes are its own mechanism's to show. */
export function describe(e: EventOf<"extension">): EventNote | undefined {
  if (e.outcome !== "error") return undefined;
  return { level: "warning", text: `${e.name} failed at ${e.point}: ${e.detail ?? "(no message)"}. The session goes on without it.` };
}
