#!/usr/bin/env node
// `npm run test:e2e`: Yoke in a real VS Code (code-server) driven by Chromium.
//   1. scripts/setup-e2e.sh (code-server, Node 24, chromium; cached)
//   2. a fresh .vsix (scripts/package.mjs)
//   3. the mocha suite for the extension host, bundled to .cache/vscode-suite.js, and the test-only
//      runner extension that loads it (.cache/yoke-test-runner.vsix; Yoke itself has no test hook)
//   4. vitest with vitest.e2e.config.ts: the Playwright tests (test/e2e/*.e2e.test.ts), including
//      extension-host-suite.e2e.test.ts, which installs the runner next to Yoke in code-server.
// Extra arguments go to vitest (e.g. a file filter). Screenshots and logs: test-results/e2e/.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildVscodeSuite } from "./lib/build-vscode-suite.mjs";
import { setupCodeServer } from "./lib/code-server.mjs";
import { packageVsix, ROOT } from "./package.mjs";

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const log = (line) => console.log(`[yoke e2e] ${line}`);

try {
  log("checking code-server, Node 24 and chromium");
  const setup = setupCodeServer();
  const built = await packageVsix({ log });
  // A private copy: a concurrent `npm run package` must not swap the extension under the tests.
  const privateDir = mkdtempSync(join(tmpdir(), "yoke-e2e-vsix-"));
  const vsix = join(privateDir, "yoke.vsix");
  copyFileSync(built.vsix, vsix);
  process.on("exit", () => rmSync(privateDir, { recursive: true, force: true }));
  const { suite, runnerVsix } = await buildVscodeSuite();
  log(`bundled the extension-host suite to ${suite} and its runner to ${runnerVsix} (${elapsed()})`);
  const vitest = join(ROOT, "node_modules", "vitest", "vitest.mjs");
  const r = spawnSync(process.execPath, [vitest, "run", "-c", "vitest.e2e.config.ts", ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: "inherit",
    env: { ...process.env, YOKE_VSIX: vsix, YOKE_VSCODE_SUITE: suite, YOKE_VSCODE_RUNNER: runnerVsix, YOKE_E2E_SETUP: `${setup.node} ${setup.codeServer}` },
  });
  log(`finished in ${elapsed()} (screenshots and logs in test-results/e2e/)`);
  process.exit(r.status ?? 1);
} catch (err) {
  console.error(`[yoke e2e] ${err instanceof Error ? err.message : String(err)} (after ${elapsed()})`);
  process.exit(1);
}
