/**
 * The `recall` tool (contract: arg `ref`, permission Read) and the spill of large results. A
 * ref names a tool result of this session's log; recall answers with its original bytes — from
 * the session folder when the result was spilled there, else from the log.
 */
import { z } from "zod";
import type { SessionEvent } from "../events";
import type { SessionStore } from "../ports";
import { builtinSchema } from "../tools/schema-table";
import { defineTool, ToolError, type ToolDefinition, type ToolIdentity } from "../tools/types";
import { RECALL_PAGE, RECALL_PAGE_TEXT, refOf } from "./render";

/** Blob key of a spilled result. */
export const blobKey = (ref: string) => `result-${ref}`;

export interface RecallSource {
  sessionId(): string;
  events(): readonly SessionEvent[];
  store: SessionStore;
}

/** The original text of a ref: the spilled blob, else the logged output; undefined when no result has it. */
export function recallText(src: RecallSource, ref: string): string | undefined {
  const blob = /^[A-Za-z0-9_-]{1,100}$/.test(ref) ? src.store.readBlob?.(src.sessionId(), blobKey(ref)) : undefined;
  if (blob !== undefined) return blob;
  const events = src.events();
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "tool_result" && refOf(e.callId) === ref) return e.output;
  }
  return undefined;
}

const schema = builtinSchema("recall", () =>
  z.object({
    ref: z.string().min(1).describe("The ref a compacted or spilled tool result names (ref=…)."),
    offset: z.number().int().nonnegative().optional().describe(`Character offset for the next page of a result longer than ${RECALL_PAGE_TEXT} characters.`),
  }),
);

/** The recall tool, as the permission engine knows it: a Read (Read rules apply) of nothing but the session's own results. */
export const RECALL_TOOL: ToolIdentity = { name: "recall", permission: "Read", permissionClass: "path", capabilities: {} };

export function recallTool(src: RecallSource): ToolDefinition {
  return defineTool({
    ...RECALL_TOOL,
    description:
      "Get back, byte for byte, an earlier tool result that was removed from the context by compaction or was too long to show: " +
      `pass the ref it names (ref=…). Results longer than ${RECALL_PAGE_TEXT} characters come in pages: pass "offset" for the next one.`,
    deferred: true,
    brief: "get back a tool result cut short or removed by compaction (by its ref=…)",
    schema,
    timeoutMs: 10_000,
    summarize: (i) => (typeof i.ref === "string" ? `ref=${i.ref}${typeof i.offset === "number" ? ` @${i.offset}` : ""}` : ""),
    hookInput: (a) => ({ ref: a.ref, ...(a.offset !== undefined ? { offset: a.offset } : {}) }),
    async run(args) {
      const text = recallText(src, args.ref);
      if (text === undefined) throw new ToolError(`No tool result has ref "${args.ref}" in this session. Use a ref exactly as a compacted or shortened result names it.`);
      const offset = args.offset ?? 0;
      if (offset === 0 && text.length <= RECALL_PAGE) return { text, meta: { ref: args.ref, chars: text.length } };
      if (offset >= text.length) throw new ToolError(`offset ${offset} is past the end of ref "${args.ref}" (${text.length} characters).`);
      const end = Math.min(text.length, offset + RECALL_PAGE);
      const next = end < text.length ? ` Next page: recall {"ref":"${args.ref}","offset":${end}}.` : " This is the last page.";
      return { text: `[ref=${args.ref}: characters ${offset}–${end} of ${text.length}.${next}]\n${text.slice(offset, end)}`, meta: { ref: args.ref, offset, end, chars: text.length } };
    },
  });
}
