// Long sessions in code-server: a 10,000-event session (4,000 transcript items, 3,000 messages)
// opens from the history without blocking the extension host (its watchdog report is kept), the
// transcript is scrolled to its first message and searched for a message far back with the DOM
// bounded, and an answer streamed into it is timed frame by frame (requestAnimationFrame and
// Chromium's long-animation-frame entries in the panel's webview). The figures go to
// test-results/e2e/long-session.json, which the bench section "long-session" reports.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame } from "playwright-core";
import { describe, expect, it } from "vitest";
import { longSessionLines, longSessionPrompt } from "../../src/bench/long-session/fixture";
import { defaultSessionDir } from "../../src/node/session-location";
import { RESULTS_DIR } from "./support/paths";
import { sendPrompt, texts, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const SESSION_ID = "20260101-000000-long00";
const EVENTS = 10_000;
/** The panel keeps at most this many item nodes (webview/views/message-list.ts MAX_NODES). */
const MAX_NODES = 300;

/** A long streamed answer: about 1,500 chunks of two words. */
const LONG_ANSWER = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: the streamed answer goes on with **bold** words, \`code\` and more text to lay out in the panel while it grows.`).join(
  "\n\n",
);

const figures: Record<string, unknown> = { events: EVENTS, machine: "shared, loaded (other engineers' builds and tests ran at the same time)" };

async function nodeCount(frame: Frame): Promise<number> {
  return frame.locator(".messages > .transcript-item").count();
}

async function domStats(frame: Frame): Promise<{ elements: number; heapBytes: number | null }> {
  return frame.evaluate(() => ({
    elements: document.getElementsByTagName("*").length,
    heapBytes: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null,
  }));
}

describe("a 10,000-event session in code-server", () => {
  const vs = useYokeVscode({
    name: "long-session",
    model: { script: () => ({ text: LONG_ANSWER, chunkDelayMs: 4 }) },
  });
  let frame: Frame;

  it("opens from the history and shows the end of the session", async () => {
    const shot = vs.screenshots();
    // The folder's shared session store (code-server's own HOME), as if the session had been run here.
    const store = defaultSessionDir(vs.workspace, vs.server.home);
    mkdirSync(store, { recursive: true });
    writeFileSync(join(store, `${SESSION_ID}.jsonl`), `${longSessionLines({ events: EVENTS, sessionId: SESSION_ID, cwd: vs.workspace }).join("\n")}\n`);
    await vs.openWorkbench();
    frame = await vs.openPanel();
    // The history lists it (summarised in slices: "Loading…" first, then its first prompt).
    const item = frame.locator(`[data-testid=session-item][data-session-id="${SESSION_ID}"]`);
    await item.waitFor({ state: "attached", timeout: 60_000 });
    const history = frame.locator("[data-testid=history]");
    if ((await history.getAttribute("open")) === null) await history.locator("summary").click();
    await expect.poll(() => item.textContent(), { timeout: 60_000 }).toContain("Request #0001");
    await item.waitFor({ state: "visible", timeout: 15_000 });
    const t0 = Date.now();
    await item.click();
    await expect.poll(async () => (await texts(frame, "message-user")).at(-1), { timeout: 60_000 }).toBe(longSessionPrompt(999));
    figures.openWallMs = Date.now() - t0;
    await expect.poll(() => frame.locator("[data-testid=transcript-earlier]").textContent(), { timeout: 15_000 }).toMatch(/\d+ earlier items/);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    figures.afterOpen = await domStats(frame);
    await shot("opened");
  });

  it("scrolls to its first message with the DOM bounded", async () => {
    const shot = vs.screenshots();
    const t0 = Date.now();
    let most = 0;
    for (let i = 0; i < 400 && (await texts(frame, "message-user"))[0] !== longSessionPrompt(0); i++) {
      await frame.locator(".scroller").evaluate((s) => s.scrollBy(0, -s.scrollTop));
      await frame.waitForTimeout(50);
      most = Math.max(most, await nodeCount(frame));
    }
    expect((await texts(frame, "message-user"))[0]).toBe(longSessionPrompt(0));
    await expect.poll(() => frame.locator("[data-testid=transcript-earlier]").isHidden()).toBe(true);
    expect(most).toBeLessThanOrEqual(MAX_NODES);
    figures.scrollToFirstWallMs = Date.now() - t0;
    figures.afterScrollToFirst = await domStats(frame);
    figures.mostItemNodes = most;
    await shot("first-message");
  });

  it("searches for a message far back and jumps to it", async () => {
    const shot = vs.screenshots();
    await frame.locator("[data-testid=transcript-latest]").click();
    await expect.poll(async () => (await texts(frame, "message-user")).at(-1), { timeout: 30_000 }).toBe(longSessionPrompt(999));
    const input = frame.locator("[data-testid=transcript-search]");
    await input.fill("Request #0042:");
    await input.press("Enter");
    await expect.poll(() => frame.locator("[data-testid=transcript-search-count]").textContent(), { timeout: 30_000 }).toBe("1 of 1");
    const hit = frame.locator(".transcript-item.search-hit");
    await expect.poll(() => hit.textContent(), { timeout: 30_000 }).toBe(longSessionPrompt(41));
    expect(await hit.isVisible()).toBe(true);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    await shot("search-hit");
  });

  it("streams an answer into the 3,000-message transcript, timing every frame", async () => {
    const shot = vs.screenshots();
    const latest = frame.locator("[data-testid=transcript-latest]");
    if (await latest.isVisible()) await latest.click();
    await expect.poll(async () => (await texts(frame, "message-user")).at(-1), { timeout: 30_000 }).toBe(longSessionPrompt(999));
    await frame.evaluate(() => {
      const w = window as unknown as { __frames: number[]; __loaf: number[]; __timing: boolean };
      w.__frames = [];
      w.__loaf = [];
      w.__timing = true;
      let last = performance.now();
      const tick = (t: number) => {
        w.__frames.push(t - last);
        last = t;
        if (w.__timing) requestAnimationFrame(tick);
      };
      requestAnimationFrame((t) => {
        last = t;
        requestAnimationFrame(tick);
      });
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) w.__loaf.push(e.duration);
        }).observe({ type: "long-animation-frame", buffered: false });
      } catch {
        // no LoAF in this Chromium: the rAF intervals alone
      }
    });
    await sendPrompt(frame, "Explain the whole session again, at length.");
    await frame.locator(".message.streaming").waitFor({ state: "attached", timeout: 60_000 });
    await waitForState(frame, "done", 120_000);
    const { frames, loaf } = await frame.evaluate(() => {
      const w = window as unknown as { __frames: number[]; __loaf: number[]; __timing: boolean };
      w.__timing = false;
      return { frames: w.__frames, loaf: w.__loaf };
    });
    expect(await frame.locator("[data-testid=message-assistant]", { hasText: "Paragraph 60:" }).count()).toBe(1);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    const sorted = [...frames].sort((a, b) => a - b);
    const q = (p: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0) * 10) / 10;
    figures.streaming = {
      frames: frames.length,
      p50Ms: q(0.5),
      p95Ms: q(0.95),
      maxMs: Math.round(Math.max(0, ...frames) * 10) / 10,
      over50Ms: frames.filter((f) => f > 50).length,
      longAnimationFrames: loaf.length,
      longestAnimationFrameMs: Math.round(Math.max(0, ...loaf)),
    };
    figures.afterStreaming = await domStats(frame);
    expect(frames.length).toBeGreaterThan(30);
    await shot("streamed");
  });

  it("records the figures and the host's stalls", () => {
    const dir = join(RESULTS_DIR, "watchdog", "long-session");
    const reports = readdirSync(dir)
      .filter((f) => /^watchdog-\d+\.json$/.test(f))
      .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as { longest: { ms: number; ran: string[] } | null; recent: Array<{ ms: number; ran: string[]; active: string[] }> });
    const stalls = reports.flatMap((r) => r.recent);
    const onOpen = stalls.filter((s) => [...s.ran, ...s.active].some((l) => l === "webview:openSession"));
    figures.hostStalls = {
      longestMs: Math.max(0, ...reports.map((r) => r.longest?.ms ?? 0)),
      longestWhileOpening: Math.max(0, ...onOpen.map((s) => s.ms)),
      recent: stalls.slice(-10),
    };
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, "long-session.json"), `${JSON.stringify({ measuredAt: new Date().toISOString(), ...figures }, null, 2)}\n`);
    expect(reports.length).toBeGreaterThan(0);
  });
});
