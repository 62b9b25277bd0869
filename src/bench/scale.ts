/**
 * Bench section "scale" (issue 19): costs at 10 k / 100 k (/ 1 M) tracked files, each beside a
 * plain baseline measured in the same run on the same repository, as a ratio. The repositories
 * come from scale-repo.ts (nested packages, nested AGENTS.md, multi-MB files, an ignored
 * node_modules), made once per size in the bench's temp folder.
 *
 * `--sizes 10k,100k,1m` (default 10k,100k; 1 M takes minutes and several GB of disk).
 * Rows are one function each (`Row`): add one to ROWS. Each gets the size's context and returns
 * its metrics; what a row leaves changed in the repository it puts back.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { startScriptedLlmServer } from "../demo/scripted-llm-server";
import { createGitCheckpointStore } from "../node/checkpoint-store";
import { CHECKPOINT_DEFAULTS } from "../core/checkpoints/types";
import { generateScaleRepo, SCALE_GIT_ENV, type Row, type ScaleContext, type ScaleRepo } from "./scale-repo";
import { lessonsRows, searchRows, sessionSearchRows } from "./scale-search";
import type { BenchFn, BenchMetric } from "./types";

const gitEnv = { ...process.env, ...SCALE_GIT_ENV };
const git = (cwd: string, args: string[], env: NodeJS.ProcessEnv = gitEnv) => execFileSync("git", ["-c", "core.fsmonitor=false", ...args], { cwd, env, maxBuffer: 1 << 30 });
/**
 * The event loop's longest stall over several measured stretches. One monitor per stretch: a
 * monitor enabled again counts the time since it was disabled (the synchronous baselines between
 * rounds) as one stall.
 */
function stalls() {
  let max = 0;
  let p99 = 0;
  let current: ReturnType<typeof monitorEventLoopDelay> | undefined;
  return {
    enable() {
      current = monitorEventLoopDelay({ resolution: 5 });
      current.enable();
    },
    disable() {
      if (!current) return;
      current.disable();
      max = Math.max(max, current.max);
      p99 = Math.max(p99, current.percentile(99));
      current = undefined;
    },
    get max() {
      return max;
    },
    percentile(_: 99) {
      return p99;
    },
  };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const timed = async <T>(fn: () => T | Promise<T>): Promise<[number, T]> => {
  const t = performance.now();
  const out = await fn();
  return [performance.now() - t, out];
};
const metric = (name: string, value: number | null, baseline: number | undefined, note: string): BenchMetric => ({
  name,
  value: value === null ? null : Math.round(value),
  unit: "ms",
  ...(baseline !== undefined ? { baseline: Math.round(baseline) } : {}),
  ...(value !== null && baseline ? { ratio: Math.round((value / baseline) * 100) / 100 } : {}),
  note,
});

/** `git add -A && git write-tree` into a fresh copy of the repository's index (the first-snapshot baseline). */
function addTreeOnIndexCopy(ctx: ScaleContext, index = join(ctx.dir, `baseline-index-${Math.random().toString(36).slice(2)}`)): number {
  if (!existsSync(index)) {
    copyFileSync(join(ctx.repo.root, ".git", "index"), index);
    const st = statSync(join(ctx.repo.root, ".git", "index"));
    utimesSync(index, st.atime, st.mtime);
  }
  const env = { ...gitEnv, GIT_INDEX_FILE: index };
  const t = performance.now();
  git(ctx.repo.root, ["add", "-A"], env);
  git(ctx.repo.root, ["write-tree"], env);
  return performance.now() - t;
}

function gitStatus(ctx: ScaleContext): number {
  const t = performance.now();
  git(ctx.repo.root, ["--no-optional-locks", "status", "--porcelain"]);
  return performance.now() - t;
}

/** Ten files changed and five added (then put back), for the later-snapshot rows. */
function touch(ctx: ScaleContext, round: number): () => void {
  const changed = Array.from({ length: 10 }, (_, i) => ctx.repo.deepFile.replace(/file\d+\.ts$/, `file${i}.ts`));
  const before = changed.map((p) => readFileSync(join(ctx.repo.root, p)));
  changed.forEach((p, i) => writeFileSync(join(ctx.repo.root, p), `// changed in round ${round}\n${before[i]}`));
  const added = Array.from({ length: 5 }, (_, i) => join(ctx.repo.root, `new-${round}-${i}.ts`));
  for (const a of added) writeFileSync(a, `export const x = ${round};\n`);
  return () => {
    changed.forEach((p, i) => writeFileSync(join(ctx.repo.root, p), before[i]!));
    for (const a of added) rmSync(a, { force: true });
  };
}

/** Checkpoint before the first edit (default budget, a fresh shadow repository) vs `git add -A && git write-tree` on an index copy. */
export const firstCheckpoint: Row = async (ctx) => {
  const times: number[] = [];
  const base: number[] = [];
  let partial = 0;
  const loop = stalls();
  for (let r = 0; r < ctx.rounds; r++) {
    base.push(addTreeOnIndexCopy(ctx));
    const store = createGitCheckpointStore({ storageDir: join(ctx.dir, `first-${r}`) });
    loop.enable();
    const [t, snap] = await timed(() => store.snapshot({ root: ctx.repo.root, name: "ws", budgetMs: CHECKPOINT_DEFAULTS.budgetMs }));
    loop.disable();
    if (snap.error) throw new Error(`scale ${ctx.label}: the first checkpoint failed: ${snap.error}`);
    if (snap.partial) partial++;
    times.push(t);
    rmSync(join(ctx.dir, `first-${r}`), { recursive: true, force: true });
  }
  return [
    metric(
      `${ctx.label}: checkpoint before the first edit`,
      median(times),
      median(base),
      `default ${CHECKPOINT_DEFAULTS.budgetMs} ms budget, fresh shadow repository; ${partial ? `PARTIAL in ${partial} of ${ctx.rounds} rounds` : "complete in every round"}; baseline: git add -A && git write-tree on a copy of .git/index`,
    ),
    { name: `${ctx.label}: longest event-loop stall during the first checkpoints`, value: Math.round(loop.max / 1e6), unit: "ms", note: `p99 ${Math.round(loop.percentile(99) / 1e6)} ms` },
  ];
};

/**
 * Later checkpoints, as a session takes them: the turn changed 10 files and added 5; when it
 * ends the store refreshes its index in the background (`refresh`, vs `git status` and vs
 * `git add -A && git write-tree` on a warm index copy); the next turn's first change takes the
 * checkpoint told that nothing changed since (the common case, target ≤ 300 ms), or that the
 * agent wrote 15 files since (a nudged turn), or without knowing (a whole look: after a command
 * that may still be running, or in a new process).
 */
export const laterCheckpoint: Row = async (ctx) => {
  const store = createGitCheckpointStore({ storageDir: join(ctx.dir, "later") });
  const index = join(ctx.dir, "later-baseline-index");
  const root = ctx.repo.root;
  await store.snapshot({ root, name: "ws", budgetMs: 60_000 });
  addTreeOnIndexCopy(ctx, index);
  const t = { refresh: [] as number[], next: [] as number[], told: [] as number[], whole: [] as number[], base: [] as number[], status: [] as number[] };
  const check = (label: string, snap: Awaited<ReturnType<typeof store.snapshot>>) => {
    if (snap.error || snap.partial) throw new Error(`scale ${ctx.label}: a later checkpoint (${label}) was ${snap.error ?? "partial"}`);
    return snap;
  };
  for (let r = 0; r < ctx.rounds; r++) {
    const undo = touch(ctx, r);
    try {
      t.status.push(gitStatus(ctx));
      t.base.push(addTreeOnIndexCopy(ctx, index));
      const [rt, refreshed] = await timed(() => store.refresh!(root));
      if (!refreshed.complete) throw new Error(`scale ${ctx.label}: the refresh was not complete (${refreshed.error ?? ""})`);
      t.refresh.push(rt);
      const [nt, next] = await timed(() => store.snapshot({ root, name: "ws", budgetMs: CHECKPOINT_DEFAULTS.budgetMs, changed: [] }));
      check("nothing changed since", next);
      t.next.push(nt);
      // The next turn's content must be what the turn left: one changed file checked.
      const probe = ctx.repo.deepFile.replace(/file\d+\.ts$/, "file0.ts");
      const held = Buffer.from((await store.readFile(root, next.commit!, probe))!).toString();
      if (!held.startsWith(`// changed in round ${r}\n`)) throw new Error(`scale ${ctx.label}: the later checkpoint does not hold the turn's change of ${probe}`);
      // The agent writes 15 files after the refresh (a nudged turn): the checkpoint is told which.
      const more = Array.from({ length: 15 }, (_, i) => join(root, `agent-${r}-${i}.ts`));
      for (const m of more) writeFileSync(m, `export const agent = ${r};\n`);
      try {
        const [tt, told] = await timed(() => store.snapshot({ root, name: "ws", budgetMs: CHECKPOINT_DEFAULTS.budgetMs, changed: more }));
        check("told of 15 files", told);
        if (!(await store.readFile(root, told.commit!, `agent-${r}-14.ts`))) throw new Error(`scale ${ctx.label}: the checkpoint told of 15 files does not hold them`);
        t.told.push(tt);
        const [wt, whole] = await timed(() => store.snapshot({ root, name: "ws", budgetMs: CHECKPOINT_DEFAULTS.budgetMs }));
        check("whole look", whole);
        t.whole.push(wt);
      } finally {
        for (const m of more) rmSync(m, { force: true });
      }
    } finally {
      undo();
    }
  }
  rmSync(join(ctx.dir, "later"), { recursive: true, force: true });
  const status = median(t.status);
  return [
    metric(
      `${ctx.label}: refresh when a turn ends (10 changed, 5 new), in the background`,
      median(t.refresh),
      status,
      `baseline: git status --porcelain; git add -A && git write-tree on the same warm index copy: ${Math.round(median(t.base))} ms`,
    ),
    metric(
      `${ctx.label}: later checkpoint, next turn's first change (nothing changed since the refresh)`,
      median(t.next),
      status,
      "target ≤ 300 ms at 1 M; baseline: git status --porcelain; checked to hold the turn's changes",
    ),
    metric(`${ctx.label}: later checkpoint told of 15 files the agent wrote since the refresh`, median(t.told), status, "baseline: git status --porcelain"),
    metric(`${ctx.label}: later checkpoint, whole look (after a command, or in a new process)`, median(t.whole), status, "baseline: git status --porcelain"),
  ];
};

/** Restore to the first checkpoint after an edit deep in the tree, dry run (the preview) and real (undo snapshot + restore), vs `git status --porcelain`. */
export const restoreRows: Row = async (ctx) => {
  const store = createGitCheckpointStore({ storageDir: join(ctx.dir, "restore") });
  const snap = await store.snapshot({ root: ctx.repo.root, name: "ws", budgetMs: 60_000 });
  // The event loop while the preview and the restore run (the extension host runs the same code).
  const loop = stalls();
  const file = join(ctx.repo.root, ctx.repo.deepFile);
  const dry: number[] = [];
  const real: number[] = [];
  const status: number[] = [];
  let undone = true;
  for (let r = 0; r < ctx.rounds; r++) {
    writeFileSync(file, `// edited in round ${r}\n${ctx.repo.deepContent}`);
    status.push(gitStatus(ctx));
    loop.enable();
    const [d, plan] = await timed(() => store.plan(ctx.repo.root, snap.commit!));
    if (plan.changes.length !== 1 || plan.changes[0]!.path !== ctx.repo.deepFile) throw new Error(`scale ${ctx.label}: the preview lists ${JSON.stringify(plan.changes.slice(0, 5))}`);
    dry.push(d);
    const [t] = await timed(async () => {
      const now = await store.snapshot({ root: ctx.repo.root, name: "ws", budgetMs: 60_000 });
      return store.restore(ctx.repo.root, snap.commit!, { now: now.commit });
    });
    loop.disable();
    real.push(t);
    undone &&= readFileSync(file, "utf8") === ctx.repo.deepContent;
  }
  rmSync(join(ctx.dir, "restore"), { recursive: true, force: true });
  // The floor of that figure on this machine: the same monitor while awaiting a `git status` child process.
  const floor = monitorEventLoopDelay({ resolution: 5 });
  floor.enable();
  await new Promise<void>((resolve, reject) =>
    spawn("git", ["-c", "core.fsmonitor=false", "--no-optional-locks", "status", "--porcelain"], { cwd: ctx.repo.root, env: gitEnv, stdio: "ignore" })
      .on("close", () => resolve())
      .on("error", reject),
  );
  floor.disable();
  if (!undone) throw new Error(`scale ${ctx.label}: the restore did not put ${ctx.repo.deepFile} back`);
  return [
    metric(`${ctx.label}: restore to turn 0, dry run (preview)`, median(dry), median(status), "baseline: git status --porcelain (target ≤ 2×)"),
    metric(`${ctx.label}: restore to turn 0, real (undo snapshot + restore)`, median(real), median(status), "the edit checked undone byte for byte; baseline: git status --porcelain (target ≤ 2×)"),
    {
      name: `${ctx.label}: longest event-loop stall during the previews and restores`,
      value: Math.round(loop.max / 1e6),
      unit: "ms",
      note: `p99 ${Math.round(loop.percentile(99) / 1e6)} ms over ${ctx.rounds} previews and restores; the work runs in git child processes; the same monitor while only awaiting a git status child: max ${Math.round(floor.max / 1e6)} ms, p99 ${Math.round(floor.percentile(99) / 1e6)} ms`,
    },
  ];
};

function cliPath(): string {
  const found = [process.argv[1], join(__dirname, "cli.js")].find((p) => p && /cli\.js$/.test(p) && existsSync(p));
  if (!found) throw new Error("the scale bench runs the built CLI (dist/cli.js): run `npm run build` first");
  return found;
}

function runYoke(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const t = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath(), ...args], { env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr, ms: performance.now() - t }));
  });
}

/**
 * A full scripted `yoke run` session (read_file, edit_file deep in the tree, answer), then
 * `yoke checkpoints restore SESSION 0 --files`: the edit must be undone, byte for byte.
 */
export const sessionRow: Row = async (ctx) => {
  const { repo } = ctx;
  const server = await startScriptedLlmServer({
    script: [
      { toolCalls: [{ name: "read_file", input: { path: repo.deepFile } }] },
      { toolCalls: [{ name: "edit_file", input: { path: repo.deepFile, old_string: "export function", new_string: "export async function" } }] },
      { text: "Done." },
    ],
  });
  const sessions = join(ctx.dir, "sessions");
  const home = mkdtempSync(join(ctx.dir, "home-"));
  try {
    const env = { HOME: home };
    const flags = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", repo.root, "--session-dir", sessions, "--permission-mode", "bypassPermissions"];
    const run = await runYoke(["run", "--trust", ...flags, "make the function async"], env);
    if (run.code !== 0) throw new Error(`scale ${ctx.label}: yoke run failed: ${run.stderr.slice(-2000)}`);
    const edited = readFileSync(join(repo.root, repo.deepFile), "utf8");
    if (edited === repo.deepContent) throw new Error(`scale ${ctx.label}: the scripted edit did not land`);
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const dry = await runYoke(["checkpoints", "restore", id, "0", "--files", "--dry-run", "--session-dir", sessions, "--cwd", repo.root], env);
    const restore = await runYoke(["checkpoints", "restore", id, "0", "--files", "--session-dir", sessions, "--cwd", repo.root], env);
    const undone = restore.code === 0 && readFileSync(join(repo.root, repo.deepFile), "utf8") === repo.deepContent;
    if (!undone) writeFileSync(join(repo.root, repo.deepFile), repo.deepContent);
    const status = gitStatus(ctx);
    return [
      metric(`${ctx.label}: yoke run session (read_file, edit_file, answer)`, run.ms, undefined, "wall time of the whole CLI process, scripted model over HTTP"),
      metric(
        `${ctx.label}: yoke checkpoints restore SESSION 0 --files --dry-run`,
        dry.code === 0 ? dry.ms : null,
        status,
        "whole CLI process (Node start-up included); baseline: git status --porcelain",
      ),
      metric(
        `${ctx.label}: yoke checkpoints restore SESSION 0 --files`,
        undone ? restore.ms : null,
        status,
        undone ? "the edit was undone (checked byte for byte); whole CLI process" : `FAILED: the edit was NOT undone (${restore.stderr.trim().split("\n").slice(-2).join(" ")})`,
      ),
    ];
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
};

/** The rows, in order. Other sections' rows (grep, glob, start-up) are added here. */
export const ROWS: Row[] = [firstCheckpoint, laterCheckpoint, restoreRows, sessionRow, searchRows, lessonsRows, sessionSearchRows];

export function parseSizes(spec: string): Array<{ label: string; files: number }> {
  return spec
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
    .map((s) => {
      const m = /^(\d+)(k|m)?$/.exec(s);
      if (!m) throw new Error(`--sizes: "${s}" is not a size like 10k, 100k or 1m`);
      return { label: s, files: Number(m[1]) * (m[2] === "m" ? 1_000_000 : m[2] === "k" ? 1000 : 1) };
    });
}

/**
 * The size's repository: generated in `dir`, or with `YOKE_BENCH_SCALE_DIR` set, made once in
 * that folder (`repo-LABEL/`, described by `repo-LABEL.json` once complete) and reused by later
 * runs (a 1 M tree takes minutes and ~5 GB to make). A reused tree is checked clean first: rows put
 * back what they change, and a run that died half-way may not have.
 */
async function scaleRepo(size: { label: string; files: number }, dir: string): Promise<ScaleRepo> {
  const cache = process.env.YOKE_BENCH_SCALE_DIR;
  if (!cache) return generateScaleRepo(join(dir, "repo"), size.files);
  mkdirSync(cache, { recursive: true });
  const root = join(cache, `repo-${size.label}`);
  const meta = join(cache, `repo-${size.label}.json`);
  if (existsSync(meta) && existsSync(root)) {
    const repo = JSON.parse(readFileSync(meta, "utf8")) as ScaleRepo;
    const dirty = git(root, ["--no-optional-locks", "status", "--porcelain", "--untracked-files=all"]).toString();
    if (!dirty) {
      process.stderr.write(`[bench] scale ${size.label}: reusing ${root}\n`);
      return repo;
    }
    process.stderr.write(`[bench] scale ${size.label}: ${root} is not clean, made again:\n${dirty.slice(0, 500)}\n`);
  }
  rmSync(meta, { force: true });
  rmSync(root, { recursive: true, force: true });
  const repo = await generateScaleRepo(root, size.files);
  writeFileSync(meta, JSON.stringify(repo));
  return repo;
}

/** The load average beside each figure (the machine is shared: a figure means little without it). */
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

export const bench: BenchFn = async () => {
  const sizes = parseSizes(process.env.YOKE_BENCH_SCALE_SIZES || "10k,100k");
  const rounds = Math.max(1, Number(process.env.YOKE_BENCH_SCALE_ROUNDS) || 3);
  const metrics: BenchMetric[] = [];
  for (const size of sizes) {
    const dir = mkdtempSync(join(process.env.YOKE_BENCH_SCALE_DIR || tmpdir(), `yoke-bench-scale-${size.label}-`));
    try {
      const [genMs, repo] = await timed(() => scaleRepo(size, dir));
      process.stderr.write(`[bench] scale ${size.label}: ${repo.files} tracked files ready in ${(genMs / 1000).toFixed(1)} s\n`);
      const ctx: ScaleContext = { label: size.label, repo, dir, rounds };
      // YOKE_BENCH_SCALE_ROWS=searchRows,sessionSearchRows runs only the rows named (their function names).
      const only = process.env.YOKE_BENCH_SCALE_ROWS?.split(",").map((r) => r.trim());
      for (const row of ROWS) {
        if (only && !only.includes(row.name)) continue;
        const before = load();
        const got = await row(ctx);
        const after = load();
        for (const m of got) m.note = `${m.note ? `${m.note}; ` : ""}load average ${before} before the row, ${after} after`;
        metrics.push(...got);
        // As they come: a long run that fails later keeps what it measured.
        for (const m of got) process.stderr.write(`[bench] ${JSON.stringify(m)}\n`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    section: "scale",
    method: `generated git repositories (${sizes.map((s) => s.label).join(", ")} tracked files: nested packages, nested AGENTS.md, 3 × 4 MB files, an ignored node_modules of a tenth as many files); median of ${rounds} rounds per row; each baseline measured in the same run on the same repository`,
    metrics,
  };
};
