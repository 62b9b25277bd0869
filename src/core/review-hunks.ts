/**
 * Pure line-hunk logic for the change review: split a proposed change into hunks, apply the
 * accepted subset to the original text, and follow hunks through later edits of the document.
 * Lines keep their terminators ("\n", "\r\n" or none for the last line), so applying every hunk
 * gives exactly the proposal and applying none gives exactly the original.
 */
import { diffArrays } from "diff";

/** One contiguous changed region of a proposal. */
export interface Hunk {
  /** 1-based, in file order: how the hunk is named to the user and the model. */
  index: number;
  /** 0-based line where the hunk starts in the original. */
  beforeStart: number;
  /** The original lines it replaces, with terminators (empty for a pure addition). */
  beforeLines: string[];
  /** 0-based line where the hunk starts in the proposal. */
  afterStart: number;
  /** The proposed lines, with terminators (empty for a pure deletion). */
  afterLines: string[];
}

export type HunkDecision = "accepted" | "rejected";

/** A line range in the current document: lines [start, end), `end === start` for a deletion marker. */
export interface LineRange {
  start: number;
  end: number;
}

/** Changed blocks at most this many unchanged lines apart are one hunk (reviewed together). */
const DEFAULT_MERGE_GAP = 1;

/** Splits text into lines that keep their terminators; "" has no lines, "a\n" has one. */
export function splitLines(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** The hunks turning `before` into `after` (null `before`: a new file, one hunk). */
export function computeHunks(before: string | null, after: string, mergeGap = DEFAULT_MERGE_GAP): Hunk[] {
  const a = splitLines(before ?? "");
  const b = splitLines(after);
  const blocks: Array<{ bs: number; be: number; as: number; ae: number }> = [];
  let i = 0;
  let j = 0;
  for (const part of diffArrays(a, b)) {
    const n = part.value.length;
    if (!part.added && !part.removed) {
      i += n;
      j += n;
      continue;
    }
    const last = blocks[blocks.length - 1];
    const open = last && last.be === i && last.ae === j ? last : undefined;
    const block = open ?? { bs: i, be: i, as: j, ae: j };
    if (part.removed) block.be = i += n;
    else block.ae = j += n;
    if (!open) blocks.push(block);
  }
  const merged: typeof blocks = [];
  for (const blk of blocks) {
    const prev = merged[merged.length - 1];
    if (prev && blk.bs - prev.be <= mergeGap) {
      prev.be = blk.be;
      prev.ae = blk.ae;
    } else merged.push({ ...blk });
  }
  return merged.map((m, k) => ({
    index: k + 1,
    beforeStart: m.bs,
    beforeLines: a.slice(m.bs, m.be),
    afterStart: m.as,
    afterLines: b.slice(m.as, m.ae),
  }));
}

/** `before` with the hunks whose decision is "accepted" applied; others keep the original lines. */
export function applyHunks(before: string | null, hunks: readonly Hunk[], decisions: readonly (HunkDecision | undefined)[]): string {
  const a = splitLines(before ?? "");
  const out: string[] = [];
  let pos = 0;
  hunks.forEach((h, k) => {
    out.push(...a.slice(pos, h.beforeStart));
    out.push(...(decisions[k] === "accepted" ? h.afterLines : h.beforeLines));
    pos = h.beforeStart + h.beforeLines.length;
  });
  out.push(...a.slice(pos));
  return out.join("");
}

/** Lines added and removed by the hunks (all of them, or those `which` selects). */
export function countChanges(hunks: readonly Hunk[], which: (h: Hunk, k: number) => boolean = () => true): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  hunks.forEach((h, k) => {
    if (!which(h, k)) return;
    added += h.afterLines.length;
    removed += h.beforeLines.length;
  });
  return { added, removed };
}

/** Where each hunk sits in the proposal (the document right after the proposal is written). */
export function proposalRanges(hunks: readonly Hunk[]): LineRange[] {
  return hunks.map((h) => ({ start: h.afterStart, end: h.afterStart + h.afterLines.length }));
}

/** A document edit at line level: old lines [start, start + oldCount) became `newCount` lines. */
export interface LineEdit {
  start: number;
  oldCount: number;
  newCount: number;
}

/**
 * The line-level effect of a text change (as VS Code reports it: a replaced range and new text).
 * A change of whole lines (from column 0 to column 0, text ending in a newline or empty) leaves
 * its neighbours untouched; any other change rewrites every line it touches.
 */
export function lineEditOf(c: { startLine: number; startChar: number; endLine: number; endChar: number; text: string }): LineEdit {
  const newlines = c.text.split("\n").length - 1;
  const wholeLines = c.startChar === 0 && c.endChar === 0 && (c.text === "" ? c.endLine > c.startLine : c.text.endsWith("\n"));
  if (wholeLines) return { start: c.startLine, oldCount: c.endLine - c.startLine, newCount: newlines };
  return { start: c.startLine, oldCount: c.endLine - c.startLine + 1, newCount: newlines + 1 };
}

/**
 * Moves a hunk's range through an edit of the document. `touched` is true when the edit changed
 * lines of the hunk itself (the range then grows to cover what the edit wrote).
 */
export function adjustRange(r: LineRange, e: LineEdit): { range: LineRange; touched: boolean } {
  const delta = e.newCount - e.oldCount;
  const editEnd = e.start + e.oldCount;
  if (editEnd <= r.start) return { range: { start: r.start + delta, end: r.end + delta }, touched: false };
  if (e.start >= r.end) return { range: r, touched: false };
  const start = Math.min(r.start, e.start);
  return { range: { start, end: Math.max(start, Math.max(r.end, editEnd) + delta) }, touched: true };
}

/** "\r\n" and "\r" as "\n": how texts are compared when the editor may have normalised line endings. */
export function normalizeEol(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * Moves hunks computed against `before` onto `current` (the editor's unsaved text), when the user's
 * changes do not touch any hunk: each hunk's original lines must be unchanged and contiguous in
 * `current`. Returns hunks in `current`'s coordinates, or null when any hunk is affected.
 */
export function rebaseHunks(before: string, current: string, hunks: readonly Hunk[]): Hunk[] | null {
  const a = splitLines(before);
  const map: Array<number | undefined> = new Array(a.length);
  let i = 0;
  let j = 0;
  for (const part of diffArrays(a, splitLines(current))) {
    const n = part.value.length;
    if (part.added) j += n;
    else if (part.removed) i += n;
    else for (let k = 0; k < n; k++) map[i++] = j++;
  }
  const out: Hunk[] = [];
  let shift = 0;
  for (const h of hunks) {
    const s = h.beforeStart;
    const e = s + h.beforeLines.length;
    let pos: number | undefined;
    if (e > s) {
      pos = map[s];
      for (let k = s; k < e; k++) if (pos === undefined || map[k] !== pos + (k - s)) return null;
    } else {
      pos = s === 0 ? 0 : map[s - 1] === undefined ? undefined : map[s - 1]! + 1;
      if (pos === undefined || (s < a.length && map[s] !== pos)) return null;
    }
    out.push({ ...h, beforeStart: pos!, afterStart: pos! + shift });
    shift += h.afterLines.length - h.beforeLines.length;
  }
  return out;
}
