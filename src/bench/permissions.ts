/**
 * Permission engine benchmark: agreement with the corpora (through the CLI code path), time to the
 * first check (loading the shell parser), and time per check — p50/p99 over realistic agent
 * commands and over 100 KB inputs, with tree-sitter's own parse of the same input as the baseline
 * measured in the same run (the ratio is the analysis's cost on top of the parser).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createPermissionGate } from "../core/permissions/gate";
import type { PermissionCheck } from "../core/loop/types";
import { initShellParser } from "../core/permissions/shell/parser";
import { nodeListDir } from "../node/settings-files";
import { nodeRealPath } from "../node/settings-files";
import { loadShellWasm } from "../node/tree-sitter-wasm";
import { createCorpusRunner, loadPermissionCorpus } from "./permissions-corpus";
import type { BenchMetric, BenchSection } from "./types";

/** Commands of the kind agents send, simple and compound. */
export const REALISTIC_COMMANDS = [
  "ls src/*.ts",
  "git status",
  "git diff HEAD -- src/a.ts",
  "git log --oneline -20",
  "cd src && npm run test",
  "npm run test -- --watch=false 2>&1 | tail -50",
  "grep -rn TODO src | head -20",
  "cat package.json | jq .scripts",
  "find . -name '*.ts' -not -path './node_modules/*' | xargs wc -l",
  "sed -n '1,80p' src/a.ts",
  "FOO=1 timeout 60 npm run test -- --reporter=dot",
  'git commit -m "$(date) fix" && echo `whoami`',
  "mkdir -p build && cp src/a.ts build/ && ls build",
  "bash -c 'cd src && ls -la'",
  "for f in src/*.ts; do echo $f; wc -l $f; done",
  "if [ -f package.json ]; then npm run test; else echo none; fi",
  "cat > notes.md <<'EOF'\n# Notes\n\nSome text.\nEOF",
  "python3 -m pytest -x tests/test_a.py -k 'not slow' -q",
  "docker compose up -d && docker compose ps",
  "echo `echo \\`rm -rf src\\``",
];

/** 100 KB inputs: analysed ones (one long token, a long here-document) and ones refused by the bounds. */
export function largeCommands(size = 100_000): Record<string, string> {
  const lines = (unit: string) => Array.from({ length: Math.floor((size - 100) / (unit.length + 1)) }, (_, i) => unit.replace("#", String(i % 10))).join("\n");
  return {
    "quoted string": `echo '${"a".repeat(size - 8)}'`,
    "here-document": `cat > big.txt <<'EOF'\n${lines("line # of some text in a file")}\nEOF`,
    "long word": `echo ${"x".repeat(size - 5)}`,
    "and-chain (refused)": Array.from({ length: Math.floor(size / 10) }, () => "echo a")
      .join(" && ")
      .slice(0, size),
    "arguments (refused)": `cat ${"src/a.ts ".repeat(Math.floor(size / 9))}`.slice(0, size),
    "nested substitutions (refused)": `echo ${"$(echo ".repeat(1000)}x${")".repeat(1000)}`,
  };
}

/**
 * Worst-case shapes (issue 18: every input up to 1 MB answered within 200 ms): long paths of many
 * components (with and without `..`), deep nesting, many words, arithmetic with nested subscripts,
 * and inputs above the 100 KB bound up to 1 MB (refused at once).
 */
export function worstCaseCommands(): Record<string, string> {
  return {
    "path of 49,000 components": `cat ${"a/".repeat(49_000)}x`,
    "path of 32,000 ..": `cat ${Array.from({ length: 32_000 }, () => "..").join("/")}`,
    "path of 16,000 x/..": `cat ${"x/../".repeat(16_000)}x`,
    "60 nested subshells": `${"(".repeat(60)}echo a${")".repeat(60)}`,
    "4,900 words": `echo ${"ab ".repeat(4_900)}`,
    "nested subscripts": `echo $((${"a[".repeat(60)}1${"]".repeat(60)}))`,
    "long arithmetic": `echo $((${Array.from({ length: 4_000 }, (_, i) => `x${i}`).join("+")}))`,
    "1 MB word (refused)": `echo ${"x".repeat(1_000_000 - 5)}`,
    "1 MB path (refused)": `cat ${"a/".repeat(499_990)}x`,
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function bench(): Promise<BenchSection> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-perm-")));
  const cwd = join(root, "ws");
  for (const f of ["src/a.ts", "src/b.ts", "package.json", ".env", "tests/test_a.py", "README.md"]) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), "x\n");
  }
  const gate = createPermissionGate({
    cwd,
    home: homedir(),
    realPath: nodeRealPath,
    listDir: nodeListDir,
    loadSources: async () => [
      {
        info: { kind: "extra", label: "bench", baseDir: cwd },
        value: { permissions: { allow: ["Bash(npm run test:*)", "Bash(docker compose *)", "Bash(python3 -m pytest:*)", "Edit(src/**)"], deny: ["Bash(git push:*)", "Read(./.env)", "Bash(rm:*)"] } },
      },
    ],
    shellWasm: () => loadShellWasm(),
  });
  const bash = (command: string): PermissionCheck => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });
  const metrics: BenchMetric[] = [];
  try {
    const t1 = performance.now();
    await gate.check(bash("ls"), "default");
    const firstMs = performance.now() - t1;
    const parser = await initShellParser(() => loadShellWasm());
    const parseMs = (command: string) => {
      const t = performance.now();
      parser.parse(command)?.delete();
      return performance.now() - t;
    };

    // Realistic commands: 50 rounds over the list, every check timed.
    const times: number[] = [];
    const parses: number[] = [];
    for (let round = 0; round < 50; round++) {
      for (const c of REALISTIC_COMMANDS) {
        const t = performance.now();
        await gate.check(bash(c), "default");
        times.push(performance.now() - t);
        parses.push(parseMs(c));
      }
    }
    times.sort((a, b) => a - b);
    parses.sort((a, b) => a - b);
    metrics.push(
      { name: "first check (loads tree-sitter wasm)", value: firstMs, unit: "ms" },
      {
        name: "Bash check, realistic commands, p50",
        value: percentile(times, 50),
        unit: "ms",
        baseline: percentile(parses, 50),
        ratio: percentile(times, 50) / percentile(parses, 50),
        note: "baseline: tree-sitter parse of the same command",
      },
      { name: "Bash check, realistic commands, p99", value: percentile(times, 99), unit: "ms", baseline: percentile(parses, 99), ratio: percentile(times, 99) / percentile(parses, 99) },
    );

    // 100 KB inputs: 7 checks each.
    for (const [name, command] of Object.entries(largeCommands())) {
      const ts: number[] = [];
      const ps: number[] = [];
      let decision = "";
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        const d = await gate.check(bash(command), "default");
        ts.push(performance.now() - t);
        decision = d.decision + (d.reason.includes("too large") ? " (too large)" : "");
        ps.push(parseMs(command));
      }
      ts.sort((a, b) => a - b);
      ps.sort((a, b) => a - b);
      metrics.push({
        name: `Bash check, 100 KB ${name}, p50`,
        value: percentile(ts, 50),
        unit: "ms",
        baseline: percentile(ps, 50),
        ratio: percentile(ts, 50) / percentile(ps, 50),
        note: `${command.length} characters → ${decision}; baseline: tree-sitter parse alone`,
      });
      metrics.push({ name: `Bash check, 100 KB ${name}, max of 7`, value: ts[ts.length - 1]!, unit: "ms" });
    }

    // Worst-case shapes: 5 checks each (the target is 200 ms for any input up to 1 MB).
    for (const [name, command] of Object.entries(worstCaseCommands())) {
      const ts: number[] = [];
      let decision = "";
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const d = await gate.check(bash(command), "default");
        ts.push(performance.now() - t);
        decision = d.decision;
      }
      ts.sort((a, b) => a - b);
      metrics.push({ name: `Bash check, worst case: ${name}, max of 5`, value: ts[ts.length - 1]!, unit: "ms", note: `${command.length} characters → ${decision}; target ≤ 200 ms` });
    }

    const n = 2000;
    const t3 = performance.now();
    for (let i = 0; i < n; i++) await gate.check({ tool: "edit_file", permission: "Edit", input: { file_path: "src/a.ts" }, mutates: true }, "default");
    metrics.push({ name: "Edit check", value: (performance.now() - t3) / n, unit: "ms/check" });

    for (const file of ["permissions-corpus.json", "permissions-attacks.json"]) {
      const corpus = loadPermissionCorpus(join(process.cwd(), "test", "fixtures", file));
      const runner = createCorpusRunner(corpus);
      let agree = 0;
      const t0 = performance.now();
      try {
        for (const c of corpus.cases) if ((await runner.run(c)).agrees) agree++;
      } finally {
        runner.dispose();
      }
      metrics.push({
        name: `${file} agreement`,
        value: (100 * agree) / corpus.cases.length,
        unit: "%",
        note: `${agree}/${corpus.cases.length}; ${((performance.now() - t0) / corpus.cases.length).toFixed(1)} ms/case incl. workspace setup`,
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return {
    section: "permissions",
    method: `A fresh gate over a small temporary workspace: the first check (loads the tree-sitter wasm); ${REALISTIC_COMMANDS.length} realistic commands × 50 rounds, each check timed (p50/p99), against tree-sitter's parse of the same command (baseline); six 100 KB inputs × 7 (analysed and refused by the bounds); worst-case shapes up to 1 MB × 5 (long paths, deep nesting, many words, nested subscripts); Edit checks; then test/fixtures/permissions-corpus.json and permissions-attacks.json through \`yoke permissions check --json\`, each case in a fresh temporary workspace.`,
    metrics,
  };
}
