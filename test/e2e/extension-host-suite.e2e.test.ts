// Runs the mocha suite (test/vscode/suite) inside code-server's extension host. Yoke ships no test
// hook: a test-only runner extension (test/vscode/runner), installed next to it here only, waits
// until Yoke is active, loads the suite bundle named by YOKE_TEST_SUITE and writes YOKE_TEST_RESULTS.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildVscodeSuite } from "../../scripts/lib/build-vscode-suite.mjs";
import { useYokeVscode } from "./support/yoke-vscode";

describe("extension-host suite in code-server", () => {
  const resultsFile = join(mkdtempSync(join(tmpdir(), "yoke-suite-results-")), "results.json");
  const vs = useYokeVscode({
    name: "extension-host-suite",
    launch: async () => {
      // scripts/e2e.mjs has built both already; a direct vitest run builds them here.
      const { YOKE_VSCODE_SUITE: suite, YOKE_VSCODE_RUNNER: runner } = process.env;
      const built = suite && runner ? { suite, runnerVsix: runner } : await buildVscodeSuite();
      return { env: { YOKE_TEST_SUITE: built.suite, YOKE_TEST_RESULTS: resultsFile }, extensions: [built.runnerVsix] };
    },
  });

  it("passes every mocha test inside the extension host when the view activates Yoke", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    expect(await frame.locator("#yoke-root").count()).toBe(1);
    await expect.poll(() => existsSync(resultsFile), { timeout: 90_000, interval: 500 }).toBe(true);
    await shot("suite-done");
    const result = JSON.parse(readFileSync(resultsFile, "utf8")) as { passed: number; failed: number; failures: string[] };
    expect(result.failures).toEqual([]);
    expect(result.failed).toBe(0);
    expect(result.passed).toBeGreaterThanOrEqual(6);
  });
});
