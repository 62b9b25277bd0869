#!/usr/bin/env node
// `npm run test:vscode`: the extension-host suite in VS Code desktop via @vscode/test-electron.
// It downloads VS Code (needs internet and a display or xvfb). Where that is impossible, the same
// suite runs inside code-server as part of `npm run test:e2e` (test/e2e/extension-host-suite.e2e.test.ts).
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runTests } from "@vscode/test-electron";
import { buildVscodeSuite } from "../../scripts/lib/build-vscode-suite.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

const build = spawnSync(process.execPath, ["esbuild.mjs"], { cwd: ROOT, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);
const { electron } = await buildVscodeSuite();

const tmp = mkdtempSync(join(tmpdir(), "yoke-vscode-"));
const workspace = join(tmp, "sample-workspace");
cpSync(join(ROOT, "test", "fixtures", "sample-workspace"), workspace, { recursive: true });

try {
  await runTests({
    version: process.env.YOKE_VSCODE_VERSION ?? "stable",
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: electron,
    launchArgs: [workspace, "--disable-extensions", "--disable-workspace-trust", "--user-data-dir", join(tmp, "user")],
  });
} catch (err) {
  console.error(`[yoke test:vscode] ${err instanceof Error ? err.message : String(err)}`);
  console.error("[yoke test:vscode] VS Code desktop could not be downloaded or run here; `npm run test:e2e` runs the same suite in code-server.");
  process.exit(1);
}
