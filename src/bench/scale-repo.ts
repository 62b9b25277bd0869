/**
 * A generated repository of the shape issue 19 measures at 10 k / 100 k / 1 M files: nested
 * packages (`packages/pkgP/src/mA/nB/fileC.ts`, 1,000 files a package), a nested AGENTS.md per
 * package, a few multi-MB files (`assets/`), and an ignored `node_modules/` of a tenth as many
 * files. The tracked files are made by one `git fast-import` stream and written out by `git reset
 * --hard` (one process each, no per-file spawns); the ignored ones by a loop of small writes.
 * Without git (`git: false`) the same files are left in a plain folder (its `.git` removed).
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchMetric } from "./types";

export interface ScaleRepo {
  root: string;
  /** Tracked files (git) or files outside node_modules (plain folder). */
  files: number;
  /** A file deep in the largest folder, last in alphabetical order: the one the scripted agent edits. */
  deepFile: string;
  /** Its content as generated. */
  deepContent: string;
}

export const SCALE_GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@yoke.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@yoke.invalid",
};

const PER_PACKAGE = 1000;
const BIG_FILES = 3;
const BIG_BYTES = 4 * 1024 * 1024;

const content = (p: number, a: number, b: number, c: number) =>
  `// package ${p}, module ${a}/${b}/${c}\nexport function f${p}_${a}_${b}_${c}(x: number): number {\n  return x * ${p + a + b + c} + ${c};\n}\n`;

/** Makes the repository in `root` (created; must not exist). `files` is rounded up to whole packages. */
export async function generateScaleRepo(root: string, files: number, opts: { git?: boolean } = {}): Promise<ScaleRepo> {
  const packages = Math.max(1, Math.ceil(files / PER_PACKAGE));
  mkdirSync(root, { recursive: true });
  const env = { ...process.env, ...SCALE_GIT_ENV };
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root, env });
  const child = spawn("git", ["fast-import", "--quiet", "--done"], { cwd: root, env, stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise<void>((resolve, reject) => child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import failed (${code}): ${stderr}`)))));
  // Buffered writes with back-pressure: one stream, one process.
  let buf: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!buf.length) return;
    const chunk = buf.join("");
    buf = [];
    size = 0;
    if (!child.stdin.write(chunk)) await new Promise<void>((r) => child.stdin.once("drain", () => r()));
  };
  const put = async (path: string, data: string | Buffer) => {
    const len = Buffer.byteLength(data);
    buf.push(`M 100644 inline ${path}\ndata ${len}\n`, typeof data === "string" ? data : data.toString("latin1"), "\n");
    size += len;
    if (size > 1 << 20) await flush();
  };
  buf.push(`commit refs/heads/main\ncommitter bench <bench@yoke.invalid> 1700000000 +0000\ndata 9\ngenerated\n`);
  await put(".gitignore", "node_modules/\n*.log\n");
  await put("AGENTS.md", "# Repository guidance\nRun the tests with `npm test`.\n");
  await put("README.md", `# Generated repository\n${packages} packages of ${PER_PACKAGE} files.\n`);
  for (let i = 0; i < BIG_FILES; i++) {
    const line = `asset ${i} ${"x".repeat(100)}\n`;
    await put(`assets/data${i}.txt`, line.repeat(Math.ceil(BIG_BYTES / line.length)));
  }
  let deepFile = "";
  let deepContent = "";
  for (let p = 0; p < packages; p++) {
    const pkg = `packages/pkg${String(p).padStart(4, "0")}`;
    await put(`${pkg}/AGENTS.md`, `# Package ${p}\nKeep functions pure.\n`);
    await put(`${pkg}/package.json`, `{ "name": "pkg${p}", "version": "1.0.0" }\n`);
    for (let a = 0; a < 10; a++)
      for (let b = 0; b < 10; b++)
        for (let c = 0; c < 10; c++) {
          const path = `${pkg}/src/m${a}/n${b}/file${c}.ts`;
          const text = content(p, a, b, c);
          await put(path, text);
          deepFile = path;
          deepContent = text;
        }
  }
  buf.push("done\n");
  await flush();
  child.stdin.end();
  await done;
  execFileSync("git", ["-c", "core.fsmonitor=false", "reset", "-q", "--hard", "main"], { cwd: root, env });
  // The ignored dependency tree (a tenth as many files, at most 100,000).
  const deps = Math.min(100_000, Math.ceil((packages * PER_PACKAGE) / 10));
  for (let i = 0; i < deps; i += 10) {
    const dir = join(root, "node_modules", `dep${Math.floor(i / 10)}`);
    mkdirSync(dir, { recursive: true });
    for (let j = 0; j < 10; j++) writeFileSync(join(dir, `index${j}.js`), `module.exports = ${i + j};\n`);
  }
  if (opts.git === false) rmSync(join(root, ".git"), { recursive: true, force: true });
  return { root, files: packages * PER_PACKAGE + 3 + BIG_FILES + 2 * packages, deepFile, deepContent };
}

/** What a scale row measures on: one size's repository. */
export interface ScaleContext {
  /** "10k", "100k", "1m". */
  label: string;
  repo: ScaleRepo;
  /** A scratch folder of this size (removed after the rows). */
  dir: string;
  rounds: number;
}

/** One row of the scale benchmark (src/bench/scale.ts): measures and returns its metrics. */
export type Row = (ctx: ScaleContext) => Promise<BenchMetric[]>;
