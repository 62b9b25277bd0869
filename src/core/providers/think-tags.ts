/**
 * Local reasoning models served without a reasoning parser (Ollama, vLLM, llama.cpp) put their
 * thinking in the content as `<think>...</think>` first. This splits it out of a text stream,
 * also when a tag is cut across chunks.
 */
import type { ProviderEvent } from "./types";

const OPEN = "<think>";
const CLOSE = "</think>";

type Out = Extract<ProviderEvent, { type: "text_delta" | "reasoning_delta" }>;

/** Length of the longest suffix of `s` that is a proper prefix of `tag`. */
function partialTag(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (tag.startsWith(s.slice(-n))) return n;
  return 0;
}

/** A stateful splitter: push content deltas, then flush at the end of the response. */
export function createThinkSplitter(): { push(text: string): Out[]; flush(): Out[] } {
  let state: "start" | "think" | "text" = "start";
  let pending = "";
  let trimLead = false;
  const text = (t: string): Out[] => (t ? [{ type: "text_delta", text: t }] : []);
  const reasoning = (t: string): Out[] => (t ? [{ type: "reasoning_delta", text: t }] : []);

  const push = (chunk: string): Out[] => {
    if (state === "text") {
      if (!trimLead) return text(chunk);
      const t = chunk.replace(/^\s+/, "");
      if (t) trimLead = false;
      return text(t);
    }
    pending += chunk;
    if (state === "start") {
      const head = pending.trimStart();
      if (head.length < OPEN.length && OPEN.startsWith(head)) return [];
      if (!head.startsWith(OPEN)) {
        state = "text";
        const all = pending;
        pending = "";
        return text(all);
      }
      state = "think";
      pending = head.slice(OPEN.length);
    }
    const end = pending.indexOf(CLOSE);
    if (end >= 0) {
      const thought = pending.slice(0, end);
      const rest = pending.slice(end + CLOSE.length).replace(/^\s+/, "");
      pending = "";
      state = "text";
      trimLead = rest === "";
      return [...reasoning(thought), ...text(rest)];
    }
    const keep = partialTag(pending, CLOSE);
    const out = reasoning(pending.slice(0, pending.length - keep));
    pending = pending.slice(pending.length - keep);
    return out;
  };

  const flush = (): Out[] => {
    const rest = pending;
    pending = "";
    return state === "think" ? reasoning(rest) : text(rest);
  };

  return { push, flush };
}
