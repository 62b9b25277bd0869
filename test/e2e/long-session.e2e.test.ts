// Long sessions in code-server: a 10,000-event session (1,000 turns: 3,000 messages) opens from the
// history as a person would open it, is scrolled up to its first message, searched for a message
// far back, left for the latest again, and an answer is streamed into it. Every step asserts what
// the person sees (the message on screen, the DOM bounded), never how long it took: the frame
// timings of the stream (requestAnimationFrame intervals and Chromium's long-animation-frame
// entries in the panel's webview) and the host's stalls go to test-results/e2e/long-session.json,
// which the bench section "long-session" and docs/benchmarks.md report.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame, Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import { longSessionLines, longSessionPrompt } from "../../src/bench/long-session/fixture";
import { defaultSessionDir } from "../../src/node/session-location";
import { RESULTS_DIR } from "./support/paths";
import { sendPrompt, texts, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const SESSION_ID = "20260101-000000-long00";
const EVENTS = 10_000;
const TURNS = 1_000;
/** The panel keeps at most this many item nodes (webview/views/message-list.ts MAX_NODES). */
const MAX_NODES = 300;

/** A long streamed answer (about 1,500 chunks of a word or two), ending in a marker paragraph. */
const LONG_ANSWER = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1}: the streamed answer goes on with **bold** words, \`code\` and more text to lay out in the panel while it grows.`).join(
  "\n\n",
);

const figures: Record<string, unknown> = { events: EVENTS, machine: "shared 2-core machine, loaded (other engineers' builds and tests ran at the same time)" };

/** Whether the element is (at least partly) inside the panel's visible scroll area. */
async function onScreen(loc: Locator): Promise<boolean> {
  if ((await loc.count()) === 0) return false;
  return loc
    .first()
    .evaluate((el) => {
      const s = el.closest(".scroller")?.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      return Boolean(s) && r.height > 0 && r.bottom > s!.top + 4 && r.top < s!.bottom - 4;
    })
    .catch(() => false);
}

async function nodeCount(frame: Frame): Promise<number> {
  return frame.locator(".messages > .transcript-item").count();
}

async function domStats(frame: Frame): Promise<{ elements: number; itemNodes: number; heapBytes: number | null }> {
  return frame.evaluate(() => ({
    elements: document.getElementsByTagName("*").length,
    itemNodes: document.querySelectorAll(".messages > .transcript-item").length,
    heapBytes: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null,
  }));
}

/** The user message of turn `turn` (0-based), found by its unique number. */
function userMessage(frame: Frame, turn: number): Locator {
  return frame.locator("[data-testid=message-user]", { hasText: `Request #${String(turn + 1).padStart(4, "0")}:` });
}

/** The session's last answer (turn 1,000's closing message): what the panel shows at the end. */
function lastAnswer(frame: Frame): Locator {
  return frame.locator("[data-testid=message-assistant]", { hasText: `Turn ${TURNS}:` });
}

/** Clicks a window edge's button ("Go to the latest", "Go to the first message") once it is there to click. */
async function clickEdge(frame: Frame, testid: "transcript-latest" | "transcript-first"): Promise<void> {
  const button = frame.locator(`[data-testid=${testid}]`);
  await button.waitFor({ state: "visible", timeout: 30_000 });
  await expect.poll(() => onScreen(button), { timeout: 15_000 }).toBe(true);
  await button.click();
}

describe("a 10,000-event session in code-server", () => {
  const vs = useYokeVscode({
    name: "long-session",
    model: { script: () => ({ text: LONG_ANSWER, chunkDelayMs: 4 }) },
    testsBuildOnEachOther: "one reader's way through the same 10,000-event session: open, scroll up, search, return, stream, then the figures of all of it",
  });
  let frame: Frame;

  it("opens from the history and shows the end of the session", async () => {
    const shot = vs.screenshots("long-session-open");
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
    // The end of the session: its last answer on screen, its last request just above, the rest reachable.
    await expect.poll(() => onScreen(lastAnswer(frame)), { timeout: 90_000 }).toBe(true);
    figures.openWallMs = Date.now() - t0;
    expect(await userMessage(frame, TURNS - 1).textContent()).toBe(longSessionPrompt(TURNS - 1));
    await expect.poll(() => frame.locator("[data-testid=transcript-earlier]").textContent(), { timeout: 15_000 }).toMatch(/\d+ earlier items/);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    figures.afterOpen = await domStats(frame);
    await shot("opened");
  });

  it("scrolls up to its first message with the DOM bounded", async () => {
    const shot = vs.screenshots("long-session-first");
    const scroller = frame.locator(".scroller");
    const first = userMessage(frame, 0);
    const t0 = Date.now();
    let most = 0;
    let scrolls = 0;
    // As a person drags the scrollbar to the top, again and again: each time the panel loads the
    // part before what it shows, until the session's start.
    await expect
      .poll(
        async () => {
          if (await onScreen(first)) return true;
          await scroller.evaluate((s) => s.scrollBy(0, -s.scrollTop));
          scrolls++;
          most = Math.max(most, await nodeCount(frame));
          return false;
        },
        { timeout: 180_000, interval: 100 },
      )
      .toBe(true);
    expect(await first.textContent()).toBe(longSessionPrompt(0));
    expect((await texts(frame, "message-user"))[0]).toBe(longSessionPrompt(0));
    await expect.poll(() => frame.locator("[data-testid=transcript-earlier]").isHidden(), { timeout: 15_000 }).toBe(true);
    most = Math.max(most, await nodeCount(frame));
    expect(most).toBeLessThanOrEqual(MAX_NODES);
    figures.scrollToFirstWallMs = Date.now() - t0;
    figures.scrollsToFirst = scrolls;
    figures.mostItemNodes = most;
    figures.afterScrollToFirst = await domStats(frame);
    await shot("first-message");
  });

  it("goes to the latest, searches, and reaches a message far back", async () => {
    const shot = vs.screenshots("long-session-search");
    // The window's bottom edge stays in sight while the first messages are shown.
    await clickEdge(frame, "transcript-latest");
    await expect.poll(() => onScreen(lastAnswer(frame)), { timeout: 60_000 }).toBe(true);
    const input = frame.locator("[data-testid=transcript-search]");
    await input.waitFor({ state: "visible", timeout: 15_000 });
    await input.fill("Request #0042:");
    await input.press("Enter");
    await expect.poll(() => frame.locator("[data-testid=transcript-search-count]").textContent(), { timeout: 60_000 }).toBe("1 of 1");
    const target = userMessage(frame, 41);
    await expect.poll(() => onScreen(target), { timeout: 60_000 }).toBe(true);
    expect(await target.textContent()).toBe(longSessionPrompt(41));
    // It is marked as the match (for a moment: the mark fades, so it is not waited for long).
    expect(await frame.locator(".transcript-item.search-hit").count()).toBeLessThanOrEqual(1);
    expect(await lastAnswer(frame).count()).toBe(0);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    await shot("search-hit");
  });

  it("returns to the latest", async () => {
    const shot = vs.screenshots("long-session-latest");
    await clickEdge(frame, "transcript-latest");
    await expect.poll(() => onScreen(lastAnswer(frame)), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => frame.locator("[data-testid=transcript-later]").isHidden(), { timeout: 15_000 }).toBe(true);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    await shot("latest");
  });

  it("streams an answer into the 3,000-message transcript, recording every frame", async () => {
    const shot = vs.screenshots("long-session-stream");
    await frame.evaluate(() => {
      const w = window as unknown as { __frames: Array<[number, number]>; __loaf: unknown[]; __timing: boolean };
      w.__frames = [];
      w.__loaf = [];
      w.__timing = true;
      let last = performance.now();
      const tick = (t: number) => {
        w.__frames.push([t, t - last]);
        last = t;
        if (w.__timing) requestAnimationFrame(tick);
      };
      requestAnimationFrame((t) => {
        last = t;
        requestAnimationFrame(tick);
      });
      (w as unknown as { __loafSupported: boolean }).__loafSupported = PerformanceObserver.supportedEntryTypes.includes("long-animation-frame");
      try {
        new PerformanceObserver((list) => {
          for (const e of list.getEntries() as unknown as Array<{
            startTime: number;
            duration: number;
            blockingDuration?: number;
            scripts?: Array<{ duration: number; invoker?: string; sourceFunctionName?: string }>;
          }>)
            w.__loaf.push({
              at: e.startTime,
              ms: e.duration,
              blockingMs: e.blockingDuration ?? null,
              scripts: (e.scripts ?? []).slice(0, 3).map((s) => ({ ms: s.duration, invoker: s.invoker ?? "", fn: s.sourceFunctionName ?? "" })),
            });
        }).observe({ type: "long-animation-frame", buffered: false });
      } catch {
        // no long-animation-frame entries in this Chromium: the rAF intervals alone
      }
    });
    const prompt = "Explain the whole session again, at length.";
    await sendPrompt(frame, prompt);
    await expect.poll(async () => (await texts(frame, "message-user")).at(-1), { timeout: 60_000 }).toBe(prompt);
    const streaming = frame.locator(".message.streaming");
    const final = frame.locator("[data-testid=message-assistant]", { hasText: "Paragraph 60:" });
    await expect.poll(async () => (await streaming.count()) + (await final.count()), { timeout: 90_000 }).toBeGreaterThan(0);
    const streamStart = await frame.evaluate(() => performance.now());
    // While it streams, the view follows it (sampled: what the person sees as the text grows).
    let followed = 0;
    let samples = 0;
    while ((await final.count()) === 0 && (await streaming.count()) > 0 && samples < 200) {
      samples++;
      if (await onScreen(streaming)) followed++;
      await frame.waitForTimeout(250);
    }
    // The final message replaces the streamed one (the header may say "done" from the opened session already).
    await expect.poll(async () => (await final.count()) === 1 && (await streaming.count()) === 0, { timeout: 180_000 }).toBe(true);
    await waitForState(frame, "done", 60_000);
    const streamEnd = await frame.evaluate(() => performance.now());
    const { frames, loaf, loafSupported } = await frame.evaluate(() => {
      const w = window as unknown as { __frames: Array<[number, number]>; __loaf: Array<{ at: number; ms: number }>; __timing: boolean; __loafSupported: boolean };
      w.__timing = false;
      return { frames: w.__frames, loaf: w.__loaf, loafSupported: w.__loafSupported };
    });
    const during = frames.filter(([t]) => t >= streamStart && t <= streamEnd).map(([, dt]) => dt);
    const sorted = [...during].sort((a, b) => a - b);
    const q = (p: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0) * 10) / 10;
    const loafDuring = loaf.filter((e) => e.at >= streamStart && e.at <= streamEnd);
    figures.streaming = {
      frames: during.length,
      p50Ms: q(0.5),
      p95Ms: q(0.95),
      maxMs: Math.round(Math.max(0, ...during) * 10) / 10,
      over50Ms: during.filter((f) => f > 50).length,
      streamWallMs: Math.round(streamEnd - streamStart),
      viewFollowedSamples: `${followed} of ${samples}`,
      longAnimationFramesObserved: loafSupported,
      longAnimationFrames: loafDuring.length,
      longestAnimationFrameMs: Math.round(Math.max(0, ...loafDuring.map((e) => e.ms))),
      longestAnimationFrames: [...loafDuring].sort((a, b) => b.ms - a.ms).slice(0, 5),
    };
    figures.afterStreaming = await domStats(frame);
    // The whole answer, once, at the end of the transcript, in view.
    expect(await final.count()).toBe(1);
    expect(await final.textContent()).toContain("Paragraph 1: the streamed answer");
    await expect.poll(() => onScreen(final), { timeout: 30_000 }).toBe(true);
    expect(await streaming.count()).toBe(0);
    expect(await nodeCount(frame)).toBeLessThanOrEqual(MAX_NODES);
    expect(frames.length).toBeGreaterThan(10);

    await shot("streamed");
  });

  it("records the figures and the host's stalls", () => {
    const dir = join(RESULTS_DIR, "watchdog", "long-session");
    const reports = readdirSync(dir)
      .filter((f) => /^watchdog-\d+\.json$/.test(f))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(dir, f), "utf8")) as {
            longest: { ms: number; ran: string[] } | null;
            recent: Array<{ ms: number; ran: string[]; active: string[] }>;
          },
      );
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
    expect(figures.streaming).toBeDefined();
  });
});
