/**
 * For a SEARCH that matched nowhere: the region of the file most like it, with its similarity,
 * so the error can show the model what the text really is.
 */

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const g = s.slice(i, i + 2);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

/** Dice coefficient over character bigrams (cheap, for ranking). */
function dice(a: Map<string, number>, b: Map<string, number>, la: string, lb: string): number {
  if (la === lb) return 1;
  if (la.length < 2 || lb.length < 2) return 0;
  let both = 0;
  for (const [g, n] of a) both += Math.min(n, b.get(g) ?? 0);
  return (2 * both) / (la.length - 1 + (lb.length - 1));
}

/** Levenshtein distance, two rows. */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** 1 - distance / longer length, on the texts as given. */
export function similarity(a: string, b: string): number {
  const max = Math.max(a.length, b.length);
  if (max === 0) return 1;
  if (a.length * b.length > 4_000_000) {
    return dice(bigrams(a), bigrams(b), a, b);
  }
  return 1 - levenshtein(a, b) / max;
}

export interface Closest {
  /** 0-based first line and line count. */
  start: number;
  count: number;
  similarity: number;
}

/** The window of `search.length` file lines most similar to `search`; undefined for an empty file. */
export function closestRegion(lines: readonly string[], search: readonly string[]): Closest | undefined {
  const n = lines.length;
  const m = Math.min(search.length, n);
  if (n === 0 || m === 0) return undefined;
  const sTrim = search.map((l) => l.trim());
  const fileGrams = new Map<number, Map<string, number>>();
  const gramsAt = (j: number) => {
    let g = fileGrams.get(j);
    if (!g) fileGrams.set(j, (g = bigrams(lines[j]!.trim())));
    return g;
  };
  const candidates = new Set<number>();
  const clamp = (c: number) => Math.max(0, Math.min(n - m, c));
  const byText = new Map<string, number[]>();
  for (let j = 0; j < n; j++) {
    const t = lines[j]!.trim();
    if (t.length < 3) continue;
    let list = byText.get(t);
    if (!list) byText.set(t, (list = []));
    if (list.length < 50) list.push(j);
  }
  for (let k = 0; k < sTrim.length; k++) for (const j of byText.get(sTrim[k]!) ?? []) candidates.add(clamp(j - k));
  // The most distinctive search lines, compared with every file line.
  const probes = sTrim
    .map((t, k) => ({ t, k }))
    .filter((p) => p.t.length >= 3)
    .sort((a, b) => b.t.length - a.t.length)
    .slice(0, 2);
  for (const p of probes) {
    const g = bigrams(p.t);
    const scored: Array<[number, number]> = [];
    for (let j = 0; j < n; j++) scored.push([dice(g, gramsAt(j), p.t, lines[j]!.trim()), j]);
    scored.sort((a, b) => b[0] - a[0]);
    for (const [, j] of scored.slice(0, 5)) candidates.add(clamp(j - p.k));
  }
  if (candidates.size === 0) candidates.add(0);
  let best: { start: number; score: number } | undefined;
  const sGrams = sTrim.map((t) => bigrams(t));
  for (const c of [...candidates].slice(0, 400)) {
    let score = 0;
    for (let k = 0; k < m; k++) score += dice(sGrams[k]!, gramsAt(c + k), sTrim[k]!, lines[c + k]!.trim());
    if (!best || score > best.score || (score === best.score && c < best.start)) best = { start: c, score };
  }
  const start = best!.start;
  const region = lines.slice(start, start + m).join("\n");
  return { start, count: m, similarity: similarity(region, search.join("\n")) };
}
