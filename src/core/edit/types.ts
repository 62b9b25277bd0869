/** The edit kinds `edit_file` and `yoke edit apply` accept (contract section 2). */

/** A hashline op: anchors are `LINE#HASH` as printed by the hashline view. */
export interface HashlineOp {
  op: "replace" | "append" | "prepend";
  pos?: string;
  end?: string;
  /** A string is split on newlines; `null` or `[]` deletes (replace only). */
  lines?: string | string[] | null;
}

/** A search/replace pair given as JSON (Claude Code's Edit shape). */
export interface SearchReplaceEdit {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
  /** gemini's expected_replacements (with replace_all): the number of places the old text must match. */
  expected_replacements?: number;
}

/** A SEARCH/REPLACE text block after parsing: whole lines. */
export interface SearchReplaceBlock {
  kind: "block";
  search: string[];
  replace: string[];
  /** The filename line before the block, when there was one. */
  path?: string;
  /** Roo Code's `:start_line:N` hint: picks the nearest of several exact matches. */
  startLine?: number;
  /** The last block of a reply that ended without its `>>>>>>> REPLACE` line (REPLACE runs to the end of the reply). */
  unclosed?: boolean;
}

export type EditInput = HashlineOp | SearchReplaceEdit | SearchReplaceBlock;

/** How a search/replace edit was matched: the rung of the matching ladder that found it. */
export type MatchRung = "exact" | "whitespace" | "indentation" | "unicode" | "spacing" | "elision" | "similar";

/** What one applied edit did (1-based line numbers of the file before the call). */
export interface AppliedEdit {
  index: number;
  kind: "hashline" | "search_replace";
  rung?: MatchRung;
  /** Number of places changed (more than 1 only with replace_all). */
  places: number;
  noop: boolean;
  /** Tolerance rules that applied to this edit (docs/edits.md). */
  rules?: string[];
}

/** One edit that could not be applied, with a model-facing explanation. */
export interface EditFailure {
  /** 1-based position in the edits list. */
  index: number;
  message: string;
}

export type EditOutcome = { ok: true; before: string; after: string; applied: AppliedEdit[]; notes: string[] } | { ok: false; failures: EditFailure[]; message: string };

export function isHashlineOp(e: EditInput): e is HashlineOp {
  return typeof (e as HashlineOp).op === "string";
}

export function isSearchReplaceEdit(e: EditInput): e is SearchReplaceEdit {
  return typeof (e as SearchReplaceEdit).old_string === "string";
}

export function isBlock(e: EditInput): e is SearchReplaceBlock {
  return (e as SearchReplaceBlock).kind === "block";
}
