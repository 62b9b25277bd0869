/**
 * Bench section "tasks": whole tasks over a sample repository, each run through the real
 * `yoke run` CLI by four policy models (yoke, claude-code-style, aider-style, bash-only) served
 * by the scripted LLM server. Figures: requests, input tokens (fresh / cached prefix), output
 * tokens, cost at a stated price table, wall time and harness overhead per turn, per task and
 * per policy. `yoke bench --only tasks --json` prints {"tasks": [...], "totals": {...}}.
 *
 * Environment (for tests and quick runs): YOKE_BENCH_TASKS=id,id (a subset of the tasks),
 * YOKE_BENCH_TASK_POLICIES=name,name (a subset, or the test-only "broken" policy),
 * YOKE_BENCH_TASK_JOBS=N (runs at once, default 2).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import type { BenchMetric, BenchSection } from "../types";
import { cpuNow, cpuSince } from "./cpu";
import { runTask, type TaskPhases, type TaskRun } from "./driver";
import { POLICIES, POLICY_TOOLS, TEST_POLICIES, type Policy } from "./policies";
import { createTasks, type Task } from "./tasks";
import { countTokens, MIN_CACHEABLE_TOKENS, PRICES } from "./tokens";

export const POLICY_NAMES = Object.keys(POLICIES);

/** The fields of one row of the JSON document, in order. */
export type TaskRow = Pick<TaskRun, "task" | "policy" | "passed" | "requests" | "inputTokens" | "cachedInputTokens" | "outputTokens" | "costUsd" | "wallMs" | "perRequest">;
export type PolicyTotals = Omit<TaskRow, "task" | "policy" | "passed" | "perRequest"> & { passed: number; tasks: number; firstInputTokens: number; sharedInputTokens: number };

/** Share of the input of the requests after each run's first that a prompt cache serves (the first has nothing to reuse). */
export const laterCachedShare = (t: Pick<PolicyTotals, "inputTokens" | "cachedInputTokens" | "firstInputTokens">): number =>
  t.inputTokens > t.firstInputTokens ? t.cachedInputTokens / (t.inputTokens - t.firstInputTokens) : 0;

function cliPath(): string {
  const candidates = [process.argv[1], join(__dirname, "cli.js")];
  const found = candidates.find((p) => p && /cli\.js$/.test(p) && existsSync(p));
  if (!found) throw new Error("the tasks bench runs the built CLI (dist/cli.js): run `npm run build` first");
  return found;
}

function listTs(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    const p = rel ? `${rel}/${name}` : name;
    if (statSync(join(dir, p)).isDirectory()) out.push(...listTs(dir, p));
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/**
 * The sample repository as each run starts from it: the fixture, the `typescript` package its
 * test hook needs, and the hook's transpile cache filled (so the compiler loads only when a run
 * changed a file). Built once per bench run.
 */
function prepareTemplate(fixture: string): { dir: string; dispose(): void } {
  const root = mkdtempSync(join(tmpdir(), "yoke-task-template-"));
  const dir = join(root, "repo");
  cpSync(fixture, dir, { recursive: true });
  const req = createRequire(__filename);
  const tsMain = req.resolve("typescript");
  const tsPkg = dirname(dirname(tsMain));
  mkdirSync(join(dir, "node_modules/typescript/lib"), { recursive: true });
  cpSync(join(tsPkg, "package.json"), join(dir, "node_modules/typescript/package.json"));
  cpSync(tsMain, join(dir, "node_modules/typescript/lib", "typescript.js"));
  const ts = req("typescript") as typeof import("typescript");
  const cache = join(dir, "node_modules/.cache/ts-hook");
  mkdirSync(cache, { recursive: true });
  for (const f of listTs(dir).filter((p) => !p.startsWith("node_modules/"))) {
    const source = readFileSync(join(dir, f), "utf8");
    const out = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: join(dir, f),
      reportDiagnostics: false,
    });
    writeFileSync(join(cache, createHash("sha1").update(source).digest("hex") + ".js"), out.outputText);
  }
  return { dir, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

/** /proc/loadavg's three figures, where there is one. */
function loadAverage(): string | undefined {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return undefined;
  }
}

function listFromEnv(name: string): string[] | undefined {
  const v = process.env[name]?.trim();
  return v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;
}

async function pool<T, R>(items: T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, items.length)) }, worker));
  return out;
}

const round = (n: number, digits = 0) => Number(n.toFixed(digits));

export function totalsOf(runs: TaskRun[]): Record<string, PolicyTotals> {
  const totals: Record<string, PolicyTotals> = {};
  for (const r of runs) {
    const t = (totals[r.policy] ??= { passed: 0, tasks: 0, requests: 0, inputTokens: 0, cachedInputTokens: 0, sharedInputTokens: 0, firstInputTokens: 0, outputTokens: 0, costUsd: 0, wallMs: 0 });
    t.tasks++;
    if (r.passed) t.passed++;
    t.requests += r.requests;
    t.inputTokens += r.inputTokens;
    t.cachedInputTokens += r.cachedInputTokens;
    t.sharedInputTokens += r.sharedInputTokens;
    t.firstInputTokens += r.firstInputTokens;
    t.outputTokens += r.outputTokens;
    t.costUsd += r.costUsd;
    t.wallMs += r.wallMs;
  }
  for (const t of Object.values(totals)) {
    t.costUsd = round(t.costUsd, 4);
    t.wallMs = round(t.wallMs);
  }
  return totals;
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** The whole run: wall and CPU time, and where the time of the runs went (sums over every run). */
export interface RunSummary {
  wallMs: number;
  /** This process (policy models, token counts, scripted servers, copies). */
  benchCpuMs: number;
  /** Every child waited for: each `yoke run` and what it ran, the checks (undefined: not known here). */
  childCpuMs: number | undefined;
  loadBefore?: string;
  loadAfter?: string;
  /** Runs at once: with more than one, children's CPU cannot be told apart per run. */
  jobs: number;
}

const PHASES: Array<[keyof TaskPhases, string]> = [
  ["setupMs", "copy + server"],
  ["startMs", "yoke run start-up"],
  ["sessionMs", "session"],
  ["exitMs", "exit"],
  ["checkMs", "check"],
];

/** One line: the run's wall and CPU time, the machine's load, and the sum of each phase's wall time. */
export function summaryLine(runs: TaskRun[], s: RunSummary): string {
  const sec = (ms: number | undefined) => (ms === undefined ? "?" : (ms / 1000).toFixed(1));
  const sum = (k: keyof TaskPhases) => runs.reduce((n, r) => n + (r.phases[k] ?? 0), 0);
  const cpu =
    s.childCpuMs === undefined ? `${sec(s.benchCpuMs)} s in the bench process` : `${sec(s.benchCpuMs + s.childCpuMs)} s (bench process ${sec(s.benchCpuMs)}, yoke run and checks ${sec(s.childCpuMs)})`;
  const load = s.loadBefore ? ` Load average (1, 5, 15 min) before: ${s.loadBefore}; after: ${s.loadAfter ?? "?"}.` : "";
  return (
    `Whole run: ${sec(s.wallMs)} s wall, CPU ${cpu}.${load} Summed over the runs (wall s): ` +
    PHASES.map(([k, label]) => `${label} ${sec(sum(k))}`).join(", ") +
    (s.jobs === 1 && s.childCpuMs !== undefined ? `; CPU of yoke run ${sec(sum("cliCpuMs"))}, of the checks ${sec(sum("checkCpuMs"))}.` : ".")
  );
}

/**
 * Where each policy's input tokens went (YOKE_BENCH_TASK_PARTS=1, on stderr): the first request of
 * a run by part (each tool definition, the system prompt, the messages; means over the runs), that
 * first request's prefix (tool definitions + system prompt) times the policy's requests, and the
 * fresh part of the later requests by kind (the model's calls and the tools' results, by tool).
 */
export function partsReport(runs: TaskRun[]): string {
  const lines: string[] = [];
  for (const policy of [...new Set(runs.map((r) => r.policy))]) {
    const mine = runs.filter((r) => r.policy === policy && r.parts.first.size);
    if (!mine.length) continue;
    const first = new Map<string, number>();
    const fresh = new Map<string, number>();
    for (const r of mine) {
      for (const [k, n] of r.parts.first) first.set(k, (first.get(k) ?? 0) + n);
      for (const [k, n] of r.parts.fresh) fresh.set(k, (fresh.get(k) ?? 0) + n);
    }
    const mean = (k: string) => Math.round((first.get(k) ?? 0) / mine.length);
    const toolKeys = [...first.keys()].filter((k) => k.startsWith("tool"));
    const tools = toolKeys.reduce((n, k) => n + mean(k), 0);
    const requests = mine.reduce((n, r) => n + r.requests, 0);
    const input = mine.reduce((n, r) => n + r.inputTokens, 0);
    const prefix = tools + mean("system");
    const freshSum = [...fresh.values()].reduce((a, b) => a + b, 0);
    lines.push(
      `${policy}: ${mine.length} runs, ${requests} requests, ${fmt(input)} input tokens. First request (mean): tool definitions ${fmt(tools)} ` +
        `(${toolKeys
          .sort((a, b) => mean(b) - mean(a))
          .map((k) => `${k.replace(/^tool /, "")} ${mean(k)}`)
          .join(", ")}), system ${mean("system")}, messages ${mean("messages")}. ` +
        `Prefix (tools + system) × requests: ${fmt(prefix * requests)} (${((100 * prefix * requests) / Math.max(1, input)).toFixed(1)} % of the input). ` +
        `Fresh in the later requests: ${fmt(freshSum)} (${[...fresh]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ${fmt(n)}`)
          .join(", ")}).`,
    );
  }
  return lines.join("\n");
}

/**
 * Request by request (YOKE_BENCH_TASK_PARTS=1, on stderr): for the n-th request of the runs, per
 * policy, the mean input, what the cache served, the prefix shared with the request before (an
 * ideal cache), and the fresh rest; then, for the requests after each run's first, the share the
 * cache served and what 95 % would allow fresh.
 */
export function perRequestReport(runs: TaskRun[]): string {
  const lines: string[] = [];
  for (const policy of [...new Set(runs.map((r) => r.policy))]) {
    const mine = runs.filter((r) => r.policy === policy);
    const longest = Math.max(0, ...mine.map((r) => r.perRequest.length));
    const rows: string[] = [];
    for (let i = 0; i < longest; i++) {
      const at = mine.map((r) => r.perRequest[i]).filter((x) => x !== undefined);
      const mean = (k: "input" | "cached" | "shared" | "output") => Math.round(at.reduce((n, x) => n + x[k], 0) / at.length);
      rows.push(
        `#${i + 1} (${at.length} runs): input ${fmt(mean("input"))}, cached ${fmt(mean("cached"))}, shared ${fmt(mean("shared"))}, fresh ${fmt(mean("input") - mean("shared"))}, output ${fmt(mean("output"))}`,
      );
    }
    const later = mine.flatMap((r) => r.perRequest.slice(1));
    const input = later.reduce((n, x) => n + x.input, 0);
    const cached = later.reduce((n, x) => n + x.cached, 0);
    const shared = later.reduce((n, x) => n + x.shared, 0);
    const pct = (n: number) => `${((100 * n) / Math.max(1, input)).toFixed(1)} %`;
    lines.push(
      `${policy}, request by request (means over the runs): ${rows.join("; ")}. ` +
        `Requests after each run's first: ${later.length}, input ${fmt(input)}, cached ${fmt(cached)} (${pct(cached)}; shared with the request before, whatever its length: ${fmt(shared)}, ${pct(shared)}), ` +
        `fresh ${fmt(input - shared)}; 95 % cached would allow ${fmt(Math.floor(input * 0.05))} fresh. ` +
        `Cache breaks recorded by Yoke's prompt-cache watch: ${mine.some((r) => r.cacheBreaks !== undefined) ? fmt(mine.reduce((n, r) => n + (r.cacheBreaks ?? 0), 0)) : "not reported"}.`,
    );
  }
  return lines.join("\n");
}

/** The Markdown tables: totals per policy, then every task. */
export function markdown(runs: TaskRun[], machine: string, summary?: RunSummary): string {
  const totals = totalsOf(runs);
  const overhead = (p: string) => {
    const rs = runs.filter((r) => r.policy === p);
    const turns = rs.reduce((n, r) => n + r.requests, 0);
    return turns ? (rs.reduce((n, r) => n + r.wallMs - r.modelMs, 0) / turns).toFixed(0) : "-";
  };
  const base = totals["claude-code-style"];
  const lines = [
    `Machine: ${machine}. Prices: ${PRICES.name} — input $${PRICES.inputPerM}/M, cache writes $${PRICES.cacheWritePerM}/M, cached input $${PRICES.cachedInputPerM}/M, output $${PRICES.outputPerM}/M.`,
    "",
    ...(summary ? [summaryLine(runs, summary), ""] : []),
    "| policy | passed | requests | input tokens | of them cached | cached after the 1st request | output tokens | whole-task tokens | vs claude-code-style | cost (USD) | wall (s) | harness ms/turn |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [p, t] of Object.entries(totals)) {
    const whole = t.inputTokens + t.outputTokens;
    const ratio = base ? (whole / (base.inputTokens + base.outputTokens)).toFixed(2) : "-";
    lines.push(
      `| ${p} | ${t.passed}/${t.tasks} | ${t.requests} | ${fmt(t.inputTokens)} | ${fmt(t.cachedInputTokens)} | ${(laterCachedShare(t) * 100).toFixed(1)} % | ${fmt(t.outputTokens)} | ${fmt(whole)} | ${ratio} | ${t.costUsd.toFixed(4)} | ${(t.wallMs / 1000).toFixed(1)} | ${overhead(p)} |`,
    );
  }
  lines.push("", "| task | policy | passed | requests | input (cached) | output | cost (USD) | wall (s) |", "|---|---|:-:|---:|---:|---:|---:|---:|");
  for (const r of runs) {
    lines.push(
      `| ${r.task} | ${r.policy} | ${r.passed ? "yes" : "**no**"} | ${r.requests} | ${fmt(r.inputTokens)} (${fmt(r.cachedInputTokens)}) | ${fmt(r.outputTokens)} | ${r.costUsd.toFixed(4)} | ${(r.wallMs / 1000).toFixed(1)} |`,
    );
  }
  return lines.join("\n");
}

const DOC_START = "<!-- tasks-bench:start -->";
const DOC_END = "<!-- tasks-bench:end -->";

/** Replaces the generated part of docs/benchmarks.md (between its markers), when this is a checkout with that file. */
function writeDoc(cli: string, table: string): string | undefined {
  const doc = join(dirname(cli), "..", "docs", "benchmarks.md");
  if (!existsSync(doc)) return undefined;
  const text = readFileSync(doc, "utf8");
  const a = text.indexOf(DOC_START);
  const b = text.indexOf(DOC_END);
  if (a < 0 || b < a) return undefined;
  writeFileSync(doc, `${text.slice(0, a + DOC_START.length)}\n${table}\n${text.slice(b)}`);
  return doc;
}

export async function bench(): Promise<BenchSection> {
  const cli = cliPath();
  const fixture = join(dirname(cli), "..", "test", "fixtures", "task-repo");
  if (!existsSync(fixture)) throw new Error(`the sample repository is missing: ${fixture}`);
  const all = createTasks(fixture);
  const onlyTasks = listFromEnv("YOKE_BENCH_TASKS");
  const onlyPolicies = listFromEnv("YOKE_BENCH_TASK_POLICIES");
  const known: Record<string, Policy> = { ...POLICIES, ...TEST_POLICIES };
  for (const t of onlyTasks ?? []) if (!all.some((x) => x.id === t)) throw new Error(`YOKE_BENCH_TASKS: no task "${t}" (tasks: ${all.map((x) => x.id).join(", ")})`);
  for (const p of onlyPolicies ?? []) if (!known[p]) throw new Error(`YOKE_BENCH_TASK_POLICIES: no policy "${p}" (policies: ${Object.keys(known).join(", ")})`);
  const tasks: Task[] = onlyTasks ? all.filter((t) => onlyTasks.includes(t.id)) : all;
  const policies = onlyPolicies ?? POLICY_NAMES;
  const jobs = Math.max(1, Number(process.env.YOKE_BENCH_TASK_JOBS) || 2);
  const template = prepareTemplate(fixture);
  countTokens("load the tokenizer before the clock starts");
  const loadBefore = loadAverage();
  const cpuStart = cpuNow();
  const started = performance.now();
  let runs: TaskRun[];
  try {
    const work = tasks.flatMap((task) => policies.map((policy) => ({ task, policy })));
    runs = await pool(work, jobs, async ({ task, policy }) => {
      const r = await runTask({
        cli,
        template: template.dir,
        task: task.id,
        policyName: policy,
        policy: known[policy]!,
        ...(POLICY_TOOLS[policy] ? { tools: POLICY_TOOLS[policy] } : {}),
        goal: task.goal,
        check: task.check,
      });
      if (!r.passed) process.stderr.write(`[bench] tasks: ${task.id} / ${policy} failed: ${r.detail}\n`);
      return r;
    });
  } finally {
    template.dispose();
  }
  const totalMs = performance.now() - started;
  const cpu = cpuSince(cpuStart);
  const summary: RunSummary = { jobs, wallMs: totalMs, benchCpuMs: cpu.selfMs, childCpuMs: cpu.childrenMs, ...(loadBefore ? { loadBefore, loadAfter: loadAverage() } : {}) };
  process.stderr.write(`[bench] tasks: ${summaryLine(runs, summary)}\n`);
  if (process.env.YOKE_BENCH_TASK_PARTS) process.stderr.write(`[bench] tasks: where the input went\n${partsReport(runs)}\n${perRequestReport(runs)}\n`);
  const machine = `${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${jobs} runs at once`;
  const table = markdown(runs, machine, summary);
  const full = !onlyTasks && !onlyPolicies;
  const doc = full ? writeDoc(cli, table) : undefined;
  if (doc) process.stderr.write(`[bench] tasks: table written to ${doc}\n`);

  const totals = totalsOf(runs);
  const document = {
    tasks: runs.map((r): TaskRow => ({
      task: r.task,
      policy: r.policy,
      passed: r.passed,
      requests: r.requests,
      inputTokens: r.inputTokens,
      cachedInputTokens: r.cachedInputTokens,
      outputTokens: r.outputTokens,
      costUsd: round(r.costUsd, 6),
      wallMs: round(r.wallMs),
      perRequest: r.perRequest,
    })),
    totals: Object.fromEntries(
      Object.entries(totals).map(([p, t]) => [
        p,
        { passed: t.passed, requests: t.requests, inputTokens: t.inputTokens, cachedInputTokens: t.cachedInputTokens, outputTokens: t.outputTokens, costUsd: t.costUsd, wallMs: t.wallMs },
      ]),
    ),
  };
  const base = totals["claude-code-style"];
  const metrics: BenchMetric[] = [];
  for (const [p, t] of Object.entries(totals)) {
    const whole = t.inputTokens + t.outputTokens;
    const baseline = base ? base.inputTokens + base.outputTokens : undefined;
    metrics.push({ name: `${p}: tasks passed`, value: t.passed, unit: `of ${t.tasks}` });
    metrics.push({
      name: `${p}: whole-task tokens (input + output, all tasks)`,
      value: whole,
      unit: "tokens",
      ...(baseline && p !== "claude-code-style" ? { baseline, ratio: whole / baseline } : {}),
      note: `${t.cachedInputTokens} of ${t.inputTokens} input tokens cached (${(laterCachedShare(t) * 100).toFixed(1)} % of the requests after each run's first); ${t.outputTokens} output; ${t.requests} requests; $${t.costUsd.toFixed(4)}`,
    });
  }
  metrics.push({
    name: "whole run (all tasks, all policies)",
    value: round(totalMs / 1000, 1),
    unit: "s",
    ...(loadBefore ? { note: `load average before ${loadBefore}, after ${summary.loadAfter}` } : {}),
  });
  metrics.push({
    name: "whole run CPU (bench process + every yoke run and check)",
    value: summary.childCpuMs === undefined ? null : round((summary.benchCpuMs + summary.childCpuMs) / 1000, 1),
    unit: "s",
    note: summary.childCpuMs === undefined ? "children's CPU is read from /proc/self/stat: not on this system" : `bench process ${round(summary.benchCpuMs / 1000, 1)} s`,
  });
  return {
    section: "tasks",
    method:
      `${tasks.length} tasks over the sample repository test/fixtures/task-repo (TypeScript, Python, shell; 3,400 lines), each run through the real \`yoke run\` CLI ` +
      "(anthropic provider against the scripted LLM server on 127.0.0.1, bypassPermissions, default sandbox) by each policy model; success is the task's machine check " +
      "(tests run with node and python3, file contents, nothing else changed). Tokens: js-tiktoken o200k_base over the text of each request (tool definitions, system prompt, " +
      "messages) plus 3 per message; cached = the leading segments equal to the previous request's, when they reach the priced model's shortest cacheable prefix " +
      `(${fmt(MIN_CACHEABLE_TOKENS)} tokens; below it a prompt cache serves nothing). Cost at ` +
      `${PRICES.name} ($${PRICES.inputPerM}/M input, $${PRICES.cacheWritePerM}/M written to the cache: every fresh token of a prompt of ${fmt(MIN_CACHEABLE_TOKENS)} tokens or more; $${PRICES.cachedInputPerM}/M cached, $${PRICES.outputPerM}/M output).`,
    metrics,
    details: table,
    document,
  };
}
