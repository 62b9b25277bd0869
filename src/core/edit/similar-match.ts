/**
 * The similarity stage (issue 21): a SEARCH that matches nowhere on any rung of the ladder, but
 * is a near-miss of exactly one place of the file (a typo, a missing comma, a character the model
 * wrote differently), as Cline/Roo's fuzzy search and aider's SequenceMatcher accept. It applies
 * only when that place clears a high bar, no other place comes near, and REPLACE does not carry
 * the model's differing text into the file (a SEARCH line that differs must be kept unchanged in
 * REPLACE, then the file's own line stays, or be removed). Otherwise the caller refuses.
 */
import { levenshtein } from "./closest-region";

/** The place must be at least this similar (1 - edit distance / length, read loosely). */
export const SIMILAR_BAR = 0.95;
/** Every other place (not overlapping it) must be below this. */
export const RUNNER_UP_MAX = 0.85;
/** Too little text to tell a near-miss from another line: no similarity match. */
const MIN_CHARS = 12;
/** Longer SEARCH texts are not compared character by character (an edit distance costs length²). */
const MAX_CHARS = 2000;
/** Places compared by edit distance, after a cheap ranking by line bigrams. */
const MAX_COMPARED = 12;

export interface SimilarCandidate {
  /** 0-based first line. */
  start: number;
  similarity: number;
}

export type SimilarResult =
  { kind: "match"; best: SimilarCandidate; runnerUp?: SimilarCandidate } | { kind: "ambiguous"; best: SimilarCandidate; runnerUp: SimilarCandidate } | { kind: "none"; best?: SimilarCandidate };

function bigrams(s: string): Set<string> {
  const g = new Set<string>();
  for (let i = 0; i < s.length - 1; i++) g.add(s.slice(i, i + 2));
  return g;
}

function dice(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let both = 0;
  for (const g of a) if (b.has(g)) both++;
  return (2 * both) / (a.size + b.size);
}

export function textSimilarity(a: string, b: string): number {
  const max = Math.max(a.length, b.length);
  return max === 0 ? 1 : 1 - levenshtein(a, b) / max;
}

/**
 * The places of `keys` (file lines read loosely) most similar to `search` (SEARCH read loosely,
 * same number of lines), best first. Candidates come from lines equal to a SEARCH line and from
 * the lines most like SEARCH's longest lines.
 */
export function findSimilar(keys: readonly string[], search: readonly string[]): SimilarResult {
  const m = search.length;
  const n = keys.length;
  const joined = search.join("\n");
  if (m === 0 || n < m || joined.replace(/\s/g, "").length < MIN_CHARS || joined.length > MAX_CHARS) return { kind: "none" };
  const starts = new Set<number>();
  const add = (j: number, k: number) => {
    const s = j - k;
    if (s >= 0 && s + m <= n) starts.add(s);
  };
  const index = new Map<string, number[]>();
  keys.forEach((t, j) => {
    if (t.length < 3) return;
    const l = index.get(t);
    if (!l) index.set(t, [j]);
    else if (l.length < 20) l.push(j);
  });
  search.forEach((t, k) => index.get(t)?.forEach((j) => add(j, k)));
  const probes = search
    .map((t, k) => ({ t, k }))
    .filter((p) => p.t.length >= 3)
    .sort((a, b) => b.t.length - a.t.length)
    .slice(0, 3);
  const grams = keys.map((t) => bigrams(t));
  for (const p of probes) {
    const g = bigrams(p.t);
    const scored = grams.map((fg, j) => [dice(g, fg), j] as const).sort((a, b) => b[0] - a[0]);
    for (const [score, j] of scored.slice(0, 8)) if (score > 0.5) add(j, p.k);
  }
  const sGrams = search.map((t) => bigrams(t));
  const cheap = (s: number) => {
    let score = 0;
    for (let k = 0; k < m; k++) score += keys[s + k] === search[k] ? 1 : dice(sGrams[k]!, grams[s + k]!);
    return score;
  };
  const ranked = [...starts]
    .map((s) => ({ s, score: cheap(s) }))
    .sort((a, b) => b.score - a.score || a.s - b.s)
    .slice(0, MAX_COMPARED)
    .map(({ s }) => ({ start: s, similarity: textSimilarity(keys.slice(s, s + m).join("\n"), joined) }))
    .sort((a, b) => b.similarity - a.similarity || a.start - b.start);
  const best = ranked[0];
  if (!best) return { kind: "none" };
  const runnerUp = ranked.find((c) => c.start + m <= best.start || c.start >= best.start + m);
  if (best.similarity < SIMILAR_BAR) return { kind: "none", best };
  if (runnerUp && runnerUp.similarity >= RUNNER_UP_MAX) return { kind: "ambiguous", best, runnerUp };
  return { kind: "match", best, ...(runnerUp ? { runnerUp } : {}) };
}
