/**
 * Bench section "repository-walk" (session 23, sweep23): the new-repository walk after a command
 * (src/node/commands/new-repositories.ts) on a node_modules-heavy tree of 10 k / 100 k (/ 1 M) files,
 * about 8 files a folder. Baseline, in the same run on the same tree: a walk with an empty folder
 * cache, which reads every folder — what every walk after a command cost before the cache (then
 * cut at 200,000 folders). Value: the walk after a command that made one folder, with the cache of
 * the walk before (it `lstat`s every folder and reads only the two whose stat changed).
 * `YOKE_BENCH_WALK_SIZES=10k,100k,1m` (default 10k,100k; 1 M files takes a minute to make and ~4 GB of inodes).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { folderStates } from "../node/commands/folder-states";
import { repositoryMarkers } from "../node/commands/new-repositories";
import type { BenchFn, BenchMetric } from "./types";

const SIZES: Record<string, number> = { "10k": 10_000, "100k": 100_000, "1m": 1_000_000 };

/** A node_modules-like tree of `files` empty files, 8 a folder, 5 sub-folders a folder, 7 levels a package. */
function makeTree(root: string, files: number): number {
  let f = 0;
  let d = 0;
  const make = (dir: string, depth: number) => {
    mkdirSync(dir, { recursive: true });
    d++;
    for (let i = 0; i < 8 && f < files; i++, f++) writeFileSync(join(dir, `f${i}.js`), "");
    if (depth < 6) for (let i = 0; i < 5 && f < files; i++) make(join(dir, `d${i}`), depth + 1);
  };
  for (let p = 0; f < files; p++) make(join(root, "node_modules", `p${p}`), 0);
  return d;
}

const best = (n: number, fn: () => void) => {
  let min = Infinity;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
};

export const bench: BenchFn = async () => {
  const metrics: BenchMetric[] = [];
  const rows: string[] = ["| files | folders | full walk (every folder read) | walk after a command (cache) | ratio | folders read |", "|---|---|---|---|---|---|"];
  const sizes = (process.env.YOKE_BENCH_WALK_SIZES ?? "10k,100k").split(",").filter((s) => SIZES[s]);
  for (const size of sizes) {
    const base = mkdtempSync(join(tmpdir(), "yoke-bench-walk-"));
    try {
      const root = join(base, "ws");
      const folders = makeTree(root, SIZES[size]!);
      // The cache only trusts folders changed more than 2 s before they were read.
      await new Promise((r) => setTimeout(r, 2100));
      const states = folderStates(root);
      const full = best(3, () => {
        states.end(); // after a finished walk this empties the cache: the next walk reads every folder
        repositoryMarkers(root);
      });
      repositoryMarkers(root);
      let n = 0;
      let reads = 0;
      const cached = best(5, () => {
        mkdirSync(join(root, "node_modules", "p0", `new${n++}`));
        repositoryMarkers(root);
        reads = states.reads;
      });
      metrics.push({
        name: `walk after a command, ${size} files (${folders} folders)`,
        value: Math.round(cached * 10) / 10,
        unit: "ms",
        baseline: Math.round(full * 10) / 10,
        ratio: Math.round((cached / full) * 100) / 100,
      });
      rows.push(`| ${size} | ${folders} | ${full.toFixed(1)} ms | ${cached.toFixed(1)} ms | ${(cached / full).toFixed(2)} | ${reads} |`);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  return {
    section: "repository-walk",
    method: "repositoryMarkers on a node_modules-like tree (8 empty files a folder); baseline: the same walk with the folder cache emptied (every folder read); best of 3 / 5 in the same run",
    metrics,
    details: rows.join("\n"),
  };
};
