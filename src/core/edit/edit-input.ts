/**
 * The argument shapes `edit_file` and `yoke edit apply` accept (contract section 2): the edits
 * list, a bare old_string/new_string pair, a bare array, oh-my-openagent's {"filePath","edits"},
 * and `path` / `file_path` / `filePath` for the file; JSON, or SEARCH/REPLACE text blocks. One
 * reader for both, so a shape read by one is read by the other.
 */
import { looksLikeBlocks, looksLikeCodeMapper, parseCodeMapper, parseEditBlocks } from "./block-parser";
import { isHashlineOp, type EditInput, type HashlineOp, type SearchReplaceEdit } from "./types";

export const ACCEPTED_SHAPES =
  'Accepted shapes: {"path": "src/a.ts", "edits": [...]}; {"path": "src/a.ts", "old_string": "...", "new_string": "...", "replace_all": false}; ' +
  'a bare array of edits [...]; {"filePath": "src/a.ts", "edits": [...]} ("file_path" and "filePath" also name the file); ' +
  '"oldText"/"newText" and "old_text"/"new_text" for the pair, "allow_multiple" for replace_all, "expected_replacements": N. ' +
  'Each edit is a hashline op {"op": "replace"|"append"|"prepend", "pos": "12#QN", "end": "14#VR", "lines": [...]} ' +
  'or a search/replace pair {"old_string": "...", "new_string": "...", "replace_all": false}; ' +
  "`yoke edit apply` also reads SEARCH/REPLACE text blocks.";

export type EditArgs = { ok: true; path?: string; edits: EditInput[] } | { ok: false; message: string };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const PATH_KEYS = ["path", "file_path", "filePath", "filepath"] as const;
const OLD_KEYS = ["old_string", "oldString", "old_str", "oldText", "old_text"] as const;
const NEW_KEYS = ["new_string", "newString", "new_str", "newText", "new_text"] as const;
/** replace_all (Claude Code), gemini's allow_multiple. */
const ALL_KEYS = ["replace_all", "replaceAll", "allow_multiple", "allowMultiple"] as const;
/** gemini's expected_replacements: how many places the old text must match (all are changed). */
const COUNT_KEYS = ["expected_replacements", "expectedReplacements"] as const;

function pick(o: Obj, keys: readonly string[]): { key: string; value: unknown } | undefined {
  for (const k of keys) if (k in o && o[k] !== undefined) return { key: k, value: o[k] };
  return undefined;
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}

/** The file named by an argument object, or an error when it names it twice, differently. */
export function pathOf(o: Obj): { ok: true; path?: string } | { ok: false; message: string } {
  const named = PATH_KEYS.filter((k) => typeof o[k] === "string" && (o[k] as string).trim() !== "").map((k) => [k, (o[k] as string).trim()] as const);
  const distinct = [...new Set(named.map(([, v]) => v))];
  if (distinct.length > 1) return { ok: false, message: `the arguments name two files (${named.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")}); give one path` };
  return { ok: true, path: distinct[0] };
}

/** One edit with its key spellings normalised (oldString, new_str, replaceAll...), or why it cannot be read. */
export function readEdit(e: unknown, i: number): EditInput | string {
  const where = `edit ${i + 1}`;
  if (!isObj(e)) return `${where} is ${Array.isArray(e) ? "an array" : JSON.stringify(e)}, not an edit object`;
  if (typeof e.op === "string") return e as unknown as HashlineOp;
  const oldS = pick(e, OLD_KEYS);
  const newS = pick(e, NEW_KEYS);
  if (oldS || newS) {
    if (typeof oldS?.value !== "string") return `${where} has no "old_string" (a string)`;
    if (typeof newS?.value !== "string") return `${where} has no "new_string" (a string)`;
    const allKey = pick(e, ALL_KEYS);
    const all = allKey?.value;
    if (all !== undefined && typeof all !== "boolean") return `${where}: "${allKey!.key}" must be true or false`;
    const countKey = pick(e, COUNT_KEYS);
    const count = countKey?.value;
    if (count !== undefined && (typeof count !== "number" || !Number.isInteger(count) || count < 1)) return `${where}: "${countKey!.key}" must be a whole number of at least 1`;
    const out: SearchReplaceEdit = { old_string: oldS.value, new_string: newS.value };
    if (all !== undefined) out.replace_all = all;
    if (typeof count === "number" && count > 1) {
      if (all === false) return `${where}: "${countKey!.key}" is ${count} but "${allKey!.key}" is false`;
      out.replace_all = true;
      out.expected_replacements = count;
    }
    return out;
  }
  return `${where} (${JSON.stringify(e).slice(0, 80)}) is neither a hashline op ({"op": ...}) nor a search/replace pair ({"old_string": ..., "new_string": ...})`;
}

/** Reads a parsed JSON value in any accepted shape. */
export function readEditArgs(value: unknown): EditArgs {
  let path: string | undefined;
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else if (isObj(value)) {
    const p = pathOf(value);
    if (!p.ok) return { ok: false, message: `${p.message}. ${ACCEPTED_SHAPES}` };
    path = p.path;
    let edits = value.edits;
    if (typeof edits === "string" && /^\s*[[{]/.test(edits)) {
      try {
        edits = JSON.parse(edits) as unknown;
      } catch {
        /* reported below */
      }
    }
    if (typeof edits === "string" && looksLikeCodeMapper(edits)) {
      const r = parseCodeMapper(edits);
      if (!r.ok) return { ok: false, message: `Cannot read the ---FIND/---REPLACE blocks: ${r.message}` };
      const other = r.blocks.find((b) => b.path && path && !samePath(b.path, path));
      if (other) return { ok: false, message: `a block is for "${other.path}", but the edit is for ${path}; give one file's blocks per edit` };
      edits = r.blocks.map((b): SearchReplaceEdit => ({ old_string: b.search.join("\n"), new_string: b.replace.join("\n") }));
    }
    if (typeof edits === "string" && looksLikeBlocks(edits)) {
      // SEARCH/REPLACE text blocks as the edits (aider-style models): the same pairs as old_string/new_string.
      const r = parseEditBlocks(edits);
      if (!r.ok) return { ok: false, message: `Cannot read the SEARCH/REPLACE blocks: ${r.message}` };
      const other = r.blocks.find((b) => b.path && path && !samePath(b.path, path));
      if (other) return { ok: false, message: `a block is for "${other.path}", but the edit is for ${path}; give one file's blocks per edit` };
      edits = r.blocks.map((b): SearchReplaceEdit => ({ old_string: b.search.join("\n"), new_string: b.replace.join("\n") }));
    }
    if (Array.isArray(edits)) list = edits;
    else if (isObj(edits)) list = [edits];
    else if (edits === undefined && (pick(value, OLD_KEYS) || pick(value, NEW_KEYS) || typeof value.op === "string")) list = [value];
    else {
      const keys = Object.keys(value);
      return { ok: false, message: `Cannot read the edit: ${keys.length ? `it has ${keys.map((k) => `"${k}"`).join(", ")}, but no edits` : "it is an empty object"}. ${ACCEPTED_SHAPES}` };
    }
  } else return { ok: false, message: `Cannot read the edit: expected a JSON object or array, got ${JSON.stringify(value)}. ${ACCEPTED_SHAPES}` };
  if (list.length === 0) return { ok: false, message: `No edits were given (an empty list). ${ACCEPTED_SHAPES}` };
  const edits: EditInput[] = [];
  const problems: string[] = [];
  list.forEach((e, i) => {
    const r = readEdit(e, i);
    if (typeof r === "string") problems.push(r);
    else edits.push(r);
  });
  if (problems.length) return { ok: false, message: `Cannot read ${plural(problems.length, "edit")}: ${problems.join("; ")}. ${ACCEPTED_SHAPES}` };
  return { ok: true, path, edits };
}

export type EditFormat = "auto" | "search_replace" | "hashline";

export interface EditTextOptions {
  format?: EditFormat;
  /** The file being edited: a path the edit names must be this file. */
  file: string;
  /** The reply the text comes from was cut off by a token limit. */
  truncated?: boolean;
}

/** Does a path the edit names mean `file`? (Same path, a suffix of it, or its base name.) */
export function samePath(given: string, file: string): boolean {
  const g = given.replace(/\\/g, "/").replace(/^\.\//, "");
  const f = file.replace(/\\/g, "/");
  const base = f.slice(f.lastIndexOf("/") + 1);
  return f === g || f.endsWith("/" + g) || base === g || (g.startsWith("/") && f === g);
}

/** The edit text `yoke edit apply` reads: JSON in any accepted shape, or SEARCH/REPLACE text blocks. */
export function parseEditText(input: string, opts: EditTextOptions): EditArgs {
  const format = opts.format ?? "auto";
  const trimmed = input.trim();
  let value: unknown;
  let isJson = false;
  let jsonError = "";
  if (/^[[{]/.test(trimmed)) {
    try {
      value = JSON.parse(trimmed);
      isJson = true;
    } catch (e) {
      jsonError = e instanceof Error ? e.message : String(e);
    }
  }
  if (!isJson && format === "hashline") {
    return { ok: false, message: `--format hashline expects JSON (an array of ops or {"edits": [...]})${jsonError ? `, but the input is not valid JSON (${jsonError})` : ""}` };
  }
  if (!isJson && looksLikeCodeMapper(input)) {
    const r = parseCodeMapper(input);
    if (!r.ok) return r;
    const other = r.blocks.find((b) => b.path && !samePath(b.path, opts.file));
    if (other) return { ok: false, message: `a block is for "${other.path}", but the file being edited is ${opts.file}; apply one file's blocks at a time` };
    return { ok: true, edits: r.blocks };
  }
  if (!isJson) {
    if (jsonError && !looksLikeBlocks(input)) return { ok: false, message: `the edit is not valid JSON (${jsonError}). ${ACCEPTED_SHAPES}` };
    const r = parseEditBlocks(input, { truncated: opts.truncated });
    if (!r.ok) return r;
    for (const [i, b] of r.blocks.entries()) {
      if (b.path && !samePath(b.path, opts.file)) {
        return { ok: false, message: `block ${i + 1} is for "${b.path}", but the file being edited is ${opts.file}; apply one file's blocks at a time` };
      }
    }
    return { ok: true, edits: r.blocks };
  }
  const r = readEditArgs(value);
  if (!r.ok) return r;
  if (r.path && !samePath(r.path, opts.file)) return { ok: false, message: `the edit is for "${r.path}", but the file being edited is ${opts.file}; apply one file's edits at a time` };
  for (const [i, e] of r.edits.entries()) {
    if (format === "hashline" && !isHashlineOp(e)) return { ok: false, message: `edit ${i + 1} is not a hashline op, but --format hashline was given` };
    if (format === "search_replace" && isHashlineOp(e)) return { ok: false, message: `edit ${i + 1} is a hashline op, but --format search_replace was given` };
  }
  return r;
}
