/**
 * Model-facing texts of compaction: the stub that stands for a removed tool result, the preview
 * of a spilled one, and the head of the context after a compaction. Pure functions: the
 * projection calls them, so a resumed session renders exactly the same bytes.
 */
import type { EventOf } from "../events";
import { keepHeadAndTailChars } from "../tools/output";
import type { ToolOutputBound } from "../tools/types";

/** Tool results longer than this are spilled to the session folder when they arrive. */
export const SPILL_CHARS = 50_000;
const PREVIEW_HEAD = 4_000;
const PREVIEW_TAIL = 2_000;

/** The reference a tool result is recalled by: its call id when that is a safe key, else a stable hash of it. */
export function refOf(callId: string): string {
  if (/^[A-Za-z0-9_-]{1,100}$/.test(callId)) return callId;
  let h = 0x811c9dc5;
  for (let i = 0; i < callId.length; i++) {
    h ^= callId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `call-${h.toString(16).padStart(8, "0")}-${callId.length}`;
}

/**
 * What the model sees of a spilled tool result: its head and tail, and how to get the rest. With the
 * tool's own bound (ToolDefinition.outputBound: an MCP tool under MAX_MCP_OUTPUT_TOKENS), the preview
 * holds at most `bound.chars` characters, its notes included; without it, 4,000 + 2,000.
 */
export function spillPreview(text: string, ref: string, bound?: ToolOutputBound): string {
  const lines = (s: string) => s.split("\n").length;
  const size = `${text.length.toLocaleString("en-US")} characters (${lines(text).toLocaleString("en-US")} lines)`;
  const recall = `The whole of it is kept: recall {"ref":"${ref}"} returns it (in pages of ${RECALL_PAGE_TEXT} characters, "offset" for the next page).`;
  if (bound) {
    const header = `[This result is ${size}, more than this tool's bound (${bound.why}, ${bound.chars.toLocaleString("en-US")} characters shown at most): its start and end are shown. ${recall}]`;
    const body = keepHeadAndTailChars(text, Math.max(0, bound.chars - header.length - 1), (n) => `[… ${n.toLocaleString("en-US")} characters not shown …]`);
    return `${header}\n${body}`;
  }
  const head = text.slice(0, PREVIEW_HEAD);
  const tail = text.slice(-PREVIEW_TAIL);
  return (
    `[This result is ${size}, too long for the context: its start and end are shown. ${recall}]\n` +
    `${head}\n[… ${(text.length - head.length - tail.length).toLocaleString("en-US")} characters not shown …]\n${tail}`
  );
}

/** recall returns at most this many characters per call (a page of a spilled result). */
export const RECALL_PAGE = 40_000;

/**
 * RECALL_PAGE as "40,000" (what `toLocaleString("en-US")` prints), without Intl: the recall tool's
 * description is built at session start, and the first Intl number format costs ~25 ms of CPU
 * (ICU's set-up) on the way to the first request.
 */
export const RECALL_PAGE_TEXT = String(RECALL_PAGE).replace(/\B(?=(\d{3})+$)/g, ",");

/** The stub that replaces an old large tool result in the context. */
export function stubText(e: EventOf<"tool_result">, ref: string, summary: string | undefined): string {
  const what = summary ? `${e.name} (${summary})` : e.name;
  return (
    `[Compacted: the ${e.isError ? "error " : ""}result of ${what}, ${e.output.length.toLocaleString("en-US")} characters, was removed from the context to save space. ` +
    `recall {"ref":"${ref}"} returns it byte for byte if you need it again.]`
  );
}

/** The first message after a compaction: what was compacted and the summary. */
export function summaryText(c: EventOf<"compaction">): string {
  const refs = c.references.length
    ? `\n\nEarlier tool results can be recalled by ref with the recall tool (${c.references.length} kept; the most recent: ${c.references
        .slice(-8)
        .map((r) => `${r.ref} = ${r.tool}${r.summary ? ` ${r.summary}` : ""}`)
        .join("; ")}).`
    : "";
  const files = [c.filesRead.length ? `Files read: ${c.filesRead.join(", ")}.` : "", c.filesModified.length ? `Files modified: ${c.filesModified.join(", ")}.` : ""].filter(Boolean).join("\n");
  return (
    `The earlier part of this session was compacted to fit the context window (the full record is kept). ` +
    `What follows is a summary of it, then, verbatim, the guidance in force, the user's messages that state requirements, and the open todo list.\n\n` +
    `${c.summary}${files ? `\n\n${files}` : ""}${refs}`
  );
}
