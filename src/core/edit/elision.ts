/**
 * Elision-aware matching: a SEARCH with lines such as `...`, `// ... existing code ...` or
 * `# ...` matches with the elided region kept exactly as it is in the file. REPLACE must carry
 * the same markers, which expand back to the original lines.
 */

const DOTS = String.raw`(?:\.\.\.|\u2026)`;
const WORDS = String.raw`[A-Za-z][\w ,'()/-]*?`;
const ELISION = new RegExp(
  String.raw`^\s*(?:(?:\/\/+|#+|--|;+|%|\*|\/\*+|<!--|\{\s*\/\*+)\s*)?` +
    `${DOTS}(?:\\s+${WORDS}(?:\\s*${DOTS})?|${WORDS}\\s*${DOTS}|\\s*${DOTS})?` +
    String.raw`\s*(?:\*+\/\s*\}?|-->)?\s*$`,
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
export function findElisionMatches(keys: readonly string[], segments: readonly string[][], limit = 10): ElisionMatch[] {
  const first = segments[0]!;
  const out: ElisionMatch[] = [];
  for (let s = 0; s + first.length <= keys.length; s++) {
    if (!matchesAt(keys, first, s)) continue;
    let pos = s + first.length;
    const gaps: Array<[number, number]> = [];
    let ok = true;
    for (let i = 1; i < segments.length; i++) {
      const seg = segments[i]!;
      let at = -1;
      if (seg.length === 0) {
        at = pos;
      } else {
        for (let t = pos; t + seg.length <= keys.length; t++) {
          if (matchesAt(keys, seg, t)) {
            at = t;
            break;
          }
        }
      }
      if (at < 0) {
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
