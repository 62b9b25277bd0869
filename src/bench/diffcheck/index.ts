/**
 * The differential checker's runs: generated inputs and the corpora's Bash cases through
 * createChecker, a few at a time; a report of inputs, disagreements, their classes and repro lines.
 * `yoke bench --only diffcheck` (YOKE_DIFFCHECK_COUNT / YOKE_DIFFCHECK_SEED) and
 * `node scripts/diffcheck.mjs` use it; the test runs a bounded slice.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchSection } from "../types";
import { createChecker, defaultRuleSets, loadAttackFixture, reproLine, type CheckResult, type Checker } from "./check";
import type { Disagreement } from "./compare";
import { generate, type GeneratedInput } from "./generator";
import type { DiffBackend, RunIdentity } from "./runner";

export interface DiffcheckOptions {
  seed: number;
  /** Generated inputs. */
  count: number;
  /** Also every Bash case of test/fixtures/permissions-attacks.json, permissions-corpus.json and permissions-ordinary.json. */
  corpora?: boolean;
  /** Which corpus cases to run (default: all). */
  corpusFilter?: (c: GeneratedInput) => boolean;
  /** Only generated inputs whose shape (a production's name) matches (`--shape`). */
  shapeFilter?: RegExp;
  /** Inputs checked at the same time. */
  concurrency?: number;
  repoRoot?: string;
  /** Called after each input. */
  progress?: (done: number, total: number, r: CheckResult) => void;
  /** Adjust the checker before the run (the test's planted control). */
  setup?: (c: Checker) => void;
  timeoutMs?: number;
  backend?: DiffBackend;
  identity?: RunIdentity;
  /** Inputs given by hand (`--inputs FILE`: a JSON array of command lines or {command, plant}), run after the generated ones. */
  extra?: GeneratedInput[];
}

export interface DiffcheckReport {
  seed: number;
  /** The sandbox and the user the traced runs had. */
  backend: DiffBackend;
  user: string;
  inputs: number;
  generated: number;
  fromCorpora: number;
  /** Inputs whose trace held no run (a broken tracer would show here). */
  errors: Array<{ id: string; command: string; error: string }>;
  /** Inputs the gate allowed in at least one rule set and mode. */
  allowedSomewhere: number;
  execs: number;
  writes: number;
  connects: number;
  /** Traced events per system call, summed over the inputs. */
  calls: Record<string, number>;
  bypasses: Array<{ id: string; command: string; plant?: string; shape: string[]; found: Disagreement[]; repro: string }>;
  /** Disagreements where the gate asked or denied (counted, not failures). */
  informational: number;
  /** Bypass-class disagreements per class (inputs, not rule-set × mode pairs). */
  classes: Record<string, number>;
  ms: number;
  timing: Checker["timing"];
}

/** The Bash command lines of the corpora (placeholders are left out: they name the corpus runner's own folders). */
export function corpusInputs(repoRoot = process.cwd()): GeneratedInput[] {
  const out: GeneratedInput[] = [];
  const seen = new Set<string>();
  for (const name of ["permissions-attacks.json", "permissions-corpus.json", "permissions-ordinary.json"]) {
    const doc = JSON.parse(readFileSync(join(repoRoot, "test", "fixtures", name), "utf8")) as { cases: Array<{ id: string; tool: string; category: string; input: { command?: unknown } }> };
    for (const c of doc.cases) {
      const cmd = c.input.command;
      if (c.tool !== "Bash" || typeof cmd !== "string" || seen.has(cmd) || /\$(WS|OUT|OUTREL)\b/.test(cmd)) continue;
      seen.add(cmd);
      // The ordinary corpus (developer commands that must stay allowed) is named as such: `--corpus-filter ordinary`.
      out.push({
        id: name === "permissions-ordinary.json" ? `ordinary:${c.id}` : c.id,
        command: cmd,
        shape: [name === "permissions-ordinary.json" ? `corpus: ordinary ${c.category}` : `corpus: ${c.category}`],
      });
    }
  }
  return out;
}

export async function runDiffcheck(opts: DiffcheckOptions): Promise<DiffcheckReport> {
  const repoRoot = opts.repoRoot ?? process.cwd();
  const { spec, standard } = loadAttackFixture(repoRoot);
  const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), timeoutMs: opts.timeoutMs, backend: opts.backend, identity: opts.identity });
  opts.setup?.(checker);
  // With a shape filter: only generated inputs one of whose productions matches (a focused run), up to count.
  const generated = opts.shapeFilter
    ? generate(opts.seed, opts.count * 400)
        .filter((g) => g.shape.some((x) => opts.shapeFilter!.test(x)))
        .slice(0, opts.count)
    : generate(opts.seed, opts.count);
  const corpus = opts.corpora ? corpusInputs(repoRoot).filter(opts.corpusFilter ?? (() => true)) : [];
  const inputs = [...generated, ...(opts.extra ?? []), ...corpus];
  const report: DiffcheckReport = {
    seed: opts.seed,
    backend: opts.backend ?? "bwrap",
    user: opts.identity?.name ?? (process.getuid?.() === 0 ? "root" : "this user"),
    inputs: 0,
    generated: generated.length + (opts.extra?.length ?? 0),
    fromCorpora: corpus.length,
    errors: [],
    allowedSomewhere: 0,
    execs: 0,
    writes: 0,
    connects: 0,
    calls: {},
    bypasses: [],
    informational: 0,
    classes: {},
    ms: 0,
    timing: checker.timing,
  };
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const input = inputs[next++]!;
      const r = await checker.check(input.command, input.id, input.plant);
      report.inputs++;
      report.execs += r.execs;
      report.writes += r.writes;
      report.connects += r.connects;
      for (const [call, n] of Object.entries(r.calls)) report.calls[call] = (report.calls[call] ?? 0) + n;
      if (r.error) report.errors.push({ id: input.id, command: input.command, error: r.error });
      if (r.verdicts.some((v) => v.decision === "allow")) report.allowedSomewhere++;
      const bypass = r.disagreements.filter((d) => d.severity === "bypass");
      report.informational += r.disagreements.length - bypass.length;
      if (bypass.length) {
        report.bypasses.push({ id: input.id, command: input.command, ...(input.plant ? { plant: input.plant } : {}), shape: input.shape, found: bypass, repro: reproLine(input.command, input.plant) });
        for (const cls of new Set(bypass.map((d) => d.class))) report.classes[cls] = (report.classes[cls] ?? 0) + 1;
      }
      opts.progress?.(report.inputs, inputs.length, r);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
  } finally {
    checker.dispose();
  }
  report.ms = performance.now() - t0;
  return report;
}

/** One bypass as lines: each difference once, with the rule sets and modes that allowed it. */
export function formatBypass(b: DiffcheckReport["bypasses"][number]): string[] {
  const lines = [`[${b.id}] ${JSON.stringify(b.command)}${b.plant ? ` after planting ${JSON.stringify(b.plant)}` : ""} (${b.shape.join(" / ")})`];
  const byKey = new Map<string, string[]>();
  for (const d of b.found) {
    const key = `${d.class}: ${d.detail}`;
    byKey.set(key, [...(byKey.get(key) ?? []), `${d.ruleSet}/${d.mode}`]);
  }
  for (const [key, where] of byKey) lines.push(`  ${key} [allowed in ${where.join(", ")}]`);
  lines.push(`  repro: ${b.repro}`);
  return lines;
}

/** The report as text: figures, classes, then each bypass with its repro line. */
export function formatReport(r: DiffcheckReport, maxShown = 50): string {
  const lines = [
    `differential checker: seed ${r.seed}, ${r.backend} as ${r.user}, ${r.inputs} inputs (${r.generated} generated, ${r.fromCorpora} from the corpora), ${(r.ms / 1000).toFixed(1)} s`,
    `  traced: ${r.execs} programs executed, ${r.writes} file writes, ${r.connects} connection attempts; ${r.allowedSomewhere} inputs allowed in some rule set and mode`,
    `  calls seen: ${Object.entries(r.calls)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(", ")}`,
    `  bypass-class disagreements: ${r.bypasses.length} inputs; informational (gate asked or denied): ${r.informational}`,
    `  runs without a trace: ${r.errors.length}`,
    `  time: ${(r.timing.scratch / 1000).toFixed(1)} s copying fixtures, ${(r.timing.gate / 1000).toFixed(1)} s in the gate, ${(r.timing.run / 1000).toFixed(1)} s in traced runs (summed over ${r.inputs} inputs)`,
  ];
  for (const [cls, n] of Object.entries(r.classes).sort((a, b) => b[1] - a[1])) lines.push(`  class "${cls}": ${n} inputs`);
  for (const b of r.bypasses.slice(0, maxShown)) lines.push("", ...formatBypass(b));
  for (const e of r.errors.slice(0, 10)) lines.push(`no trace: [${e.id}] ${JSON.stringify(e.command)}: ${e.error}`);
  return lines.join("\n");
}

export async function bench(): Promise<BenchSection> {
  const count = Number(process.env.YOKE_DIFFCHECK_COUNT ?? 1000);
  const seed = Number(process.env.YOKE_DIFFCHECK_SEED ?? 1);
  const r = await runDiffcheck({ seed, count, corpora: process.env.YOKE_DIFFCHECK_CORPORA !== "0", concurrency: 2 });
  return {
    section: "diffcheck",
    method: `The differential checker (src/bench/diffcheck): ${r.generated} generated inputs (seed ${seed}; YOKE_DIFFCHECK_COUNT / YOKE_DIFFCHECK_SEED; YOKE_DIFFCHECK_CORPORA=0 leaves the corpora out) and ${r.fromCorpora} Bash cases of the corpora, each run with real bash under strace in a throwaway bwrap sandbox and compared with the gate's prediction and verdicts in 3 rule sets × 4 modes.`,
    metrics: [
      { name: "inputs run", value: r.inputs, unit: "inputs" },
      { name: "bypass-class disagreements", value: r.bypasses.length, unit: "inputs" },
      { name: "informational disagreements", value: r.informational, unit: "findings" },
      { name: "runs without a trace", value: r.errors.length, unit: "inputs" },
      { name: "time per input", value: r.ms / Math.max(1, r.inputs), unit: "ms" },
    ],
    details: formatReport(r),
    document: r,
  };
}
