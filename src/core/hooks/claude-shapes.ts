/**
 * The shapes Claude Code gives hooks, built from Yoke's tool arguments and results, and the way
 * back (a PreToolUse hook's `updatedInput` → tool arguments):
 * - paths are absolute in what hooks see (`file_path`, `filePath`, `path`, `filenames`);
 * - an edit is `{file_path, old_string, new_string, replace_all?}`, several edits the MultiEdit
 *   shape `{file_path, edits: [{old_string, new_string, replace_all}]}`; a hashline op becomes
 *   the exact old text of the lines it touches and their new text (read from the file when the
 *   hook runs), so the pair is what Claude Code's Edit tool would have been given;
 * - `structuredPatch` hunks as Claude Code reports them.
 */
import { structuredPatch as jsStructuredPatch } from "diff";
import { splitLines } from "../edit/hashline";
import { opLines, parseAnchor } from "../edit/hashline-ops";
import type { EditInput, HashlineOp } from "../edit/types";

/** Hidden on a hook input object: hashline ops whose old text is read from the file at hook time. */
const LINE_EDITS = Symbol("yoke.hooks.lineEdits");
/** Hidden on the object given to fromHookInput: the fields the hook changed. */
const CHANGED = Symbol("yoke.hooks.changed");

type ClaudeEdit = { old_string: string; new_string: string; replace_all?: boolean };
type Pending = { path: string; edits: readonly EditInput[] };

function isHashline(e: EditInput): e is HashlineOp {
  return typeof (e as HashlineOp).op === "string";
}

/** One edit as old/new text; hashline ops use `lines` (the file's text, when known). */
function claudeEdit(e: EditInput, lines: readonly string[] | undefined): ClaudeEdit {
  if (isHashline(e)) return hashlineAsPair(e, lines);
  if ("kind" in e && e.kind === "block") return { old_string: e.search.join("\n"), new_string: e.replace.join("\n") };
  const sr = e as { old_string: string; new_string: string; replace_all?: boolean };
  return { old_string: sr.old_string, new_string: sr.new_string, ...(sr.replace_all !== undefined ? { replace_all: sr.replace_all } : {}) };
}

/**
 * A hashline op as the Edit Claude Code would have made: the current text of the lines it
 * replaces (or of the anchor line it inserts next to) and what replaces it. Without the file's
 * lines (or with an anchor past its end) old_string is "" and new_string only the new lines.
 */
function hashlineAsPair(op: HashlineOp, lines: readonly string[] | undefined): ClaudeEdit {
  const added = opLines(op.lines).join("\n");
  const at = (ref: string | undefined) => (ref ? parseAnchor(ref)?.line : undefined);
  if (!lines) return { old_string: "", new_string: added };
  const n = lines.length;
  const text = (from: number, to: number) => lines.slice(from - 1, to).join("\n");
  const valid = (l: number | undefined): l is number => l !== undefined && l >= 1 && l <= n;
  if (op.op === "replace") {
    const from = at(op.pos) ?? at(op.end);
    const to = at(op.end) ?? from;
    if (!valid(from) || !valid(to) || to < from) return { old_string: "", new_string: added };
    return { old_string: text(from, to), new_string: added };
  }
  if (n === 0) return { old_string: "", new_string: added };
  const anchor = at(op.pos) ?? (op.op === "append" ? n : 1);
  if (!valid(anchor)) return { old_string: "", new_string: added };
  const line = lines[anchor - 1]!;
  if (op.op === "append") return { old_string: line, new_string: added === "" ? line : `${line}\n${added}` };
  return { old_string: line, new_string: added === "" ? line : `${added}\n${line}` };
}

function editShape(path: string, edits: readonly EditInput[], lines: readonly string[] | undefined): Record<string, unknown> {
  const pairs = edits.map((e) => claudeEdit(e, lines));
  if (pairs.length === 1) return { file_path: path, ...pairs[0]! };
  return { file_path: path, edits: pairs.map((p) => ({ replace_all: false, ...p })) };
}

/**
 * The hook `tool_input` of an edit_file call. Hashline ops are completed with the file's text by
 * resolveHookInput when the hook runs (the permission gate and the log see this object as is).
 */
export function claudeEditInput(path: string, edits: readonly EditInput[]): Record<string, unknown> {
  const shape = editShape(path, edits, undefined);
  if (edits.some(isHashline)) Object.defineProperty(shape, LINE_EDITS, { value: { path, edits } satisfies Pending, enumerable: false });
  return shape;
}

/** The edit shape with the text of the file as it was before the edit (for tool_response). */
export function claudeEditWithText(path: string, edits: readonly EditInput[], before: string | undefined): Record<string, unknown> {
  return editShape(path, edits, before === undefined ? undefined : splitLines(before));
}

/** The input still needs the file's text (hashline ops): resolve it before the tool changes the file. */
export function needsFileText(input: Record<string, unknown>): boolean {
  return (input as { [LINE_EDITS]?: Pending })[LINE_EDITS] !== undefined;
}

/**
 * Completes a hook input before it is sent: the old text of hashline ops, read from the file
 * (`readText(absolutePath)`; undefined when it cannot be read). Returns a plain object.
 */
export async function resolveHookInput(input: Record<string, unknown>, cwd: string, readText?: (absPath: string) => Promise<string | undefined>): Promise<Record<string, unknown>> {
  const pending = (input as { [LINE_EDITS]?: Pending })[LINE_EDITS];
  const abs = absolutePaths(input, cwd) as Record<string, unknown>;
  if (!pending || !readText) return abs;
  let text: string | undefined;
  try {
    text = await readText(toAbsolute(pending.path, cwd));
  } catch {
    text = undefined;
  }
  if (text === undefined) return abs;
  return { ...abs, ...editShape(abs.file_path as string, pending.edits, splitLines(text.replace(/^\uFEFF/, ""))) };
}

const PATH_KEYS = new Set(["file_path", "filePath", "notebook_path", "path"]);

function isAbsolute(p: string): boolean {
  return p.startsWith("/") || p.startsWith("\\\\") || /^[A-Za-z]:[\\/]/.test(p);
}

function sepOf(cwd: string): string {
  return cwd.includes("\\") && !cwd.includes("/") ? "\\" : "/";
}

/** `p` against the workspace folder: `.`, `./a`, `a/b` → absolute; absolute and `~` paths unchanged. */
export function toAbsolute(p: string, cwd: string): string {
  if (p === "" || isAbsolute(p) || p.startsWith("~")) return p;
  const sep = sepOf(cwd);
  const base = cwd.endsWith(sep) ? cwd.slice(0, -1) : cwd;
  const rel = p.replace(/^\.(?:[\\/]|$)/, "").replace(/[\\/]+$/, "");
  return rel === "" || rel === "." ? base : `${base}${sep}${rel}`;
}

/** A path inside the workspace as the relative path tools take; others unchanged. */
export function toRelative(p: string, cwd: string): string {
  const sep = sepOf(cwd);
  const base = cwd.endsWith(sep) ? cwd.slice(0, -1) : cwd;
  if (p === base) return ".";
  return p.startsWith(base + sep) ? p.slice(base.length + 1) : p;
}

/** Path fields (`file_path`, `filePath`, `path`, `notebook_path`, `filenames`) made absolute, nested objects included. */
export function absolutePaths(value: unknown, cwd: string, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => absolutePaths(v, cwd, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (PATH_KEYS.has(k) && typeof v === "string") out[k] = toAbsolute(v, cwd);
    else if (k === "filenames" && Array.isArray(v)) out[k] = v.map((f) => (typeof f === "string" ? toAbsolute(f, cwd) : f));
    else if (v !== null && typeof v === "object" && !(k === "edits" || k === "todos" || k === "structuredPatch")) out[k] = absolutePaths(v, cwd, depth + 1);
    else out[k] = v;
  }
  return out;
}

/** Claude Code's `structuredPatch` hunks between two texts. */
export function structuredPatch(before: string, after: string): Array<{ oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }> {
  return jsStructuredPatch("a", "b", before, after, "", "", { context: 3 }).hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: h.lines,
  }));
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of a hook's updatedInput that differ from what the hook was given (see argsFromHookInput). */
export function changedHookFields(updated: Record<string, unknown>): ReadonlySet<string> {
  return (updated as { [CHANGED]?: ReadonlySet<string> })[CHANGED] ?? new Set(Object.keys(updated));
}

/** The part of a tool definition the updatedInput mapping needs. */
export interface HookInputMapping {
  /** Maps a hook's input (hook field names, workspace paths relative) back to tool arguments. */
  fromHookInput?(updated: Record<string, unknown>, args: unknown): Record<string, unknown>;
}

/**
 * A PreToolUse (or PermissionRequest) hook's `updatedInput` → the tool's arguments. Claude Code
 * replaces the whole input; a hook echoes the fields it leaves alone, so only fields that differ
 * from what it was sent (`sent`: HookOutcome.toolInput) change anything. Paths inside the
 * workspace come back relative. The tool's `fromHookInput` maps hook names to argument names
 * (`file_path` → `path`, `timeout` ms → `timeout_s`); without it, names are taken as they are.
 * Returns undefined when nothing changed; the caller validates the result with the tool's schema.
 */
export function argsFromHookInput(def: HookInputMapping, args: unknown, updated: Record<string, unknown>, sent: Record<string, unknown> | undefined, cwd: string): Record<string, unknown> | undefined {
  const merged: Record<string, unknown> = { ...(sent ?? {}), ...updated };
  const changed = new Set(Object.keys(merged).filter((k) => !same(merged[k], sent?.[k])));
  if (changed.size === 0) return undefined;
  for (const k of PATH_KEYS) if (typeof merged[k] === "string") merged[k] = toRelative(merged[k] as string, cwd);
  Object.defineProperty(merged, CHANGED, { value: changed, enumerable: false });
  const base = { ...(args as Record<string, unknown>) };
  if (def.fromHookInput) return { ...base, ...def.fromHookInput(merged, args) };
  for (const k of changed) base[k] = merged[k];
  return base;
}

/** The edits of an Edit hook input (single or MultiEdit shape) as search/replace pairs. */
export function editsFromHookInput(input: Record<string, unknown>): ClaudeEdit[] | undefined {
  const pair = (x: unknown): ClaudeEdit | undefined => {
    const e = x as Partial<ClaudeEdit> | null;
    if (!e || typeof e.old_string !== "string" || typeof e.new_string !== "string") return undefined;
    return { old_string: e.old_string, new_string: e.new_string, ...(typeof e.replace_all === "boolean" ? { replace_all: e.replace_all } : {}) };
  };
  if (Array.isArray(input.edits)) {
    const list = input.edits.map(pair);
    return list.every((e) => e) ? (list as ClaudeEdit[]) : undefined;
  }
  const one = pair(input);
  return one ? [one] : undefined;
}
