#!/usr/bin/env node
// `npm run package`: production build, then a .vsix at .cache/yoke.vsix (no prompts, no network).
// Everything the extension needs is bundled by esbuild, so vsce runs with --no-dependencies.
// Before packaging, the file list is checked: only dist/, media/, lessons/, package.json,
// README and LICENSE may ship (.vscodeignore decides; a missing .vscodeignore gets a strict fallback).
// Note vsce's .vscodeignore semantics: a `!pattern` wins over every ignore pattern, whatever the order.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const VSIX_PATH = join(ROOT, ".cache", "yoke.vsix");

const ALLOWED = [/^dist\//, /^media\//, /^lessons\//, /^package\.json$/, /^README\.md$/i, /^LICENSE(\.txt|\.md)?$/i];

const FALLBACK_IGNORE = `# Written by scripts/package.mjs because the repository has no .vscodeignore.
**
!dist/**
!media/**
!lessons/**
!package.json
!README.md
!LICENSE
`;

function run(cmd, args, what, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"], env: process.env });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
}

// The package is built in a private staging folder, not in the shared dist/: a concurrent
// development build (source maps, no minification) must not end up in the .vsix.
const SKIP = new Set([".git", ".cache", "dist", "test-results", "coverage"]);
const COPY = new Set(["package.json", "README.md", "LICENSE", ".vscodeignore", "media", "lessons"]);

/** A folder that looks like the repository (sources symlinked, shipped files copied) with no dist/. */
function makeStage() {
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  const stage = mkdtempSync(join(ROOT, ".cache", "package-"));
  for (const name of readdirSync(ROOT)) {
    if (SKIP.has(name)) continue;
    const from = join(ROOT, name);
    if (COPY.has(name)) cpSync(from, join(stage, name), { recursive: true });
    else symlinkSync(from, join(stage, name));
  }
  if (!existsSync(join(stage, ".vscodeignore"))) writeFileSync(join(stage, ".vscodeignore"), FALLBACK_IGNORE);
  return stage;
}

/** Fails with the list of files that would ship but are not allowed to. */
async function checkFileList(stage) {
  const require = createRequire(join(ROOT, "package.json"));
  const vsce = require("@vscode/vsce");
  const files = await vsce.listFiles({ cwd: stage, packageManager: vsce.PackageManager.None });
  const rel = files.map((f) => f.split("\\").join("/"));
  const bad = rel.filter((f) => !ALLOWED.some((re) => re.test(f)) || f.endsWith(".map"));
  if (bad.length > 0) {
    throw new Error(
      `the .vsix would contain files outside dist/, media/, lessons/, package.json, README, LICENSE:\n  ` +
        bad.slice(0, 30).join("\n  ") +
        (bad.length > 30 ? `\n  ... and ${bad.length - 30} more` : "") +
        "\nExclude them in .vscodeignore.",
    );
  }
  for (const must of ["dist/extension.js", "dist/webview.js", "package.json"]) {
    if (!rel.includes(must)) throw new Error(`the .vsix would not contain ${must}`);
  }
  return rel;
}

/**
 * Builds with `node esbuild.mjs --production` (in a staging folder) and writes .cache/yoke.vsix.
 * @param {{log?: (line: string) => void}} [opts]
 * @returns {Promise<{vsix: string; files: string[]; bytes: number}>}
 */
export async function packageVsix(opts = {}) {
  const log = opts.log ?? ((line) => console.log(line));
  const stage = makeStage();
  try {
    log("[yoke package] building (node esbuild.mjs --production)");
    run(process.execPath, ["esbuild.mjs", "--production"], "the production build", stage);
    const files = await checkFileList(stage);
    log(`[yoke package] packaging ${files.length} files with vsce`);
    // Written under a temporary name and renamed: a concurrent reader never sees a missing or half file.
    const partial = `${VSIX_PATH}.${process.pid}.partial.vsix`;
    const vsceBin = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
    run(process.execPath, [vsceBin, "package", "--no-dependencies", "--allow-missing-repository", "--no-rewrite-relative-links", "--out", partial], "vsce package", stage);
    renameSync(partial, VSIX_PATH);
    const bytes = statSync(VSIX_PATH).size;
    log(`[yoke package] wrote ${relative(ROOT, VSIX_PATH)} (${Math.round(bytes / 1024)} KiB)`);
    return { vsix: VSIX_PATH, files, bytes };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  packageVsix().catch((err) => {
    console.error(`[yoke package] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
