/**
 * Patch dialects benchmark (V4A apply_patch, unified diffs): correct / refused / wrong per dialect
 * on the patch corpus (test/fixtures/edit-corpus/*.patch-cases) and on randomized round trips with
 * the noise models produce (src/bench/patch-random.ts), and the time to apply a large patch.
 */
import { planPatch } from "../core/edit/patch/apply";
import { parsePatch } from "../core/edit/patch/parse";
import type { PatchDialect } from "../core/edit/patch/types";
import { createSyntaxChecker } from "../core/edit/syntax-check";
import { nodeGrammarWasm } from "../node/tree-sitter-wasm";
import { loadPatchCorpus, runPatchCase } from "./patch-corpus";
import { runPatchRounds } from "./patch-random";
import type { BenchMetric, BenchSection } from "./types";

const ROUNDS = 100_000;
const DIALECTS: PatchDialect[] = ["apply_patch", "unified_diff"];

export async function bench(): Promise<BenchSection> {
  const metrics: BenchMetric[] = [];
  const rows: string[] = ["| dialect | source | cases | correct | refused (expected or not) | wrong |", "|---|---|---|---|---|---|"];
  const corpus = loadPatchCorpus();
  const syntax = createSyntaxChecker(nodeGrammarWasm());
  for (const d of DIALECTS) {
    const cases = corpus.filter((c) => c.dialect === d);
    let correct = 0;
    let refusedWrongly = 0;
    let wrong = 0;
    for (const c of cases) {
      const r = await runPatchCase(c, syntax);
      if (r.status === "applied-correctly" || r.status === "refused-correctly") correct++;
      else if (r.status === "wrong-apply") wrong++;
      else refusedWrongly++;
    }
    metrics.push({ name: `${d} corpus: correct`, value: correct, unit: "cases", note: `of ${cases.length}; ${refusedWrongly} refused where the case applies or for another reason; ${wrong} wrong` });
    metrics.push({ name: `${d} corpus: wrong`, value: wrong, unit: "cases" });
    rows.push(`| ${d} | own corpus (${cases[0]?.source ?? "-"}) | ${cases.length} | ${correct} | ${refusedWrongly} | ${wrong} |`);
  }
  const noiseRows: string[] = [];
  for (const d of DIALECTS) {
    const r = await runPatchRounds(d, ROUNDS, 1);
    metrics.push({ name: `${d} random round trips: correct`, value: r.correct / r.rounds, unit: "ratio", note: `${r.correct} of ${r.rounds}` });
    metrics.push({ name: `${d} random round trips: refused`, value: r.refused / r.rounds, unit: "ratio", note: `${r.refused} of ${r.rounds}` });
    metrics.push({ name: `${d} random round trips: wrong`, value: r.wrong, unit: "rounds", note: `of ${r.rounds}` });
    rows.push(`| ${d} | random round trips | ${r.rounds} | ${r.correct} | ${r.refused} | ${r.wrong} |`);
    const by = Object.entries(r.refusedBy)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    noiseRows.push(`- ${d}: refused rounds by the noise they carried (a round may carry several): ${by}`);
  }

  // A 200-chunk V4A patch on a 20,000-line file.
  const lines = Array.from({ length: 20_000 }, (_, i) => `  line_${i}(${i % 97});`);
  const file = new TextEncoder().encode(lines.join("\n") + "\n");
  const body: string[] = ["*** Begin Patch", "*** Update File: big.ts"];
  for (let k = 0; k < 200; k++) {
    const at = 50 + k * 99;
    body.push("@@", ` ${lines[at - 1]}`, `-${lines[at]}`, `+  changed_${k}();`, ` ${lines[at + 1]}`);
  }
  body.push("*** End Patch");
  const patch = body.join("\n");
  const applyOnce = async () => {
    const p = parsePatch(patch);
    if (!p.ok) throw new Error(p.message);
    const r = await planPatch(p.files, async () => file);
    if (!r.ok) throw new Error(r.message);
  };
  await applyOnce();
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await applyOnce();
    best = Math.min(best, performance.now() - t);
  }
  metrics.push({ name: "apply a 200-chunk apply_patch to a 20,000-line file", value: best, unit: "ms", note: "parse + locate + apply, best of 5" });

  return {
    section: "patch",
    method:
      "Corpus: test/fixtures/edit-corpus/*.patch-cases, written from the V4A apply_patch and unified diff specifications, run through " +
      `core/edit/patch on in-memory files. Round trips: ${ROUNDS.toLocaleString("en-US")} per dialect (seed 1): a generated file with repeated lines, ` +
      "1-3 intended hunks, rendered with random noise (wrong @@ numbers and counts, lost indentation, trailing spaces, blank context lines " +
      "without their space, 1-2 lines of context, CRLF file or patch, fence/heredoc, no End Patch); correct = exactly the intended file.",
    metrics,
    details: [...rows, "", ...noiseRows].join("\n"),
  };
}
