#!/usr/bin/env node
// `npm run package`: production build, then the universal .vsix at .cache/yoke.vsix and one .vsix
// per platform (`vsce package --target <t>`) at .cache/yoke-<t>.vsix (no prompts).
// Everything the extension needs is bundled by esbuild, so vsce runs with --no-dependencies.
// Before packaging, the file list is checked: only dist/, media/, lessons/, package.json,
// README and LICENSE may ship (.vscodeignore decides; a missing .vscodeignore gets a strict fallback).
// Note vsce's .vscodeignore semantics: a `!pattern` wins over every ignore pattern, whatever the order.
//
// Pseudo-terminals: a platform .vsix carries @lydell/node-pty and its prebuilt binary package for
// that target (@lydell/node-pty-<t>) under dist/node_modules/, where dist/session.js finds them
// (vsce leaves out the top-level node_modules/ with --no-dependencies). The universal .vsix has
// none: commands run on pipes there. The binary package comes from node_modules when npm installed
// it for this machine, else from the npm registry through `npm pack` (cached in .cache/prebuilds/).
//
//   npm run package                          universal + every target
//   npm run package -- --target linux-x64    universal + the named target(s), comma-separated
//   npm run package -- --universal           the universal .vsix only
import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const VSIX_PATH = join(ROOT, ".cache", "yoke.vsix");

/** The vsce targets @lydell/node-pty has prebuilt binaries for (its optionalDependencies). */
export const PTY_TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"];
const PTY = "@lydell/node-pty";

/** Where the .vsix of `target` is written. */
export function targetVsixPath(target, dir = join(ROOT, ".cache")) {
  return join(dir, `yoke-${target}.vsix`);
}

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

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/**
 * The folder of @lydell/node-pty-<target> at the version @lydell/node-pty wants: node_modules when
 * npm installed it here, else unpacked from the registry's tarball (`npm pack`, cached).
 */
function ptyBinaryPackage(target, log) {
  const name = `${PTY}-${target}`;
  const version = readJson(join(ROOT, "node_modules", PTY, "package.json")).optionalDependencies?.[name];
  if (!version) throw new Error(`${PTY} has no prebuilt binaries for ${target} (it lists: ${PTY_TARGETS.join(", ")})`);
  const installed = join(ROOT, "node_modules", name);
  if (existsSync(join(installed, "package.json")) && readJson(join(installed, "package.json")).version === version) return installed;
  const cache = join(ROOT, ".cache", "prebuilds", `${target}-${version}`);
  if (existsSync(join(cache, "package", "package.json"))) return join(cache, "package");
  log(`[yoke package] fetching ${name}@${version} from the npm registry (npm pack)`);
  const tmp = `${cache}.${process.pid}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const packed = spawnSync(npm, ["pack", `${name}@${version}`, "--silent", "--pack-destination", tmp], { cwd: tmp, encoding: "utf8" });
  const tgz = packed.status === 0 ? readdirSync(tmp).find((f) => f.endsWith(".tgz")) : undefined;
  if (!tgz) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(
      `could not fetch ${name}@${version} (npm pack exit ${packed.status ?? packed.signal}): ${(packed.stderr || packed.stdout || "").trim()}\nPackage the targets this machine has (--target) or try again with the registry reachable.`,
    );
  }
  run("tar", ["-xzf", tgz], `unpacking ${tgz}`, tmp);
  if (readJson(join(tmp, "package", "package.json")).version !== version) throw new Error(`${tgz} is not ${name}@${version}`);
  rmSync(cache, { recursive: true, force: true });
  renameSync(tmp, cache);
  return join(cache, "package");
}

/** Copies node-pty and the target's binary package into the stage's dist/node_modules and lets them ship. */
function addPty(stage, target, log) {
  const dest = join(stage, "dist", "node_modules", "@lydell");
  mkdirSync(dest, { recursive: true });
  cpSync(join(ROOT, "node_modules", PTY), join(dest, "node-pty"), { recursive: true, dereference: true });
  // Debug symbols (the Windows packages' .pdb files, ~10 MB) are not needed to run.
  cpSync(ptyBinaryPackage(target, log), join(dest, `node-pty-${target}`), { recursive: true, dereference: true, filter: (src) => !src.endsWith(".pdb") });
  appendFileSync(
    join(stage, ".vscodeignore"),
    `\n# ${target}: the pseudo-terminal library and its prebuilt binary (scripts/package.mjs)\n!dist/node_modules/${PTY}/**\n!dist/node_modules/${PTY}-${target}/**\n`,
  );
}

/** Packages the built stage (with `target`: node-pty for it added, then taken out again). */
async function vsceInto(stage, target, log, outDir) {
  const out = target ? targetVsixPath(target, outDir) : outDir ? join(outDir, "yoke.vsix") : VSIX_PATH;
  const ignore = join(stage, ".vscodeignore");
  const ignoreText = readFileSync(ignore, "utf8");
  try {
    if (target) addPty(stage, target, log);
    const files = await checkFileList(stage);
    log(`[yoke package] packaging ${files.length} files with vsce${target ? ` --target ${target}` : ""}`);
    // Written under a temporary name and renamed: a concurrent reader never sees a missing or half file.
    const partial = `${out}.${process.pid}.partial.vsix`;
    const vsceBin = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
    const args = [vsceBin, "package", "--no-dependencies", "--allow-missing-repository", "--no-rewrite-relative-links", ...(target ? ["--target", target] : []), "--out", partial];
    run(process.execPath, args, "vsce package", stage);
    renameSync(partial, out);
    const bytes = statSync(out).size;
    log(`[yoke package] wrote ${relative(ROOT, out)} (${Math.round(bytes / 1024)} KiB)`);
    return { vsix: out, files, bytes, ...(target ? { target } : {}) };
  } finally {
    rmSync(join(stage, "dist", "node_modules"), { recursive: true, force: true });
    writeFileSync(ignore, ignoreText);
  }
}

/**
 * Builds once with `node esbuild.mjs --production` (in a staging folder), then writes the
 * universal .cache/yoke.vsix (unless `universal: false`) and one .cache/yoke-<t>.vsix per target.
 * `outDir` (default .cache) is where they go.
 * @param {{log?: (line: string) => void; targets?: string[]; universal?: boolean; outDir?: string}} [opts]
 * @returns {Promise<Array<{vsix: string; files: string[]; bytes: number; target?: string}>>}
 */
export async function packageAll(opts = {}) {
  const log = opts.log ?? ((line) => console.log(line));
  const targets = opts.targets ?? [];
  for (const t of targets) if (!PTY_TARGETS.includes(t)) throw new Error(`unknown target "${t}": use one of ${PTY_TARGETS.join(", ")}`);
  const stage = makeStage();
  try {
    log("[yoke package] building (node esbuild.mjs --production)");
    run(process.execPath, ["esbuild.mjs", "--production"], "the production build", stage);
    const results = [];
    if (opts.universal !== false) results.push(await vsceInto(stage, undefined, log, opts.outDir));
    for (const t of targets) results.push(await vsceInto(stage, t, log, opts.outDir));
    return results;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * The universal .cache/yoke.vsix (what the e2e tests install), or with `target` only that
 * platform's .vsix.
 * @param {{log?: (line: string) => void; target?: string}} [opts]
 * @returns {Promise<{vsix: string; files: string[]; bytes: number; target?: string}>}
 */
export async function packageVsix(opts = {}) {
  const [r] = await packageAll({ log: opts.log, targets: opts.target ? [opts.target] : [], universal: !opts.target });
  return r;
}

/** The targets named by the command line (default: all). */
function targetsFromArgs(argv) {
  if (argv.includes("--universal")) return [];
  const i = argv.findIndex((a) => a === "--target" || a.startsWith("--target="));
  if (i < 0) return PTY_TARGETS;
  const value = argv[i].includes("=") ? argv[i].slice("--target=".length) : argv[i + 1];
  if (!value) throw new Error("--target needs a value, e.g. --target linux-x64");
  return value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  (async () => {
    const results = await packageAll({ targets: targetsFromArgs(process.argv.slice(2)) });
    for (const r of results) console.log(`[yoke package] ${r.target ?? "universal"}\t${r.bytes} bytes\t${relative(ROOT, r.vsix)}`);
  })().catch((err) => {
    console.error(`[yoke package] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
