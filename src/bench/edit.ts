/**
 * Edit engine benchmark: correctness on the edit corpus, output tokens per edit for hashline ops
 * vs SEARCH/REPLACE vs whole-file rewrite, apply time on a large file, hashline view throughput.
 */
import { createRequire } from "node:module";
import { diffArrays } from "diff";
import { applyEditsToBytes } from "../core/edit/apply-edits";
import { formatHashlineView, hashlineReady, lineTag } from "../core/edit/hashline";
import { createSyntaxChecker, syntaxRefusal, type SyntaxChecker } from "../core/edit/syntax-check";
import type { EditInput, HashlineOp } from "../core/edit/types";
import { nodeGrammarWasm } from "../node/tree-sitter-wasm";
import { loadCorpus, runCase, type CorpusCase } from "./edit-corpus";
import { GENERATORS, runRetryRounds, runRounds } from "./edit-random";
import type { BenchMetric, BenchSection } from "./types";

type Encoder = { encode(text: string): number[] };

/** js-tiktoken (o200k_base), loaded at run time so its 2 MB of ranks stay out of the CLI bundle. */
function loadTokenizer(): Encoder {
  const req = createRequire(__filename);
  const { Tiktoken } = req("js-tiktoken/lite") as { Tiktoken: new (ranks: unknown) => Encoder };
  const ranks = req("js-tiktoken/ranks/o200k_base") as { default?: unknown };
  return new Tiktoken(ranks.default ?? ranks);
}

const encoder = new TextEncoder();

function splitLines(s: string): string[] {
  const lines = s.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

interface Hunk {
  /** 0-based index of the first removed line (or the insertion point) in the old file. */
  at: number;
  removed: string[];
  added: string[];
}

function hunks(before: string[], after: string[]): Hunk[] {
  const out: Hunk[] = [];
  let i = 0;
  let cur: Hunk | undefined;
  for (const part of diffArrays(before, after)) {
    if (!part.added && !part.removed) {
      if (cur) out.push(cur);
      cur = undefined;
      i += part.value.length;
      continue;
    }
    cur ??= { at: i, removed: [], added: [] };
    if (part.removed) {
      cur.removed.push(...part.value);
      i += part.value.length;
    } else cur.added.push(...part.value);
  }
  if (cur) out.push(cur);
  return out;
}

/** The hashline ops a model would send for this change. */
export function hashlineOpsFor(before: string, after: string): HashlineOp[] {
  const lines = splitLines(before);
  return hunks(lines, splitLines(after)).map((h): HashlineOp => {
    if (h.removed.length) {
      const op: HashlineOp = { op: "replace", pos: lineTag(h.at + 1, lines[h.at]!), lines: h.added.length ? h.added : null };
      if (h.removed.length > 1) op.end = lineTag(h.at + h.removed.length, lines[h.at + h.removed.length - 1]!);
      return op;
    }
    if (h.at > 0) return { op: "append", pos: lineTag(h.at, lines[h.at - 1]!), lines: h.added };
    return lines.length ? { op: "prepend", pos: lineTag(1, lines[0]!), lines: h.added } : { op: "append", lines: h.added };
  });
}

function occurrences(lines: string[], search: string[]): number {
  let n = 0;
  for (let i = 0; i + search.length <= lines.length; i++) {
    let k = 0;
    while (k < search.length && lines[i + k] === search[k]) k++;
    if (k === search.length) n++;
  }
  return n;
}

/** Minimal SEARCH/REPLACE pairs: the changed lines plus just enough context to be unique. */
export function searchReplaceFor(before: string, after: string): Array<{ search: string[]; replace: string[] }> {
  const lines = splitLines(before);
  return hunks(lines, splitLines(after)).map((h) => {
    let from = h.at;
    let to = h.at + h.removed.length;
    let pre: string[] = [];
    let post: string[] = [];
    const usable = () => {
      const search = [...pre, ...h.removed, ...post];
      return search.some((l) => l.trim() !== "") && occurrences(lines, search) === 1;
    };
    for (let grow = 0; !usable() && grow < lines.length; grow++) {
      if (from > 0 && (grow % 2 === 0 || to >= lines.length)) pre = lines.slice(--from, h.at);
      else if (to < lines.length) post = lines.slice(h.at + h.removed.length, ++to);
      else break;
    }
    return { search: [...pre, ...h.removed, ...post], replace: [...pre, ...h.added, ...post] };
  });
}

function blockText(path: string, pairs: Array<{ search: string[]; replace: string[] }>): string {
  return pairs.map((p) => `${path}\n<<<<<<< SEARCH\n${p.search.map((l) => l + "\n").join("")}=======\n${p.replace.map((l) => l + "\n").join("")}>>>>>>> REPLACE\n`).join("\n");
}

function applies(before: string, edits: EditInput[], expected: string): boolean {
  const r = applyEditsToBytes(encoder.encode(before), edits, "f");
  return r.ok && r.after === expected;
}

interface TokenCounts {
  hashline: number;
  srJson: number;
  srBlocks: number;
  whole: number;
}

function tokensFor(tok: Encoder, path: string, before: string, after: string): TokenCounts | undefined {
  const ops = hashlineOpsFor(before, after);
  const pairs = searchReplaceFor(before, after);
  const blocks = pairs.map((p) => ({ kind: "block" as const, search: p.search, replace: p.replace }));
  if (!applies(before, ops, after) || !applies(before, blocks, after)) return undefined;
  const json = pairs.map((p) => ({ old_string: p.search.join("\n"), new_string: p.replace.join("\n") }));
  return {
    hashline: tok.encode(JSON.stringify({ path, edits: ops })).length,
    srJson: tok.encode(JSON.stringify({ path, edits: json })).length,
    srBlocks: tok.encode(blockText(path, pairs)).length,
    whole: tok.encode(JSON.stringify({ path, content: after })).length,
  };
}

/** A TypeScript-like file of `functions` 4-line functions. */
function generatedFile(functions: number): string {
  let s = "";
  for (let i = 0; i < functions; i++) {
    s += `export function compute${i}(value: number, factor = ${i % 13}): number {\n  const scaled = value * factor + ${i};\n  return Math.round(scaled / ${(i % 7) + 1});\n}\n`;
  }
  return s;
}

/** Best of `runs` wall times (the least disturbed by other load on the machine). */
function time(fn: () => void, runs = 7): number {
  fn();
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

export interface CategoryTally {
  shouldApply: number;
  shouldRefuse: number;
  applied: number;
  refused: number;
  /** Names of cases applied, but not as intended (wrong applies). */
  wrong: string[];
  falseRefusals: string[];
  otherReason: string[];
}

/** Outcomes of the corpus per category (sorted), plus "(all)". */
export async function corpusTally(corpus: readonly CorpusCase[], syntax?: SyntaxChecker): Promise<Map<string, CategoryTally>> {
  const out = new Map<string, CategoryTally>();
  const get = (k: string) => {
    let t = out.get(k);
    if (!t) out.set(k, (t = { shouldApply: 0, shouldRefuse: 0, applied: 0, refused: 0, wrong: [], falseRefusals: [], otherReason: [] }));
    return t;
  };
  get("(all)");
  for (const c of [...corpus].sort((a, b) => a.category.localeCompare(b.category))) {
    const r = await runCase(c, syntax);
    for (const t of [get("(all)"), get(c.category)]) {
      if ("content" in c.expect) t.shouldApply++;
      else t.shouldRefuse++;
      if (r.status === "applied-correctly") t.applied++;
      else if (r.status === "refused-correctly") t.refused++;
      else if (r.status === "wrong-apply") t.wrong.push(c.name);
      else if (r.status === "wrong-refusal") t.falseRefusals.push(c.name);
      else t.otherReason.push(c.name);
    }
  }
  return out;
}

function pct(n: number, d: number): number {
  return d === 0 ? 100 : Math.round((1000 * n) / d) / 10;
}

export async function bench(): Promise<BenchSection> {
  await hashlineReady();
  const metrics: BenchMetric[] = [];

  // 1. Correctness on the corpus, in all and per category.
  const corpus = loadCorpus();
  const tally = await corpusTally(corpus, createSyntaxChecker(nodeGrammarWasm()));
  const all = tally.get("(all)")!;
  metrics.push({ name: "corpus cases", value: corpus.length, unit: "cases", note: `${all.shouldApply} should apply, ${all.shouldRefuse} should be refused` });
  metrics.push({ name: "applied correctly", value: pct(all.applied, all.shouldApply), unit: "%", note: `${all.applied}/${all.shouldApply}` });
  metrics.push({ name: "refused correctly", value: pct(all.refused, all.shouldRefuse), unit: "%", note: `${all.refused}/${all.shouldRefuse}` });
  metrics.push({ name: "wrong applies", value: all.wrong.length, unit: "cases", note: all.wrong.length ? all.wrong.join(", ") : "must be 0" });
  metrics.push({ name: "false refusals", value: all.falseRefusals.length, unit: "cases", note: all.falseRefusals.join(", ") || undefined });
  metrics.push({ name: "refused for another reason", value: all.otherReason.length, unit: "cases", note: all.otherReason.join(", ") || undefined });
  for (const [category, t] of tally) {
    if (category === "(all)") continue;
    metrics.push({
      name: `corpus category ${category}: correct`,
      value: pct(t.applied + t.refused, t.shouldApply + t.shouldRefuse),
      unit: "%",
      note: `applied correctly ${t.applied}/${t.shouldApply}, refused correctly ${t.refused}/${t.shouldRefuse}, wrong ${t.wrong.length}${t.wrong.length ? ` (${t.wrong.join(", ")})` : ""}`,
    });
  }

  // 1b. Randomized rounds with a known intent (src/bench/edit-random.ts): 10^5 in all.
  const total = Number(process.env.YOKE_BENCH_EDIT_ROUNDS ?? 100_000);
  const names = Object.keys(GENERATORS);
  let wrongRounds = 0;
  let ran = 0;
  const started = performance.now();
  for (const name of names) {
    const r = runRounds(name, Math.ceil(total / names.length), 11, true);
    ran += r.rounds;
    wrongRounds += r.wrong.length;
    metrics.push({
      name: `randomized ${name}: wrong applies`,
      value: r.wrong.length,
      unit: "rounds",
      note: `${r.rounds} rounds: ${r.applied} applied as intended (${pct(r.applied, r.rounds)} %), ${r.refused} refused; must be 0${r.wrong.length ? `; first: round ${r.wrong[0]!.round} (${r.wrong[0]!.what})` : ""}`,
    });
  }
  metrics.push({ name: "randomized rounds in all", value: ran, unit: "rounds", note: `${wrongRounds} wrong applies (must be 0), ${((performance.now() - started) / 1000).toFixed(1)} s` });

  // 1c. Refusals that fix themselves: a SEARCH from a drifted view, refused, then retried with only what the refusal shows.
  const retry = runRetryRounds(Math.min(20_000, Math.ceil(total / 5)), 11);
  const refusedFirst = retry.rounds - retry.firstLanded;
  metrics.push({
    name: "refusal then retry: retry landed",
    value: Number(pct(retry.retryLanded, refusedFirst)),
    unit: "%",
    note:
      `${retry.rounds} rounds (stale value, typo, line left out, changed character): first attempt landed ${retry.firstLanded}; of ${refusedFirst} refused, ` +
      `the retry copied from the refusal landed ${retry.retryLanded}, was refused ${retry.retryRefused}, found no region to copy ${retry.noRegion}; wrong ${retry.wrong} (must be 0); ` +
      Object.entries(retry.byNoise)
        .map(([k, [n, f, rt]]) => `${k}: ${n} rounds, ${f} first, ${rt} retry`)
        .join("; "),
  });

  // 2. Output tokens per edit on the corpus edits that apply.
  const tok = loadTokenizer();
  const per: TokenCounts[] = [];
  for (const c of corpus) {
    if (!("content" in c.expect) || c.read !== c.file || c.file === "") continue;
    const t = tokensFor(tok, "src/example.ts", c.file, c.expect.content);
    if (t) per.push(t);
  }
  const avg = (k: keyof TokenCounts) => Math.round((10 * per.reduce((n, t) => n + t[k], 0)) / Math.max(1, per.length)) / 10;
  const single = { hashline: avg("hashline"), srJson: avg("srJson"), srBlocks: avg("srBlocks"), whole: avg("whole") };
  const note = `mean over ${per.length} corpus edits, o200k_base`;
  metrics.push({
    name: "tokens per edit: hashline ops (JSON)",
    value: single.hashline,
    unit: "tokens",
    baseline: single.srJson,
    ratio: single.hashline / single.srJson,
    note: `${note}; baseline = search/replace JSON`,
  });
  metrics.push({ name: "tokens per edit: search/replace JSON", value: single.srJson, unit: "tokens", note });
  metrics.push({ name: "tokens per edit: SEARCH/REPLACE text blocks", value: single.srBlocks, unit: "tokens", note });
  metrics.push({ name: "tokens per edit: whole-file rewrite", value: single.whole, unit: "tokens", note });

  // 3. Ten successive edits to one 300-line file.
  let file = generatedFile(75);
  const seq: TokenCounts = { hashline: 0, srJson: 0, srBlocks: 0, whole: 0 };
  for (let k = 0; k < 10; k++) {
    const i = 5 + k * 7;
    const next = file
      .replace(`  return Math.round(scaled / ${(i % 7) + 1});\n`, `  if (!Number.isFinite(scaled)) return 0;\n  return Math.round(scaled / ${(i % 7) + 2});\n`)
      .replace(`export function compute${i}(value: number`, `export function compute${i}(value: number /* checked */`);
    const t = tokensFor(tok, "src/compute.ts", file, next);
    if (!t) throw new Error(`bench: generated edit ${k} did not round-trip`);
    for (const key of Object.keys(seq) as Array<keyof TokenCounts>) seq[key] += t[key];
    file = next;
  }
  metrics.push({
    name: "10 edits to one 300-line file: hashline ops",
    value: seq.hashline,
    unit: "tokens",
    baseline: seq.srJson,
    ratio: seq.hashline / seq.srJson,
    note: "baseline = search/replace JSON",
  });
  metrics.push({ name: "10 edits to one 300-line file: search/replace JSON", value: seq.srJson, unit: "tokens" });
  metrics.push({ name: "10 edits to one 300-line file: SEARCH/REPLACE blocks", value: seq.srBlocks, unit: "tokens" });
  metrics.push({ name: "10 edits to one 300-line file: whole-file rewrites", value: seq.whole, unit: "tokens" });

  // 4. Apply time: a 20,000-line file, 100 edits in one call.
  const big = generatedFile(5000);
  const bigBytes = encoder.encode(big);
  const bigLines = splitLines(big);
  const ops: HashlineOp[] = [];
  const pairs: EditInput[] = [];
  const blocks: EditInput[] = [];
  for (let e = 0; e < 100; e++) {
    const i = e * 50 + 3;
    const line = 4 * i + 3;
    ops.push({ op: "replace", pos: lineTag(line, bigLines[line - 1]!), lines: [`  return Math.round(scaled / ${(i % 7) + 1}) + 1;`] });
    pairs.push({ old_string: `  const scaled = value * factor + ${i};\n`, new_string: `  const scaled = value * factor + ${i} + 1;\n` });
    blocks.push({ kind: "block", search: [`  const scaled = value * factor + ${i};`], replace: [`  const scaled = value * factor + ${i} + 1;`] });
  }
  for (const [name, edits] of [
    ["hashline ops", ops],
    ["search/replace JSON", pairs],
    ["SEARCH/REPLACE blocks", blocks],
  ] as const) {
    const r = applyEditsToBytes(bigBytes, edits as EditInput[], "big.ts");
    if (!r.ok) throw new Error(`bench: ${name} on the large file failed: ${r.message}`);
    const ms = time(() => applyEditsToBytes(bigBytes, edits as EditInput[], "big.ts"));
    metrics.push({ name: `apply 100 edits to a 20,000-line file: ${name}`, value: ms, unit: "ms", note: `${(bigBytes.length / 2 ** 20).toFixed(2)} MiB file, best of 7` });
  }

  // 5. Hashline view throughput.
  const viewMs = time(() => formatHashlineView(bigLines), 9);
  metrics.push({ name: "hashline view throughput", value: bigBytes.length / 2 ** 20 / (viewMs / 1000), unit: "MiB/s", note: "file bytes formatted per second, 20,000-line file, best of 9" });

  // 6. The parse check of tolerant edits: the first check (loads the runtime and the grammar), then warm checks.
  const tsLines: string[] = [];
  for (let i = 0; i < 1000; i++) tsLines.push(`export function f${i}(a: number, b: string): string {`, `  const x = a * ${i} + b.length;`, "  return `${b}:${x}`;", "}", "");
  const tsText = tsLines.join("\n");
  const tsBroken = tsText.replace("return `${b}:${x}`;", "return (`${b}:${x}`;");
  const fresh = createSyntaxChecker(nodeGrammarWasm());
  let t0 = performance.now();
  const firstRefusal = await syntaxRefusal(fresh, "big.ts", tsText, tsBroken, ["similar-text"]);
  const firstMs = performance.now() - t0;
  let warmMs = Infinity;
  for (let i = 0; i < 5; i++) {
    t0 = performance.now();
    await syntaxRefusal(fresh, "big.ts", tsText, tsBroken, ["similar-text"]);
    warmMs = Math.min(warmMs, performance.now() - t0);
  }
  metrics.push({
    name: "parse check: first check",
    value: firstMs,
    unit: "ms",
    note: `loads tree-sitter and the TypeScript grammar, parses a 5,000-line file before and after; ${firstRefusal ? "refused" : "NOT refused"}`,
  });
  metrics.push({ name: "parse check: warm check", value: warmMs, unit: "ms", note: "the same 5,000-line TypeScript file parsed before and after, best of 5" });

  return {
    section: "edit",
    method:
      "Corpus: test/fixtures/edit-corpus (realistic model edits with expected results) through the edit engine. Tokens: for each corpus " +
      "edit that applies, the same change is generated as hashline ops, minimal search/replace pairs (changed lines plus just enough " +
      "context to be unique) and a whole-file rewrite, each checked to reproduce the expected file, and counted as tool-call arguments " +
      "with js-tiktoken o200k_base. Timing: best-of-7 wall time of applyEditsToBytes (decode, validate, apply, encode). The corpus runs with the " +
      "parse check of tolerant edits (real tree-sitter grammars).",
    metrics,
  };
}
