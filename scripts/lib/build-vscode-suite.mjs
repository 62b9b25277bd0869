// Bundles the mocha suite that runs inside VS Code's extension host (test/vscode/suite) into one
// CommonJS file, and packages the test-only runner extension (test/vscode/runner) that loads it
// inside code-server. `vscode` comes from the extension host; mocha is loaded from node_modules.
// Nothing here ships: the Yoke .vsix (scripts/package.mjs) carries no test hook.
import * as esbuild from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Output of the suite bundle, loaded by the runner extension from env YOKE_TEST_SUITE. */
export const SUITE_BUNDLE = join(ROOT, ".cache", "vscode-suite.js");
/** Output of the @vscode/test-electron entry (exports run(): Promise<void>, throws on failures). */
export const ELECTRON_BUNDLE = join(ROOT, ".cache", "vscode-suite-electron.js");
/** The test-only runner extension (yoke-dev.yoke-test-runner), packaged. */
export const RUNNER_VSIX = join(ROOT, ".cache", "yoke-test-runner.vsix");
/** Its id, as VS Code knows it. */
export const RUNNER_ID = "yoke-dev.yoke-test-runner";

/** The runner extension's manifest: activated when the workbench has started. */
function runnerManifest() {
  const yoke = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const [publisher, name] = RUNNER_ID.split(".");
  return {
    name,
    displayName: "Yoke test runner",
    description: "Runs Yoke's extension-host test suite (test/vscode/suite). Test-only; never shipped.",
    publisher,
    version: "0.0.0",
    license: "MIT",
    private: true,
    engines: { vscode: yoke.engines.vscode },
    extensionKind: ["workspace"],
    capabilities: { untrustedWorkspaces: { supported: true }, virtualWorkspaces: true },
    activationEvents: ["onStartupFinished"],
    main: "./runner.js",
  };
}

/** Builds the runner extension in a private folder and packages it with vsce (no network). */
async function packageRunner(common) {
  mkdirSync(join(ROOT, ".cache"), { recursive: true });
  const dir = join(ROOT, ".cache", `vscode-runner-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    await esbuild.build({
      ...common,
      sourcemap: false,
      entryPoints: [join(ROOT, "test/vscode/runner/extension.ts")],
      outfile: join(dir, "runner.js"),
    });
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(runnerManifest(), null, 2)}\n`);
    writeFileSync(join(dir, ".vscodeignore"), "**/*.map\n");
    // Written under a temporary name and renamed: a concurrent reader never sees half a file.
    const partial = `${RUNNER_VSIX}.${process.pid}.partial.vsix`;
    const vsce = join(ROOT, "node_modules", "@vscode", "vsce", "vsce");
    const args = [vsce, "package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "--out", partial];
    const r = spawnSync(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    if (r.status !== 0) throw new Error(`packaging the test runner extension failed (exit ${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
    renameSync(partial, RUNNER_VSIX);
    return RUNNER_VSIX;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds the suite bundles and the runner extension; returns their paths. */
export async function buildVscodeSuite() {
  const common = {
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "inline",
    external: ["vscode", "mocha"],
    logLevel: "warning",
    absWorkingDir: ROOT,
  };
  await esbuild.build({ ...common, entryPoints: [join(ROOT, "test/vscode/suite/index.ts")], outfile: SUITE_BUNDLE });
  await esbuild.build({ ...common, entryPoints: [join(ROOT, "test/vscode/electron-entry.ts")], outfile: ELECTRON_BUNDLE });
  const runnerVsix = await packageRunner(common);
  return { suite: SUITE_BUNDLE, electron: ELECTRON_BUNDLE, runnerVsix };
}
