#!/usr/bin/env node
// `npm run package`: production build, then a .vsix at .cache/yoke.vsix (no prompts, no network).
// Everything the extension needs is bundled by esbuild, so vsce runs with --no-dependencies.
// Before packaging, the file list is checked: only dist/, media/, lessons/, package.json,
// README and LICENSE may ship (.vscodeignore decides; a missing .vscodeignore gets a strict fallback).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
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
**/*.map
`;

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: process.env });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
}

/** Removes source maps a development build left in dist/ (a production build writes none). */
function removeStaleMaps(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) removeStaleMaps(p);
    else if (name.endsWith(".map")) rmSync(p);
  }
}

/** Returns the ignore file vsce should use (the repository's, or a strict fallback). */
function ignoreFile() {
  const own = join(ROOT, ".vscodeignore");
  if (existsSync(own)) return own;
  const fallback = join(ROOT, ".cache", "vscodeignore.fallback");
  writeFileSync(fallback, FALLBACK_IGNORE);
  return fallback;
}

/** Fails with the list of files that would ship but are not allowed to. */
async function checkFileList(ignore) {
  const require = createRequire(join(ROOT, "package.json"));
  const vsce = require("@vscode/vsce");
  const files = await vsce.listFiles({ cwd: ROOT, packageManager: vsce.PackageManager.None, ignoreFile: ignore });
  const rel = files.map((f) => relative(ROOT, join(ROOT, f)).split("\\").join("/"));
  const bad = rel.filter((f) => !ALLOWED.some((re) => re.test(f)) || f.endsWith(".map"));
  if (bad.length > 0) {
    throw new Error(
      `the .vsix would contain files outside dist/, media/, lessons/, package.json, README, LICENSE:\n  ` +
        bad.slice(0, 30).join("\n  ") +
        (bad.length > 30 ? `\n  ... and ${bad.length - 30} more` : "") +
        `\nExclude them in ${relative(ROOT, ignore)}.`,
    );
  }
  for (const must of ["dist/extension.js", "package.json"]) {
    if (!rel.includes(must)) throw new Error(`the .vsix would not contain ${must}`);
  }
  return rel;
}

/**
 * Builds with `node esbuild.mjs --production` and writes .cache/yoke.vsix.
 * @param {{log?: (line: string) => void}} [opts]
 * @returns {Promise<{vsix: string; files: string[]; bytes: number}>}
 */
export async function packageVsix(opts = {}) {
  const log = opts.log ?? ((line) => console.log(line));
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  log("[yoke package] building (node esbuild.mjs --production)");
  run(process.execPath, ["esbuild.mjs", "--production"], "the production build");
  removeStaleMaps(join(ROOT, "dist"));
  const ignore = ignoreFile();
  const files = await checkFileList(ignore);
  log(`[yoke package] packaging ${files.length} files with vsce`);
  // Written under a temporary name and renamed: a concurrent reader never sees a missing or half file.
  const partial = `${VSIX_PATH}.${process.pid}.partial.vsix`;
  const vsceBin = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
  run(
    process.execPath,
    [
      vsceBin, "package",
      "--no-dependencies",
      "--allow-missing-repository",
      "--no-rewrite-relative-links",
      "--ignoreFile", ignore,
      "--out", partial,
    ],
    "vsce package",
  );
  renameSync(partial, VSIX_PATH);
  const bytes = statSync(VSIX_PATH).size;
  log(`[yoke package] wrote ${relative(ROOT, VSIX_PATH)} (${Math.round(bytes / 1024)} KiB)`);
  return { vsix: VSIX_PATH, files, bytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  packageVsix().catch((err) => {
    console.error(`[yoke package] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
