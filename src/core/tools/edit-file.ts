/** edit_file: hashline ops and/or search/replace pairs on one file, all or nothing. */
import { z } from "zod";
import { applyEditsToBytes } from "../edit/apply-edits";
import { looksLikeBlocks } from "../edit/block-parser";
import { ACCEPTED_SHAPES, pathOf, readEditArgs } from "../edit/edit-input";
import { hashlineReady } from "../edit/hashline";
import { placedByTolerance, syntaxRefusal } from "../edit/syntax-check";
import { summarizeEdit } from "../edit/summary";
import { docFromString } from "../edit/text-doc";
import { isHashlineOp, type EditInput } from "../edit/types";
import { resolveWorkspacePath } from "../paths";
import { readChecked, readStamp, statFollow } from "./file-access";
import { diffCard, metaChanges } from "./cards";
import { defineTool, field, ToolError } from "./types";
import { builtinSchema } from "./schema-table";
import { commitChange, pendingProposal, resumeReview } from "./commit-change";
import { changedHookFields, claudeEditInput, claudeEditWithText, editsFromHookInput, structuredPatch } from "../hooks/claude-shapes";

/**
 * The argument shapes other harnesses' models send (core/edit/edit-input.ts), turned into
 * {path, edits} before validation; the JSON Schema offered to the model stays the canonical one.
 */
function canonicalArgs(value: unknown, ctx: { addIssue(issue: { code: "custom"; message: string }): void }): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  const p = pathOf(o);
  if (!p.ok) {
    ctx.addIssue({ code: "custom", message: `${p.message}. ${ACCEPTED_SHAPES}` });
    return z.NEVER;
  }
  const r = readEditArgs(o);
  if (r.ok) return { path: p.path ?? o.path, edits: r.edits };
  // SEARCH/REPLACE blocks that cannot be applied as given: the reader's account is the useful one.
  if (typeof o.edits === "string" && looksLikeBlocks(o.edits)) {
    ctx.addIssue({ code: "custom", message: r.message });
    return z.NEVER;
  }
  const hasEdits = "edits" in o || ["old_string", "oldString", "old_str", "new_string", "newString", "new_str", "op"].some((k) => k in o);
  if (!hasEdits) {
    ctx.addIssue({ code: "custom", message: r.message });
    return z.NEVER;
  }
  // Readable as a whole but not edit by edit: let the schema say which field of which edit is wrong.
  return { ...o, path: p.path ?? o.path };
}

/** The canonical arguments, {path, edits}: what the model is offered. */
function canonicalSchema() {
  const hashlineOp = z.object({
    op: z.enum(["replace", "append", "prepend"]),
    pos: z.string().optional().describe("Anchor. replace: first line; append: insert after; prepend: insert before. Omit for end/start of file."),
    end: z.string().optional().describe("replace: anchor of the last line replaced (inclusive). Omit to replace one line."),
    lines: z
      .union([z.string(), z.array(z.string()), z.null()])
      .optional()
      .describe("The new lines, without LINE#HASH| prefixes. null or [] deletes."),
  });

  const searchReplace = z.object({
    old_string: z.string().describe("Text copied from the file (without LINE#HASH| prefixes); must match one place unless replace_all."),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
    expected_replacements: z.number().int().min(1).optional().describe("With replace_all: how many places must match."),
  });

  return z.object({
    path: z.string().min(1),
    edits: z.array(z.union([hashlineOp, searchReplace])).min(1),
  });
}

const schema = builtinSchema("edit_file", () => z.preprocess(canonicalArgs, canonicalSchema()));

function when(ms: number): string {
  return new Date(ms).toISOString();
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}

export const editFileTool = defineTool({
  name: "edit_file",
  description:
    'Edit a text file. Each edit is a hashline op on the LINE#HASH anchors read_file and grep show ({"op":"replace","pos":"12#QN","end":"14#VR","lines":["..."]}) ' +
    'or a search/replace pair ({"old_string":"...","new_string":"..."}). ' +
    "Give all edits of a file in one call: anchors refer to the file as you read it, and all edits apply or none do. " +
    "The result is a diff whose current lines carry fresh anchors, so you need not re-read the file.",
  schema,
  permission: "Edit",
  permissionClass: "path",
  capabilities: { reads: true, writes: true },
  pathArgs: ["path"],
  summarize: (i) => field(i, "path", "file_path", "filePath") ?? "",
  card: (o) => diffCard(o.meta),
  kind: "edit",
  changes: metaChanges,
  resumable: (callId, events) => pendingProposal(callId, events) !== undefined,
  resume: resumeReview,
  reviewable: true,
  timeoutMs: 30_000,
  hookInput: (a) => claudeEditInput(a.path, a.edits as EditInput[]),
  // Claude Code's Edit response (MultiEdit's for several edits), from the file before and after.
  hookResponse: (a, out) => {
    const meta = (out.meta ?? {}) as { path?: string; before?: string; after?: string; review?: { status?: string } };
    const shape = claudeEditWithText(a.path, a.edits as EditInput[], meta.before);
    const common = {
      filePath: meta.path ?? a.path,
      originalFile: meta.before ?? null,
      structuredPatch: meta.after === undefined ? [] : structuredPatch(meta.before ?? "", meta.after),
      userModified: meta.review !== undefined && meta.review.status !== "accepted",
    };
    if (Array.isArray(shape.edits)) return { ...common, edits: shape.edits };
    return { ...common, oldString: shape.old_string, newString: shape.new_string, replaceAll: shape.replace_all === true };
  },
  // A hook that rewrote the edit's text gives search/replace pairs (as Claude Code's Edit would take them).
  fromHookInput: (u) => {
    const changed = changedHookFields(u);
    const out: Record<string, unknown> = typeof u.file_path === "string" ? { path: u.file_path } : {};
    if (["old_string", "new_string", "replace_all", "edits"].some((k) => changed.has(k))) {
      const edits = editsFromHookInput(u);
      out.edits = edits ?? u.edits;
    }
    return out;
  },
  async run(args, ctx) {
    await hashlineReady();
    const { abs, rel } = await resolveWorkspacePath(ctx.fs, args.path);
    if (rel === ".") throw new ToolError("edit_file needs a file path, not the workspace root.");
    const st = await statFollow(ctx.fs, abs);
    if (st && st.type === "directory") throw new ToolError(`"${rel}" is a directory; edit_file edits files.`);
    const edits = args.edits as EditInput[];
    const notes: string[] = [];
    const seen = ctx.readState.get(abs);
    if (st && seen && (seen.mtimeMs !== st.mtimeMs || seen.size !== st.size)) {
      const change = `"${rel}" has changed on disk since you read it (then ${seen.size} bytes, modified ${when(seen.mtimeMs)}; ` + `now ${st.size} bytes, modified ${when(st.mtimeMs)})`;
      if (!edits.every(isHashlineOp)) {
        throw new ToolError(
          `edit_file refused: ${change}, so your copy of its text may be stale. Nothing was written. ` + `Call read_file with path="${rel}" to see the current content, then edit again.`,
        );
      }
      notes.push(`${change}; every anchor still matched the current lines, so the ops were applied.`);
    }
    const bytes = st ? (await readChecked(ctx, "edit_file", abs, rel)).data : undefined;
    const r = applyEditsToBytes(bytes, edits, rel);
    if (!r.ok) throw new ToolError(notes.length ? `Note: "${rel}" has changed on disk since you read it.\n${r.message}` : r.message);
    // An edit placed by tolerance must keep a file that parsed parseable (the grammar loads only now).
    const broken = await syntaxRefusal(ctx.syntax, rel, r.before, r.after, placedByTolerance(r.applied));
    if (broken) throw new ToolError(broken);
    const committed = await commitChange(ctx, { abs, rel, tool: "edit_file", before: st ? r.before : null, after: r.after, bytes: r.bytes });
    const now = await statFollow(ctx.fs, abs);
    if (now) ctx.readState.set(abs, readStamp(now));
    const allNotes = [...notes, ...r.notes];
    if (committed.reviewText && !committed.exact) {
      // Rejected, partly accepted or edited by hand: the review's account is the whole truth about the file;
      // the notes still say how the proposal was read (tolerance rules that applied).
      const meta = { path: rel, before: r.before, after: committed.outcome?.finalContent ?? r.before, review: committed.outcome };
      const reread = committed.outcome?.status === "rejected" ? "" : `\n\nCall read_file on ${rel} for fresh anchors before editing it again.`;
      const proposal = allNotes.length ? `\n\nNotes on the proposal:\n${allNotes.map((n) => `- ${n}`).join("\n")}` : "";
      return { text: committed.reviewText + proposal + reread, isError: committed.failed, meta };
    }

    const s = summarizeEdit(rel, docFromString(r.before), r.afterDoc);
    const verb = committed.outcome && !committed.outcome.auto ? (st ? "The user accepted the edit of" : "The user accepted the creation of") : st ? "Edited" : "Created";
    // One diff, each line once: the lines now in the file carry their fresh anchors, so the next edit needs no re-read.
    const parts = [`${verb} ${rel}: +${s.added} -${s.removed} lines (${plural(edits.length, "edit")}). Diff with fresh anchors (- removed, + added):`, s.anchoredDiff || "(the file is now empty)"];
    if (allNotes.length) parts.push(`Notes:\n${allNotes.map((n) => `- ${n}`).join("\n")}`);
    return { text: parts.filter(Boolean).join("\n\n"), meta: { path: rel, before: r.before, after: r.after, diff: s.fullDiff } };
  },
});
