import type { EventNote } from "../event-note";
import type { EventOf } from "../events";
import { checkpointNotice } from "./notice";

/** A checkpoint that could not hold every file, said before the call it precedes runs; a complete one says nothing. */
export function describe(e: EventOf<"checkpoint">): EventNote | undefined {
  const text = checkpointNotice(e);
  return text ? { level: "warning", text } : undefined;
}
