// `npm start -- --demo` as a person runs it: packages, installs, starts the demo model and
// code-server, prints a URL; the demo answers in the panel; Ctrl+C stops every process it started.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/paths";
import { lastAssistantText, sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useBrowser } from "./support/yoke-vscode";

async function answers(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );
}

describe("npm start -- --demo", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-e2e-start-"));
  let start: ChildProcess | undefined;
  // scripts/start.mjs runs its own code-server: this test needs only the browser of the fixture.
  const browser = useBrowser();

  afterAll(() => {
    if (start?.pid && start.exitCode === null) process.kill(-start.pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves Yoke with the demo model, which answers without a key, and Ctrl+C stops everything", async () => {
    start = spawn(process.execPath, ["scripts/start.mjs", "--demo", "--port", "18080"], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, YOKE_START_DIR: dir },
    });
    let out = "";
    start.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    start.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    await expect.poll(() => /ready in \d+ s/.test(out), { timeout: 180_000, interval: 500 }).toBe(true);
    for (let n = 1; n <= 6; n++) expect(out).toContain(`[yoke start] ${n}/6`);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(out)?.[1];
    const demo = /demo model on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out)?.[1];
    expect(url).toContain(`folder=${join(dir, "sample-workspace")}`);
    expect(demo).toBeDefined();

    const shot = browser.screenshots("npm-start");
    await browser.openWorkbench(url!);
    const frame = await browser.openPanel();
    await frame.locator("[data-testid=model-label]", { hasText: "demo model" }).waitFor({ timeout: 30_000 });
    await sendPrompt(frame, "What is in this project?");
    // The demo lists the workspace, reads README.md and reports what it found.
    await waitForAssistantText(frame, "What I did", 60_000);
    await waitForState(frame, "done");
    const text = await lastAssistantText(frame);
    expect(text).toMatch(/Read README\.md: \d+ lines, starting with .# tidewatch/);
    await shot("demo-answered");
    await browser.close();

    const base = new URL(url!).origin;
    expect(await answers(`${base}/healthz`)).toBe(true);
    expect(await answers(`${demo}/v1/models`)).toBe(true);
    const exited = new Promise((r) => start!.once("exit", r));
    process.kill(start.pid!, "SIGINT"); // what Ctrl+C sends to the foreground process
    await exited;
    await expect.poll(() => answers(`${base}/healthz`), { timeout: 10_000 }).toBe(false);
    expect(await answers(`${demo}/v1/models`)).toBe(false);
  });
});
