/**
 * Runs one task with one policy model: a fresh copy of the sample repository, the scripted LLM
 * server on 127.0.0.1 answering from the policy, and the real `yoke run` CLI as a child process
 * (the real loop, tools, sandbox and session log). Then the task's check decides success.
 */
import { spawn } from "node:child_process";
import { cpSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedTurn } from "../../demo/scripted-llm-server";
import { readExchange } from "../../demo/wire-conversation";
import type { Goal } from "./goal";
import type { ModelIO, Policy, ToolCall, ToolResult } from "./policies";
import { cpuNow, cpuSince } from "./cpu";
import { answerTokens, costUsd, countTokens, freshParts, requestParts, requestSegments, requestTokens, writtenTokens } from "./tokens";

export interface TaskRun {
  task: string;
  policy: string;
  passed: boolean;
  requests: number;
  /** Every input token of every request (fresh + cached). */
  inputTokens: number;
  /** What the priced model's prompt cache serves (a shared prefix shorter than MIN_CACHEABLE_TOKENS is not cached). */
  cachedInputTokens: number;
  /** The prefix each request shares with the previous one, whatever its length (an ideal cache's hit). */
  sharedInputTokens: number;
  /** Input tokens of the first request (nothing can be cached yet). */
  firstInputTokens: number;
  outputTokens: number;
  costUsd: number;
  wallMs: number;
  /** Time the "model" took (the policy deciding, inside the server's handler). */
  modelMs: number;
  /** Why it failed: the check's message, the policy's error, or the CLI's. */
  detail?: string;
  /** Each request in order: its input, what the cache served, the prefix it shared with the previous one, and the answer's tokens. */
  perRequest: RequestFigures[];
  /** Cache breaks Yoke's own prompt-cache watch recorded in the session (`yoke run --json`'s cost.total), when it printed them. */
  cacheBreaks?: number;
  /** Where the input went (not part of the JSON rows): the first request by part, and the fresh part of the later ones by kind (tokens.ts). */
  parts: { first: Map<string, number>; fresh: Map<string, number> };
  /** Where the time went (not part of the JSON rows). */
  phases: TaskPhases;
}

export interface RequestFigures {
  input: number;
  cached: number;
  shared: number;
  output: number;
}

/** Wall ms of each phase of one run, and CPU ms where it can be told apart. */
export interface TaskPhases {
  /** The copy of the repository and the scripted server. */
  setupMs: number;
  /** Spawn of `yoke run` to its first request (Node, the bundle, the session's set-up). */
  startMs: number;
  /** First request to the printed answer: the loop, the tools, commands in the sandbox, checkpoints (the model's time included). */
  sessionMs: number;
  /** Printed answer to the process gone. */
  exitMs: number;
  /** The task's machine check. */
  checkMs: number;
  /** CPU of `yoke run` and all it ran (children reaped meanwhile: only this run's when one run goes at a time). */
  cliCpuMs: number | undefined;
  /** CPU of the check's commands (same caveat). */
  checkCpuMs: number | undefined;
  /** CPU of this process during the run (the policy model and the token counts, the scripted server, the copy). */
  benchCpuMs: number;
}

/** Bridges the scripted server (one request = one model turn) and a policy written as straight-line code. */
class PolicyBridge {
  private started = false;
  private finished = false;
  private waiting?: (results: ToolResult[]) => void;
  private pendingTurn?: (turn: ScriptedTurn) => void;
  private lastCalls = 0;
  private previous?: string[];
  policyError?: string;
  readonly stats = { requests: 0, input: 0, cached: 0, shared: 0, written: 0, output: 0, modelMs: 0, firstInput: 0 };
  readonly perRequest: RequestFigures[] = [];
  /** The first request by part, and what the later requests added to their predecessors' prefix, by kind. */
  readonly parts = { first: new Map<string, number>(), fresh: new Map<string, number>() };
  /** When each request arrived (performance.now()). */
  readonly arrivals: number[] = [];

  constructor(
    private readonly goal: Goal,
    private readonly policy: Policy,
    private readonly policyName = "",
  ) {}

  private readonly io: ModelIO = {
    call: async (name, input) => (await this.io.parallel([{ name, input }]))[0]!,
    parallel: (calls: ToolCall[]) =>
      new Promise<ToolResult[]>((resolve) => {
        if (!calls.length) return resolve([]);
        this.waiting = resolve;
        this.lastCalls = calls.length;
        this.emit({ toolCalls: calls.map((c) => ({ name: c.name, input: c.input })) });
      }),
  };

  private emit(turn: ScriptedTurn): void {
    const p = this.pendingTurn;
    this.pendingTurn = undefined;
    p?.(turn);
  }

  readonly script = async (req: RecordedRequest): Promise<ScriptedTurn> => {
    const t0 = performance.now();
    this.arrivals.push(t0);
    const segments = requestSegments(req);
    const tokens = requestTokens(segments, this.previous);
    if (process.env.YOKE_BENCH_TASK_FRESH) traceFresh(`${this.policyName} ${this.goal.prompt.slice(0, 30)}`, segments, this.previous ?? []);
    if (this.previous) freshParts(segments, this.previous, this.parts.fresh);
    else for (const [k, n] of requestParts(req)) this.parts.first.set(k, n);
    this.previous = segments;
    const next = new Promise<ScriptedTurn>((resolve) => (this.pendingTurn = resolve));
    if (this.finished) this.emit({ text: "Done." });
    else if (!this.started) {
      this.started = true;
      this.policy(this.goal, this.io).then(
        (text) => {
          this.finished = true;
          this.emit({ text });
        },
        (err: unknown) => {
          this.finished = true;
          this.policyError = err instanceof Error ? err.message : String(err);
          this.emit({ text: `I could not finish: ${this.policyError}` });
        },
      );
    } else {
      const steps = readExchange(req).steps.slice(-this.lastCalls);
      const resume = this.waiting;
      this.waiting = undefined;
      resume?.(steps.map((s) => ({ output: s.output, isError: s.isError })));
    }
    const turn = await next;
    const output = answerTokens(turn.text, turn.toolCalls ?? []);
    if (this.stats.requests === 0) this.stats.firstInput = tokens.input;
    this.stats.requests++;
    this.stats.input += tokens.input;
    this.stats.cached += tokens.cached;
    this.stats.shared += tokens.shared;
    this.stats.written += writtenTokens(tokens);
    this.perRequest.push({ input: tokens.input, cached: tokens.cached, shared: tokens.shared, output });
    this.stats.output += output;
    this.stats.modelMs += performance.now() - t0;
    return { ...turn, usage: { input: tokens.input - tokens.cached, output, cacheRead: tokens.cached } };
  };
}

export interface Workspace {
  dir: string;
  home: string;
  dispose(): void;
}

/**
 * node_modules of the copy (the `typescript` package the test hook loads, 9 MB, and the hook's
 * transpile cache) as hard links to the prepared one: nothing in a task writes there, and a copy
 * per run was most of what the bench wrote to disk. A copy where links cannot be made.
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const a = join(from, e.name);
    const b = join(to, e.name);
    if (e.isDirectory()) linkTree(a, b);
    else {
      try {
        linkSync(a, b);
      } catch {
        cpSync(a, b);
      }
    }
  }
}

/** A fresh copy of the prepared sample repository, and an empty home for the CLI (no user settings). */
export function freshWorkspace(template: string): Workspace {
  const root = mkdtempSync(join(tmpdir(), "yoke-task-"));
  const dir = join(root, "repo");
  const home = join(root, "home");
  cpSync(template, dir, { recursive: true, filter: (src) => src !== join(template, "node_modules") });
  linkTree(join(template, "node_modules"), join(dir, "node_modules"));
  mkdirSync(home);
  return { dir, home, dispose: () => (process.env.YOKE_BENCH_TASK_KEEP ? process.stderr.write(`[bench] kept ${dir}\n`) : rmSync(root, { recursive: true, force: true })) };
}

interface CliOutcome {
  code: number | null;
  /** performance.now() when the process exited (its output may close later). */
  exitedAt: number;
  /** performance.now() when its first output arrived (`--json` prints once, at the end of the session). */
  printedAt: number;
  stdout: string;
  stderr: string;
}

function runCli(cli: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<CliOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let printedAt = 0;
    child.stdout.on("data", (d) => {
      printedAt ||= performance.now();
      stdout += d;
    });
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    let exitedAt = 0;
    child.on("exit", () => (exitedAt = performance.now()));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, exitedAt: exitedAt || performance.now(), printedAt: printedAt || performance.now(), stdout, stderr });
    });
  });
}

export interface RunOptions {
  cli: string;
  template: string;
  task: string;
  policyName: string;
  policy: Policy;
  /** Only these tools are sent (`yoke run --tools`); default all. */
  tools?: readonly string[];
  goal: Goal;
  check(dir: string): Promise<string | undefined>;
  timeoutMs?: number;
}

export async function runTask(o: RunOptions): Promise<TaskRun> {
  const t0 = performance.now();
  const cpu0 = cpuNow();
  const ws = freshWorkspace(o.template);
  const bridge = new PolicyBridge(o.goal, o.policy, o.policyName);
  const server = await startScriptedLlmServer({ script: bridge.script });
  try {
    const cpu1 = cpuNow();
    const started = performance.now();
    const cli = await runCli(
      o.cli,
      [
        "run",
        "--cwd",
        ws.dir,
        "--provider",
        "anthropic",
        "--base-url",
        server.anthropicBaseUrl,
        "--model",
        "claude-sonnet-4-5",
        "--api-key-env",
        "YOKE_TASK_BENCH_KEY",
        "--permission-mode",
        "bypassPermissions",
        // A fresh temporary workspace the bench made: trusted for this run (as CI passes --trust).
        "--trust",
        "--session-dir",
        join(ws.home, "sessions"),
        "--max-turns",
        "80",
        "--json",
        ...(o.tools ? ["--tools", o.tools.join(",")] : []),
        o.goal.prompt,
      ],
      { HOME: ws.home, USERPROFILE: ws.home, YOKE_TASK_BENCH_KEY: "task-bench" },
      o.timeoutMs ?? 180_000,
    );
    const ended = performance.now();
    const wallMs = ended - started;
    const cpu2 = cpuNow();
    let detail = bridge.policyError ? `policy: ${bridge.policyError}` : undefined;
    if (cli.code !== 0 && !detail) detail = `yoke run exited ${cli.code}: ${(cli.stderr || cli.stdout).trim().slice(-400)}`;
    const failed = await o.check(ws.dir).catch((e: unknown) => `check threw: ${String(e)}`);
    if (failed) detail = detail ? `${detail}; check: ${failed}` : `check: ${failed}`;
    const checkMs = performance.now() - ended;
    const cpu3 = cpuNow();
    const s = bridge.stats;
    const first = bridge.arrivals[0] ?? cli.printedAt;
    const phases: TaskPhases = {
      setupMs: started - t0,
      startMs: first - started,
      sessionMs: cli.printedAt - first,
      exitMs: cli.exitedAt - cli.printedAt,
      checkMs,
      cliCpuMs: cpuSince(cpu1, cpu2).childrenMs,
      checkCpuMs: cpuSince(cpu2, cpu3).childrenMs,
      benchCpuMs: cpuSince(cpu0, cpu3).selfMs,
    };
    if (process.env.YOKE_BENCH_TASK_TRACE) {
      const at = bridge.arrivals.map((t) => Math.round(t - started));
      const r = (n: number | undefined) => (n === undefined ? "?" : String(Math.round(n)));
      process.stderr.write(
        `[trace] ${o.task}/${o.policyName}: requests at ${at.join(", ")} ms; printed at ${r(cli.printedAt - started)} ms; exit at ${r(cli.exitedAt - started)} ms; ` +
          `setup ${r(phases.setupMs)}, start ${r(phases.startMs)}, session ${r(phases.sessionMs)} (model ${r(s.modelMs)}), exit ${r(phases.exitMs)}, check ${r(checkMs)} ms; ` +
          `CPU yoke run ${r(phases.cliCpuMs)}, check ${r(phases.checkCpuMs)}, bench ${r(phases.benchCpuMs)} ms\n`,
      );
    }
    const breaks = cacheBreaksOf(cli.stdout);
    return {
      task: o.task,
      policy: o.policyName,
      ...(breaks === undefined ? {} : { cacheBreaks: breaks }),
      passed: failed === undefined,
      requests: s.requests,
      inputTokens: s.input,
      cachedInputTokens: s.cached,
      sharedInputTokens: s.shared,
      perRequest: bridge.perRequest,
      firstInputTokens: s.firstInput,
      outputTokens: s.output,
      costUsd: costUsd(s.input - s.cached, s.cached, s.output, s.written),
      wallMs,
      modelMs: s.modelMs,
      ...(detail ? { detail } : {}),
      parts: bridge.parts,
      phases,
    };
  } finally {
    await server.close();
    ws.dispose();
  }
}

/** The cache breaks `yoke run --json` reports for the session (its cost.total), or undefined when it printed none. */
export function cacheBreaksOf(stdout: string): number | undefined {
  try {
    const n = (JSON.parse(stdout) as { cost?: { total?: { cacheBreaks?: unknown } } }).cost?.total?.cacheBreaks;
    return typeof n === "number" ? n : undefined;
  } catch {
    return undefined;
  }
}

/** YOKE_BENCH_TASK_FRESH=1 (or =full): on stderr, the segments of a request its predecessor did not have as its prefix (what a cache cannot serve). */
function traceFresh(task: string, segments: string[], previous: string[]): void {
  let i = 0;
  while (i < segments.length && i < previous.length && segments[i] === previous[i]) i++;
  // YOKE_BENCH_TASK_FRESH=full prints each fresh segment whole.
  const whole = process.env.YOKE_BENCH_TASK_FRESH === "full";
  const fresh = segments.slice(i).map((s) => `${countTokens(s)}t ${JSON.stringify(whole ? s : s.slice(0, 90))}`);
  const broke = i < previous.length ? ` (segment ${i} of the previous ${previous.length} changed)` : "";
  process.stderr.write(`[fresh] ${task}${broke}: ${fresh.join(" | ")}\n`);
}
