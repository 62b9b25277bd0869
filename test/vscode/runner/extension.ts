// A test-only VS Code extension (yoke-dev.yoke-test-runner) that runs the mocha suite of
// test/vscode/suite inside the extension host, next to the installed Yoke. code-server has no
// `--extensionTestsPath`, and the shipped extension carries no test hook: the end-to-end test
// installs this extension's .vsix (scripts/lib/build-vscode-suite.mjs) only where it wants the suite.
//
// It activates once the workbench has started, waits until Yoke is active (the test opens the
// chat view, which activates it), loads the suite bundle named by env YOKE_TEST_SUITE (the
// checkout's .cache/vscode-suite.js, so mocha resolves from the checkout's node_modules), runs it
// and writes the SuiteResult as JSON to the file named by env YOKE_TEST_RESULTS.
import { writeFileSync } from "node:fs";
import * as vscode from "vscode";
import type { SuiteResult } from "../suite/index";
import { EXTENSION_ID } from "../suite/yoke-extension";

/** How long to wait for Yoke to be activated by the test before giving up. */
const ACTIVATION_WAIT_MS = 180_000;

export function activate(context: vscode.ExtensionContext): void {
  const suitePath = process.env.YOKE_TEST_SUITE;
  const resultsPath = process.env.YOKE_TEST_RESULTS;
  const log = vscode.window.createOutputChannel("Yoke test runner", { log: true });
  context.subscriptions.push(log);
  if (!suitePath || !resultsPath) {
    log.warn("YOKE_TEST_SUITE and YOKE_TEST_RESULTS are not both set: nothing to run");
    return;
  }
  void runSuite(suitePath, log).then((result) => {
    log.info(`test suite ${suitePath}: ${result.passed} passed, ${result.failed} failed`);
    writeFileSync(resultsPath, JSON.stringify(result, null, 2));
  });
}

export function deactivate(): void {}

async function runSuite(suitePath: string, log: vscode.LogOutputChannel): Promise<SuiteResult> {
  try {
    const yoke = vscode.extensions.getExtension(EXTENSION_ID);
    if (!yoke) throw new Error(`${EXTENSION_ID} is not installed next to the test runner`);
    const deadline = Date.now() + ACTIVATION_WAIT_MS;
    while (!yoke.isActive) {
      if (Date.now() > deadline) throw new Error(`${EXTENSION_ID} was not activated within ${ACTIVATION_WAIT_MS} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    log.info(`${EXTENSION_ID} is active; running ${suitePath}`);
    // A path known only at run time: the bundler leaves this require alone.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const suite = require(suitePath) as { run(): Promise<SuiteResult> };
    return await suite.run();
  } catch (err) {
    return { passed: 0, failed: 1, failures: [`test suite ${suitePath} failed to run: ${(err as Error)?.stack ?? String(err)}`] };
  }
}
