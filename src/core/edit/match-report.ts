/**
 * The model-facing texts of search/replace refusals: what was not found (with the closest region
 * of the file in hashline view and its similarity), what matched several places, and where.
 */
import { diffChars } from "diff";
import { closestRegion } from "./closest-region";
import { isElisionLine } from "./elision";
import { formatHashlineView } from "./hashline";
import { foldLookalikes } from "./lookalikes";
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
  similar: "only as similar text (a near-miss: a character or two differ)",
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

/** A character as the model should read it: printable ASCII as itself, else with its code point. */
function showChars(t: string): string {
  const shown = JSON.stringify(t);
  const odd = [...t].filter((c) => c.charCodeAt(0) > 0x7e || (c.charCodeAt(0) < 0x20 && c !== "\t"));
  return odd.length ? `${shown} (${odd.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(" ")})` : shown;
}

/** What differs between one SEARCH line and its file line, in a few words. */
export function lineDifference(s: string, f: string): string {
  if (s === f) return "identical";
  if (s.trimEnd() === f.trimEnd()) return "trailing whitespace only";
  if (s.trim() === f.trim()) return `indentation only (the file has ${JSON.stringify(/^[ \t]*/.exec(f)![0])}, SEARCH ${JSON.stringify(/^[ \t]*/.exec(s)![0])})`;
  if (s.replace(/\s+/g, "") === f.replace(/\s+/g, "")) return "whitespace only";
  const parts: string[] = [];
  const d = diffChars(s.trim(), f.trim());
  for (let i = 0; i < d.length && parts.length < 3; i++) {
    const p = d[i]!;
    const next = d[i + 1];
    if (p.removed && next?.added) {
      parts.push(`SEARCH has ${showChars(p.value)} where the file has ${showChars(next.value)}`);
      i++;
    } else if (p.added) parts.push(`the file has ${showChars(p.value)} that SEARCH lacks`);
    else if (p.removed) parts.push(`SEARCH has ${showChars(p.value)} that the file lacks`);
  }
  const note = foldLookalikes(s.trim()) === foldLookalikes(f.trim()) ? " (look-alike characters)" : "";
  return parts.join(", ") + note;
}

/** What differs between SEARCH and the file lines at `start` (as many lines), for a refusal: up to 3 lines. */
export function describeDiff(search: readonly string[], file: readonly string[], start: number): string {
  const diffs: string[] = [];
  let n = 0;
  for (let k = 0; k < search.length && k < file.length; k++) {
    if (search[k] === file[k]) continue;
    n++;
    if (diffs.length < 3) diffs.push(`line ${start + k + 1}: ${lineDifference(search[k]!, file[k]!)}`);
  }
  if (n === 0) return "";
  return `What differs: ${diffs.join("; ")}${n > 3 ? `; and ${n - 3} more line${n - 3 === 1 ? "" : "s"}` : ""}.`;
}

/** A line the file has that SEARCH lacks (or the reverse) near `start`: SEARCH matches when it is left out. */
function missingLine(lines: readonly string[], search: readonly string[], start: number): { text: string; from: number; count: number } | undefined {
  const key = (l: string) => foldLookalikes(l).trim().replace(/\s+/g, " ");
  const s = search.map(key);
  const m = s.length;
  for (const from of [start - 1, start]) {
    if (from < 0 || from + m + 1 > lines.length) continue;
    const w = lines.slice(from, from + m + 1).map(key);
    for (let i = 1; i < m; i++) {
      if (w.slice(0, i).join("\n") === s.slice(0, i).join("\n") && w.slice(i + 1).join("\n") === s.slice(i).join("\n")) {
        return { text: `the file has a line between SEARCH's lines ${i} and ${i + 1} that SEARCH lacks: line ${from + i + 1} ${JSON.stringify(lines[from + i]!.trim())}`, from, count: m + 1 };
      }
    }
  }
  for (const from of [start, start + 1]) {
    if (m < 3 || from < 0 || from + m - 1 > lines.length) continue;
    const w = lines.slice(from, from + m - 1).map(key);
    for (let i = 1; i < m - 1; i++) {
      if (w.slice(0, i).join("\n") === s.slice(0, i).join("\n") && w.slice(i).join("\n") === s.slice(i + 1).join("\n")) {
        return { text: `SEARCH's line ${i + 1} ${JSON.stringify(search[i]!.trim())} is not in the file there (between lines ${from + i} and ${from + i + 1})`, from, count: m - 1 };
      }
    }
  }
  return undefined;
}

export function notFound(req: RequestInfo, lines: readonly string[], search: readonly string[], extra = ""): string {
  const near = closestRegion(lines, search.filter((l) => !isElisionLine(l)).length ? search.filter((l) => !isElisionLine(l)) : search);
  let msg = `SEARCH text not found in ${req.path}${extra}.`;
  if (near && near.similarity >= 0.3) {
    const missing = extra ? undefined : missingLine(lines, search, near.start);
    const what = missing ? `What differs: ${missing.text}.` : extra ? "" : describeDiff(search, lines.slice(near.start, near.start + near.count), near.start);
    const [from, count] = missing ? [missing.from, missing.count] : [near.start, near.count];
    msg +=
      ` The closest region is ${range(from, count)} (${Math.round(near.similarity * 100)}% similar)${what ? `. ${what}` : ";"} ${what ? "C" : "c"}urrent text:\n` +
      `${regionView(lines, from, count)}\n`;
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
