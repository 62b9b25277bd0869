import type { EventNote } from "../event-note";
import type { EventOf } from "../events";

/** The model of the session changed (the editor's model option). */
export function describeModelChange(e: EventOf<"model_change">): EventNote {
  return { level: "info", text: `Model: ${e.model} (was ${e.from}).`, mark: "↪" };
}
