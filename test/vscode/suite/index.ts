// Runs the mocha suite inside VS Code's extension host. Loaded by the test-only runner extension
// (test/vscode/runner/extension.ts) from the bundle .cache/vscode-suite.js, or by electron-entry.ts.
import Mocha from "mocha";

/** What run() reports; the runner extension writes it as JSON to env YOKE_TEST_RESULTS. */
export interface SuiteResult {
  passed: number;
  failed: number;
  failures: string[];
}

/** Loads the test files (after mocha has installed describe/it) and runs them. */
export function run(): Promise<SuiteResult> {
  const mocha = new Mocha({ ui: "bdd", timeout: 30_000, color: false, reporter: Mocha.reporters.Base });
  mocha.suite.emit("pre-require", globalThis, "yoke-vscode-suite", mocha);
  // Bundled lazily: these register their describe() blocks only now (an import would run them
  // before mocha has installed describe/it).
  /* eslint-disable @typescript-eslint/no-require-imports */
  require("./extension.test");
  require("./view.test");
  /* eslint-enable @typescript-eslint/no-require-imports */
  return new Promise((resolve) => {
    const result: SuiteResult = { passed: 0, failed: 0, failures: [] };
    const runner = mocha.run(() => resolve(result));
    runner.on("pass", () => {
      result.passed += 1;
    });
    runner.on("fail", (test, err: Error) => {
      result.failed += 1;
      result.failures.push(`${test.fullTitle()}: ${err?.stack ?? String(err)}`);
    });
  });
}
