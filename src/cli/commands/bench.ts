/** `yoke bench [--json] [--only SECTION] [--sizes 10k,100k,1m]`: runs every benchmark section and prints the figures. */
import { cpus, totalmem } from "node:os";
import { parse, printJson } from "../args";
import type { BenchFn, BenchSection } from "../../bench/types";
import { warn } from "../printable";

/** Sections register here; each module exports `bench`. */
const sections: Record<string, () => Promise<BenchFn>> = {};

export function registerBenchSection(name: string, load: () => Promise<BenchFn>): void {
  sections[name] = load;
}

export async function benchCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { json: { type: "boolean" }, only: { type: "string", multiple: true }, sizes: { type: "string" } }, false);
  // The scale section's repository sizes (`--sizes 10k,100k,1m`).
  if (values.sizes) process.env.YOKE_BENCH_SCALE_SIZES = values.sizes;
  const { loadSections } = await import("../../bench/index");
  loadSections(registerBenchSection);
  const names = Object.keys(sections).filter((n) => !values.only || values.only.includes(n));
  const machine = { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "?", memGiB: Math.round(totalmem() / 2 ** 30) };
  const results: BenchSection[] = [];
  for (const name of names) {
    if (!values.json) warn(`[bench] ${name}...\n`);
    results.push(await (await sections[name]!())());
  }
  if (values.json && results.length === 1 && results[0]!.document !== undefined) {
    printJson(results[0]!.document);
  } else if (values.json) {
    printJson({ machine, date: new Date().toISOString(), sections: results });
  } else {
    process.stdout.write(`machine: ${machine.cpuModel}, ${machine.cpus} cores, ${machine.memGiB} GiB, Node ${machine.node}\n`);
    for (const s of results) {
      process.stdout.write(`\n## ${s.section}\n${s.method}\n`);
      for (const m of s.metrics) {
        const base = m.baseline !== undefined ? `  (baseline ${fmt(m.baseline)} ${m.unit}${m.ratio !== undefined ? `, ratio ${m.ratio.toFixed(2)}` : ""})` : "";
        process.stdout.write(`- ${m.name}: ${m.value === null ? "not measured" : `${fmt(m.value)} ${m.unit}`}${base}${m.note ? ` — ${m.note}` : ""}\n`);
      }
      if (s.details) process.stdout.write(`\n${s.details}\n`);
    }
  }
  return 0;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(n < 10 ? 3 : 1);
}
