// The extension host's event-loop watchdog, with real timers: a planted stall is caught, measured
// and named by the activity label that ran; the report file says the longest stall.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeStall } from "../../../src/host/host-watchdog";
import { activity, EventLoopWatchdog, processWatchdog, startProcessWatchdog, stopProcessWatchdog, type Stall } from "../../../src/node/watchdog";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a deliberate stall
  }
}

const temps: string[] = [];
afterEach(() => {
  stopProcessWatchdog();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("event-loop watchdog", () => {
  it("logs a planted 150 ms stall with the label of what ran, and writes the longest stall to its report", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-watchdog-"));
    temps.push(dir);
    const stalls: Stall[] = [];
    const w = new EventLoopWatchdog({ reportDir: dir, process: "test", onStall: (s) => stalls.push(s) }).start();
    await sleep(30);
    w.run("webview:prompt", () => block(150));
    await sleep(40);
    w.stop();
    const planted = stalls.find((s) => s.ran.includes("webview:prompt"));
    expect(planted, JSON.stringify(stalls)).toBeDefined();
    expect(planted!.ms).toBeGreaterThanOrEqual(150);
    expect(planted!.ms).toBeLessThan(150 + 200);
    expect(describeStall(planted!)).toMatch(/^event loop stalled \d+ ms while webview:prompt ran/);
    const report = JSON.parse(readFileSync(join(dir, `watchdog-${process.pid}.json`), "utf8"));
    expect(report).toMatchObject({ pid: process.pid, process: "test", thresholdMs: 50, intervalMs: 10 });
    expect(report.stalls).toBeGreaterThanOrEqual(1);
    expect(report.longest.ms).toBeGreaterThanOrEqual(150);
  });

  it("names an async activity still in progress, and passes results and errors through", async () => {
    const stalls: Stall[] = [];
    startProcessWatchdog({ onStall: (s) => stalls.push(s) });
    expect(processWatchdog()?.running).toBe(true);
    const pending = activity("review:accept", async () => {
      await sleep(20);
      block(120);
      return 7;
    });
    await expect(pending).resolves.toBe(7);
    expect(() =>
      activity("session:status", () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    await sleep(30);
    const s = stalls.find((x) => x.ms >= 120);
    expect(s?.active).toContain("review:accept");
  });

  it("does not count a short block as a stall", async () => {
    const stalls: Stall[] = [];
    // A threshold far above the 5 ms block: on a loaded machine the scheduler alone can hold the
    // process for 100+ ms, which says nothing about what the block costs.
    const w = new EventLoopWatchdog({ thresholdMs: 1000, onStall: (s) => stalls.push(s) }).start();
    await sleep(20);
    w.run("session:usage", () => block(5));
    await sleep(30);
    w.stop();
    expect(stalls.filter((s) => s.ran.includes("session:usage"))).toEqual([]);
  });
});
