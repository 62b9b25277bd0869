/**
 * One search/replace edit through the matching ladder. Each rung relaxes the comparison a little
 * (exact; line endings and trailing whitespace; indentation; Unicode look-alikes; elision) and is
 * accepted only when it matches exactly one place. Nothing fuzzy is ever applied: a miss is
 * refused with the closest region of the file, an ambiguity with the candidate line numbers.
 */
import { diffArrays, diffChars } from "diff";
import { countElisions, findElisionMatches, gapFollowsRule, isElisionLine, markerRules, splitAtElisions } from "./elision";
import { buildReplacement, findAll, lineSplice, toLines } from "./line-match";
import { ambiguous, describeDiff, lineDifference, lineOf, looselyAmbiguous, notFound, plural, range, regionView, RUNG_WORDS } from "./match-report";
import { findSimilar } from "./similar-match";
import { stripViewPrefix, stripViewPrefixes } from "./hashline-ops";
import { foldLookalikes, restoreLookalikes } from "./lookalikes";
import { fileIndentUnit, findReindent, leadingWhitespace } from "./reindent";
import { applySplices, docFromString, docLines, lineStarts, type TextDoc } from "./text-doc";
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
  /** A 1-based line where SEARCH was when the model read the file (Roo's `:start_line:`, or its `N | ` numbers). */
  startLine?: number;
  /** Internal: the edge-blank rule was already tried. */
  edgesTried?: boolean;
  /** With replaceAll: the number of places SEARCH must match (gemini's expected_replacements). */
  expected?: number;
  /** Moves a line number of the file as read to the file as it is now (earlier edits of the same call). */
  shiftHint?: (line: number) => number;
}

/** Where an applied edit changed the file: 0-based first line, lines removed and lines put there. */
export interface ChangedRegion {
  start: number;
  removed: number;
  added: number;
}

export type SearchReplaceResult = { ok: true; doc: TextDoc; rung: MatchRung; places: number; noop: boolean; note?: string; rules?: string[]; region?: ChangedRegion } | { ok: false; message: string };

function newlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** Adds a rule's note to a result (rules first, in the order they applied). */
function withRule(r: SearchReplaceResult, rule: string, note: string): SearchReplaceResult {
  if (!r.ok) return r;
  const tagged = `[rule ${rule}] ${note}`;
  return { ...r, note: r.note ? `${tagged}; ${r.note}` : tagged, rules: [rule, ...(r.rules ?? [])] };
}

const KEYS: Record<Exclude<MatchRung, "elision" | "similar">, (l: string) => string> = {
  exact: (l) => l,
  whitespace: (l) => l.trimEnd(),
  indentation: (l) => l.trim(),
  unicode: (l) => foldLookalikes(l).trim(),
  spacing: (l) => l.trim().replace(/\s+/g, " "),
};

/** The loosest reading of a line: a relaxed match must be unique under it too. */
const LOOSEST = (l: string) => foldLookalikes(l).trim().replace(/\s+/g, " ");

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
  const roo = rooNumbered(sArr ?? search.split("\n"), rArr ?? replace.split("\n"));
  if (roo && !literallyPresent(doc.text, sArr ?? search.split("\n"))) {
    const next = req.lineMode
      ? { ...req, search: roo.search.join("\n"), replace: roo.replace.join("\n"), searchLines: roo.search, replaceLines: roo.replace }
      : { ...req, search: roo.search.join("\n"), replace: roo.replace.join("\n") };
    next.startLine = req.startLine ?? (req.shiftHint ? req.shiftHint(roo.first) : roo.first);
    const r = applySearchReplace(doc, next);
    return withRule(r, "roo-line-numbers", `the "N | " line numbers copied from the view were removed${roo.replaceToo ? " from SEARCH and REPLACE" : " from SEARCH"}`);
  }
  // An old_string of spaces or tabs (a single tab) is text to find; blank SEARCH block lines are no anchor, so that is empty.
  if (search.trim() === "" && (req.lineMode || !/[^\S\n]/.test(search) || doc.text.trim() === "")) {
    if (doc.text.trim() === "") {
      if (doc.crlf.length === 0) {
        // A new (or empty) file follows the content's own line ends and BOM: docFromString reads them.
        const raw = req.lineMode ? (req.replaceLines ? (req.replaceLines.length ? req.replaceLines.join("\n") + "\n" : "") : req.replace) : req.replace;
        const made = docFromString(raw);
        const next: TextDoc = { text: made.text, crlf: made.crlf, bom: doc.bom || made.bom };
        return { ok: true, doc: next, rung: "exact", places: 1, noop: next.text === doc.text && next.bom === doc.bom };
      }
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
    if (req.replaceAll && req.expected !== undefined && hits.length > 0 && hits.length !== req.expected) {
      return { ok: false, message: countMismatch(req, hits.length, "exactly") };
    }
    if (hits.length === 1 || (hits.length > 1 && req.replaceAll)) {
      const next = applySplices(
        doc,
        hits.map((h) => ({ start: h, end: h + search.length, text: replace })),
      );
      const region = hits.length === 1 ? { start: lineOf(doc.text, hits[0]!) - 1, removed: newlines(search), added: newlines(replace) } : undefined;
      return { ok: true, doc: next, rung: "exact", places: hits.length, noop: next.text === doc.text, ...(region ? { region } : {}) };
    }
    if (hits.length > 1) {
      const starts0 = hits.map((h) => lineOf(doc.text, h) - 1);
      const pick = pickByHint(req, starts0, toLines(search).length);
      if (pick.ok) {
        const h = hits[pick.index]!;
        const next = applySplices(doc, [{ start: h, end: h + search.length, text: replace }]);
        const region = { start: starts0[pick.index]!, removed: newlines(search), added: newlines(replace) };
        return { ok: true, doc: next, rung: "exact", places: 1, noop: next.text === doc.text, note: pick.note, rules: ["line-hint"], region };
      }
      return { ok: false, message: pick.message ?? ambiguous(req, "exact", starts0, 1, true) };
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
  const rungs: Array<Exclude<MatchRung, "elision" | "similar">> = ["whitespace", "indentation", "unicode", "spacing"];
  let looseKeys: string[] | undefined;
  for (const rung of rungs) {
    const key = KEYS[rung];
    const fileKeys = lines.map(key);
    const hits = findAll(fileKeys, sLines.map(key));
    if (hits.length === 0) continue;
    if (hits.length > 1 && !req.replaceAll) return { ok: false, message: ambiguous(req, rung, hits, sLines.length) };
    // SEARCH is already not exact: it must also be unique when read as loosely as the ladder allows.
    looseKeys ??= lines.map(LOOSEST);
    const loose = findAll(looseKeys, sLines.map(LOOSEST));
    if (req.replaceAll) {
      const bad = replaceAllProblem(req, rung, lines, hits, loose, sLines.length);
      if (bad) return { ok: false, message: bad };
    } else if (loose.length > 1) return { ok: false, message: looselyAmbiguous(req, rung, hits[0]!, loose, sLines.length) };
    // Read without its blank lines at the edges (which the file may lack there), SEARCH must not match elsewhere either.
    const other = edgeBlankTwin(looseKeys, sLines, hits[0]!);
    if (other !== undefined) return { ok: false, message: edgeAmbiguous(req, rung, hits[0]!, other, sLines.length) };
    const at = hits[0]!;
    const file = lines.slice(at, at + sLines.length);
    let map = (r: string) => r;
    let how = "";
    const asWritten = rung === "indentation" || rung === "unicode" || rung === "spacing" ? alreadyInFileIndent(file, sLines, rLines) : false;
    if (asWritten) {
      how = "REPLACE was already in the file's indentation, so it was written as given";
    } else if (rung === "indentation" || rung === "unicode" || rung === "spacing") {
      const re = findReindent(
        file.map((f, k) => [f, sLines[k]!] as [string, string]),
        rLines,
        fileIndentUnit(lines),
      );
      const stray = re.ok && re.describe !== "no indentation change" ? (outsideSearchBase(sLines, rLines) ?? strayIndent(lines, at, file.length)) : undefined;
      // Only at the indentation rung (other rungs' checks stay in force) and for one place.
      const flat = !re.ok && rung === "indentation" && hits.length === 1 ? flattenedReindent(lines, at, file, sLines, rLines) : undefined;
      if (flat) {
        const done = finish(doc, starts, at, file, flat, rung, "");
        return withRule(
          done,
          "flattened-reindent",
          "SEARCH and REPLACE had both lost their indentation, so each REPLACE line got the indentation of the file line it stands for (a new line: that of the lines around it)",
        );
      }
      if (!re.ok || stray) {
        return {
          ok: false,
          message:
            `SEARCH matches ${range(at, file.length)} of ${req.path} only ${RUNG_WORDS.indentation}, and the REPLACE text cannot be ` +
            `re-indented ${re.ok ? "with certainty" : "consistently"}: ${re.ok ? stray : re.reason}. Nothing was changed. Current text:\n${regionView(lines, at, file.length)}\n` +
            `Fix: copy the indentation exactly from the current text above.`,
        };
      }
      how = re.describe;
      map = (r: string) => re.apply(r) ?? r;
    }
    const spacing = rung === "spacing" ? spacingMap(file, sLines) : undefined;
    let quotedSpacing: string | undefined;
    const produced = new Set<string>();
    const out = buildReplacement(file, sLines, rLines, (r, pair) => {
      if (rung === "unicode" && pair) {
        const ws = leadingWhitespace(r);
        r = ws + restoreLookalikes(content(pair.s).trimEnd(), content(pair.f).trimEnd(), content(r), diffChars);
      }
      if (rung === "spacing" && pair) {
        if (quotedSpacing === undefined && spacingInString(content(pair.s).trimEnd(), content(pair.f).trimEnd())) quotedSpacing = pair.f;
        const ws = leadingWhitespace(r);
        r = ws + restoreSpacing(content(pair.s), content(pair.f), content(r), spacing!);
      }
      const m = map(r);
      produced.add(m);
      return m;
    });
    const shifted = !asWritten && how !== "" && how !== "no indentation change";
    const opener = shifted ? unnestedOpener(out, lines, at + file.length, produced) : undefined;
    if (opener !== undefined) {
      return {
        ok: false,
        message:
          `SEARCH matches ${range(at, file.length)} of ${req.path} only ${RUNG_WORDS[rung]}, and REPLACE, moved by SEARCH's difference from the file, ` +
          `would have the line ${JSON.stringify(opener.trim())} open a block with no deeper line after it, so its lines' indentation cannot be known; nothing was changed. ` +
          `Current text:\n${regionView(lines, at, file.length)}\nFix: write REPLACE with the indentation meant, copying SEARCH exactly from the current text above.`,
      };
    }
    if (quotedSpacing !== undefined) {
      const k = file.indexOf(quotedSpacing);
      return {
        ok: false,
        message:
          `SEARCH matches ${range(at, file.length)} of ${req.path} only ${RUNG_WORDS.spacing}, and REPLACE changes line ${at + k + 1}, whose spaces ` +
          `inside a quoted string differ from SEARCH's (the spaces of a string are its content), so which spacing is meant is unclear. Nothing was changed. Current text:\n` +
          `${regionView(lines, at, file.length)}\nFix: copy that line exactly from the current text above.`,
      };
    }
    if (req.replaceAll && hits.length > 1) {
      const next = applySplices(
        doc,
        hits.map((h) => lineSplice(doc.text, starts, h, file.length, out)),
      );
      const note = `[rule replace-all-relaxed] SEARCH matches ${hits.length} places ${RUNG_WORDS[rung]} (starting at lines ${hits.map((h) => h + 1).join(", ")}), all with the same text, so each was changed alike${how && how !== "no indentation change" ? `; ${how}` : ""}`;
      return { ok: true, doc: next, rung, places: hits.length, noop: next.text === doc.text, note, rules: ["replace-all-relaxed"] };
    }
    const done = finish(doc, starts, at, file, out, rung, how);
    return req.replaceAll ? withRule(done, "replace-all-relaxed", `replace_all: SEARCH matches one place ${RUNG_WORDS[rung]}`) : done;
  }

  if (countElisions(sLines) > 0) return applyElision(doc, req, lines, starts, sLines, rLines);
  if (!req.edgesTried) {
    const r = edgeBlanks(doc, req, lines, sLines, rLines);
    if (r) return r;
  }
  if (countElisions(sLines) === 0 && !req.replaceAll) {
    const r = similarStage(doc, req, lines, starts, sLines, rLines);
    if (r) return r;
  }
  return { ok: false, message: notFound(req, lines, sLines) };
}

/**
 * Is `seen` a slip of `actual`: identical, or differing by at most 3 characters in all, in runs of
 * at most 2, none of them a digit or an operator (a missing comma, a doubled or swapped letter)?
 */
function slipOnly(seen: string, actual: string): boolean {
  if (seen === actual) return true;
  let total = 0;
  for (const p of diffChars(seen, actual)) {
    if (!p.added && !p.removed) continue;
    // Digits and operators change what code means (3 for 5, < for <=, a dropped !): never a slip.
    if (p.value.length > 2 || /[\d!<>=+\-*/&|^%~?]/.test(p.value)) return false;
    total += p.value.length;
  }
  return total <= 3;
}

function pct(x: number): string {
  return `${Math.floor(x * 100)}%`;
}

/**
 * The similarity stage: SEARCH matched on no rung, but is a near-miss of exactly one place
 * (similar-match.ts). Lines REPLACE keeps from SEARCH are the file's own; a SEARCH line that
 * differs from its file line may not be changed by REPLACE (its new text would carry the model's
 * wrong copy into the file): refused. Undefined when no place clears the bar (the caller refuses).
 */
function similarStage(
  doc: TextDoc,
  req: SearchReplaceRequest,
  lines: readonly string[],
  starts: readonly number[],
  sLines: readonly string[],
  rLines: readonly string[],
): SearchReplaceResult | undefined {
  const keys = lines.map(LOOSEST);
  const found = findSimilar(keys, sLines.map(LOOSEST));
  if (found.kind === "none") return undefined;
  const { best } = found;
  const at = best.start;
  const count = sLines.length;
  if (found.kind === "ambiguous") {
    return {
      ok: false,
      message:
        `SEARCH text not found in ${req.path}. The closest region is ${range(at, count)} (${pct(best.similarity)} similar), but ` +
        `${range(found.runnerUp.start, count)} ${count > 1 ? "are" : "is"} ${pct(found.runnerUp.similarity)} similar too, so which one is meant is unclear; nothing was changed. Current text of both:\n` +
        `${bothViews(lines, at, found.runnerUp.start, count)}\nFix: copy SEARCH exactly from the one you mean.`,
    };
  }
  const file = lines.slice(at, at + count);
  // Only slips (a character or two, no digit): a changed value or word is a stale view, not a typo.
  if (!sLines.every((l, k) => slipOnly(LOOSEST(l), LOOSEST(file[k]!)))) return undefined;
  let carried: number | undefined;
  const asWritten = alreadyInFileIndent(file, sLines, rLines);
  const re = asWritten
    ? undefined
    : findReindent(
        file.map((f, k) => [f, sLines[k]!] as [string, string]),
        rLines,
        fileIndentUnit(lines),
      );
  if (re && !re.ok) return undefined;
  const produced = new Set<string>();
  const out = buildReplacement(file, sLines, rLines, (r, pair) => {
    if (pair && LOOSEST(pair.s) !== LOOSEST(pair.f) && carried === undefined) carried = file.indexOf(pair.f);
    const m = re ? (re.apply(r) ?? r) : r;
    produced.add(m);
    return m;
  });
  // A shift that would leave a new block without a deeper line: not a near-miss to apply.
  if (re && re.ok && re.describe !== "no indentation change" && unnestedOpener(out, lines, at + count, produced) !== undefined) return undefined;
  const differing = sLines.map((l, k) => (LOOSEST(l) !== LOOSEST(file[k]!) ? k : -1)).filter((k) => k >= 0);
  // A differing SEARCH line that REPLACE neither keeps nor pairs with a changed line, but whose text is still in REPLACE, is carried too.
  const carriedCopy = differing.find((k) => rLines.some((r) => r !== sLines[k] && LOOSEST(r) === LOOSEST(sLines[k]!)));
  const bad = carried ?? carriedCopy;
  if (bad !== undefined) {
    return {
      ok: false,
      message:
        `SEARCH text not found in ${req.path}. The closest region is ${range(at, count)} (${pct(best.similarity)} similar, and no other place comes near), ` +
        `but REPLACE changes line ${at + bad + 1}, which SEARCH has differently from the file, so the new text may carry the difference into the file; nothing was changed. ` +
        `${describeDiff(sLines, file, at)} Current text:\n${regionView(lines, at, count)}\nFix: copy SEARCH exactly from the current text above.`,
    };
  }
  const done = finish(doc, starts, at, file, out, "similar", re && re.ok && re.describe !== "no indentation change" ? re.describe : "");
  const diffs = sLines
    .map((l, k) => (l === file[k] ? "" : `line ${at + k + 1}: ${lineDifference(l, file[k]!)}`))
    .filter((d) => d !== "")
    .slice(0, 3);
  return withRule(
    done,
    "similar-text",
    `SEARCH matched nowhere exactly, but ${range(at, count)} ${count > 1 ? "are" : "is"} ${pct(best.similarity)} similar to it and no other place comes near ` +
      `(${found.runnerUp ? `the next is ${pct(found.runnerUp.similarity)}` : "no other candidate"}), so the edit was made there, with the file's own text of the lines REPLACE keeps (${diffs.join("; ")})`,
  );
}

/** Two regions in one view when they are close (their context would overlap), else one after the other. */
function bothViews(lines: readonly string[], a: number, b: number, count: number): string {
  const [x, y] = a < b ? [a, b] : [b, a];
  return y - (x + count) <= 4 ? regionView(lines, x, y + count - x) : `${regionView(lines, x, count)}\n${regionView(lines, y, count)}`;
}

function countMismatch(req: SearchReplaceRequest, found: number, how: string): string {
  return (
    `expected_replacements is ${req.expected}, but SEARCH matches ${found} place${found === 1 ? "" : "s"} in ${req.path} ${how}; nothing was changed. ` +
    `Set expected_replacements to the number of places meant, or add neighbouring lines to SEARCH to pick them.`
  );
}

/**
 * replace_all at a relaxed rung: every place must hold the same text (so one reading of the
 * change fits all), be the only places read loosely too, and not overlap; the expected count must hold.
 */
function replaceAllProblem(req: SearchReplaceRequest, rung: MatchRung, lines: readonly string[], hits: readonly number[], loose: readonly number[], count: number): string | undefined {
  if (loose.length !== hits.length) {
    return (
      `replace_all: SEARCH does not match ${req.path} exactly. It matches ${hits.length} place${hits.length === 1 ? "" : "s"} ${RUNG_WORDS[rung]}, but read loosely ` +
      `(ignoring indentation, runs of whitespace and Unicode look-alikes) ${loose.length} places (starting at lines ${loose
        .slice(0, 10)
        .map((h) => h + 1)
        .join(", ")}), ` +
      `so which ones are meant is unclear; nothing was changed. Copy SEARCH exactly from the file (replace_all then changes every exact occurrence).`
    );
  }
  const texts = new Set(hits.map((h) => lines.slice(h, h + count).join("\n")));
  if (texts.size > 1) {
    return (
      `replace_all: SEARCH does not match ${req.path} exactly. It matches ${hits.length} places ${RUNG_WORDS[rung]} (starting at lines ${hits.map((h) => h + 1).join(", ")}), ` +
      `but they differ from each other (indentation, spacing or characters), so one change cannot be made alike in all of them; nothing was changed. ` +
      `Give one edit per place, each copied exactly from the file.`
    );
  }
  if (hits.some((h, i) => i > 0 && h < hits[i - 1]! + count)) {
    return `replace_all: the places SEARCH matches in ${req.path} overlap (starting at lines ${hits.map((h) => h + 1).join(", ")}); nothing was changed. Give one edit per place.`;
  }
  if (req.expected !== undefined && hits.length !== req.expected) return countMismatch(req, hits.length, RUNG_WORDS[rung]);
  return undefined;
}

/**
 * A re-indented line of `out` that opens a block (ends with `{`, `(`, `[` or `:`) while the next non-blank
 * line (in `out`, else the file after the region) is not indented deeper: a re-indentation that
 * lost the structure the model meant.
 */
function unnestedOpener(out: readonly string[], lines: readonly string[], after: number, produced: ReadonlySet<string>): string | undefined {
  for (let k = 0; k < out.length; k++) {
    const l = out[k]!;
    // The file's own lines (kept by REPLACE) are as they are; only re-indented new text is checked.
    if (l.trim() === "" || !OPENS.test(l) || !produced.has(l)) continue;
    let next = out.slice(k + 1).find((x) => x.trim() !== "");
    if (next === undefined) next = lines.slice(after).find((x) => x.trim() !== "");
    if (next === undefined || CLOSES.test(next)) continue;
    if (leadingWhitespace(next).length <= leadingWhitespace(l).length) return l;
  }
  return undefined;
}

/** Opening minus closing brackets of a line (strings are not told apart: a rough balance). */
function balance(l: string): number {
  let n = 0;
  for (const c of l) {
    if (c === "{" || c === "(" || c === "[") n++;
    else if (c === "}" || c === ")" || c === "]") n--;
  }
  return n;
}

const OPENS = /[{([:]\s*$/;
const CLOSES = /^\s*([})\]]|end\b|<\/)/;

/**
 * flattened-reindent: SEARCH and REPLACE both lost all indentation while the matched lines have
 * several. Lines REPLACE keeps are the file's; a changed line paired with a file line gets that
 * line's indentation (when it opens and closes as many brackets as the SEARCH line it replaces);
 * a new line gets the indentation its neighbours agree on (the same on both sides, the deeper
 * line after an opening one, the deeper line before a closing one) and may not open or close a
 * block itself. Anything else: undefined (refused).
 */
function flattenedReindent(lines: readonly string[], at: number, file: readonly string[], search: readonly string[], replace: readonly string[]): string[] | undefined {
  const flat = (ls: readonly string[]) => ls.every((l) => l.trim() === "" || leadingWhitespace(l) === "");
  if (!flat(search) || !flat(replace) || search.length !== file.length) return undefined;
  if (new Set(file.filter((l) => l.trim() !== "").map(leadingWhitespace)).size < 2) return undefined;
  let ok = true;
  const NEW = "\u0000";
  const built = buildReplacement(file, search, replace, (r, pair) => {
    if (r.trim() === "") return "";
    if (pair) {
      if (pair.f.trim() === "") ok = false;
      if (balance(r) !== balance(pair.s) || OPENS.test(r) !== OPENS.test(pair.s) || CLOSES.test(r) !== CLOSES.test(pair.s)) ok = false;
      return leadingWhitespace(pair.f) + r;
    }
    if (balance(r) !== 0 || OPENS.test(r) || CLOSES.test(r)) ok = false;
    return NEW + r;
  });
  if (!ok) return undefined;
  const around = (k: number, step: 1 | -1): string | undefined => {
    for (let i = k + step; i >= 0 && i < built.length; i += step) if (built[i]!.trim() !== "" && !built[i]!.startsWith(NEW)) return built[i];
    for (let i = step === 1 ? at + file.length : at - 1; i >= 0 && i < lines.length; i += step) if (lines[i]!.trim() !== "") return lines[i];
    return undefined;
  };
  const out: string[] = [];
  for (let k = 0; k < built.length; k++) {
    const l = built[k]!;
    if (!l.startsWith(NEW)) {
      out.push(l);
      continue;
    }
    const prev = around(k, -1);
    const next = around(k, 1);
    if (prev === undefined || next === undefined) return undefined;
    const [p, n] = [leadingWhitespace(prev), leadingWhitespace(next)];
    let ind: string | undefined;
    if (p === n && !OPENS.test(prev) && !CLOSES.test(next)) ind = p;
    else if (OPENS.test(prev) && n.length > p.length && n.startsWith(p) && !CLOSES.test(next)) ind = n;
    else if (CLOSES.test(next) && p.length > n.length && p.startsWith(n) && !OPENS.test(prev)) ind = p;
    if (ind === undefined) return undefined;
    out.push(ind + l.slice(NEW.length));
  }
  return out;
}

/**
 * A REPLACE line indented less than every SEARCH line: it leaves the block SEARCH was written in,
 * so whether its indentation is meant in SEARCH's frame (and shifted) or in the file's is unclear.
 */
function outsideSearchBase(search: readonly string[], replace: readonly string[]): string | undefined {
  const base = baseIndent(search);
  if (base === undefined || base === "") return undefined;
  const out = replace.find((l) => l.trim() !== "" && leadingWhitespace(l).length < base.length);
  return out === undefined
    ? undefined
    : `the REPLACE line ${JSON.stringify(out.trim())} is indented less than every SEARCH line, so whether its indentation is meant as in SEARCH or as in the file is unclear`;
}

/** The shortest leading whitespace of the non-blank lines ("" when none is indented or there are none). */
function baseIndent(lines: readonly string[]): string | undefined {
  let base: string | undefined;
  for (const l of lines) {
    if (l.trim() === "") continue;
    const ws = leadingWhitespace(l);
    if (base === undefined || ws.length < base.length) base = ws;
  }
  return base;
}

/**
 * SEARCH lost (or gained) indentation, but REPLACE is already written in the file's: its base
 * indentation is the matched lines' and not SEARCH's, and every REPLACE line starts with it.
 * Shifting it by SEARCH's difference would indent it twice, so it is written as given.
 */
export function alreadyInFileIndent(file: readonly string[], search: readonly string[], replace: readonly string[]): boolean {
  const f = baseIndent(file);
  const s = baseIndent(search);
  const r = baseIndent(replace);
  if (f === undefined || s === undefined || r === undefined) return false;
  // A REPLACE line copied from SEARCH with SEARCH's (not the file's) indentation says REPLACE is in SEARCH's frame.
  const copied = new Set(search.filter((l, k) => l.trim() !== "" && file[k] !== undefined && leadingWhitespace(l) !== leadingWhitespace(file[k]!)));
  if (replace.some((l) => copied.has(l))) return false;
  if (f !== s && r === f && replace.every((l) => l.trim() === "" || l.startsWith(f))) return true;
  // Line by line: every REPLACE line that is one of the matched lines has that line's indentation in the file, at least one
  // of them differs from SEARCH's, and every other REPLACE line starts with the file's base indentation.
  const inFile = new Map<string, Set<string>>();
  file.forEach((l) => {
    if (l.trim() !== "") (inFile.get(l.trim()) ?? inFile.set(l.trim(), new Set()).get(l.trim())!).add(leadingWhitespace(l));
  });
  const inSearch = new Map<string, Set<string>>();
  search.forEach((l) => {
    if (l.trim() !== "") (inSearch.get(l.trim()) ?? inSearch.set(l.trim(), new Set()).get(l.trim())!).add(leadingWhitespace(l));
  });
  let evidence = false;
  for (const l of replace) {
    if (l.trim() === "") continue;
    const ws = leadingWhitespace(l);
    const known = inFile.get(l.trim());
    if (known) {
      if (!known.has(ws)) return false;
      if (!inSearch.get(l.trim())?.has(ws)) evidence = true;
    } else if (!l.startsWith(f)) return false;
  }
  return evidence;
}

/**
 * An indentation of the matched lines that looks stray rather than structural: an odd number of
 * spaces (1, 3, ...) that no line outside the match uses. REPLACE would get it by re-indenting,
 * though the model may as well have meant its lines as written.
 */
function strayIndent(lines: readonly string[], at: number, count: number): string | undefined {
  const used = new Set<string>();
  lines.forEach((l, k) => {
    if ((k < at || k >= at + count) && l.trim() !== "") used.add(leadingWhitespace(l));
  });
  for (let k = at; k < at + count; k++) {
    const ws = leadingWhitespace(lines[k]!);
    if (lines[k]!.trim() === "" || ws === "" || ws.includes("\t") || ws.length % 2 === 0 || used.has(ws)) continue;
    return `the file's indentation there (${ws.length} space${ws.length === 1 ? "" : "s"}) is used by no other line, so it may be stray rather than meant for REPLACE`;
  }
  return undefined;
}

/** Roo Code's `N | text` view lines in SEARCH (consecutive numbers on every line): the lines without them. */
const ROO_LINE = /^\s*(\d+)\s+\|(?!\|)\s?(.*)$/;

export function rooNumbered(search: readonly string[], replace: readonly string[]): { search: string[]; replace: string[]; first: number; replaceToo: boolean } | undefined {
  const s = search.length && search[search.length - 1] === "" ? search.slice(0, -1) : search;
  if (s.length === 0) return undefined;
  const parsed = s.map((l) => ROO_LINE.exec(l));
  if (parsed.some((m) => !m)) return undefined;
  const nums = parsed.map((m) => Number(m![1]));
  if (!nums.every((v, i) => i === 0 || v === nums[i - 1]! + 1)) return undefined;
  const nonEmpty = replace.filter((l) => l.trim() !== "");
  const numbered = nonEmpty.filter((l) => ROO_LINE.test(l)).length;
  const replaceToo = numbered > 0 && numbered * 2 >= nonEmpty.length;
  return {
    search: [...parsed.map((m) => m![2]!), ...search.slice(s.length)],
    replace: replaceToo ? replace.map((l) => ROO_LINE.exec(l)?.[2] ?? l) : [...replace],
    first: nums[0]!,
    replaceToo,
  };
}

/** Does the file hold these lines exactly as given (so numbered-looking lines are its real content)? */
function literallyPresent(text: string, lines: readonly string[]): boolean {
  const needle = lines.join("\n").replace(/\n$/, "");
  return needle !== "" && (("\n" + text).includes("\n" + needle + "\n") || ("\n" + text).endsWith("\n" + needle));
}

/** How much nearer to the hint (in lines) the chosen match must be than every other: a hint off by one line still picks right. */
const HINT_MARGIN = 2;

/**
 * Several equal matches and a line hint (where SEARCH was when the model read the file): the
 * match nearest to it, when it is at least HINT_MARGIN lines nearer than any other. Ties and
 * near-ties are refused. `starts` are 0-based first lines.
 */
function pickByHint(req: SearchReplaceRequest, starts: readonly number[], count: number): { ok: true; index: number; note: string } | { ok: false; message?: string } {
  const hint = req.startLine;
  if (hint === undefined || starts.length < 2) return { ok: false };
  const order = starts.map((s, i) => ({ i, d: Math.abs(s + 1 - hint) })).sort((a, b) => a.d - b.d);
  const [best, second] = [order[0]!, order[1]!];
  const where = (i: number) => range(starts[i]!, count);
  if (second.d - best.d >= HINT_MARGIN) {
    return {
      ok: true,
      index: best.i,
      note: `[rule line-hint] SEARCH matches ${starts.length} places exactly; ${where(best.i)} ${best.d === 0 ? "is at" : "is the nearest to"} the line hint ${hint}, so that one was changed`,
    };
  }
  const all = starts.map((s) => s + 1).join(", ");
  return {
    ok: false,
    message:
      `SEARCH matches ${starts.length} places in ${req.path} exactly (starting at lines ${all}), and the line hint ${hint} is ` +
      `${best.d === second.d ? `equally near ${where(best.i)} and ${where(second.i)}` : `not clearly nearer to ${where(best.i)} than to ${where(second.i)}`}, ` +
      `so which one is meant is unclear; nothing was changed. Add neighbouring lines to SEARCH so it matches exactly one place.`,
  };
}

/**
 * Do `seen` (the model's copy of a line) and `actual` (the file's) differ in a run of whitespace
 * inside a quoted string? Runs are compared in order; a run is inside a string when an odd number
 * of unescaped quotes of one kind precede it.
 */
export function spacingInString(seen: string, actual: string): boolean {
  const a = actual.split(/(\s+)/);
  const b = seen.split(/(\s+)/);
  if (a.length !== b.length) return /["'`]/.test(actual);
  let pos = 0;
  for (let i = 0; i < a.length; i++) {
    if (i % 2 === 1 && a[i] !== b[i] && insideQuotes(actual.slice(0, pos))) return true;
    pos += a[i]!.length;
  }
  return false;
}

function insideQuotes(before: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < before.length; i++) {
    const c = before[i]!;
    if (c === "\\") i++;
    else if (quote === undefined && (c === '"' || c === "'" || c === "`")) quote = c;
    else if (c === quote) quote = undefined;
  }
  return quote !== undefined;
}

/** For the spacing rung: how each whitespace run of the model's SEARCH reads in the file, when that is consistent. */
function spacingMap(file: readonly string[], search: readonly string[]): Map<string, string | null> {
  const m = new Map<string, string | null>();
  file.forEach((f, k) => {
    const a = content(f).trimEnd().split(/(\s+)/);
    const b = content(search[k]!).trimEnd().split(/(\s+)/);
    if (a.length !== b.length) return;
    for (let i = 1; i < a.length; i += 2) {
      // Only runs of spaces read as runs of spaces (a tab is never introduced into new text).
      const to = /^ +$/.test(a[i]!) && /^ +$/.test(b[i]!) ? a[i]! : null;
      const prev = m.get(b[i]!);
      if (prev === undefined) m.set(b[i]!, to);
      else if (prev !== to) m.set(b[i]!, null);
    }
  });
  return m;
}

/**
 * `changed` is the model's edit of `seen` (its copy of the file line `actual`, with other runs of
 * whitespace): the runs it kept are the file's, and its new runs are read the way its other runs
 * were (when that was consistent).
 */
export function restoreSpacing(seen: string, actual: string, changed: string, runs: ReadonlyMap<string, string | null>): string {
  const tail = /\s*$/.exec(changed)![0];
  const s = seen.trimEnd().split(/(\s+)/);
  const a = actual.trimEnd().split(/(\s+)/);
  const c = changed.trimEnd().split(/(\s+)/);
  if (s.length !== a.length || s.some((t, i) => i % 2 === 0 && t !== a[i])) return changed;
  let out = "";
  let si = 0;
  const isWs = (t: string) => t !== "" && t.trim() === "";
  for (const part of diffArrays(s, c)) {
    const n = part.count ?? part.value.length;
    if (part.removed) si += n;
    else if (part.added) {
      for (const t of part.value) out += isWs(t) ? (runs.get(t) ?? t) : t;
    } else {
      for (let k = 0; k < n; k++) out += a[si + k]!;
      si += n;
    }
  }
  return out + tail;
}

/**
 * For a relaxed match at `at` of a SEARCH with blank lines at its edges: another place where the
 * SEARCH without them matches (read loosely), if there is one.
 */
function edgeBlankTwin(looseKeys: readonly string[], s: readonly string[], at: number): number | undefined {
  let lead = 0;
  while (lead < s.length && s[lead]!.trim() === "") lead++;
  let trail = 0;
  while (trail < s.length - lead && s[s.length - 1 - trail]!.trim() === "") trail++;
  if (lead + trail === 0 || lead + trail >= s.length) return undefined;
  const core = s.slice(lead, s.length - trail).map(LOOSEST);
  return findAll(looseKeys, core).find((h) => h !== at + lead);
}

function edgeAmbiguous(req: SearchReplaceRequest, rung: MatchRung, at: number, other: number, count: number): string {
  return (
    `SEARCH does not match ${req.path} exactly. It matches ${range(at, count)} ${RUNG_WORDS[rung]}, but without its blank lines at the start or end ` +
    `(which the file may not have there) it also matches at line ${other + 1}, so which one is meant is unclear; nothing was changed. ` +
    `Copy SEARCH exactly from the file, without blank lines the file does not have there.`
  );
}

/** The first rung at which `search` matches the file, with every place it matches there. */
function locate(lines: readonly string[], search: readonly string[]): number[] {
  for (const rung of ["exact", "whitespace", "indentation", "unicode", "spacing"] as const) {
    const key = KEYS[rung];
    const hits = findAll(lines.map(key), search.map(key));
    if (hits.length) return hits;
  }
  return [];
}

function blankRun(lines: readonly string[], from: number, step: 1 | -1, max: number): number {
  let n = 0;
  for (let k = from; n < max && k >= 0 && k < lines.length && lines[k]!.trim() === ""; k += step) n++;
  return n;
}

/**
 * edge-blank-lines: SEARCH starts or ends with blank lines the file does not have at that place.
 * Those are dropped from SEARCH, and as many of REPLACE's blank lines at that end as say nothing
 * beyond them. When the file has some of them, only removing them all or keeping them all is
 * unambiguous; anything else is refused.
 */
function edgeBlanks(doc: TextDoc, req: SearchReplaceRequest, lines: readonly string[], s: readonly string[], r: readonly string[]): SearchReplaceResult | undefined {
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
  const ls = lead(s);
  const ts = trail(s);
  if (ls + ts === 0 || ls + ts >= s.length) return undefined;
  const core = s.slice(ls, s.length - ts);
  const hits = locate(lines, core);
  if (hits.length === 0) return undefined;
  const lr = Math.min(lead(r), r.length);
  const tr = Math.min(trail(r), r.length - lr);
  type Plan = { sCut: [number, number]; rCut: [number, number] } | { ambiguous: string };
  const side = (want: number, have: number, rBlank: number, where: string): { s: number; r: number } | string => {
    const spurious = want - have;
    if (spurious === 0) return { s: 0, r: 0 };
    if (have === 0) return { s: spurious, r: Math.min(want, rBlank) };
    if (rBlank === 0) return { s: spurious, r: 0 };
    if (rBlank === want) return { s: spurious, r: spurious };
    return `SEARCH has ${plural(want, "blank line")} at its ${where}, the file has ${have} there, and REPLACE has ${rBlank}, so how many blank lines are meant is unclear`;
  };
  const plans: Plan[] = hits.map((at) => {
    const a = side(ls, blankRun(lines, at - 1, -1, ls), lr, "start");
    const b = side(ts, blankRun(lines, at + core.length, 1, ts), tr, "end");
    if (typeof a === "string") return { ambiguous: a };
    if (typeof b === "string") return { ambiguous: b };
    return { sCut: [a.s, b.s], rCut: [a.r, b.r] };
  });
  const first = plans[0]!;
  if ("ambiguous" in first) return { ok: false, message: `${first.ambiguous}; nothing was changed. Put in SEARCH exactly the blank lines the file has there, and in REPLACE the ones you want.` };
  if (plans.some((p) => "ambiguous" in p || p.sCut.join() !== first.sCut.join() || p.rCut.join() !== first.rCut.join())) return undefined;
  if (first.sCut[0] + first.sCut[1] === 0) return undefined;
  const ns = s.slice(first.sCut[0], s.length - first.sCut[1]);
  const nr = r.slice(first.rCut[0], r.length - first.rCut[1]);
  const next = applySearchReplace(doc, { ...req, search: ns.join("\n"), replace: nr.join("\n"), searchLines: ns, replaceLines: nr, lineMode: true, edgesTried: true });
  return next.ok
    ? withRule(
        next,
        "edge-blank-lines",
        `SEARCH's blank lines at its ${first.sCut[0] ? (first.sCut[1] ? "start and end" : "start") : "end"} are not in the file there, so they were not required to match`,
      )
    : next;
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
  let note: string | undefined;
  if (hits.length > 1) {
    const starts0 = hits.map((h) => lineOf(text, h) - 1);
    const pick = pickByHint(req, starts0, sLines.length);
    if (!pick.ok) return { ok: false, message: pick.message ?? ambiguous(req, "exact", starts0, sLines.length) };
    hits.splice(0, hits.length, hits[pick.index]!);
    note = pick.note;
  } else {
    const twin = invisibleTwin(req, text, sLines);
    if (twin) return { ok: false, message: twin };
  }
  const out = buildReplacement(sLines, sLines, rLines, (r) => r);
  const noop = out.length === sLines.length && out.every((l, i) => l === sLines[i]);
  const hinted = note ? { note, rules: ["line-hint"] } : {};
  if (noop) return { ok: true, doc, rung: "exact", places: 1, noop, ...hinted };
  const region = { start: lineOf(text, hits[0]!) - 1, removed: sLines.length, added: out.length };
  let start = hits[0]!;
  let end = start + needle.length;
  const hasNewline = end < text.length;
  if (hasNewline) end += 1;
  const body = out.length ? out.join("\n") + (hasNewline ? "\n" : "") : "";
  if (!out.length && !hasNewline && start > 0) start -= 1;
  return { ok: true, doc: applySplices(doc, [{ start, end, text: body }]), rung: "exact", places: 1, noop, ...hinted, region };
}

function finish(doc: TextDoc, starts: readonly number[], at: number, file: readonly string[], out: readonly string[], rung: MatchRung, how: string): SearchReplaceResult {
  const noop = out.length === file.length && out.every((l, i) => l === file[i]);
  const next = noop ? doc : applySplices(doc, [lineSplice(doc.text, starts, at, file.length, out)]);
  const note = rung === "exact" ? undefined : `matched ${range(at, file.length)} ${RUNG_WORDS[rung]}${how && how !== "no indentation change" ? `; ${how}` : ""}`;
  return { ok: true, doc: next, rung, places: 1, noop, note, region: { start: at, removed: file.length, added: out.length } };
}

/**
 * SEARCH elides lines ("...") and REPLACE has no marker: applied only when REPLACE spells out every
 * elided line (in order, read without indentation), so nothing the model did not see is dropped.
 */
function elisionSpelledOut(doc: TextDoc, req: SearchReplaceRequest, lines: readonly string[], starts: readonly number[], s: readonly string[], r: readonly string[]): SearchReplaceResult | undefined {
  const key = KEYS.whitespace;
  const segments = splitAtElisions(s).map((seg) => seg.map(key));
  const rules = markerRules(s);
  const matches = findElisionMatches(lines.map(key), segments, (g, from, to) => gapFollowsRule(lines, from, to, rules[g] ?? "none"));
  if (matches.length !== 1) return undefined;
  const m = matches[0]!;
  const want = m.gaps
    .flatMap(([a, b]) => lines.slice(a, b))
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  const have = r.map((l) => l.trimEnd());
  let k = 0;
  for (const l of have) if (k < want.length && l === want[k]) k++;
  if (k < want.length) return undefined;
  const file = lines.slice(m.start, m.end);
  const elided = m.gaps.reduce((n, [a, b]) => n + b - a, 0);
  const done = finish(doc, starts, m.start, file, [...r], "elision", "");
  return withRule(done, "elision-spelled-out", `SEARCH elides ${plural(elided, "line")} ("...") and REPLACE has no marker but spells out each of them, so the whole region was replaced by REPLACE`);
}

function applyElision(doc: TextDoc, req: SearchReplaceRequest, lines: readonly string[], starts: readonly number[], sIn: readonly string[], rIn: readonly string[]): SearchReplaceResult {
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
  if (sMarks !== rMarks && rMarks === 0) {
    const spelled = elisionSpelledOut(doc, req, lines, starts, s, r);
    if (spelled) return spelled;
  }
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
    return {
      ok: false,
      message: ambiguous(
        req,
        "elision",
        matches.map((m) => m.start),
        1,
      ),
    };
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
