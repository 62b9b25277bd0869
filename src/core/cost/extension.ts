/**
 * The prompt-cache watch (src/core/cost): compares each request with the one before it and
 * records a `cache_break` event when the prefix stopped matching, naming what changed and, where
 * the log explains it, why (a compaction, a conversation restore, a switch to a fallback model).
 */
import type { SessionEvent } from "../events";
import type { Extension } from "../extensions/types";
import { findCacheBreak, requestShape, type RequestShape } from "./prefix";

function causeSince(events: readonly SessionEvent[], sinceSeq: number): "compaction" | "rewind" | "fallback" | undefined {
  for (let i = events.length - 1; i >= 0 && events[i]!.seq > sinceSeq; i--) {
    const t = events[i]!.type;
    if (t === "compaction" || t === "rewind" || t === "fallback") return t;
  }
  return undefined;
}

export function cacheWatchExtension(): Extension {
  return {
    name: "cache-watch",
    setup(api) {
      let prev: { shape: RequestShape; seq: number } | undefined;
      api.on("request.sent", (input) => {
        const shape = requestShape(input);
        const events = api.session.events();
        const seq = events.length ? events[events.length - 1]!.seq : -1;
        const found = prev ? findCacheBreak(prev.shape, shape) : undefined;
        if (found && prev) {
          const cause = causeSince(events, prev.seq);
          api.record({
            type: "cache_break",
            kind: found.kind,
            detail: found.detail,
            keptMessages: found.keptMessages,
            ...(found.messageIndex === undefined ? {} : { messageIndex: found.messageIndex }),
            ...(cause ? { cause } : {}),
          });
        }
        prev = { shape, seq };
      });
    },
  };
}
