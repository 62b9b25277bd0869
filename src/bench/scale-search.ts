/**
 * Rows of `yoke bench --only scale` for search, guidance discovery and start-up (issue 19, items
 * 2–4), on a generated repository: each cost beside a plain baseline measured in the same run.
 * Every comparison warms each contender once (not counted), then runs `rounds` rounds in a
 * rotating order, and reports medians of wall time and of CPU (the tool's process and its rg;
 * a baseline's process), with the load average around it: CPU is the figure to compare on a
 * shared machine.
 * - grep and glob tools (in process, through the tool as the model calls it, time limits lifted)
 *   against a plain `rg` doing the same search (grep: the tool's command line without `--json`;
 *   glob: its `rg --files` command line), and for full scans also the tool's command line with
 *   `--sort path` (what the tools ran before: rg on one thread);
 * - `yoke lessons list` against the `git ls-files` it runs and against itself in an empty folder,
 *   and how many of the nested memory files it listed;
 * - a real `yoke run` (built CLI, scripted model over HTTP) calling glob then grep: spawn → first
 *   request (wall and CPU of the process, read from /proc), the tools' time as the session saw it,
 *   and the process's peak RSS, against the same session in an empty folder.
 */
import { spawn, spawnSync } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { silentLogger, type Searcher } from "../core/ports";
import { globTool } from "../core/tools/glob";
import { grepTool } from "../core/tools/grep";
import type { ToolContext } from "../core/tools/types";
import { startScriptedLlmServer } from "../demo/scripted-llm-server";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createRipgrepSearcher, findRipgrep, rgGlobArgs, rgGrepArgs } from "../node/ripgrep-searcher";
import { globLsFilesArgs, lsFilesArgs, LS_FILES_ENV } from "../node/git-ls-files";
import { NESTED_GUIDANCE_GLOBS } from "../core/guidance/nested-globs";
import type { Row } from "./scale-repo";
import type { BenchMetric } from "./types";

/** A pattern no generated file holds: grep scans every file (the worst case for the tool). */
const ABSENT = "yoke_bench_absent_[0-9]+";

function cliPath(): string {
  const found = [process.argv[1], path.join(__dirname, "cli.js")].find((p) => p && /cli\.js$/.test(p) && fs.existsSync(p));
  if (!found) throw new Error("the scale bench runs the built CLI (dist/cli.js): run `npm run build` first");
  return found;
}

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * CPU (ms) this process and its reaped children have used: utime + stime + cutime + cstime from
 * /proc/self/stat (10 ms ticks). A tool's cost is this process's CPU and its rg's; a baseline's is
 * its rg's (the bench reads and drops its output).
 */
function cpuTicksMs(): { self: number; children: number } {
  const f = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return { self: ((Number(f[11]) + Number(f[12])) * 1000) / 100, children: ((Number(f[13]) + Number(f[14])) * 1000) / 100 };
}

interface Cost {
  wallMs: number;
  cpuMs: number;
}

/** A process run to its end, its output read and dropped (not /dev/null: rg may stop early when it sees that): wall and its CPU. */
function timeProcess(cmd: string, args: string[], cwd: string): Promise<Cost> {
  return new Promise((resolve, reject) => {
    const c0 = cpuTicksMs().children;
    const t = performance.now();
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", () => {});
    child.on("error", reject);
    child.on("close", () => resolve({ wallMs: performance.now() - t, cpuMs: cpuTicksMs().children - c0 }));
  });
}

/** A whole process run to its end (spawnSync): wall and its CPU. */
function timeSync(run: () => unknown): Cost {
  const c0 = cpuTicksMs().children;
  const t = performance.now();
  run();
  return { wallMs: performance.now() - t, cpuMs: cpuTicksMs().children - c0 };
}

/** A tool call in this process: wall, and the CPU of this process and of the rg it ran. */
async function timeTool(run: () => Promise<unknown>): Promise<Cost> {
  const c0 = cpuTicksMs();
  const t = performance.now();
  await run();
  const wallMs = performance.now() - t;
  const c1 = cpuTicksMs();
  return { wallMs, cpuMs: c1.self - c0.self + (c1.children - c0.children) };
}

/**
 * The searcher of a bench context with its time limits lifted: the comparisons with rg run both to
 * the end (at 1 M files under load a full scan takes longer than the tools' 45 s / 20 s limits,
 * where they stop and say so; the session rows keep the shipped limits).
 */
function unlimited(search: Searcher): Searcher {
  return {
    ...search,
    grep: (o) => search.grep({ ...o, timeLimitMs: undefined }),
    glob: (o) => search.glob({ ...o, timeLimitMs: undefined }),
  };
}

function context(root: string): ToolContext {
  return {
    fs: createNodeWorkspaceFs(root),
    search: unlimited(createRipgrepSearcher()),
    signal: new AbortController().signal,
    sessionId: "bench",
    callId: "bench",
    log: silentLogger,
    readState: new Map(),
    record: () => {},
  };
}

/** What a comparison measured: each contender's median wall and CPU, and the load around it. */
interface Versus {
  medians: Record<string, Cost>;
  load: string;
}

const loadNow = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join("/");

/**
 * The tool and its baselines, each run once to warm the page cache (not counted), then `rounds`
 * rounds in a rotating order (round r starts with contender r mod n), so none always runs first
 * after another has evicted or warmed the cache: medians of wall and of CPU.
 */
async function versus(rounds: number, contenders: Record<string, () => Promise<Cost>>): Promise<Versus> {
  const names = Object.keys(contenders);
  const load0 = loadNow();
  for (const n of names) await contenders[n]!();
  const got: Record<string, Cost[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < names.length; i++) {
      const n = names[(r + i) % names.length]!;
      got[n]!.push(await contenders[n]!());
    }
  }
  const medians = Object.fromEntries(names.map((n) => [n, { wallMs: round(median(got[n]!.map((c) => c.wallMs))), cpuMs: round(median(got[n]!.map((c) => c.cpuMs))) }]));
  return { medians, load: `${load0} → ${loadNow()}` };
}

/**
 * Two metrics per comparison (CPU and wall, the tool against `base`), the other contenders' figures
 * in the note. CPU is the steadier figure on a shared machine: wall time moves with the load.
 */
function rows(name: string, v: Versus, base: string, note: string): BenchMetric[] {
  const t = v.medians.tool!;
  const b = v.medians[base]!;
  const others = Object.entries(v.medians)
    .filter(([n]) => n !== "tool")
    .map(([n, c]) => `${n}: ${c.cpuMs} ms CPU, ${c.wallMs} ms wall`)
    .join("; ");
  const ratio = (x: number, y: number) => (y ? round(x / y, 2) : undefined);
  return [
    { name: `${name}, CPU`, value: t.cpuMs, unit: "ms", baseline: b.cpuMs, ratio: ratio(t.cpuMs, b.cpuMs), note: `tool: its process and its rg; baseline ${base}; ${note}; ${others}; load ${v.load}` },
    { name: `${name}, wall`, value: t.wallMs, unit: "ms", baseline: b.wallMs, ratio: ratio(t.wallMs, b.wallMs), note: `baseline ${base}; ${note}; load ${v.load}` },
  ];
}

/** The grep command line without `--json`, as one types it: the same files, text output with line numbers. */
export function plainRgGrepArgs(pattern: string): string[] {
  return rgGrepArgs({ pattern }, ".").flatMap((a) => (a === "--json" ? ["--line-number"] : [a]));
}

/** A command line with `--sort path` added (what the tools ran before session 16: one thread). */
const sorted = (args: string[]) => [args[0]!, "--sort", "path", ...args.slice(1)];

/** Search and guidance rows on one generated tree (`label`: "10k", "100k", …). `rare`: a pattern found in few files or none. */
export async function searchScaleMetrics(root: string, label: string, opts: { cli: string; rounds: number; rare: string }): Promise<BenchMetric[]> {
  const rg = findRipgrep();
  if (!rg) return [{ name: `${label}: search`, value: null, unit: "ms", note: "no rg on this machine" }];
  const ctx = context(root);
  const out: BenchMetric[] = [];
  const proc = (args: string[]) => () => timeProcess(rg, args, root);
  // Full scans: also the previous command line (--sort path), to show what the change bought.
  const grepVs = (pattern: string, full: boolean) =>
    versus(opts.rounds, {
      tool: () => timeTool(() => grepTool.run({ pattern }, ctx)),
      "plain rg": proc(plainRgGrepArgs(pattern)),
      ...(full ? { "rg --json --sort path (the tool's command line before)": proc(sorted(rgGrepArgs({ pattern }, "."))) } : {}),
    });
  out.push(...rows(`${label}: grep tool /${opts.rare}/ (full scan)`, await grepVs(opts.rare, true), "plain rg", "plain rg: the same search without --json, to the end"));
  out.push(...rows(`${label}: grep tool /export/ (stops at 200 matches)`, await grepVs("export", false), "plain rg", "rg runs to the end of its output"));
  const globVs = (pattern: string, full: boolean) =>
    versus(opts.rounds, {
      tool: () => timeTool(() => globTool.run({ pattern }, ctx)),
      "rg --files": proc(rgGlobArgs(pattern)),
      ...(full ? { "rg --files --sort path (the tool's command line before)": proc(rgGlobArgs(pattern, "path")) } : {}),
    });
  out.push(...rows(`${label}: glob tool '**/*.ts' (stops at 2,000 matches)`, await globVs("**/*.ts", false), "rg --files", "rg --files --glob with the tool's flags, to the end"));
  out.push(...rows(`${label}: glob tool '**/AGENTS.md' (full walk, few matches)`, await globVs("**/AGENTS.md", true), "rg --files", "rg --files --glob with the tool's flags, to the end"));

  // The event loop while the tools run (the extension host runs the same code): its longest stall.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  await globTool.run({ pattern: "**/*.ts" }, ctx);
  await grepTool.run({ pattern: opts.rare }, ctx);
  loop.disable();
  out.push({
    name: `${label}: longest event-loop stall during glob '**/*.ts' and a full-scan grep`,
    value: round(loop.max / 1e6),
    unit: "ms",
    note: `p99 ${round(loop.percentile(99) / 1e6)} ms; the walk and the search run in rg, the tool parses its output a chunk at a time and stats files asynchronously`,
  });

  return out;
}

/**
 * `yoke lessons list` (whole CLI process) against git listing the same guidance files: the
 * `:(glob)` pathspecs as a person types them (the baseline), the plain pathspecs Yoke asks
 * (git-ls-files.ts), and the same command in an empty folder; the Node process's own peak RSS
 * (VmHWM, read at its exit by a preload: git's reading of the index is git's), and how many of
 * the tree's nested memory files it listed.
 */
export async function lessonsListMetrics(root: string, label: string, opts: { cli: string; rounds: number }): Promise<BenchMetric[]> {
  const out: BenchMetric[] = [];
  const rg = findRipgrep();
  if (!rg) return [{ name: `${label}: lessons list`, value: null, unit: "ms", note: "no rg on this machine" }];
  const want = spawnSync(rg, rgGlobArgs("**/{AGENTS,CLAUDE}.md"), { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 })
    .stdout.split("\n")
    .map((l) => l.replace(/^\.\//, ""))
    .filter((l) => l.includes("/") && !l.split("/").some((s) => s.startsWith(".") || ["node_modules", "dist", "build", "out", "target", "vendor"].includes(s)));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-home-"));
  const lessonsList = () => spawnSync(process.execPath, [opts.cli, "lessons", "list", "--json", "--cwd", root], { encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, HOME: home } });
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-empty-"));
  const lessons = await versus(opts.rounds, {
    tool: async () => timeSync(() => lessonsList()),
    "git ls-files": async () => timeSync(() => spawnSync("git", globLsFilesArgs(root, NESTED_GUIDANCE_GLOBS), { env: { ...process.env, ...LS_FILES_ENV }, maxBuffer: 1 << 28 })),
    "git ls-files as yoke asks": async () => timeSync(() => spawnSync("git", lsFilesArgs(root, NESTED_GUIDANCE_GLOBS), { env: { ...process.env, ...LS_FILES_ENV }, maxBuffer: 1 << 28 })),
    "empty folder": async () => timeSync(() => spawnSync(process.execPath, [opts.cli, "lessons", "list", "--json", "--cwd", emptyDir], { env: { ...process.env, HOME: home } })),
  });
  fs.rmSync(emptyDir, { recursive: true, force: true });
  const listed = JSON.parse(lessonsList().stdout) as {
    entries: Array<{ kind: string; activation: string }>;
    problems: unknown[];
  };
  const found = listed.entries.filter((e) => e.kind === "memory" && e.activation === "folder").length;
  out.push(
    ...rows(
      `${label}: yoke lessons list`,
      lessons,
      "git ls-files",
      "whole CLI process; baseline: git ls-files with the :(glob) pathspecs as one types them (the -c options and environment Yoke gives git), whole process; 'git ls-files as yoke asks': the plain pathspecs Yoke runs (git-ls-files.ts)",
    ),
  );
  out.push({
    name: `${label}: lessons list, nested AGENTS.md/CLAUDE.md listed`,
    value: found,
    unit: "files",
    baseline: want.length,
    ratio: want.length ? round(found / want.length, 3) : undefined,
    note: "baseline: the files in the tree",
  });
  const hwm = peakRssOf(process.execPath, [opts.cli, "lessons", "list", "--json", "--cwd", root], { ...process.env, HOME: home });
  fs.rmSync(home, { recursive: true, force: true });
  if (hwm !== undefined)
    out.push({ name: `${label}: lessons list, peak RSS of the Node process`, value: hwm, unit: "MiB", note: "VmHWM at exit (git's reading of the index is in git's own process)" });
  return out;
}

/** The peak RSS (VmHWM, MiB) of a Node process, read at its exit by a preload. */
function peakRssOf(node: string, args: string[], env: NodeJS.ProcessEnv): number | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-hwm-"));
  try {
    const preload = path.join(dir, "hwm.js");
    const outFile = path.join(dir, "hwm.txt");
    fs.writeFileSync(
      preload,
      `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(outFile)}, /VmHWM:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]));\n`,
    );
    spawnSync(node, ["--require", preload, ...args], { env, stdio: "ignore", maxBuffer: 1 << 28 });
    return fs.existsSync(outFile) ? round(Number(fs.readFileSync(outFile, "utf8")) / 1024) : undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface SessionProbe {
  /** Spawn → first request to the model. */
  firstWallMs: number;
  firstCpuMs: number;
  /** From the request after glob's result to the one after grep's: the tools as the session saw them (with a model round trip each). */
  globMs: number;
  grepMs: number;
  peakRssMiB: number;
}

function procCpuMs(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

function procPeakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? round(Number(m[1]) / 1024) : 0;
}

/** One real `yoke run` in `root`: the model calls glob, then grep, then answers. */
export async function sessionProbe(cli: string, root: string, rare: string): Promise<SessionProbe> {
  const sessions = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-sessions-"));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-home-"));
  let child: ReturnType<typeof spawn> | undefined;
  const marks: Array<{ wall: number; cpu: number; rss: number }> = [];
  let t0 = 0;
  const server = await startScriptedLlmServer({
    script: () => {
      const pid = child?.pid;
      marks.push({ wall: performance.now() - t0, cpu: pid ? procCpuMs(pid) : 0, rss: pid ? procPeakRssMiB(pid) : 0 });
      if (marks.length === 1) return { toolCalls: [{ name: "glob", input: { pattern: "**/*.ts" } }] };
      if (marks.length === 2) return { toolCalls: [{ name: "grep", input: { pattern: rare } }] };
      return { text: "Done." };
    },
  });
  try {
    t0 = performance.now();
    child = spawn(
      process.execPath,
      [cli, "run", "--trust", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--cwd", root, "--session-dir", sessions, "--max-turns", "5", "Find the TypeScript files."],
      {
        env: { ...process.env, HOME: home, ANTHROPIC_API_KEY: "bench" },
        stdio: "ignore",
      },
    );
    const c = child;
    await new Promise<void>((resolve) => c.on("close", () => resolve()));
    if (marks.length < 3) throw new Error(`the session made ${marks.length} requests, not 3`);
    return {
      firstWallMs: round(marks[0]!.wall),
      firstCpuMs: marks[0]!.cpu,
      globMs: round(marks[1]!.wall - marks[0]!.wall),
      grepMs: round(marks[2]!.wall - marks[1]!.wall),
      peakRssMiB: marks[2]!.rss,
    };
  } finally {
    await server.close();
    fs.rmSync(sessions, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** CPU (ms) of a bare `node -e 0`, the floor of any start-up. */
export function bareNodeCpuMs(): number {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, "-e", "0"], { encoding: "utf8" });
    const [u, s] = r.stderr.trim().split(/\s+/).slice(-2).map(Number);
    if (u !== undefined && s !== undefined && !Number.isNaN(u + s)) xs.push((u + s) * 1000);
  }
  return xs.length ? round(median(xs)) : NaN;
}

function medianProbe(ps: SessionProbe[]): SessionProbe {
  const m = (k: keyof SessionProbe) => median(ps.map((p) => p[k]));
  return { firstWallMs: m("firstWallMs"), firstCpuMs: m("firstCpuMs"), globMs: m("globMs"), grepMs: m("grepMs"), peakRssMiB: m("peakRssMiB") };
}

/** Search and guidance rows of one size. */
export const searchRows: Row = (ctx) => searchScaleMetrics(ctx.repo.root, ctx.label, { cli: cliPath(), rounds: ctx.rounds, rare: ABSENT });

/** `yoke lessons list` of one size, against git's listing of the same files. */
export const lessonsRows: Row = (ctx) => lessonsListMetrics(ctx.repo.root, ctx.label, { cli: cliPath(), rounds: ctx.rounds });

/** Session rows: start-up, the tools as a session sees them, peak RSS, against the same session in an empty folder. */
export const sessionSearchRows: Row = async (ctx) => {
  const cli = cliPath();
  const emptyDir = fs.mkdtempSync(path.join(ctx.dir, "empty-"));
  const empty: SessionProbe[] = [];
  const full: SessionProbe[] = [];
  for (let r = 0; r < ctx.rounds; r++) {
    empty.push(await sessionProbe(cli, emptyDir, ABSENT));
    full.push(await sessionProbe(cli, ctx.repo.root, ABSENT));
  }
  const e = medianProbe(empty);
  const p = medianProbe(full);
  const bare = bareNodeCpuMs();
  const label = ctx.label;
  // YOKE_BENCH_SCALE_COMPARE_CLI=other/dist/cli.js: the same session with another build (e.g. main's), side by side.
  const other = process.env.YOKE_BENCH_SCALE_COMPARE_CLI;
  const compared: BenchMetric[] = [];
  if (other) {
    const o: SessionProbe[] = [];
    for (let r = 0; r < ctx.rounds; r++) o.push(await sessionProbe(other, ctx.repo.root, ABSENT));
    const q = medianProbe(o);
    const vs = (name: string, k: keyof SessionProbe, unit: string) => ({ name: `${label}: ${name}, this build vs ${other}`, value: p[k], unit, baseline: q[k], ratio: round(p[k] / q[k], 2) });
    compared.push(
      vs("spawn → first request, CPU", "firstCpuMs", "ms"),
      vs("spawn → first request, wall", "firstWallMs", "ms"),
      vs("glob '**/*.ts' in the session", "globMs", "ms"),
      vs("grep in the session", "grepMs", "ms"),
      vs("peak RSS", "peakRssMiB", "MiB"),
    );
  }
  return [
    ...compared,
    {
      name: `${label}: yoke run, spawn → first request, CPU (empty folder)`,
      value: e.firstCpuMs,
      unit: "ms",
      baseline: bare,
      ratio: round(e.firstCpuMs / bare, 2),
      note: "CPU of the yoke process from /proc; baseline: node -e 0; target ≤ 150 ms",
    },
    {
      name: `${label}: yoke run, spawn → first request, CPU`,
      value: p.firstCpuMs,
      unit: "ms",
      baseline: e.firstCpuMs,
      ratio: round(p.firstCpuMs / e.firstCpuMs, 2),
      note: "baseline: the same in an empty folder",
    },
    {
      name: `${label}: yoke run, spawn → first request, wall`,
      value: p.firstWallMs,
      unit: "ms",
      baseline: e.firstWallMs,
      ratio: round(p.firstWallMs / e.firstWallMs, 2),
      note: "baseline: the same in an empty folder",
    },
    {
      name: `${label}: yoke run, glob '**/*.ts' as the session sees it`,
      value: p.globMs,
      unit: "ms",
      baseline: e.globMs,
      ratio: round(p.globMs / e.globMs, 2),
      note: "between the requests around the tool (a model round trip included); baseline: the same in an empty folder",
    },
    { name: `${label}: yoke run, grep /${ABSENT}/ as the session sees it`, value: p.grepMs, unit: "ms", baseline: e.grepMs, ratio: round(p.grepMs / e.grepMs, 2), note: "as above" },
    {
      name: `${label}: yoke run (glob + grep), peak RSS`,
      value: p.peakRssMiB,
      unit: "MiB",
      baseline: e.peakRssMiB,
      ratio: round(p.peakRssMiB / e.peakRssMiB, 2),
      note: "VmHWM of the yoke process; baseline: the same session in an empty folder",
    },
  ];
};
