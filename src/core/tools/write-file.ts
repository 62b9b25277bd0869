/** write_file: create a file or replace one the model has read. */
import { z } from "zod";
import { splitLines } from "../edit/hashline";
import { resolveWorkspacePath } from "../paths";
import { decodeText, readChecked, readStamp, statFollow } from "./file-access";
import { plural } from "./output";
import { diffCard, metaChanges } from "./cards";
import { defineTool, field, ToolError, type ToolDefinition } from "./types";
import { builtinSchema } from "./schema-table";

/** What the model is told; the edit tool for part of a file is the session's own. */
const describe = (edit: string | undefined) => `Create a file, or replace the whole of a file you have read with read_file in this session${edit ? ` (for part of a file use ${edit})` : ""}.`;
import { structuredPatch } from "../hooks/claude-shapes";
import { commitChange, pendingProposal, resumeReview } from "./commit-change";

const schema = builtinSchema("write_file", () =>
  z.object({
    path: z.string().min(1).describe("Parent folders are created."),
    content: z.string(),
  }),
);

const encoder = new TextEncoder();

function when(ms: number): string {
  return new Date(ms).toISOString();
}

/** Most lines end with CRLF. */
function isCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1;
  return crlf > 0 && crlf * 2 >= text.split("\n").length - 1;
}

/**
 * Keeps the replaced file's line ends: its CRLF when the new content has none of its own, its LF when
 * it had no CR at all (a model's CRLF content does not turn an LF file into a CRLF one), and its BOM.
 * A new file keeps the content's own line ends.
 */
function withStyle(content: string, style: { bom: boolean; crlf: boolean; lf?: boolean }): string {
  let out = content;
  if (style.crlf && !out.includes("\r")) out = out.replace(/\n/g, "\r\n");
  if (style.lf && out.includes("\r\n")) out = out.replace(/\r\n/g, "\n");
  if (style.bom && !out.startsWith("\uFEFF")) out = "\uFEFF" + out;
  return out;
}

export const writeFileTool = defineTool({
  name: "write_file",
  description: describe("edit_file"),
  // For part of a file: the session's edit tool (apply_patch for GPT-5 models), or none named.
  trimmed: (kept): ToolDefinition => {
    const edit = ["edit_file", "apply_patch"].find((n) => kept.some((t) => t.name === n));
    return edit === "edit_file" ? writeFileTool : { ...writeFileTool, description: describe(edit) };
  },
  schema,
  permission: "Write",
  permissionClass: "path",
  capabilities: { reads: true, writes: true },
  pathArgs: ["path"],
  summarize: (i) => field(i, "path", "file_path") ?? "",
  card: (o) => diffCard(o.meta),
  kind: "edit",
  changes: metaChanges,
  resumable: (callId, events) => pendingProposal(callId, events) !== undefined,
  resume: resumeReview,
  reviewable: true,
  timeoutMs: 30_000,
  hookInput: (a) => ({ file_path: a.path, content: a.content }),
  // Claude Code's Write response.
  hookResponse: (a, out) => {
    const meta = (out.meta ?? {}) as { path?: string; before?: string; after?: string };
    const after = meta.after ?? a.content;
    return {
      type: meta.before === undefined ? "create" : "update",
      filePath: meta.path ?? a.path,
      content: after,
      structuredPatch: structuredPatch(meta.before ?? "", after),
      originalFile: meta.before ?? null,
      success: out.isError !== true,
    };
  },
  fromHookInput: (u) => ({
    ...(typeof u.file_path === "string" ? { path: u.file_path } : {}),
    ...(typeof u.content === "string" ? { content: u.content } : {}),
  }),
  async run(args, ctx) {
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path);
    if (rel === ".") throw new ToolError("write_file needs a file path, not the workspace root.");
    const st = await statFollow(ctx.fs, abs);
    if (st && st.type === "directory") {
      throw new ToolError(`"${rel}" is a directory; write_file writes files. Choose a file path such as "${rel}/new-file.ts".`);
    }
    let before: string | undefined;
    let style: { bom: boolean; crlf: boolean; lf?: boolean } = { bom: false, crlf: false };
    if (st) {
      const seen = ctx.readState.get(abs);
      if (!seen) {
        throw new ToolError(
          `write_file refused: "${rel}" already exists and you have not read it in this session. ` +
            `Call read_file with path="${rel}" first (or use edit_file to change part of it), then call write_file again.`,
        );
      }
      if (seen.mtimeMs !== st.mtimeMs || seen.size !== st.size) {
        throw new ToolError(
          `write_file refused: "${rel}" has changed on disk since you read it ` +
            `(then ${seen.size} bytes, modified ${when(seen.mtimeMs)}; now ${st.size} bytes, modified ${when(st.mtimeMs)}). ` +
            `Call read_file with path="${rel}" to see the current content, then decide again.`,
        );
      }
      const old = decodeText((await readChecked(ctx, "write_file", abs, rel)).data);
      before = old.binary ? undefined : old.text;
      if (!old.binary) style = { bom: old.bom, crlf: isCrlf(old.text), lf: old.text.includes("\n") && !old.text.includes("\r") };
    }
    const after = withStyle(args.content, { ...style, bom: false });
    const lines = splitLines(after).length;
    if (before !== undefined && before === after) {
      return { text: `${rel} already has exactly this content (${plural(lines, "line")}); nothing was written.`, meta: { path: rel, before, after } };
    }
    const committed = await commitChange(ctx, {
      abs,
      rel,
      tool: "write_file",
      before: st ? (before ?? null) : null,
      after,
      bytes: encoder.encode(style.bom ? "\uFEFF" + after : after),
    });
    const now = await statFollow(ctx.fs, abs);
    if (now) ctx.readState.set(abs, readStamp(now));
    if (committed.reviewText && !committed.exact) {
      return { text: committed.reviewText, isError: committed.failed, meta: { path: rel, before, after: committed.outcome?.finalContent ?? before, review: committed.outcome } };
    }
    const text = st
      ? `Overwrote ${rel} (was ${before === undefined ? "a binary file" : plural(splitLines(before).length, "line")}, now ${plural(lines, "line")}).`
      : `Created ${rel} (${plural(lines, "line")}).`;
    return { text, meta: { path: rel, before, after } };
  },
});
