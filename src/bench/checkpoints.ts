/**
 * Bench section "checkpoints": snapshot times of the git-backed checkpoint store on a generated
 * 10,000-file workspace (100 folders of 100 small files, in a git repository), first and
 * incremental (10 files changed, 5 added), against a baseline measured in the same run on a
 * copy of the same files: `git add -A && git write-tree` in a plain repository (first, then
 * again after the same changes). The store does more than the baseline (skip checks: nested
 * repositories, large files, huge folders; a commit and a ref), so a ratio near 1 is the goal.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitCheckpointStore } from "../node/checkpoint-store";
import type { BenchFn, BenchMetric } from "./types";

const FOLDERS = 100;
const PER = 100;
const ROUNDS = 3;

function generate(root: string): void {
  mkdirSync(root, { recursive: true });
  for (let d = 0; d < FOLDERS; d++) {
    mkdirSync(join(root, `pkg${d}`));
    for (let f = 0; f < PER; f++) writeFileSync(join(root, `pkg${d}`, `mod${f}.ts`), `export const v${d}_${f} = ${d * PER + f};\n// ${"x".repeat(200)}\n`);
  }
}

function change(root: string, round: number): void {
  for (let i = 0; i < 10; i++) writeFileSync(join(root, `pkg${i}`, `mod${i}.ts`), `changed ${round} ${i}\n`);
  for (let i = 0; i < 5; i++) writeFileSync(join(root, `pkg${i}`, `new${round}-${i}.ts`), `new ${round} ${i}\n`);
}

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
const time = (fn: () => void) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
const timeAsync = async (fn: () => Promise<unknown>) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const bench: BenchFn = async () => {
  const firsts: number[] = [];
  const incs: number[] = [];
  const baseFirsts: number[] = [];
  const baseIncs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const dir = mkdtempSync(join(tmpdir(), "yoke-bench-ckpt-"));
    try {
      const ws = join(dir, "ws");
      const plain = join(dir, "plain");
      generate(ws);
      generate(plain);
      execFileSync("git", ["init", "-q"], { cwd: ws, env });
      execFileSync("git", ["init", "-q"], { cwd: plain, env });
      const store = createGitCheckpointStore({ storageDir: join(dir, "storage") });
      const addTree = () => execFileSync("sh", ["-c", "git add -A && git write-tree"], { cwd: plain, env });
      baseFirsts.push(time(addTree));
      firsts.push(await timeAsync(() => store.snapshot({ root: ws, name: "ws", budgetMs: 60_000 }).then((s) => (s.partial || s.error ? Promise.reject(new Error(s.error ?? s.fallback)) : s))));
      change(plain, r);
      change(ws, r);
      baseIncs.push(time(addTree));
      incs.push(await timeAsync(() => store.snapshot({ root: ws, name: "ws", budgetMs: 60_000 })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const metric = (name: string, v: number, b: number, note: string): BenchMetric => ({ name, value: Math.round(v), unit: "ms", baseline: Math.round(b), ratio: Math.round((v / b) * 100) / 100, note });
  return {
    section: "checkpoints",
    method: `median of ${ROUNDS} fresh workspaces of ${FOLDERS * PER} files; baseline: git add -A && git write-tree in a plain repository with the same files`,
    metrics: [
      metric(
        "first snapshot, 10,000 files",
        median(firsts),
        median(baseFirsts),
        "measured with a 60 s budget (the full snapshot); with the default 2 s budget a first snapshot this slow is partial and completes over the next ones",
      ),
      metric("incremental snapshot (10 changed, 5 new)", median(incs), median(baseIncs), "the turn waits this long before its first edit or command"),
    ],
  };
};
