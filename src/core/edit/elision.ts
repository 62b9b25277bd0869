/**
 * Elision-aware matching: a SEARCH with lines such as `...`, `// ... existing code ...` or
 * `# ...` matches with the elided region kept exactly as it is in the file. REPLACE must carry
 * the same markers, which expand back to the original lines.
 */

const DOTS = String.raw`(?:\.\.\.|\u2026)`;
const WORDS = String.raw`[A-Za-z][\w ,'()/-]*?`;
const ELISION = new RegExp(
  String.raw`^\s*(?:(?:\/\/+|#+|--|;+|%|\*|\/\*+|<!--|\{\s*\/\*+)\s*)?` + `${DOTS}(?:\\s+${WORDS}(?:\\s*${DOTS})?|${WORDS}\\s*${DOTS}|\\s*${DOTS})?` + String.raw`\s*(?:\*+\/\s*\}?|-->)?\s*$`,
);

/** Is the line only an elision marker (`...`, `// ... existing code ...`, `# ...`, `<!-- ... -->`)? */
export function isElisionLine(line: string): boolean {
  return ELISION.test(line);
}

export function countElisions(lines: readonly string[]): number {
  return lines.filter(isElisionLine).length;
}

/** Splits lines at elision markers: k markers give k + 1 segments (possibly empty). */
export function splitAtElisions(lines: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const l of lines) {
    if (isElisionLine(l)) out.push([]);
    else out[out.length - 1]!.push(l);
  }
  return out;
}

export interface ElisionMatch {
  /** 0-based first and one-past-last matched file line. */
  start: number;
  end: number;
  /** For each marker: the elided file lines [from, to). */
  gaps: Array<[number, number]>;
}

function matchesAt(keys: readonly string[], seg: readonly string[], at: number): boolean {
  if (at + seg.length > keys.length) return false;
  for (let k = 0; k < seg.length; k++) if (keys[at + k] !== seg[k]) return false;
  return true;
}

/**
 * Every place the segments match in order (each following segment at its nearest occurrence
 * after the previous one). `keys` are the file lines and `segments` the SEARCH segments, both
 * already normalised for comparison. The first and last segments must not be empty.
 */
export function findElisionMatches(keys: readonly string[], segments: readonly string[][], gapOk: (gap: number, from: number, to: number) => boolean = () => true, limit = 10): ElisionMatch[] {
  // Where each non-empty segment matches, in order, so each chain step is a binary search.
  const where = segments.map((seg) => {
    if (seg.length === 0) return [];
    const at: number[] = [];
    for (let t = 0; t + seg.length <= keys.length; t++) if (keys[t] === seg[0] && matchesAt(keys, seg, t)) at.push(t);
    return at;
  });
  const nextAt = (list: number[], pos: number): number => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo < list.length ? list[lo]! : -1;
  };
  const out: ElisionMatch[] = [];
  for (const s of where[0]!) {
    let pos = s + segments[0]!.length;
    const gaps: Array<[number, number]> = [];
    let ok = true;
    for (let i = 1; i < segments.length; i++) {
      const seg = segments[i]!;
      const at = seg.length === 0 ? pos : nextAt(where[i]!, pos);
      // A gap that breaks the marker's indentation rule would break it further out too: stop.
      if (at < 0 || !gapOk(i - 1, pos, at)) {
        ok = false;
        break;
      }
      gaps.push([pos, at]);
      pos = at + seg.length;
    }
    if (ok) {
      out.push({ start: s, end: pos, gaps });
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** Indentation width in columns (a tab counts 4). */
export function indentColumns(line: string): number {
  let n = 0;
  for (const c of line) {
    if (c === " ") n++;
    else if (c === "\t") n += 4;
    else break;
  }
  return n;
}

/**
 * The indentation rule of each marker: a marker indented deeper than the SEARCH line before it
 * stands for lines deeper than that line ("strict"); at the same depth, for lines at least as
 * deep; a marker less indented sets no rule. This keeps `def a(): / ... / return x` from
 * reaching into the next function when `a` has no `return x`.
 */
export function markerRules(search: readonly string[]): Array<"strict" | "same" | "none"> {
  const rules: Array<"strict" | "same" | "none"> = [];
  let prev: string | undefined;
  for (const l of search) {
    if (isElisionLine(l)) {
      if (prev === undefined) rules.push("none");
      else {
        const d = indentColumns(l) - indentColumns(prev);
        rules.push(d > 0 ? "strict" : d === 0 ? "same" : "none");
      }
    } else if (l.trim() !== "") prev = l;
  }
  return rules;
}

/** Checks file lines [from, to) elided after line `from - 1` against a marker's rule. */
export function gapFollowsRule(lines: readonly string[], from: number, to: number, rule: "strict" | "same" | "none"): boolean {
  if (rule === "none" || from === 0) return true;
  let base = from - 1;
  while (base > 0 && lines[base]!.trim() === "") base--;
  const min = indentColumns(lines[base]!) + (rule === "strict" ? 1 : 0);
  for (let k = from; k < to; k++) if (lines[k]!.trim() !== "" && indentColumns(lines[k]!) < min) return false;
  return true;
}
