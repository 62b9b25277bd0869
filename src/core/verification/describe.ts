import type { EventNote } from "../event-note";
import type { EventOf } from "../events";
import { verificationLine } from "./evidence";

/** The evidence under the answer: which check ran, its result, where its output is (the line has its own mark). */
export function describe(e: EventOf<"verification">): EventNote {
  return { level: e.status === "passed" ? "info" : e.status === "failed" ? "warning" : "error", text: verificationLine(e), mark: "" };
}
