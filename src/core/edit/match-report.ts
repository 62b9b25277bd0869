/**
 * The model-facing texts of search/replace refusals: what was not found (with the closest region
 * of the file in hashline view and its similarity), what matched several places, and where.
 */
import { closestRegion } from "./closest-region";
import { isElisionLine } from "./elision";
import { formatHashlineView } from "./hashline";
import type { MatchRung } from "./types";

/** What a refusal needs to know about the request. */
export interface RequestInfo {
  path: string;
  lineMode: boolean;
}

export const RUNG_WORDS: Record<MatchRung, string> = {
  exact: "exactly",
  whitespace: "when trailing whitespace is ignored",
  indentation: "when indentation is ignored",
  unicode: "when Unicode look-alikes (smart quotes, dashes, special spaces) are read as ASCII",
  spacing: "when indentation is ignored and each run of spaces or tabs inside a line is read as one space",
  elision: "with the elided (...) lines skipped",
};

const VIEW_CONTEXT = 2;
const MAX_VIEW_LINES = 40;

export function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}

/** The 1-based line number of an offset. */
export function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function range(start: number, count: number): string {
  return count <= 1 ? `line ${start + 1}` : `lines ${start + 1}-${start + count}`;
}

/** The hashline view of file lines [start, start + count) with a little context, capped. */
export function regionView(lines: readonly string[], start: number, count: number): string {
  const from = Math.max(1, start + 1 - VIEW_CONTEXT);
  const to = Math.min(lines.length, start + count + VIEW_CONTEXT);
  if (to - from + 1 <= MAX_VIEW_LINES) return formatHashlineView(lines, from, to);
  const half = Math.floor(MAX_VIEW_LINES / 2);
  return `${formatHashlineView(lines, from, from + half - 1)}\n    ...\n${formatHashlineView(lines, to - half + 1, to)}`;
}

export function notFound(req: RequestInfo, lines: readonly string[], search: readonly string[], extra = ""): string {
  const near = closestRegion(lines, search.filter((l) => !isElisionLine(l)).length ? search.filter((l) => !isElisionLine(l)) : search);
  let msg = `SEARCH text not found in ${req.path}${extra}.`;
  if (near && near.similarity >= 0.3) {
    msg += ` The closest region is ${range(near.start, near.count)} (${Math.round(near.similarity * 100)}% similar); current text:\n` + `${regionView(lines, near.start, near.count)}\n`;
    msg += `Fix: copy SEARCH from the current text above (without the "N#HH|" prefixes) and retry, or use a hashline replace op with those anchors.`;
  } else {
    msg += ` Nothing in the file is close to it (${plural(lines.length, "line")}). Re-read the file (read_file) to see its current content.`;
  }
  return msg;
}

export function ambiguous(req: RequestInfo, rung: MatchRung, starts: readonly number[], count: number, viaSubstring = false): string {
  const where = starts.slice(0, 10).map((s) => (viaSubstring || count <= 1 ? `${s + 1}` : `${s + 1}-${s + count}`));
  const more = starts.length > 10 ? ` and more` : "";
  const allHint = rung === "exact" && !req.lineMode ? `, or set replace_all: true to change every occurrence` : "";
  return (
    `SEARCH matches ${starts.length >= 50 ? "50 or more" : starts.length} places in ${req.path} ${RUNG_WORDS[rung]} ` +
    `(starting at lines ${where.join(", ")}${more}); nothing was changed. ` +
    `Add neighbouring lines to SEARCH so it matches exactly one place${allHint}.`
  );
}

/** A relaxed match that is unique only at its own rung: other places match almost as well. */
export function looselyAmbiguous(req: RequestInfo, rung: MatchRung, at: number, starts: readonly number[], count: number): string {
  const where = starts.slice(0, 10).map((s) => (count <= 1 ? `${s + 1}` : `${s + 1}-${s + count}`));
  return (
    `SEARCH does not match ${req.path} exactly. It matches ${range(at, count)} ${RUNG_WORDS[rung]}, but read loosely ` +
    `(ignoring indentation, runs of whitespace and Unicode look-alikes) it matches ${starts.length >= 50 ? "50 or more" : starts.length} places ` +
    `(starting at lines ${where.join(", ")}${starts.length > 10 ? " and more" : ""}), so which one is meant is unclear; nothing was changed. ` +
    `Copy SEARCH exactly from the file, with neighbouring lines so it matches exactly one place.`
  );
}
