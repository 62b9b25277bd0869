/**
 * Whole-line matching and the replacement built from a match: lines REPLACE keeps from SEARCH
 * are the file's own lines, so nothing the model did not mean to change is touched.
 */
import { diffArrays } from "diff";
import type { Splice } from "./text-doc";

export function toLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** All starts (0-based) where `search` matches under `key`. */
export function findAll(fileKeys: readonly string[], searchKeys: readonly string[], limit = 50): number[] {
  const out: number[] = [];
  const m = searchKeys.length;
  for (let i = 0; i + m <= fileKeys.length; i++) {
    if (fileKeys[i] !== searchKeys[0]) continue;
    let k = 1;
    while (k < m && fileKeys[i + k] === searchKeys[k]) k++;
    if (k === m) {
      out.push(i);
      if (out.length >= limit) break;
    }
  }
  return out;
}

/**
 * The replacement lines: lines REPLACE keeps unchanged from SEARCH are the file's own lines;
 * changed and new lines go through `map` (re-indentation, look-alike restoration).
 */
export function buildReplacement(file: readonly string[], search: readonly string[], replace: readonly string[], map: (r: string, pair?: { s: string; f: string }) => string): string[] {
  // Lines kept at the start and the end pair up by position (a diff alone may pair a repeated
  // line with the wrong copy and move the file's own text of it, such as trailing spaces).
  let pre = 0;
  while (pre < search.length && pre < replace.length && search[pre] === replace[pre]) pre++;
  let suf = 0;
  while (suf < search.length - pre && suf < replace.length - pre && search[search.length - 1 - suf] === replace[replace.length - 1 - suf]) suf++;
  const out: string[] = file.slice(0, pre);
  // As many lines in REPLACE as in SEARCH: line k stands for line k (a diff could pair a repeated line
  // with another copy, whose own text, such as trailing spaces, would then move).
  if (search.length === replace.length) {
    for (let k = pre; k < search.length - suf; k++) out.push(search[k] === replace[k] ? file[k]! : map(replace[k]!, { s: search[k]!, f: file[k]! }));
    out.push(...file.slice(search.length - suf));
    return out;
  }
  let si = pre;
  let ri = pre;
  const parts = diffArrays(search.slice(pre, search.length - suf), replace.slice(pre, replace.length - suf));
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    const n = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      for (let k = 0; k < n; k++) out.push(file[si + k]!);
      si += n;
      ri += n;
    } else if (part.removed) {
      const next = parts[p + 1];
      if (next?.added) {
        const d = next.count ?? next.value.length;
        for (let k = 0; k < d; k++) out.push(map(replace[ri + k]!, k < n ? { s: search[si + k]!, f: file[si + k]! } : undefined));
        ri += d;
        p++;
      }
      si += n;
    } else {
      for (let k = 0; k < n; k++) out.push(map(replace[ri + k]!));
      ri += n;
    }
  }
  out.push(...file.slice(search.length - suf));
  return out;
}

/** The splice that replaces file lines [start, start + count) by `out`. */
export function lineSplice(text: string, starts: readonly number[], start: number, count: number, out: readonly string[]): Splice {
  const n = starts.length;
  let s = starts[start] ?? text.length;
  const end = start + count < n ? starts[start + count]! : text.length;
  const hasNewline = start + count < n || text.endsWith("\n");
  const body = out.length ? out.join("\n") + (hasNewline ? "\n" : "") : "";
  if (!out.length && !hasNewline && s > 0) s -= 1;
  return { start: s, end, text: body };
}
