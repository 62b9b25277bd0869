/**
 * Bounded collection of search results, shared by both searchers (ripgrep's and the JS fallback)
 * so they answer alike: at most a bound of matches is taken, and only the best `maxResults` are
 * held (a heap), so memory is flat whatever the tree's size. The JS searcher streams matches in
 * path order; ripgrep only where path order is asked for (elsewhere it searches on every core and
 * matches arrive in the order it finds them).
 */
import type { GlobOptions, GlobResult } from "../ports";

/** A path and its modification time (ms). */
export type Stamped = readonly [path: string, mtimeMs: number];

/** Most recently modified first; ties in path order (byte order of the names, as ripgrep sorts). */
export function byRecent(a: Stamped, b: Stamped): number {
  return b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
}

/**
 * Path order as a sorted walk lists files (ripgrep's `--sort path`, the JS searcher): name by name
 * from the top, so "a/z" comes before "a-b" ("a" before "a-b"); "/" sorts before any other character.
 */
export function byPathOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) return -1;
    if (y === 47) return 1;
    return x - y;
  }
  return a.length - b.length;
}

/** The `k` first items under `cmp` among all pushed, in a heap of at most `k` (its root is the worst kept). */
export class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    private readonly cmp: (a: T, b: T) => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  push(x: T): void {
    const h = this.heap;
    if (this.k <= 0) return;
    if (h.length < this.k) {
      h.push(x);
      this.up(h.length - 1);
    } else if (this.cmp(x, h[0]!) < 0) {
      h[0] = x;
      this.down(0);
    }
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.cmp);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.cmp(h[i]!, h[p]!) <= 0) return;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      let m = i;
      if (l < h.length && this.cmp(h[l]!, h[m]!) > 0) m = l;
      if (l + 1 < h.length && this.cmp(h[l + 1]!, h[m]!) > 0) m = l + 1;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

/**
 * A glob's matches as they stream in (in path order, or as ripgrep finds them): `admit()` each one first (false: the bound is
 * reached, stop the search), then `add()` it with its modification time (order "modified", in any
 * order: ties are broken by path) or without (order "path").
 */
export class GlobMatches {
  private readonly top?: TopK<Stamped>;
  private readonly listed: string[] = [];
  private readonly cap: number;
  private seen = 0;
  private more = false;

  constructor(private readonly o: Pick<GlobOptions, "maxResults" | "order" | "maxRanked">) {
    const byPath = o.order === "path";
    this.cap = Math.max(0, byPath ? o.maxResults : (o.maxRanked ?? Infinity));
    if (!byPath) this.top = new TopK<Stamped>(o.maxResults, byRecent);
  }

  /** Whether the stamp of the match is wanted (order "modified"). */
  get ranked(): boolean {
    return this.top !== undefined;
  }

  /** Counts the next match; false when the bound is already reached (the match is not taken). */
  admit(): boolean {
    if (this.seen >= this.cap) {
      this.more = true;
      return false;
    }
    this.seen++;
    return true;
  }

  add(path: string, mtimeMs = 0): void {
    if (this.top) this.top.push([path, mtimeMs]);
    else this.listed.push(path);
  }

  /** The answer; `timedOut` when the search stopped at its time limit. */
  result(timedOut = false): GlobResult {
    const paths = this.top ? this.top.sorted().map(([p]) => p) : this.listed;
    const stopped = this.more ? "limit" : timedOut ? "time" : undefined;
    const truncated = stopped !== undefined || this.seen > paths.length;
    return { paths, truncated, found: this.seen, ...(stopped ? { stopped } : {}) };
  }
}

/** A deadline from an optional time limit: `passed()` is true once it is over. */
export function deadline(timeLimitMs: number | undefined): { passed(): boolean } {
  if (timeLimitMs === undefined) return { passed: () => false };
  const end = Date.now() + timeLimitMs;
  return { passed: () => Date.now() >= end };
}
