/**
 * One search/replace edit through the matching ladder. Each rung relaxes the comparison a little
 * (exact; line endings and trailing whitespace; indentation; Unicode look-alikes; elision) and is
 * accepted only when it matches exactly one place. Nothing fuzzy is ever applied: a miss is
 * refused with the closest region of the file, an ambiguity with the candidate line numbers.
 */
import { diffChars } from "diff";
import { countElisions, findElisionMatches, gapFollowsRule, isElisionLine, markerRules, splitAtElisions } from "./elision";
import { buildReplacement, findAll, lineSplice, toLines } from "./line-match";
import { ambiguous, lineOf, looselyAmbiguous, notFound, plural, range, regionView, RUNG_WORDS } from "./match-report";
import { stripViewPrefix, stripViewPrefixes } from "./hashline-ops";
import { foldLookalikes, restoreLookalikes } from "./lookalikes";
import { fileIndentUnit, findReindent, leadingWhitespace } from "./reindent";
import { applySplices, docLines, lineStarts, type TextDoc } from "./text-doc";
import type { MatchRung } from "./types";

export interface SearchReplaceRequest {
  search: string;
  replace: string;
  /** Text blocks are whole lines; JSON old_string is a substring first, then whole lines. */
  lineMode: boolean;
  /** Line mode: the lines themselves (a joined string cannot tell [] from [""]). */
  searchLines?: string[];
  replaceLines?: string[];
  replaceAll: boolean;
  path: string;
}

export type SearchReplaceResult =
  | { ok: true; doc: TextDoc; rung: MatchRung; places: number; noop: boolean; note?: string }
  | { ok: false; message: string };

const KEYS: Record<Exclude<MatchRung, "elision">, (l: string) => string> = {
  exact: (l) => l,
  whitespace: (l) => l.trimEnd(),
  indentation: (l) => l.trim(),
  unicode: (l) => foldLookalikes(l).trim(),
};

/** A line ending in whitespace (an explicit class: much faster than [^\S\n] on large files). */
const TRAILING_SPACE = /[ \t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\ufeff]\n/;

function content(l: string): string {
  return l.slice(leadingWhitespace(l).length);
}

function dropCr(l: string): string {
  return l.endsWith("\r") ? l.slice(0, -1) : l;
}

/** Applies one search/replace edit to `doc`. */
export function applySearchReplace(doc: TextDoc, req: SearchReplaceRequest): SearchReplaceResult {
  const search = req.search.replace(/\r\n/g, "\n");
  const replace = req.replace.replace(/\r\n/g, "\n");
  // Text blocks are line lists: a trailing blank line is a line, so they are never re-split.
  const sArr = req.lineMode ? (req.searchLines ?? search.split("\n")).map(dropCr) : undefined;
  const rArr = req.lineMode ? (req.replaceLines ?? (replace === "" ? [] : replace.split("\n"))).map(dropCr) : undefined;
  const unprefixed = stripViewPrefixes(sArr ?? search.split("\n"));
  if (unprefixed) {
    const rStripped = (rArr ?? replace.split("\n")).map(stripViewPrefix);
    const next = req.lineMode
      ? { ...req, search: unprefixed.join("\n"), replace: rStripped.join("\n"), searchLines: unprefixed, replaceLines: rStripped }
      : { ...req, search: unprefixed.join("\n"), replace: rStripped.join("\n") };
    const r = applySearchReplace(doc, next);
    const note = 'the "N#HH|" prefixes copied from the view were removed from SEARCH and REPLACE';
    return r.ok ? { ...r, note: r.note ? `${note}; ${r.note}` : note } : r;
  }
  if (search.trim() === "") {
    if (doc.text.trim() === "") {
      const text = rArr ? (rArr.length ? rArr.join("\n") + "\n" : "") : replace;
      const next = applySplices(doc, [{ start: 0, end: doc.text.length, text }]);
      return { ok: true, doc: next, rung: "exact", places: 1, noop: next.text === doc.text };
    }
    return {
      ok: false,
      message:
        `SEARCH is empty, but ${req.path} is not empty (${plural(docLines(doc.text).length, "line")}); an empty SEARCH only creates a new file. ` +
        `To add text, put in SEARCH the existing lines next to where it goes and repeat them in REPLACE with the new text, ` +
        `or use a hashline append/prepend op.`,
    };
  }
  const identical = sArr && rArr ? sArr.length === rArr.length && sArr.every((l, i) => l === rArr[i]) : search === replace;
  if (identical) {
    return { ok: true, doc, rung: "exact", places: 0, noop: true, note: "SEARCH and REPLACE are identical" };
  }

  if (!req.lineMode) {
    const hits: number[] = [];
    for (let i = doc.text.indexOf(search); i >= 0; i = doc.text.indexOf(search, i + search.length)) hits.push(i);
    if (hits.length === 1 && !req.replaceAll) {
      const h = hits[0]!;
      const wholeLines = (h === 0 || doc.text[h - 1] === "\n") && (search.endsWith("\n") || h + search.length === doc.text.length || doc.text[h + search.length] === "\n");
      const twin = wholeLines ? invisibleTwin(req, doc.text, toLines(search)) : undefined;
      if (twin) return { ok: false, message: twin };
    }
    if (hits.length === 1 || (hits.length > 1 && req.replaceAll)) {
      const next = applySplices(doc, hits.map((h) => ({ start: h, end: h + search.length, text: replace })));
      return { ok: true, doc: next, rung: "exact", places: hits.length, noop: next.text === doc.text };
    }
    if (hits.length > 1) return { ok: false, message: ambiguous(req, "exact", hits.map((h) => lineOf(doc.text, h) - 1), 1, true) };
    if (req.replaceAll) {
      return {
        ok: false,
        message: notFound(req, docLines(doc.text), toLines(search), " exactly (replace_all changes exact matches only: whitespace, indentation and characters must be identical)"),
      };
    }
  }

  const sLines = sArr ?? toLines(search);
  const rLines = rArr ?? toLines(replace);
  if (req.lineMode) {
    const exact = exactLines(doc, req, sLines, rLines);
    if (exact) return exact;
  }
  const lines = docLines(doc.text);
  const starts = lineStarts(doc.text);
  const rungs: Array<Exclude<MatchRung, "elision">> = ["whitespace", "indentation", "unicode"];
  for (const rung of rungs) {
    const key = KEYS[rung];
    const fileKeys = lines.map(key);
    const hits = findAll(fileKeys, sLines.map(key));
    if (hits.length === 0) continue;
    if (hits.length > 1) return { ok: false, message: ambiguous(req, rung, hits, sLines.length) };
    // SEARCH is already not exact: it must also be unique when read as loosely as the ladder allows.
    if (rung !== "unicode") {
      const loose = findAll(lines.map(KEYS.unicode), sLines.map(KEYS.unicode));
      if (loose.length > 1) return { ok: false, message: looselyAmbiguous(req, rung, hits[0]!, loose, sLines.length) };
    }
    const at = hits[0]!;
    const file = lines.slice(at, at + sLines.length);
    let map = (r: string) => r;
    let how = "";
    if (rung === "indentation" || rung === "unicode") {
      const re = findReindent(
        file.map((f, k) => [f, sLines[k]!] as [string, string]),
        rLines,
        fileIndentUnit(lines),
      );
      if (!re.ok) {
        return {
          ok: false,
          message:
            `SEARCH matches ${range(at, file.length)} of ${req.path} only ${RUNG_WORDS.indentation}, and the REPLACE text cannot be ` +
            `re-indented consistently: ${re.reason}. Nothing was changed. Current text:\n${regionView(lines, at, file.length)}\n` +
            `Fix: copy the indentation exactly from the current text above.`,
        };
      }
      how = re.describe;
      map = (r: string) => re.apply(r) ?? r;
    }
    const restore = rung === "unicode";
    const out = buildReplacement(file, sLines, rLines, (r, pair) => {
      if (restore && pair) {
        const ws = leadingWhitespace(r);
        r = ws + restoreLookalikes(content(pair.s).trimEnd(), content(pair.f).trimEnd(), content(r), diffChars);
      }
      return map(r);
    });
    return finish(doc, starts, at, file, out, rung, how);
  }

  if (countElisions(sLines) > 0) return applyElision(doc, req, lines, starts, sLines, rLines);
  const trimmed = req.lineMode ? withoutEdgeBlanks(sLines, rLines) : undefined;
  if (trimmed) {
    const r = applySearchReplace(doc, { ...req, search: trimmed[0].join("\n"), replace: trimmed[1].join("\n"), searchLines: trimmed[0], replaceLines: trimmed[1] });
    const note = "blank lines at the start or end of both SEARCH and REPLACE were not required to match";
    if (r.ok) return { ...r, note: r.note ? `${note}; ${r.note}` : note };
  }
  return { ok: false, message: notFound(req, lines, sLines) };
}

/**
 * Blank lines a model put at the start or end of both SEARCH and REPLACE (as many on each side)
 * say nothing about the change; without them the block may match. Undefined if there are none.
 */
function withoutEdgeBlanks(s: readonly string[], r: readonly string[]): [string[], string[]] | undefined {
  const lead = (a: readonly string[]) => {
    let n = 0;
    while (n < a.length && a[n]!.trim() === "") n++;
    return n;
  };
  const trail = (a: readonly string[]) => {
    let n = 0;
    while (n < a.length && a[a.length - 1 - n]!.trim() === "") n++;
    return n;
  };
  const head = Math.min(lead(s), lead(r));
  const tail = Math.min(trail(s), trail(r));
  if (head + tail === 0 || head + tail >= s.length) return undefined;
  return [s.slice(head, s.length - tail), r.slice(head, Math.max(head, r.length - tail))];
}

/**
 * An exact match is trusted only if no other place differs from it by trailing whitespace alone:
 * that difference is invisible to the model, so which one it meant cannot be known.
 */
function invisibleTwin(req: SearchReplaceRequest, text: string, sLines: readonly string[]): string | undefined {
  if (!twoCandidateStarts(text, sLines[0]!.trimEnd())) return undefined;
  if (!TRAILING_SPACE.test(text) && !/[^\S\n]$/.test(text.slice(-1))) return undefined;
  const lines = docLines(text);
  const key = KEYS.whitespace;
  const hits = findAll(lines.map(key), sLines.map(key));
  return hits.length > 1 ? ambiguous(req, "whitespace", hits, sLines.length) : undefined;
}

/** Does `first` start at least two lines whose rest is only whitespace? (A cheap pre-check.) */
function twoCandidateStarts(text: string, first: string): boolean {
  if (first.trim() === "") return true;
  let n = 0;
  for (let i = text.indexOf(first); i >= 0; i = text.indexOf(first, i + 1)) {
    if (i > 0 && text[i - 1] !== "\n") continue;
    const eol = text.indexOf("\n", i + first.length);
    if (text.slice(i + first.length, eol < 0 ? text.length : eol).trim() === "" && ++n > 1) return true;
  }
  return false;
}

/** The exact rung for whole lines, found with a substring search (no per-line work on large files). */
function exactLines(doc: TextDoc, req: SearchReplaceRequest, sLines: readonly string[], rLines: readonly string[]): SearchReplaceResult | undefined {
  const text = doc.text;
  const needle = sLines.join("\n");
  const hits: number[] = [];
  for (let i = text.indexOf(needle); i >= 0 && hits.length < 50; i = text.indexOf(needle, i + 1)) {
    const end = i + needle.length;
    // Ends at a line end; a match running over the final newline would invent a line after it.
    if ((i === 0 || text[i - 1] === "\n") && (text[end] === "\n" || (end === text.length && !text.endsWith("\n")))) hits.push(i);
  }
  if (hits.length === 0) return undefined;
  if (hits.length > 1) return { ok: false, message: ambiguous(req, "exact", hits.map((h) => lineOf(text, h) - 1), sLines.length) };
  const twin = invisibleTwin(req, text, sLines);
  if (twin) return { ok: false, message: twin };
  const out = buildReplacement(sLines, sLines, rLines, (r) => r);
  const noop = out.length === sLines.length && out.every((l, i) => l === sLines[i]);
  if (noop) return { ok: true, doc, rung: "exact", places: 1, noop };
  let start = hits[0]!;
  let end = start + needle.length;
  const hasNewline = end < text.length;
  if (hasNewline) end += 1;
  const body = out.length ? out.join("\n") + (hasNewline ? "\n" : "") : "";
  if (!out.length && !hasNewline && start > 0) start -= 1;
  return { ok: true, doc: applySplices(doc, [{ start, end, text: body }]), rung: "exact", places: 1, noop };
}

function finish(doc: TextDoc, starts: readonly number[], at: number, file: readonly string[], out: readonly string[], rung: MatchRung, how: string): SearchReplaceResult {
  const noop = out.length === file.length && out.every((l, i) => l === file[i]);
  const next = noop ? doc : applySplices(doc, [lineSplice(doc.text, starts, at, file.length, out)]);
  const note = rung === "exact" ? undefined : `matched ${range(at, file.length)} ${RUNG_WORDS[rung]}${how && how !== "no indentation change" ? `; ${how}` : ""}`;
  return { ok: true, doc: next, rung, places: 1, noop, note };
}

function applyElision(
  doc: TextDoc,
  req: SearchReplaceRequest,
  lines: readonly string[],
  starts: readonly number[],
  sIn: readonly string[],
  rIn: readonly string[],
): SearchReplaceResult {
  let s = [...sIn];
  let r = [...rIn];
  // Markers at the very start or end of both sides carry no position: drop them in pairs.
  while (s.length && r.length && isElisionLine(s[0]!) && isElisionLine(r[0]!)) {
    s = s.slice(1);
    r = r.slice(1);
  }
  while (s.length && r.length && isElisionLine(s[s.length - 1]!) && isElisionLine(r[r.length - 1]!)) {
    s = s.slice(0, -1);
    r = r.slice(0, -1);
  }
  if (!s.length || isElisionLine(s[0]!) || isElisionLine(s[s.length - 1]!)) {
    return {
      ok: false,
      message: `SEARCH in ${req.path} begins or ends with an elision marker ("..."), so where it starts or ends is unknown. Begin and end SEARCH with real lines copied from the file.`,
    };
  }
  const sMarks = countElisions(s);
  const rMarks = countElisions(r);
  if (sMarks !== rMarks) {
    return {
      ok: false,
      message:
        `SEARCH has ${plural(sMarks, "elision marker")} ("...") but REPLACE has ${rMarks}; nothing was changed. ` +
        `REPLACE must keep each marker of SEARCH (in the same order) so the elided lines are kept as they are, or spell the lines out in full.`,
    };
  }
  const key = KEYS.whitespace;
  const segments = splitAtElisions(s).map((seg) => seg.map(key));
  const rules = markerRules(s);
  const matches = findElisionMatches(lines.map(key), segments, (g, from, to) => gapFollowsRule(lines, from, to, rules[g] ?? "none"));
  if (matches.length === 0) return { ok: false, message: notFound(req, lines, s, " (even with the elided lines skipped)") };
  if (matches.length > 1) {
    return { ok: false, message: ambiguous(req, "elision", matches.map((m) => m.start), 1) };
  }
  const m = matches[0]!;
  const expand = (side: readonly string[]) => {
    const out: string[] = [];
    let g = 0;
    for (const l of side) {
      if (isElisionLine(l)) {
        const [from, to] = m.gaps[g++]!;
        out.push(...lines.slice(from, to));
      } else out.push(l);
    }
    return out;
  };
  const file = lines.slice(m.start, m.end);
  const out = buildReplacement(file, expand(s), expand(r), (x) => x);
  const elided = m.gaps.reduce((n, [a, b]) => n + b - a, 0);
  return finish(doc, starts, m.start, file, out, "elision", `${plural(elided, "elided line")} kept as in the file`);
}
