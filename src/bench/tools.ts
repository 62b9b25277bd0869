/**
 * Bench section "tools": search speed (ripgrep vs the JS fallback, same results), and what the
 * read_file unchanged-range shortcut saves.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { silentLogger, type Searcher } from "../core/ports";
import { readFileTool } from "../core/tools/read-file";
import type { ToolContext } from "../core/tools/types";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createJsSearcher, createRipgrepSearcher, findRipgrep } from "../node/ripgrep-searcher";
import type { BenchMetric, BenchSection } from "./types";

const FILES = 1500;
const LINES = 150;
const RUNS = 7;

function makeWorkspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-tools-")));
  fs.writeFileSync(path.join(root, ".gitignore"), "generated/\n");
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, i % 10 === 0 ? "generated" : `src/mod${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    const body = Array.from({ length: LINES }, (_, n) => (n % 25 === 0 ? `export function handler${i}_${n}(input: string): number {` : `  const v${n} = input.length * ${n}; // filler ${i}`));
    fs.writeFileSync(path.join(dir, `file${i}.ts`), body.join("\n") + "\n");
  }
  return root;
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(runs / 2)]! * 10) / 10;
}

async function compare(name: string, rg: Searcher, js: Searcher, run: (s: Searcher) => Promise<unknown>): Promise<BenchMetric[]> {
  const same = JSON.stringify(await run(rg)) === JSON.stringify(await run(js));
  const rgMs = await median(RUNS, () => run(rg));
  const jsMs = await median(RUNS, () => run(js));
  return [
    { name: `${name} (ripgrep)`, value: rgMs, unit: "ms", baseline: jsMs, ratio: Math.round((rgMs / jsMs) * 100) / 100, note: "baseline: JS fallback" },
    { name: `${name}: same results`, value: same ? 1 : 0, unit: "bool" },
  ];
}

const SMALL = 3000;

/**
 * File tools act on what was checked (src/node/safe-open.ts): time per read and per write of
 * SMALL small files through the checked opens, against the same by name (the baseline).
 */
async function checkedOpens(): Promise<BenchMetric[]> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-bench-safe-")));
  try {
    const files = Array.from({ length: SMALL }, (_, i) => `${root}/d${i % 30}/sub/f${i}.txt`);
    for (const f of files) {
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, `line ${f}\n`);
    }
    const wfs = createNodeWorkspaceFs(root);
    const data = new TextEncoder().encode("new content\n");
    const perFile = async (fn: (f: string) => Promise<unknown>) =>
      (await median(3, async () => {
        for (const f of files) await fn(f);
      })) / SMALL;
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    const readByName = await perFile((f) => wfs.readFile(f));
    const readChecked = await perFile((f) => wfs.readChecked(f));
    const writeByName = await perFile((f) => wfs.writeFile(f, data));
    const writeChecked = await perFile((f) => wfs.writeChecked(f, data));
    return [
      {
        name: "read of a small file, checked (O_NOFOLLOW + /proc/self/fd)",
        value: round(readChecked),
        unit: "ms",
        baseline: round(readByName),
        ratio: Math.round((readChecked / readByName) * 100) / 100,
        note: "baseline: readFile by name",
      },
      {
        name: "write of a small file, checked (temp + rename in the folder's descriptor)",
        value: round(writeChecked),
        unit: "ms",
        baseline: round(writeByName),
        ratio: Math.round((writeChecked / writeByName) * 100) / 100,
        note: "baseline: the by-name atomic write",
      },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

export async function bench(): Promise<BenchSection> {
  const root = makeWorkspace();
  try {
    const metrics: BenchMetric[] = [];
    const js = createJsSearcher();
    if (findRipgrep()) {
      const rg = createRipgrepSearcher();
      // A rare pattern, so both scan every file (a common one stops early at maxMatches).
      metrics.push(...(await compare("grep 'handler77_' (full scan)", rg, js, (s) => s.grep({ pattern: "handler77_", path: root, maxMatches: 200 }))));
      metrics.push(...(await compare("glob '**/*.ts'", rg, js, (s) => s.glob({ pattern: "**/*.ts", path: root, maxResults: 200 }))));
    }
    const read = readFileTool;
    const ctx: ToolContext = {
      fs: createNodeWorkspaceFs(root),
      search: js,
      signal: new AbortController().signal,
      sessionId: "bench",
      callId: "bench",
      log: silentLogger,
      readState: new Map(),
      record: () => {},
    };
    const first = await read.run({ path: "src/mod1/file1.ts" }, ctx);
    const again = await read.run({ path: "src/mod1/file1.ts" }, ctx);
    const raw = fs.statSync(path.join(root, "src/mod1/file1.ts")).size;
    metrics.push(
      { name: `read_file of a ${LINES}-line file`, value: first.text.length, unit: "chars", baseline: raw, ratio: Math.round((first.text.length / raw) * 100) / 100, note: "baseline: raw file" },
      { name: "second read_file, file unchanged", value: again.text.length, unit: "chars", baseline: first.text.length, ratio: Math.round((again.text.length / first.text.length) * 1000) / 1000 },
    );
    metrics.push(...(await checkedOpens()));
    return {
      section: "tools",
      method: `${SMALL} small files in 30 folders for the checked opens (median of 3 passes, per file); ${FILES} generated TypeScript files of ${LINES} lines (a tenth in a .gitignored folder); median of ${RUNS} runs each; read_file sizes in characters of the tool result.`,
      metrics,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
