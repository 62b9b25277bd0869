/**
 * Bench section "watchdog": the extension host's event-loop watchdog (src/host/watchdog.ts).
 * - the longest stall it saw during the e2e suite: read from test-results/e2e/watchdog.json, which
 *   the e2e fixture (test/e2e/support/yoke-vscode.ts) writes from each window's report; absent
 *   until `npm run test:e2e` ran;
 * - its cost: the same CPU-bound work with and without the watchdog running (ratio, same run);
 * - a bench session in this (CLI) process: an agent session of the session recipe (every mechanism
 *   of a real session, src/bench/recipe-session.ts) doing 40 tool turns on real files with the
 *   watchdog on, its stall count and longest stall.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatRequest, Provider, ProviderEvent } from "../core/providers/types";
import { activity, EventLoopWatchdog, type Stall, type WatchdogReport } from "../node/watchdog";
import { createFileSessionStore } from "../node/session-store";
import { benchSession } from "./recipe-session";
import type { BenchMetric, BenchSection } from "./types";

const RUNS = 7;
const TURNS = 40;

/** CPU-bound work of about 100 ms that allocates like the host does (JSON of events). */
function work(): number {
  let n = 0;
  for (let i = 0; i < 2_000; i++) {
    const o = { type: "tool_result", seq: i, output: "x".repeat(200 + (i % 50)), meta: { a: [i, i + 1, i + 2] } };
    n += JSON.parse(JSON.stringify(o)).output.length;
  }
  return n;
}

async function timeWork(): Promise<number> {
  const t = performance.now();
  // Work in slices with a turn of the event loop between (so the watchdog's timer runs among it).
  for (let i = 0; i < 20; i++) {
    work();
    await new Promise((r) => setImmediate(r));
  }
  return performance.now() - t;
}

async function overhead(): Promise<BenchMetric> {
  const off: number[] = [];
  const on: number[] = [];
  await timeWork();
  for (let i = 0; i < RUNS; i++) {
    off.push(await timeWork());
    const w = new EventLoopWatchdog().start();
    on.push(await timeWork());
    w.stop();
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const a = Math.round(med(on) * 10) / 10;
  const b = Math.round(med(off) * 10) / 10;
  return { name: "CPU-bound work with the watchdog on", value: a, unit: "ms", baseline: b, ratio: Math.round((a / b) * 1000) / 1000, note: "baseline: the same work with it off (median of 7)" };
}

/** A model that reads and writes files for TURNS turns, then answers. */
function scriptedProvider(): Provider {
  let n = 0;
  return {
    id: "openai-compatible",
    model: "bench",
    async *stream(_req: ChatRequest): AsyncIterable<ProviderEvent> {
      n++;
      if (n > TURNS) {
        yield { type: "text_delta", text: "Done." };
      } else {
        const file = `f${n % 5}.ts`;
        yield n % 2
          ? { type: "tool_call", id: `r${n}`, name: "read_file", input: { path: file } }
          : { type: "tool_call", id: `w${n}`, name: "write_file", input: { path: file, content: `export const v = ${n};\n`.repeat(200) } };
      }
      yield { type: "usage", usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 } };
      yield { type: "done", stopReason: n > TURNS ? "end_turn" : "tool_use" };
    },
  };
}

async function sessionStalls(): Promise<Stall[] & { report?: WatchdogReport }> {
  const root = mkdtempSync(join(tmpdir(), "yoke-bench-watchdog-"));
  const ws = join(root, "ws");
  const home = join(root, "home");
  const stalls: Stall[] = [];
  const w = new EventLoopWatchdog({ process: "cli", onStall: (s) => stalls.push(s) }).start();
  try {
    mkdirSync(ws);
    mkdirSync(join(home, ".yoke"), { recursive: true });
    for (let i = 0; i < 5; i++) writeFileSync(join(ws, `f${i}.ts`), "export const v = 0;\n");
    // The user's turn limit, in the user's settings file; every mechanism of a real session (the recipe), with the CLI's file store.
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ budgets: { maxTurns: TURNS + 5 } }));
    const { session, dispose } = await benchSession({ cwd: ws, home, provider: scriptedProvider(), store: createFileSessionStore(join(root, "sessions")) });
    session.onEvent((e) => activity(`session:${e.type}`, () => JSON.stringify(e)));
    await session.send("Rework the files.");
    await dispose();
  } finally {
    w.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return Object.assign(stalls, { report: w.report() });
}

interface E2eFile {
  collectedAt: string;
  windows: WatchdogReport[];
}

/** The e2e suite's figures from the fixture's report file (YOKE_E2E_WATCHDOG overrides where it is). */
export function e2eFigures(file = process.env.YOKE_E2E_WATCHDOG ?? join(process.cwd(), "test-results", "e2e", "watchdog.json")): BenchMetric[] {
  if (!existsSync(file)) {
    return [{ name: "e2e suite: longest extension-host stall", value: null, unit: "ms", note: `no report: ${file} is absent (run npm run test:e2e first; the e2e fixture writes it)` }];
  }
  let data: { files: Record<string, E2eFile> };
  try {
    data = JSON.parse(readFileSync(file, "utf8")) as typeof data;
  } catch (err) {
    return [{ name: "e2e suite: longest extension-host stall", value: null, unit: "ms", note: `no report: ${file} is unreadable: ${err instanceof Error ? err.message : String(err)}` }];
  }
  let longest: { stall: Stall; file: string } | undefined;
  let windows = 0;
  let stalls = 0;
  for (const [name, f] of Object.entries(data.files ?? {})) {
    for (const w of f.windows ?? []) {
      windows++;
      stalls += w.stalls ?? 0;
      if (w.longest && (!longest || w.longest.ms > longest.stall.ms)) longest = { stall: w.longest, file: name };
    }
  }
  const age = Math.round((Date.now() - statSync(file).mtimeMs) / 60_000);
  const covered = Object.keys(data.files ?? {});
  if (windows === 0) {
    return [
      {
        name: "e2e suite: longest extension-host stall",
        value: null,
        unit: "ms",
        note: `no report: ${file} holds no extension-host report (${covered.length} test file(s) listed); written ${age} min ago`,
      },
    ];
  }
  // How much of the suite the file covers: a run of some files is not the suite's figure.
  const suite = e2eFiles();
  const notRun = suite ? suite.filter((f) => !covered.includes(f)) : [];
  // Fixture names are the test files' names (a file that starts VS Code its own way, npm-start, writes no report).
  const coverage = `reports of ${covered.length} test file(s): ${covered.join(", ")}${suite && notRun.length ? ` — not the whole suite (${suite.length} files; no report of ${notRun.join(", ")}; a file that starts VS Code its own way, like npm-start, writes none)` : ""}`;
  const what = longest
    ? `in ${longest.file}.e2e.test.ts, while ${longest.stall.ran.join(", ") || "(no labelled activity)"} ran${longest.stall.active.length ? `; in progress: ${longest.stall.active.join(", ")}` : ""}`
    : "no stall over 50 ms";
  return [
    { name: "e2e suite: longest extension-host stall", value: longest?.stall.ms ?? 0, unit: "ms", note: `${what}; ${coverage}; ${file} written ${age} min ago` },
    { name: "e2e suite: stalls over 50 ms", value: stalls, unit: "stalls", note: `${windows} extension-host report(s) in ${covered.length} test file(s)` },
  ];
}

/** The suite's test files (names as the fixture records them), when the checkout's test/e2e is here. */
function e2eFiles(): string[] | undefined {
  const dir = join(process.cwd(), "test", "e2e");
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith(".e2e.test.ts"))
      .map((f) => f.slice(0, -".e2e.test.ts".length))
      .sort();
  } catch {
    return undefined;
  }
}

export async function bench(): Promise<BenchSection> {
  const metrics: BenchMetric[] = [...e2eFigures(), await overhead()];
  const stalls = await sessionStalls();
  const top = [...stalls].sort((a, b) => b.ms - a.ms)[0];
  metrics.push(
    { name: `bench session (${TURNS} tool turns, CLI process): stalls over 50 ms`, value: stalls.length, unit: "stalls" },
    { name: "bench session: longest stall", value: top?.ms ?? 0, unit: "ms", note: top ? `while ${top.ran.join(", ") || "(no label)"} ran` : "none" },
  );
  return {
    section: "watchdog",
    method:
      "Event-loop watchdog (10 ms timer, stall = gap between ticks over 50 ms). e2e figures come from test-results/e2e/watchdog.json (the fixture collects each window's report); " +
      "overhead is the same CPU-bound work with the watchdog on vs off; the bench session is an in-process agent session with the watchdog on. The machine is shared: stalls include other load.",
    metrics,
  };
}
