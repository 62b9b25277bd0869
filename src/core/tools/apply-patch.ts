/**
 * apply_patch: OpenAI's V4A patch envelope (the format GPT-4.1, GPT-5 and the Codex models are
 * trained to send) or a unified diff, over several files at once: add, delete, update, move. The
 * whole patch is planned against the files as they are (core/edit/patch) and committed all or
 * nothing; every path it touches passes the permission gate (`touches`) and the checkpoint.
 * Offered as a function tool with one string argument `input`, as Codex offers it to function-calling
 * models, or — where the provider has custom tools (GPT-5 on OpenAI's API) — as a freeform tool
 * whose text is the patch itself, constrained by the V4A grammar (docs/edits.md).
 */
import { z } from "zod";
import { hashlineReady } from "../edit/hashline";
import { planPatch } from "../edit/patch/apply";
import { V4A_LARK_GRAMMAR } from "../edit/patch/grammar";
import { parsePatch } from "../edit/patch/parse";
import type { FilePatch } from "../edit/patch/types";
import { summarizeEdit } from "../edit/summary";
import { syntaxRefusal } from "../edit/syntax-check";
import { docFromString } from "../edit/text-doc";
import { resolveWorkspacePath } from "../paths";
import { diffCard } from "./cards";
import { commitChanges, type FileChangeToCommit } from "./commit-change";
import { readChecked, readStamp, statFollow } from "./file-access";
import { plural } from "./output";
import { defineTool, ToolError, type ToolIdentity } from "./types";
import { builtinSchema } from "./schema-table";

/** `patch`, `diff` or `content` for `input`: other harnesses' spellings. */
function aliases(value: unknown): unknown {
  if (typeof value === "string") return { input: value };
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  if (typeof o.input === "string") return o;
  for (const k of ["patch", "diff", "content"]) if (typeof o[k] === "string") return { input: o[k] };
  return o;
}

const canonical = () =>
  z.object({
    input: z
      .string()
      .min(1)
      .describe("The whole patch: *** Begin Patch, then *** Add File: / *** Update File: (optionally *** Move to:) / *** Delete File: sections, then *** End Patch. A unified diff is also read."),
  });

const schema = builtinSchema("apply_patch", () =>
  z.preprocess(aliases, canonical()).superRefine((a, ctx) => {
    const r = parsePatch(a.input);
    if (!r.ok) ctx.addIssue({ code: "custom", message: `the patch cannot be read: ${r.message}`, path: ["input"] });
  }),
);

/** The files a patch touches, with the permission each needs: Edit to change or delete a file, Write to create one. */
export function patchTouches(files: readonly FilePatch[]): Array<{ path: string; permission: string }> {
  const out: Array<{ path: string; permission: string }> = [];
  for (const f of files) {
    out.push({ path: f.path, permission: f.op === "add" ? "Write" : "Edit" });
    if (f.op === "update" && f.moveTo !== undefined) out.push({ path: f.moveTo, permission: "Write" });
  }
  return out;
}

export const APPLY_PATCH_TOOL: ToolIdentity = { name: "apply_patch", permission: "Edit", permissionClass: "path", capabilities: { reads: true, writes: true } };

const DESCRIPTION = `Edit files with a patch: add, delete, update and move several files in one call, all or nothing.
The patch format:
*** Begin Patch
*** Add File: path/new.py
+every line of the new file, prefixed with +
*** Update File: path/existing.py
*** Move to: path/renamed.py   (optional)
@@ def function_or_class_around_the_change
 context line (a space, then the line as it is)
-removed line
+added line
*** Delete File: path/obsolete.py
*** End Patch
Give about 3 lines of context above and below each change, copied exactly; when they are not unique in the file, add an @@ line naming the enclosing function or class. Use *** End of File after a chunk that ends the file. Paths are relative to the workspace root.`;

export const applyPatchTool = defineTool({
  ...APPLY_PATCH_TOOL,
  description: DESCRIPTION,
  schema,
  summarize: (i) => {
    const text = typeof i.input === "string" ? i.input : typeof i.patch === "string" ? i.patch : "";
    const r = parsePatch(text);
    return r.ok ? r.files.map((f) => f.path + (f.op === "update" && f.moveTo ? ` → ${f.moveTo}` : "")).join(", ") : "";
  },
  card: (o) => diffCard(o.meta),
  kind: "edit",
  reviewable: true,
  timeoutMs: 30_000,
  rawArgument: "input",
  freeform: { syntax: "lark", definition: V4A_LARK_GRAMMAR },
  touches: (a) => {
    const r = parsePatch(a.input);
    return r.ok ? patchTouches(r.files) : [];
  },
  // Claude Code has no multi-file edit: hooks (tool_name "Edit") get the first path as `file_path`
  // and every path the patch touches as `file_paths`, with the patch as `input`.
  hookInput: (a) => {
    const r = parsePatch(a.input);
    const paths = r.ok ? patchTouches(r.files).map((t) => t.path) : [];
    return { ...(paths.length ? { file_path: paths[0] } : {}), file_paths: paths, input: a.input };
  },
  async run(args, ctx) {
    await hashlineReady();
    const parsed = parsePatch(args.input);
    if (!parsed.ok) throw new ToolError(parsed.message);
    // Every path once, resolved the way every file tool resolves it.
    const where = new Map<string, { abs: string; rel: string }>();
    for (const t of patchTouches(parsed.files)) {
      if (!where.has(t.path)) {
        const w = await resolveWorkspacePath(ctx.fs, t.path);
        if (w.rel === ".") throw new ToolError(`apply_patch: "${t.path}" is the workspace root, not a file. Nothing was written.`);
        where.set(t.path, w);
      }
    }
    const previous = new Map<string, Uint8Array>();
    const read = async (p: string): Promise<Uint8Array | undefined> => {
      const { abs, rel } = where.get(p) ?? (await resolveWorkspacePath(ctx.fs, p));
      const st = await statFollow(ctx.fs, abs);
      if (!st) return undefined;
      if (st.type === "directory") throw new ToolError(`"${rel}" is a directory; apply_patch changes files.`);
      const data = (await readChecked(ctx, "apply_patch", abs, rel)).data;
      previous.set(abs, data);
      return data;
    };
    const same = (a: string, b: string) => (where.get(a)?.abs ?? a) === (where.get(b)?.abs ?? b);
    const plan = await planPatch(parsed.files, read, same);
    if (!plan.ok) throw new ToolError(plan.message);
    // A chunk placed by tolerance (lost indentation) must keep a file that parsed parseable.
    const broken: string[] = [];
    for (const f of plan.files) {
      if (f.op !== "update" || f.before === null || f.after === null) continue;
      const refusal = await syntaxRefusal(ctx.syntax, f.moveTo ?? f.path, f.before, f.after, f.rules ?? []);
      if (refusal) broken.push(refusal);
    }
    if (broken.length) throw new ToolError(plan.files.length > 1 ? `A patch applies all or nothing, so no file was written.\n\n${broken.join("\n\n")}` : broken.join("\n\n"));

    const changes: FileChangeToCommit[] = [];
    for (const f of plan.files) {
      const src = where.get(f.path)!;
      if (f.op === "delete") {
        changes.push({ op: "delete", abs: src.abs, rel: src.rel, before: f.before, after: null, ...(previous.has(src.abs) ? { previous: previous.get(src.abs)! } : {}) });
        continue;
      }
      const dest = f.moveTo !== undefined ? where.get(f.moveTo)! : src;
      changes.push({
        op: f.moveTo !== undefined ? "move" : f.op === "add" ? "add" : "update",
        abs: dest.abs,
        rel: dest.rel,
        before: f.before,
        after: f.after,
        bytes: f.bytes!,
        ...(previous.has(dest.abs) ? { previous: previous.get(dest.abs)! } : {}),
        ...(f.moveTo !== undefined ? { from: { abs: src.abs, rel: src.rel, previous: previous.get(src.abs)! } } : {}),
      });
    }
    const committed = await commitChanges(ctx, "apply_patch", changes);
    for (const abs of changes.flatMap((c) => (c.from ? [c.abs, c.from.abs] : [c.abs]))) {
      const now = await statFollow(ctx.fs, abs);
      if (now) ctx.readState.set(abs, readStamp(now));
      else ctx.readState.delete(abs);
    }

    const lines: string[] = [];
    const diffs: string[] = [];
    let fullDiff = "";
    for (const f of plan.files) {
      const src = where.get(f.path)!;
      if (f.op === "delete") {
        lines.push(`D ${src.rel}`);
        continue;
      }
      const dest = f.moveTo !== undefined ? where.get(f.moveTo)! : src;
      const s = summarizeEdit(dest.rel, f.beforeDoc ?? docFromString(""), f.afterDoc!);
      fullDiff += s.fullDiff;
      if (f.op === "add") lines.push(`A ${dest.rel} (${plural(f.after!.split("\n").length - (f.after!.endsWith("\n") ? 1 : 0), "line")})`);
      else lines.push(`${f.moveTo !== undefined ? `R ${src.rel} → ${dest.rel}` : `M ${dest.rel}`}: +${s.added} -${s.removed} lines`);
      if (f.op === "update" && s.compactDiff) diffs.push(`${dest.rel}:\n${s.compactDiff}`);
    }
    const notes = [...parsed.notes.map((n) => `Read: ${n}.`), ...plan.notes];
    const meta = { files: plan.files.map((f) => ({ path: f.path, op: f.op, ...(f.moveTo ? { moveTo: f.moveTo } : {}) })), diff: fullDiff };
    if (!committed.exact && committed.setText) {
      const after = committed.failed ? "" : "\n\nRead the files again before patching them further.";
      return { text: committed.setText + after, isError: committed.failed, meta };
    }
    if (!committed.exact) {
      const told = committed.outcomes.map((o) => o.reviewText ?? `${o.rel}: applied as proposed.`).join("\n\n");
      return { text: `The patch was put up for review, file by file.\n\n${told}\n\nRead the files again before patching them further.`, isError: committed.failed, meta };
    }
    const verb = committed.outcomes.some((o) => o.outcome && !o.outcome.auto) ? "The user accepted the patch" : "Applied the patch";
    const parts = [`${verb} (${plural(plan.files.length, "file")}):\n${lines.join("\n")}`];
    if (diffs.length) parts.push(`Diff (- removed, + added):\n${diffs.join("\n\n")}`);
    if (notes.length) parts.push(`Notes:\n${notes.map((n) => `- ${n}`).join("\n")}`);
    return { text: parts.join("\n\n"), meta };
  },
});
