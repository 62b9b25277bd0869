// Bundles the mocha suite that runs inside VS Code's extension host (test/vscode/suite) into one
// CommonJS file. `vscode` comes from the extension host; mocha is loaded from node_modules.
import * as esbuild from "esbuild";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Output of the suite bundle, loaded by the extension when env YOKE_TEST_SUITE names it. */
export const SUITE_BUNDLE = join(ROOT, ".cache", "vscode-suite.js");
/** Output of the @vscode/test-electron entry (exports run(): Promise<void>, throws on failures). */
export const ELECTRON_BUNDLE = join(ROOT, ".cache", "vscode-suite-electron.js");

/** Builds both bundles; returns their paths. */
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
  return { suite: SUITE_BUNDLE, electron: ELECTRON_BUNDLE };
}
