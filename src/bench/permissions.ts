/**
 * Permission engine benchmark: agreement with the corpus (through the CLI code path), time to the
 * first check (loading the shell parser), and time per check for commands and file tools.
 */
import { homedir } from "node:os";
import { createPermissionGate } from "../core/permissions/gate";
import type { PermissionCheck } from "../core/loop/types";
import { nodeRealPath } from "../node/settings-files";
import { loadShellWasm } from "../node/tree-sitter-wasm";
import { createCorpusRunner, loadPermissionCorpus } from "./permissions-corpus";
import type { BenchSection } from "./types";

const COMMANDS = [
  "npm run test && git status | grep x",
  "bash -c 'git push origin main'",
  "cat src/a.ts > out.txt",
  "find . -name '*.ts' -exec grep -l foo {} \\;",
  "FOO=1 timeout 10 npm run test -- --watch",
  'git commit -m "$(date) fix" && echo `whoami`',
];

export async function bench(): Promise<BenchSection> {
  const cwd = process.cwd();
  const gate = createPermissionGate({
    cwd,
    home: homedir(),
    realPath: nodeRealPath,
    loadSources: async () => [{ info: { kind: "extra", label: "bench", baseDir: cwd }, value: { permissions: { allow: ["Bash(npm run test:*)", "Edit(src/**)"], deny: ["Bash(git push:*)", "Read(./.env)"] } } }],
    shellWasm: () => loadShellWasm(),
  });
  const bash = (command: string): PermissionCheck => ({ tool: "run_command", permission: "Bash", input: { command }, mutates: true });
  const t1 = performance.now();
  await gate.check(bash("ls"), "default");
  const firstMs = performance.now() - t1;
  const n = 3000;
  const t2 = performance.now();
  for (let i = 0; i < n; i++) await gate.check(bash(COMMANDS[i % COMMANDS.length]!), "default");
  const bashMs = (performance.now() - t2) / n;
  const t3 = performance.now();
  for (let i = 0; i < n; i++) await gate.check({ tool: "edit_file", permission: "Edit", input: { file_path: "src/core/permissions/gate.ts" }, mutates: true }, "default");
  const fileMs = (performance.now() - t3) / n;

  const corpus = loadPermissionCorpus();
  const runner = createCorpusRunner(corpus);
  let agree = 0;
  const t0 = performance.now();
  try {
    for (const c of corpus.cases) if ((await runner.run(c)).agrees) agree++;
  } finally {
    runner.dispose();
  }
  const corpusMs = performance.now() - t0;

  return {
    section: "permissions",
    method: `A fresh gate: the first check (loads the tree-sitter wasm), then ${n} checks each of ${COMMANDS.length} compound commands and of an Edit (settings cached); then test/fixtures/permissions-corpus.json (${corpus.cases.length} cases) through \`yoke permissions check --json\`, each case in a fresh temporary workspace.`,
    metrics: [
      { name: "corpus agreement", value: (100 * agree) / corpus.cases.length, unit: "%", note: `${agree}/${corpus.cases.length}` },
      { name: "corpus run (incl. workspace setup)", value: corpusMs / corpus.cases.length, unit: "ms/case" },
      { name: "first check (loads tree-sitter wasm)", value: firstMs, unit: "ms" },
      { name: "Bash check", value: bashMs, unit: "ms/check" },
      { name: "Edit check", value: fileMs, unit: "ms/check" },
    ],
  };
}
