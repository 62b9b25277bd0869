/**
 * Rows of `yoke bench --only scale` for search, guidance discovery and start-up (issue 19, items
 * 2–4), on a generated repository: each cost beside a plain baseline measured in the same run.
 * - grep and glob tools (in process, through the tool as the model calls it) against ripgrep run
 *   with the same command line (`rgGrepArgs`, `rgGlobArgs`) to the end of its output;
 * - `yoke lessons list` against `rg --files --glob '**\/{AGENTS,CLAUDE}.md'`, and how many of the
 *   nested memory files it listed;
 * - a real `yoke run` (built CLI, scripted model over HTTP) calling glob then grep: spawn → first
 *   request (wall and CPU of the process, read from /proc), the tools' time as the session saw it,
 *   and the process's peak RSS, against the same session in an empty folder.
 */
import { spawn, spawnSync } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { silentLogger } from "../core/ports";
import { globTool } from "../core/tools/glob";
import { grepTool } from "../core/tools/grep";
import type { ToolContext } from "../core/tools/types";
import { startScriptedLlmServer } from "../demo/scripted-llm-server";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createRipgrepSearcher, findRipgrep, rgGlobArgs, rgGrepArgs } from "../node/ripgrep-searcher";
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

/** Wall time (ms) of a process run to its end, its output thrown away. */
function timeProcess(cmd: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(cmd, args, { cwd, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - t));
  });
}

function context(root: string): ToolContext {
  return {
    fs: createNodeWorkspaceFs(root),
    search: createRipgrepSearcher(),
    signal: new AbortController().signal,
    sessionId: "bench",
    callId: "bench",
    log: silentLogger,
    readState: new Map(),
    record: () => {},
  };
}

/** The tool and ripgrep's same command line, interleaved, `rounds` times each: medians. */
async function versus(rounds: number, tool: () => Promise<unknown>, rg: () => Promise<number>): Promise<{ tool: number; rg: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t = performance.now();
    await tool();
    a.push(performance.now() - t);
    b.push(await rg());
  }
  return { tool: round(median(a)), rg: round(median(b)) };
}

function row(name: string, v: { tool: number; rg: number }, note: string): BenchMetric {
  return { name, value: v.tool, unit: "ms", baseline: v.rg, ratio: round(v.tool / v.rg, 2), note };
}

/** Search and guidance rows on one generated tree (`label`: "10k", "100k", …). `rare`: a pattern found in few files or none. */
export async function searchScaleMetrics(root: string, label: string, opts: { cli: string; rounds: number; rare: string }): Promise<BenchMetric[]> {
  const rg = findRipgrep();
  if (!rg) return [{ name: `${label}: search`, value: null, unit: "ms", note: "no rg on this machine" }];
  const ctx = context(root);
  const out: BenchMetric[] = [];
  const grepRare = await versus(
    opts.rounds,
    () => grepTool.run({ pattern: opts.rare }, ctx),
    () => timeProcess(rg, rgGrepArgs({ pattern: opts.rare }, "."), root),
  );
  out.push(row(`${label}: grep tool /${opts.rare}/ (full scan)`, grepRare, "baseline: rg with the same command line, to the end"));
  const grepCommon = await versus(
    opts.rounds,
    () => grepTool.run({ pattern: "export" }, ctx),
    () => timeProcess(rg, rgGrepArgs({ pattern: "export" }, "."), root),
  );
  out.push(row(`${label}: grep tool /export/ (stops at 200 matches)`, grepCommon, "baseline: rg with the same command line, to the end of its output"));
  const globTs = await versus(
    opts.rounds,
    () => globTool.run({ pattern: "**/*.ts" }, ctx),
    () => timeProcess(rg, rgGlobArgs("**/*.ts"), root),
  );
  out.push(row(`${label}: glob tool '**/*.ts'`, globTs, "baseline: rg --files --glob '**/*.ts' (the tool's flags), to the end"));
  const globRare = await versus(
    opts.rounds,
    () => globTool.run({ pattern: "**/AGENTS.md" }, ctx),
    () => timeProcess(rg, rgGlobArgs("**/AGENTS.md"), root),
  );
  out.push(row(`${label}: glob tool '**/AGENTS.md' (full walk, few matches)`, globRare, "baseline: rg --files --glob '**/AGENTS.md', to the end"));

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

  // lessons list: every nested memory file, against listing them with rg.
  const want = spawnSync(rg, rgGlobArgs("**/{AGENTS,CLAUDE}.md"), { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 })
    .stdout.split("\n")
    .map((l) => l.replace(/^\.\//, ""))
    .filter((l) => l.includes("/") && !l.split("/").some((s) => s.startsWith(".") || ["node_modules", "dist", "build", "out", "target", "vendor"].includes(s)));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-home-"));
  const lessonsList = () => spawnSync(process.execPath, [opts.cli, "lessons", "list", "--json", "--cwd", root], { encoding: "utf8", maxBuffer: 1 << 28, env: { ...process.env, HOME: home } });
  const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-scale-empty-"));
  const lessons = await versus(
    opts.rounds,
    async () => lessonsList(),
    async () => {
      const t = performance.now();
      spawnSync(process.execPath, [opts.cli, "lessons", "list", "--json", "--cwd", emptyDir], { env: { ...process.env, HOME: home } });
      return performance.now() - t;
    },
  );
  fs.rmSync(emptyDir, { recursive: true, force: true });
  const listed = JSON.parse(lessonsList().stdout) as {
    entries: Array<{ kind: string; activation: string }>;
    problems: unknown[];
  };
  fs.rmSync(home, { recursive: true, force: true });
  const found = listed.entries.filter((e) => e.kind === "memory" && e.activation === "folder").length;
  out.push(row(`${label}: yoke lessons list`, lessons, "whole CLI process; baseline: the same in an empty folder (what the tree adds)"));
  out.push({
    name: `${label}: lessons list, nested AGENTS.md/CLAUDE.md listed`,
    value: found,
    unit: "files",
    baseline: want.length,
    ratio: want.length ? round(found / want.length, 3) : undefined,
    note: "baseline: the files in the tree",
  });
  return out;
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
