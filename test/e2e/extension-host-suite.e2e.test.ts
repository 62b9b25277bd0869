// Runs the mocha suite (test/vscode/suite) inside code-server's extension host: the extension
// loads the bundle named by YOKE_TEST_SUITE after activation and writes YOKE_TEST_RESULTS.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVscodeSuite } from "../../scripts/lib/build-vscode-suite.mjs";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { openWorkbench, openYokeView, screenshotter } from "./support/workbench";

describe("extension-host suite in code-server", () => {
  let server: E2eCodeServer;
  let browser: E2eBrowser;
  const resultsFile = join(mkdtempSync(join(tmpdir(), "yoke-suite-results-")), "results.json");

  beforeAll(async () => {
    const suite = process.env.YOKE_VSCODE_SUITE ?? (await buildVscodeSuite()).suite;
    server = await launchCodeServer({
      name: "extension-host-suite",
      env: { YOKE_TEST_SUITE: suite, YOKE_TEST_RESULTS: resultsFile },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("passes every mocha test inside the extension host when the view activates Yoke", async () => {
    const shot = screenshotter(browser.page, "extension-host-suite");
    await openWorkbench(browser.page, server.url);
    const frame = await openYokeView(browser.page);
    expect(await frame.locator("#yoke-root").count()).toBe(1);
    await expect.poll(() => existsSync(resultsFile), { timeout: 90_000, interval: 500 }).toBe(true);
    await shot("suite-done");
    const result = JSON.parse(readFileSync(resultsFile, "utf8")) as { passed: number; failed: number; failures: string[] };
    expect(result.failures).toEqual([]);
    expect(result.failed).toBe(0);
    expect(result.passed).toBeGreaterThanOrEqual(6);
  });
});
