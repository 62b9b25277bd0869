/**
 * The tolerance rules for hashline ops: what models trained on oh-my-openagent's hashline tool
 * send, read the way they meant it. Each rule is named (the name is told to the model when it
 * applied) and each is applied only when one reading is possible; when two readings are possible
 * the op is refused with the current lines instead (docs/edits.md lists the rules and the
 * counter-cases that decide them).
 */
import { diffArrays } from "diff";
import { similarity } from "./closest-region";
import { leadingWhitespace } from "./reindent";

export type ToleranceRule = "anchor-echo" | "boundary-echo" | "wrap-kept" | "merge-kept" | "merge-split" | "indent-restored" | "end-as-anchor" | "duplicate-op" | "final-newline-line";

/** A rule that applied, with what it did (model-facing, without the op label). */
export interface Applied {
  rule: ToleranceRule;
  what: string;
}

export type Tolerated = { ok: true; lines: string[]; applied: Applied[] } | { ok: false; reason: string; lines: number[] };

/** A line with a letter or a digit: an exact copy of it next to itself is a copy, not new code. */
export function significant(line: string): boolean {
  return /[\p{L}\p{N}]/u.test(line);
}

function noWs(s: string): string {
  return s.replace(/\s+/g, "");
}

function same(a: string, b: string): boolean {
  return a.trimEnd() === b.trimEnd();
}

function quote(line: string): string {
  const t = line.trimEnd();
  return JSON.stringify(t.length > 60 ? `${t.slice(0, 57)}...` : t);
}

type Echo = "exact" | "ambiguous" | "none";

/**
 * Is `line` a repetition of the file line `neighbour`? "exact" (same text, same indentation, a
 * line with content): a copy made by mistake. "ambiguous": the same text with other whitespace,
 * or a line without content (`}`, a blank line) that may as well be meant twice.
 */
function echoOf(line: string | undefined, neighbour: string | undefined): Echo {
  if (line === undefined || neighbour === undefined) return "none";
  if (same(line, neighbour)) return significant(neighbour) ? "exact" : "ambiguous";
  if (line.trim() !== "" && noWs(line) === noWs(neighbour)) return "ambiguous";
  return "none";
}

const OPEN = "([{";
const CLOSE = ")]}";

/** The brackets of `lines` open and close in order, every one closed (strings are not told apart). */
function balanced(lines: readonly string[]): boolean {
  let depth = 0;
  for (const line of lines) {
    for (const ch of line) {
      if (OPEN.includes(ch)) depth++;
      else if (CLOSE.includes(ch) && --depth < 0) return false;
    }
  }
  return depth === 0;
}

/**
 * echoOf for the line at `idx` of the inserted `lines`. A bracket line (`}`, `});`) that closes
 * or opens a block of the inserted lines themselves is theirs, not a copy of the file's line next
 * to it: the lines are balanced with it and would not be without it (a method added before a
 * class's closing `}` ends with its own `  }`).
 */
function echoAt(lines: readonly string[], idx: number, neighbour: string | undefined): Echo {
  const e = echoOf(lines[idx], neighbour);
  if (e !== "ambiguous" || significant(lines[idx]!) || !/[()[\]{}]/.test(lines[idx]!)) return e;
  return balanced(lines) && !balanced(lines.filter((_, i) => i !== idx)) ? "none" : e;
}

/**
 * anchor-echo: an append whose first line (a prepend whose last line) repeats the anchor line.
 * `before`/`after` are the file lines on each side of the insertion point (undefined at an end).
 */
export function insertEcho(op: "append" | "prepend", lines: readonly string[], before: { n: number; text: string } | undefined, after: { n: number; text: string } | undefined): Tolerated {
  const anchor = op === "append" ? before : after;
  const far = op === "append" ? after : before;
  let out = [...lines];
  const applied: Applied[] = [];
  if (!anchor) return { ok: true, lines: out, applied };
  const nearIdx = op === "append" ? 0 : out.length - 1;
  const near = echoAt(out, nearIdx, anchor.text);
  const where = op === "append" ? "first" : "last";
  const side = op === "append" ? "after" : "before";
  if (near === "ambiguous") {
    return {
      ok: false,
      lines: [anchor.n],
      reason:
        `its ${where} line ${quote(out[nearIdx]!)} is the same as line ${anchor.n} (${quote(anchor.text)}), ${side} which it inserts, ` +
        `up to whitespace or for a line without letters or digits, so Yoke cannot tell which was meant: a second copy, or line ${anchor.n} repeated by mistake`,
    };
  }
  if (near === "exact") {
    if (out.length === 1) {
      return { ok: false, lines: [anchor.n], reason: `its only line ${quote(out[0]!)} only repeats line ${anchor.n}, ${side} which it inserts, so there is nothing to insert` };
    }
    out = op === "append" ? out.slice(1) : out.slice(0, -1);
    applied.push({ rule: "anchor-echo", what: `its ${where} line repeated line ${anchor.n} (the anchor), so that copy was left out` });
  }
  // The line on the other side of the insertion point, repeated at the other end.
  if (far && out.length > 0) {
    const farIdx = op === "append" ? out.length - 1 : 0;
    const e = echoAt(out, farIdx, far.text);
    const other = op === "append" ? "last" : "first";
    if (far.text.trim() === "" && e !== "none" && near !== "exact") {
      // A blank line next to a blank line, without an echo of the anchor: a separator as written.
    } else if (e !== "none" && far.text.trim() === "" && near === "exact" && out.length > 1) {
      // The lines were written as the region around the insertion (anchor echoed): its blank line is the file's.
      out = op === "append" ? out.slice(0, -1) : out.slice(1);
      applied.push({ rule: "anchor-echo", what: `its ${other} line repeated the blank line ${far.n}, on the other side of the insertion, so that copy was left out too` });
    } else if (e === "exact" && near === "exact" && out.length > 1) {
      out = op === "append" ? out.slice(0, -1) : out.slice(1);
      applied.push({ rule: "anchor-echo", what: `its ${other} line repeated line ${far.n}, on the other side of the insertion, so that copy was left out too` });
    } else if (e !== "none") {
      return {
        ok: false,
        lines: [far.n],
        reason:
          `its ${other} line ${quote(out[farIdx]!)} is the same as line ${far.n}, just ${op === "append" ? "after" : "before"} the insertion point, ` +
          `so Yoke cannot tell which was meant: a second copy, or line ${far.n} repeated by mistake`,
      };
    }
  }
  return { ok: true, lines: out, applied };
}

/**
 * boundary-echo: a replace whose first new line repeats the line just before the range, or whose
 * last new line repeats the line just after it, while the replacement grew (so the copy is an
 * addition the model did not mean). `file` is every line, `from..to` the range (1-based).
 */
export function boundaryEcho(file: readonly string[], from: number, to: number, lines: readonly string[]): Tolerated {
  let out = [...lines];
  const applied: Applied[] = [];
  const count = to - from + 1;
  const before = from >= 2 ? file[from - 2] : undefined;
  const after = to < file.length ? file[to] : undefined;
  if (out.length <= count || out.length < 2) {
    // Not grown: a copy of a neighbour is either an echo (with a line deleted) or a line meant to read the same.
    // Lines replaced by blank lines only are blanked on purpose.
    const allBlank = out.every((l) => l.trim() === "");
    const k = allBlank ? 0 : out.length && echoOf(out[0], before) !== "none" ? from - 1 : out.length && echoOf(out[out.length - 1], after) !== "none" ? to + 1 : 0;
    if (k) {
      return {
        ok: false,
        lines: [k],
        reason:
          `its ${k === from - 1 ? "first" : "last"} new line repeats line ${k}, ${k === from - 1 ? "just before" : "just after"} the range, and it replaces ${count} line${count === 1 ? "" : "s"} with ${out.length}, ` +
          `so Yoke cannot tell which was meant: line ${k} repeated by mistake (and a line deleted), or a line meant to read the same as line ${k}. ` +
          `Leave the copy out to delete; to make a line read the same as line ${k}, use old_string/new_string`,
      };
    }
    return { ok: true, lines: out, applied };
  }
  const lead = echoAt(out, 0, before);
  if (lead === "ambiguous") {
    return {
      ok: false,
      lines: [from - 1],
      reason: `its first new line ${quote(out[0]!)} is the same as line ${from - 1}, just before the range, up to whitespace or for a line without letters or digits, so Yoke cannot tell which was meant: a second copy, or line ${from - 1} repeated by mistake`,
    };
  }
  if (lead === "exact") {
    out = out.slice(1);
    applied.push({ rule: "boundary-echo", what: `its first new line repeated line ${from - 1}, just before the range, so that copy was left out` });
  }
  if (out.length > 0) {
    const trail = echoAt(out, out.length - 1, after);
    // Only an addition can be an echo: the range must still have grown when only this end echoes.
    const grown = lead === "exact" || out.length > count;
    if (trail === "ambiguous" && grown) {
      return {
        ok: false,
        lines: [to + 1],
        reason: `its last new line ${quote(out[out.length - 1]!)} is the same as line ${to + 1}, just after the range, up to whitespace or for a line without letters or digits, so Yoke cannot tell which was meant: a second copy, or line ${to + 1} repeated by mistake`,
      };
    }
    if (trail === "exact" && grown) {
      out = out.slice(0, -1);
      applied.push({ rule: "boundary-echo", what: `its last new line repeated line ${to + 1}, just after the range, so that copy was left out` });
    }
  }
  return { ok: true, lines: out, applied };
}

const MIN_REFLOW = 6;
const MAX_WRAP = 10;

/**
 * wrap-kept, merge-kept, merge-split: replacement lines that only re-flow original lines keep the
 * original line structure. `original` are the replaced lines, `firstLine` the number of the first.
 */
export function reflow(original: readonly string[], lines: readonly string[], firstLine: number): Tolerated {
  const out = [...lines];
  const applied: Applied[] = [];
  if (original.length === 0 || out.length === 0) return { ok: true, lines: out, applied };
  const trimmedOriginal = new Set(original.map((l) => l.trim()));

  // wrap-kept: 2..10 new lines that are one original line wrapped, unchanged.
  const canon = new Map<string, number[]>();
  original.forEach((l, i) => {
    const c = noWs(l);
    canon.set(c, [...(canon.get(c) ?? []), i]);
  });
  const spans: Array<{ start: number; len: number; orig: number }> = [];
  for (let s = 0; s < out.length; s++) {
    for (let len = 2; len <= MAX_WRAP && s + len <= out.length; len++) {
      const span = out.slice(s, s + len);
      if (span.some((l) => l.trim() === "")) break;
      // Lines that are original lines themselves are copies, not a wrap.
      if (span.every((l) => trimmedOriginal.has(l.trim()))) continue;
      const c = noWs(span.join(""));
      const hit = canon.get(c);
      if (c.length >= MIN_REFLOW && hit && hit.length === 1) spans.push({ start: s, len, orig: hit[0]! });
    }
  }
  const byOrig = new Map<number, number>();
  for (const sp of spans) byOrig.set(sp.orig, (byOrig.get(sp.orig) ?? 0) + 1);
  const unique = spans.filter((sp) => byOrig.get(sp.orig) === 1).sort((a, b) => b.start - a.start);
  const overlapping = unique.some((a, i) => unique.some((b, j) => i !== j && a.start < b.start + b.len && b.start < a.start + a.len));
  if (unique.length && !overlapping) {
    for (const sp of unique) {
      out.splice(sp.start, sp.len, original[sp.orig]!);
      applied.push({
        rule: "wrap-kept",
        what: `lines ${sp.start + 1}-${sp.start + sp.len} of "lines" are line ${firstLine + sp.orig} wrapped without any other change, so line ${firstLine + sp.orig} was kept as it is`,
      });
    }
  }

  // merge-kept: one new line that is 2..10 consecutive original lines run together, unchanged.
  for (let i = out.length - 1; i >= 0; i--) {
    const l = out[i]!;
    if (l.trim() === "" || trimmedOriginal.has(l.trim())) continue;
    const c = noWs(l);
    if (c.length < MIN_REFLOW) continue;
    const windows: Array<[number, number]> = [];
    for (let a = 0; a < original.length; a++) {
      let acc = "";
      for (let b = a; b < original.length && b - a < MAX_WRAP; b++) {
        if (original[b]!.trim() === "") break;
        acc += noWs(original[b]!);
        if (acc.length > c.length) break;
        if (b > a && acc === c) windows.push([a, b]);
      }
    }
    if (windows.length !== 1) continue;
    const [a, b] = windows[0]!;
    const parts = original.slice(a, b + 1);
    // The parts must not also be in the replacement on their own (that would duplicate them).
    if (out.some((x, k) => k !== i && parts.some((p) => p.trim() === x.trim()))) continue;
    out.splice(i, 1, ...parts);
    applied.push({ rule: "merge-kept", what: `line ${i + 1} of "lines" is lines ${firstLine + a}-${firstLine + b} run together without any other change, so they were kept as they are` });
  }
  if (applied.length) return { ok: true, lines: out, applied };

  // merge-split: the statements of several lines sent as one line, changed.
  if (out.length === 1 && original.length >= 2) {
    const split = splitStatements(original, out[0]!);
    if (split) {
      return {
        ok: true,
        lines: split,
        applied: [{ rule: "merge-split", what: `its one new line holds ${original.length} statements, one for each replaced line, so they were written one per line as the file had them` }],
      };
    }
    const merged = runTogether(original, out[0]!);
    if (merged) {
      return {
        ok: false,
        lines: Array.from({ length: original.length }, (_, k) => firstLine + k),
        reason:
          `its one new line holds the text of the ${original.length} replaced lines run together, with changes, so Yoke cannot tell whether joining them ` +
          `into one line was meant. Send one string per line to keep them as separate lines; to join them on purpose, use old_string/new_string`,
      };
    }
  }
  return { ok: true, lines: out, applied };
}

/** `merged` is one statement per original line (each ending in ";"), changed a little: the split lines, indented as the originals. */
function splitStatements(original: readonly string[], merged: string): string[] | undefined {
  if (!original.every((l) => /^[^;]*;$/.test(l.trim()))) return undefined;
  if (/["'`]|\/\/|\/\*|\bfor\s*\(/.test(merged)) return undefined;
  const pieces = merged
    .trim()
    .split(/;\s+/)
    .map((p, i, all) => (i < all.length - 1 ? `${p};` : p));
  if (pieces.length !== original.length || !pieces[pieces.length - 1]!.endsWith(";")) return undefined;
  if (!pieces.every((p, i) => similarity(p, original[i]!.trim()) >= 0.5)) return undefined;
  if (pieces.every((p, i) => p === original[i]!.trim())) return undefined;
  return pieces.map((p, i) => leadingWhitespace(original[i]!) + p);
}

/** Does `merged` contain every original line's text, in order, with something changed? */
function runTogether(original: readonly string[], merged: string): boolean {
  if (original.some((l) => l.trim() === "")) return false;
  let at = 0;
  for (const l of original) {
    const k = merged.indexOf(l.trim(), at);
    if (k < 0) return false;
    at = k + l.trim().length;
  }
  return true;
}

const OPENER = /[{([:]\s*$/;

export interface IndentContext {
  /** The file lines before and after the range (nearest first is not assumed: whole arrays). */
  before: readonly string[];
  after: readonly string[];
}

/**
 * indent-restored: replacement lines that all lost their indentation (none has any, the lines
 * they replace had some) get the indentation of the lines they stand for, when that mapping has
 * one answer and the lines around the range require the indentation. A replacement that only
 * removes indentation is a dedent and is kept as written.
 */
export function restoreIndent(original: readonly string[], lines: readonly string[], firstLine: number, ctx: IndentContext): Tolerated {
  const out = [...lines];
  const applied: Applied[] = [];
  const real = out.filter((l) => l.trim() !== "");
  const origReal = original.filter((l) => l.trim() !== "");
  // The tell is the first line: a first replaced line without indentation sets the level the new lines are written at.
  if (real.length === 0 || origReal.length === 0 || leadingWhitespace(origReal[0]!) === "") return { ok: true, lines: out, applied };
  const newMin = Math.min(...real.map((l) => leadingWhitespace(l).length));
  if (newMin > 0) return { ok: true, lines: out, applied };
  const allFlat = real.every((l) => leadingWhitespace(l) === "");
  // Only the indentation changed: a dedent on purpose.
  if (allFlat && out.length === original.length && out.every((l, i) => l.trim() === original[i]!.trim())) return { ok: true, lines: out, applied };

  const refuse = (why: string): Tolerated => ({
    ok: false,
    lines: Array.from({ length: original.length }, (_, k) => firstLine + k),
    reason: `its lines lost their indentation (none is indented, the lines they replace are), and ${why}, so Yoke cannot tell which indentation is meant. ` + `Send the lines with their indentation`,
  });

  let result: string[];
  if (allFlat) {
    const mapped = mapIndents(original, out, ctx);
    if (typeof mapped === "string") return refuse(mapped);
    result = out.map((l, k) => (l.trim() === "" ? l : mapped[k] + l));
  } else {
    // Some lines are indented relative to a base that was lost: one shift must explain every kept line.
    const base = origReal.map(leadingWhitespace).reduce((a, b) => (b.length < a.length ? b : a));
    const kept = pairs(original, out).filter((p) => p.same);
    if (kept.length === 0 || !kept.every((p) => leadingWhitespace(original[p.o]!) === base + leadingWhitespace(out[p.n]!))) return { ok: true, lines: out, applied };
    result = out.map((l) => (l.trim() === "" ? l : base + l));
  }
  const first = result.findIndex((l, k) => l !== out[k]);
  if (first < 0) return { ok: true, lines: out, applied };
  if (!contextRequires(leadingWhitespace(result[first]!), ctx, result.slice(0, first))) {
    return refuse("the lines around the range do not require it (the range ends a block after other lines of it, so a dedent may be meant)");
  }
  if (!openersConsistent(result, ctx.after)) {
    return refuse("with the indentation of the lines they stand for, a line that opens a block would not be followed by a more indented line (the structure changed)");
  }
  const shown = result.filter((l, k) => l !== out[k]).map(leadingWhitespace);
  applied.push({ rule: "indent-restored", what: `its lines had lost their indentation, so each got the indentation of the line it stands for (${describeIndent(shown)})` });
  return { ok: true, lines: result, applied };
}

function describeIndent(indents: readonly string[]): string {
  const uniq = [...new Set(indents)];
  const show = (ws: string) =>
    ws === "" ? "none" : /^\t+$/.test(ws) ? `${ws.length} tab${ws.length > 1 ? "s" : ""}` : /^ +$/.test(ws) ? `${ws.length} space${ws.length > 1 ? "s" : ""}` : JSON.stringify(ws);
  return uniq.map(show).join(", ");
}

interface Pair {
  o: number;
  n: number;
  same: boolean;
}

/** Original/new line pairs from a diff of the trimmed lines (equal lines, and same-size replaced chunks). */
function pairs(original: readonly string[], lines: readonly string[]): Pair[] {
  const out: Pair[] = [];
  let o = 0;
  let n = 0;
  const parts = diffArrays(
    original.map((l) => l.trim()),
    lines.map((l) => l.trim()),
  );
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const c = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      for (let k = 0; k < c; k++) out.push({ o: o + k, n: n + k, same: true });
      o += c;
      n += c;
    } else if (part.removed) {
      const next = parts[p + 1];
      if (next?.added && (next.count ?? next.value.length) === c) {
        for (let k = 0; k < c; k++) out.push({ o: o + k, n: n + k, same: false });
        n += c;
        p++;
      } else if (next?.added) {
        n += next.count ?? next.value.length;
        p++;
      }
      o += c;
    } else n += c;
  }
  return out;
}

/** Each new line's indentation from the line it stands for, or why there is no single answer. */
function mapIndents(original: readonly string[], lines: readonly string[], ctx: IndentContext): string[] | string {
  const ind = (l: string | undefined) => (l === undefined ? undefined : leadingWhitespace(l));
  const out = new Array<string>(lines.length).fill("");
  const parts = diffArrays(
    original.map((l) => l.trim()),
    lines.map((l) => l.trim()),
  );
  let o = 0;
  let n = 0;
  const nextAfter = (): string | undefined => {
    for (let k = o; k < original.length; k++) if (original[k]!.trim() !== "") return ind(original[k]);
    const f = ctx.after.find((l) => l.trim() !== "");
    return ind(f);
  };
  const prevMapped = (): string | undefined => {
    for (let k = n - 1; k >= 0; k--) if (lines[k]!.trim() !== "") return out[k];
    for (let k = ctx.before.length - 1; k >= 0; k--) if (ctx.before[k]!.trim() !== "") return ind(ctx.before[k]);
    return undefined;
  };
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const c = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      for (let k = 0; k < c; k++) out[n + k] = ind(original[o + k])!;
      o += c;
      n += c;
      continue;
    }
    if (part.removed) {
      const removed = original.slice(o, o + c).filter((l) => l.trim() !== "");
      const next = parts[p + 1];
      if (next?.added) {
        const a = next.count ?? next.value.length;
        if (a === c) {
          // A new line standing for a blank line: the blank line says nothing about its indentation.
          if (original.slice(o, o + c).some((l, k) => l.trim() === "" && lines[n + k]!.trim() !== "")) return "a new line stands for a blank line, which has no indentation to restore";
          for (let k = 0; k < c; k++) out[n + k] = ind(original[o + k])!;
        } else {
          const levels = new Set(removed.map((l) => ind(l)));
          if (levels.size !== 1) return "the lines they replace have several indentations while their number changed";
          const only = [...levels][0]!;
          for (let k = 0; k < a; k++) out[n + k] = only;
        }
        n += a;
        o += c;
        p++;
        continue;
      }
      // A deletion: removing a line less indented than what follows it reshapes the block.
      o += c;
      const follow = nextAfter();
      if (removed.length && follow !== undefined && Math.min(...removed.map((l) => ind(l)!.length)) < follow.length) {
        return "a less indented line was removed while the lines after it were kept, so their level may change";
      }
      continue;
    }
    // An insertion: between two lines of the same indentation, it has theirs.
    const prev = prevMapped();
    const follow = nextAfter();
    if (prev === undefined || follow === undefined || prev !== follow) return "new lines sit between lines of different indentation";
    for (let k = 0; k < c; k++) out[n + k] = prev;
    n += c;
  }
  return out;
}

const CLOSER = /^\s*(?:[}\])]|end\b|<\/)/;

/**
 * Do the lines around the range require `indent` for its first line (so dropping it cannot be
 * meant)? Yes when the range is inside a block (the next line is indented at least as much, or
 * closes the block), or when it is the whole body of a block opened by the line right before it.
 * Not at the end of a block after other lines of it: there a dedent may be meant.
 */
function contextRequires(indent: string, ctx: IndentContext, newBefore: readonly string[]): boolean {
  const next = ctx.after.find((l) => l.trim() !== "");
  if (next !== undefined && (leadingWhitespace(next).length >= indent.length || CLOSER.test(next))) return true;
  const beforeAll = [...ctx.before, ...newBefore];
  const prev = beforeAll[beforeAll.length - 1];
  return prev !== undefined && prev.trim() !== "" && OPENER.test(prev) && leadingWhitespace(prev).length < indent.length && newBefore.length === 0;
}

/** A restored line that opens a block must be followed by a more indented line, else the structure was changed and the mapping is a guess. */
function openersConsistent(result: readonly string[], after: readonly string[]): boolean {
  const all = [...result, ...after];
  for (let k = 0; k < result.length; k++) {
    const l = result[k]!;
    if (l.trim() === "" || !OPENER.test(l)) continue;
    const next = all.slice(k + 1).find((x) => x.trim() !== "");
    if (next !== undefined && !CLOSER.test(next) && leadingWhitespace(next).length <= leadingWhitespace(l).length) return false;
  }
  return true;
}
