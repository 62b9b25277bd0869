import type { EventNote } from "../event-note";
import type { EventOf } from "../events";
import { cacheBreakText } from "./turns";

/** The provider's prompt cache was not reused: expected (a compaction) or not. */
export function describe(e: EventOf<"cache_break">): EventNote {
  return { level: e.cause ? "info" : "warning", text: cacheBreakText(e), mark: "⚠" };
}
