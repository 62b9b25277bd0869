/**
 * `node scripts/diffcheck.mjs [--count N] [--seed S] [--corpora [--corpus-filter RE]] [--concurrency C] [--json]
 * [--backend bwrap|firejail] [--user]` and `node scripts/diffcheck.mjs [--plant 'SETUP'] --command 'CMD'` (one input,
 * every verdict and difference shown; SETUP runs in the scratch workspace before the gate looks). `--user`: the traced commands run as the unprivileged test
 * user (yoke-sectest, created when run as root).
 * Exits 1 when a bypass-class disagreement was found.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createChecker, defaultRuleSets, loadAttackFixture } from "./check";
import { unprivilegedIdentity } from "./identity";
import { formatReport, runDiffcheck } from "./index";
import { formatCoverage, measureCoverage } from "./coverage";
import { generate, type GeneratedInput } from "./generator";
import type { DiffBackend } from "./runner";

export async function diffcheckMain(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      count: { type: "string", default: "500" },
      seed: { type: "string", default: "1" },
      corpora: { type: "boolean", default: false },
      // Only the corpus cases whose shape (`corpus: ordinary git`, `corpus: wrappers`…) matches.
      "corpus-filter": { type: "string" },
      // Only generated inputs whose shape (a production's name) matches: a focused run.
      shape: { type: "string" },
      concurrency: { type: "string", default: "2" },
      command: { type: "string" },
      // With --command: a script run in the scratch workspace first (files an earlier command made).
      plant: { type: "string" },
      json: { type: "boolean", default: false },
      quiet: { type: "boolean", default: false },
      backend: { type: "string", default: "bwrap" },
      user: { type: "boolean", default: false },
      // A JSON file: an array of command lines (or {command, plant}) run as inputs of their own.
      inputs: { type: "string" },
      // Print what the generated inputs reach (constructs, programs of the gate's tables, spellings, system calls); no run.
      coverage: { type: "boolean", default: false },
    },
  });
  if (values.backend !== "bwrap" && values.backend !== "firejail") throw new Error(`--backend must be bwrap or firejail (got ${values.backend})`);
  const backend: DiffBackend = values.backend;
  const identity = values.user ? unprivilegedIdentity() : undefined;
  if (values.coverage) {
    const all = generate(Number(values.seed), Number(values.count));
    process.stdout.write(`${formatCoverage(measureCoverage(all), "every production")}\n`);
    // Without the session-24 productions (the generator before red team I, near enough: the same seed draws differently).
    process.stdout.write(`${formatCoverage(measureCoverage(all.filter((g) => !g.shape.some((s) => s.startsWith("g24 ")))), "without grammar24")}\n`);
    return 0;
  }
  if (values.command !== undefined) {
    const { spec, standard } = loadAttackFixture();
    const checker = createChecker({ spec, ruleSets: defaultRuleSets(standard), backend, identity });
    try {
      const r = await checker.check(values.command, "cmd", values.plant);
      if (values.json) process.stdout.write(`${JSON.stringify(r, null, 1)}\n`);
      else {
        if (r.plant) process.stdout.write(`planted first: ${JSON.stringify(r.plant)}\n`);
        process.stdout.write(`command: ${JSON.stringify(r.command)}\n`);
        process.stdout.write(`predicted programs: ${r.prediction?.programs.join(", ") || "(none)"}\n`);
        process.stdout.write(`traced: ${r.execs} programs executed, ${r.writes} writes${r.error ? `; ${r.error}` : ""}\n`);
        for (const v of r.verdicts) process.stdout.write(`  ${v.ruleSet} / ${v.mode}: ${v.decision}${v.readOnly ? " (read-only)" : ""}\n`);
        for (const d of r.disagreements) process.stdout.write(`  ${d.severity.toUpperCase()} ${d.class} [${d.ruleSet}/${d.mode}, gate: ${d.decision}]: ${d.detail}\n`);
        if (!r.disagreements.length) process.stdout.write("  no disagreement\n");
      }
      return r.disagreements.some((d) => d.severity === "bypass") || r.error ? 1 : 0;
    } finally {
      checker.dispose();
    }
  }
  const report = await runDiffcheck({
    seed: Number(values.seed),
    count: Number(values.count),
    corpora: values.corpora,
    corpusFilter:
      values["corpus-filter"] === undefined
        ? undefined
        : (
            (re) => (c: { shape: string[] }) =>
              c.shape.some((x) => re.test(x))
          )(new RegExp(values["corpus-filter"])),
    extra: values.inputs === undefined ? undefined : readInputs(values.inputs),
    shapeFilter: values.shape === undefined ? undefined : new RegExp(values.shape),
    concurrency: Number(values.concurrency),
    backend,
    identity,
    progress: values.quiet || values.json ? undefined : (done, total) => (done % 50 === 0 || done === total ? process.stderr.write(`[diffcheck] ${done}/${total}\n`) : undefined),
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 1)}\n` : `${formatReport(report, 1000)}\n`);
  return report.bypasses.length || report.errors.length ? 1 : 0;
}

/** `--inputs FILE`: a JSON array of command lines, or of `{ command, plant? }`. */
function readInputs(file: string): GeneratedInput[] {
  const doc = JSON.parse(readFileSync(file, "utf8")) as Array<string | { command: string; plant?: string }>;
  return doc.map((x, i) =>
    typeof x === "string" ? { id: `in-${i}`, command: x, shape: ["--inputs"] } : { id: `in-${i}`, command: x.command, shape: ["--inputs"], ...(x.plant ? { plant: x.plant } : {}) },
  );
}

if (require.main === module) {
  diffcheckMain(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`diffcheck: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(2);
    },
  );
}
