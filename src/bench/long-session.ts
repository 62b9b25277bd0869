/**
 * Bench section "long-session": a 10,000-event session (src/bench/long-session/fixture.ts).
 * - host: the event loop's longest stall while the panel's host opens it — the sliced path the
 *   host uses (parse + projection in time slices, core/session/sliced.ts) against the one-go path
 *   it replaced (parseLog + new SessionViewModel), in the same run, watched by the host's watchdog;
 * - webview, Chromium: the real panel bundle shows the session's end (a window of at most 300 item
 *   nodes over its 4,000 items) and an answer is streamed into it, timed frame by frame with
 *   requestAnimationFrame; baseline: the same stream into an empty transcript, same run. Also the
 *   DOM size and JS heap after scrolling up through the whole history;
 * - code-server: the figures test/e2e/long-session.e2e.test.ts wrote to
 *   test-results/e2e/long-session.json (Chromium frame timings in the real VS Code), when present.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { parseLog, parseLogSliced } from "../core/session/session-log";
import { hostSlicer } from "../node/panel/transcript";
import { SessionViewModel } from "../node/panel/view-model";
import { EventLoopWatchdog } from "../node/watchdog";
import { PROTOCOL_VERSION, type AgentItemView, type Snapshot, type ViewItem } from "../protocol/messages";
import { longSessionLines } from "./long-session/fixture";
import { AGENTS, AGENTS_POST_MS, agentsHostFigures, agentsTick } from "./long-session/agents";
import { FRAME_TRACE_CATEGORIES, frameCpu, type FrameCpu } from "./long-session/frame-cpu";
import type { BenchMetric, BenchSection } from "./types";

const EVENTS = 10_000;
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));

async function longestStall(work: () => Promise<unknown> | unknown): Promise<{ ms: number; wallMs: number }> {
  const w = new EventLoopWatchdog({ thresholdMs: 1 }).start();
  const t = performance.now();
  await work();
  const wallMs = performance.now() - t;
  // One more turn, so a stall that ended with the work is counted.
  await new Promise((r) => setTimeout(r, 20));
  const report = w.report();
  w.stop();
  return { ms: report.longest?.ms ?? 0, wallMs };
}

async function hostFigures(lines: string[]): Promise<BenchMetric[]> {
  const runs = 3;
  const sliced: number[] = [];
  const oneGo: number[] = [];
  const slicedWall: number[] = [];
  for (let i = 0; i < runs; i++) {
    oneGo.push((await longestStall(() => new SessionViewModel(parseLog(lines).events))).ms);
    const s = await longestStall(async () => {
      const slicer = hostSlicer();
      const parsed = await parseLogSliced(lines, slicer);
      return SessionViewModel.build(parsed.events, slicer);
    });
    sliced.push(s.ms);
    slicedWall.push(s.wallMs);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const a = med(sliced);
  const b = med(oneGo);
  return [
    {
      name: "host: longest event-loop stall opening a 10,000-event session",
      value: a,
      unit: "ms",
      baseline: b,
      ratio: Math.round((a / b) * 1000) / 1000,
      note: `baseline: the one-go parse + projection it replaced (median of ${runs}); the watchdog's 10 ms tick adds up to 10 ms to both`,
    },
    { name: "host: wall time of the sliced open", value: Math.round(med(slicedWall)), unit: "ms", note: "spread over slices of 8 ms; the event loop runs between them" },
  ];
}

/**
 * The streamed reply: about 16 KB of the markdown models write (paragraphs with bold and inline
 * code, lists, a code block every few sections), sent as the host sends it: a delta of about 24
 * characters every 16 ms (a fast model), so it streams for about 11 s.
 */
const ANSWER = Array.from({ length: 40 }, (_, i) => {
  const para = `Section ${i + 1}: the **parser** reads each line of \`src/module-${i}.ts\` and keeps the events it can validate, while the panel shows what happened in order and the user scrolls back to see it.`;
  const list = ["first, read the file", "then, change the `value` it exports", "last, run the tests again"].map((x) => `- ${x} (${i + 1})`).join("\n");
  const code = i % 5 === 4 ? `\n\n\`\`\`ts\n${Array.from({ length: 12 }, (_, k) => `export const value${k} = ${i * 12 + k}; // line ${k + 1}`).join("\n")}\n\`\`\`` : "";
  return `${para}\n\n${list}${code}`;
}).join("\n\n");
const ANSWER_CHUNKS = ANSWER.match(/[\s\S]{1,24}/g) ?? [];

const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf", ".html": "text/html" };

async function webviewFigures(vm: SessionViewModel): Promise<BenchMetric[]> {
  if (!CHROMIUM) return [{ name: "webview: frames while streaming", value: 0, unit: "frames", note: "absent: no Chromium at /usr/bin/chromium" }];
  // Loaded at run time from node_modules (the CLI bundle does not carry them): a repository checkout only.
  const load = (name: string) => import(name);
  const esbuild = (await load("esbuild")) as typeof import("esbuild");
  const { chromium } = (await load("playwright-core")) as typeof import("playwright-core");
  const { renderPanelHtml } = await import("../node/panel/html");
  const dir = mkdtempSync(join(tmpdir(), "yoke-bench-longsess-"));
  let server: Server | undefined;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    await esbuild.build({
      entryPoints: { webview: "webview/main.ts" },
      outdir: dir,
      bundle: true,
      platform: "browser",
      format: "iife",
      target: "es2022",
      loader: { ".css": "css" },
      logLevel: "error",
      minify: true,
    });
    copyFileSync("node_modules/@vscode/codicons/dist/codicon.css", join(dir, "codicon.css"));
    copyFileSync("node_modules/@vscode/codicons/dist/codicon.ttf", join(dir, "codicon.ttf"));
    const srv = createServer((req, res) => {
      const name = (req.url ?? "/").split("?")[0]!.slice(1) || "index.html";
      if (name === "index.html") {
        const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
        const nonce = "benchnonce0123456789";
        const html = renderPanelHtml({ cspSource: origin, scriptUri: `${origin}/webview.js`, styleUri: `${origin}/webview.css`, codiconUri: `${origin}/codicon.css`, nonce });
        const stub = `<script nonce="${nonce}">window.__items=[];window.acquireVsCodeApi=()=>({postMessage:m=>{const items=window.__items;if(m.type==="loadItems")setTimeout(()=>window.postMessage({type:"items",req:m.req,sessionId:"long",start:Math.min(m.start,items.length),total:items.length,items:items.slice(m.start,m.start+m.count)},"*"),2);}});</script>`;
        res.setHeader("content-type", "text/html");
        res.end(html.replace("<script nonce", `${stub}\n<script nonce`));
        return;
      }
      const file = join(dir, name);
      if (!/^[\w.-]+$/.test(name) || !existsSync(file)) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.setHeader("content-type", TYPES[extname(name)] ?? "application/octet-stream");
      res.end(readFileSync(file));
    });
    server = srv;
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/index.html`;
    const all = vm.items().items;
    // ticks: the Agents list the host posts once a second while agents run (issue 24), none for the one-session runs.
    const stream = async (items: ViewItem[], ticks: AgentItemView[][] = []) => {
      const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
      await page.goto(url);
      await page.evaluate((xs) => ((window as unknown as { __items: ViewItem[] }).__items = xs), items);
      const tail = items.slice(-200);
      const snapshot: Snapshot = {
        protocol: PROTOCOL_VERSION,
        sessionId: "long",
        title: "t",
        state: "thinking",
        resumed: false,
        items: tail,
        omitted: items.length - tail.length,
        pending: null,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 },
        modelLabel: "bench",
        mode: "default",
        restricted: false,
        firstRun: null,
        history: [],
      };
      await page.evaluate((s) => window.postMessage({ type: "state", snapshot: s }, "*"), snapshot);
      if (ticks.length) await page.evaluate((list) => window.postMessage({ type: "agents", agents: list }, "*"), ticks[0]!);
      await page.waitForTimeout(300);
      // CPU, not only wall time: the main thread's thread time per frame (trace) and where it went
      // (Performance metrics in thread ticks: script, style, layout).
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
      const metrics = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value])) as Record<string, number>;
      await browser.startTracing(page, { categories: FRAME_TRACE_CATEGORIES });
      const m0 = await metrics();
      // As the host sends it: a delta every 16 ms for 6 s (two words each), then the final message.
      const { frames, loaf } = await page.evaluate(
        ({ chunks, text, ticks, tickMs }) =>
          new Promise<{ frames: number[]; loaf: number[] }>((resolve) => {
            const out: number[] = [];
            // The panel's long animation frames (LoAF: over 50 ms of its own work), as the e2e test records them.
            const loaf: number[] = [];
            const po = new PerformanceObserver((l) => l.getEntries().forEach((e) => loaf.push(e.duration)));
            try {
              po.observe({ type: "long-animation-frame", buffered: false });
            } catch {
              // not offered by this Chromium
            }
            let k = 1;
            const agents = ticks.length ? setInterval(() => window.postMessage({ type: "agents", agents: ticks[k++ % ticks.length] }, "*"), tickMs) : undefined;
            let last = performance.now();
            let on = true;
            const tick = (t: number) => {
              out.push(t - last);
              last = t;
              if (on) requestAnimationFrame(tick);
            };
            requestAnimationFrame((t) => {
              last = t;
              requestAnimationFrame(tick);
            });
            let n = 0;
            const timer = setInterval(() => {
              window.postMessage({ type: "delta", kind: "text", text: chunks[n++] }, "*");
              if (n >= chunks.length) {
                clearInterval(timer);
                window.postMessage({ type: "event", view: { kind: "assistant", id: "a-final", text } }, "*");
                setTimeout(() => {
                  on = false;
                  if (agents) clearInterval(agents);
                  po.disconnect();
                  resolve({ frames: out.slice(1), loaf });
                }, 300);
              }
            }, 16);
          }),
        { chunks: ANSWER_CHUNKS, text: ANSWER, ticks, tickMs: AGENTS_POST_MS },
      );
      const agentsShown = ticks.length ? await page.evaluate(() => document.querySelectorAll("[data-testid=agent]").length) : 0;
      const m1 = await metrics();
      const cpu = frameCpu(JSON.parse((await browser.stopTracing()).toString("utf8")));
      const split = {
        script: m1.ScriptDuration! - m0.ScriptDuration!,
        style: m1.RecalcStyleDuration! - m0.RecalcStyleDuration!,
        layout: m1.LayoutDuration! - m0.LayoutDuration!,
        task: m1.TaskDuration! - m0.TaskDuration!,
      };
      // Scroll up through the whole history, then measure the DOM and the heap.
      let dom = { elements: 0, heap: 0, items: 0 };
      if (items.length > 200) {
        for (let i = 0; i < 400; i++) {
          const top = await page.evaluate(() => {
            const s = document.querySelector(".scroller")!;
            s.scrollTop = 0;
            return document.querySelector("[data-testid=transcript-earlier]")?.hasAttribute("hidden") ?? true;
          });
          if (top) break;
          await page.waitForTimeout(20);
        }
        dom = await page.evaluate(() => ({
          elements: document.getElementsByTagName("*").length,
          heap: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
          items: document.querySelectorAll(".messages > .transcript-item").length,
        }));
      }
      await page.close();
      return { frames, dom, cpu, split, loaf, agentsShown };
    };
    const long = await stream(all);
    const empty = await stream([]);
    // Issue 24: the same stream into an empty transcript while five background agents run (their Agents-view entries updated as the host posts them).
    const withAgents = await stream(
      [],
      Array.from({ length: 20 }, (_, t) => agentsTick(t)),
    );
    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const q = (p: number) => Math.round((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0) * 10) / 10;
      return { p95: q(0.95), max: Math.round(Math.max(0, ...xs) * 10) / 10, over50: xs.filter((x) => x > 50).length, n: xs.length };
    };
    const a = stats(long.frames);
    const b = stats(empty.frames);
    return [
      {
        name: "webview: frame p95 streaming into the 4,999-item transcript (3,000 messages)",
        value: a.p95,
        unit: "ms",
        baseline: b.p95,
        ratio: Math.round((a.p95 / b.p95) * 1000) / 1000,
        note: `baseline: the same stream into an empty transcript; ${a.n} frames`,
      },
      { name: "webview: longest frame while streaming", value: a.max, unit: "ms", baseline: b.max, note: `${a.over50} frame(s) over 50 ms (baseline ${b.over50})` },
      ...cpuMetrics(long, empty),
      ...agentsMetrics(withAgents, empty, stats),
      { name: "webview: item nodes after scrolling through the whole history", value: long.dom.items, unit: "nodes", note: `${long.dom.elements} DOM elements in all, for ${all.length} items` },
      {
        name: "webview: JS heap after scrolling through the whole history",
        value: Math.round((long.dom.heap / 1024 / 1024) * 10) / 10,
        unit: "MB",
        note: "performance.memory.usedJSHeapSize (Chromium, coarse)",
      },
    ];
  } finally {
    await browser.close();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    rmSync(dir, { recursive: true, force: true });
  }
}

type Split = { script: number; style: number; layout: number; task: number };

type Run = { cpu: FrameCpu | null; frames: number[]; loaf: number[]; split: Split; agentsShown: number };

/** Issue 24: the panel with five agents running while the foreground session streams, against the one-session stream of the same run. */
function agentsMetrics(a: Run, b: Run, stats: (xs: number[]) => { p95: number; max: number; over50: number; n: number }): BenchMetric[] {
  const fa = stats(a.frames);
  const fb = stats(b.frames);
  const loaf = (r: Run) => `${r.loaf.length} long animation frame(s)${r.loaf.length ? `, longest ${Math.round(Math.max(...r.loaf))} ms` : ""}`;
  const head = `${AGENTS} agents running`;
  const rows: BenchMetric[] = [
    {
      name: `webview, ${head}: frame p95 streaming (wall)`,
      value: fa.p95,
      unit: "ms",
      baseline: fb.p95,
      ratio: Math.round((fa.p95 / Math.max(0.01, fb.p95)) * 1000) / 1000,
      note: `baseline: the same stream with no agent (same run); ${fa.n} frames, longest ${fa.max} ms, ${fa.over50} over 50 ms (baseline ${fb.n}, ${fb.max} ms, ${fb.over50}); ${a.agentsShown} agent entries on screen; LoAF: ${loaf(a)} (baseline ${loaf(b)})`,
    },
  ];
  if (a.cpu && b.cpu)
    rows.push(
      {
        name: `webview, ${head}: main-thread CPU per frame p95 streaming`,
        value: a.cpu.p95Ms,
        unit: "ms",
        baseline: b.cpu.p95Ms,
        ratio: Math.round((a.cpu.p95Ms / Math.max(0.01, b.cpu.p95Ms)) * 1000) / 1000,
        note: `mean ${a.cpu.meanMs} ms (baseline ${b.cpu.meanMs}); ${a.cpu.frames} frames (baseline ${b.cpu.frames})`,
      },
      {
        name: `webview, ${head}: most main-thread CPU in one frame`,
        value: a.cpu.maxMs,
        unit: "ms",
        baseline: b.cpu.maxMs,
        note: `${a.cpu.over16Ms} frame(s) over 16.7 ms and ${a.cpu.over50Ms} over 50 ms of CPU (baseline ${b.cpu.over16Ms} and ${b.cpu.over50Ms}); longest task ${a.cpu.longestTaskMs} ms`,
      },
    );
  else rows.push({ name: `webview, ${head}: main-thread CPU per frame`, value: null, unit: "ms", note: "not measured: the trace had no frames of the panel's renderer" });
  return rows;
}

/** The main thread's CPU per frame while streaming (thread time: the machine's load left out). */
function cpuMetrics(long: { cpu: FrameCpu | null; split: Split; frames: number[] }, empty: { cpu: FrameCpu | null; split: Split }): BenchMetric[] {
  const a = long.cpu;
  const b = empty.cpu;
  if (!a) return [{ name: "webview: main-thread CPU per frame while streaming", value: null, unit: "ms", note: "not measured: the trace had no frames of the panel's renderer" }];
  const perFrame = (s: Split, n: number) => {
    const f = (x: number) => Math.round(((x * 1000) / Math.max(1, n)) * 100) / 100;
    return `script ${f(s.script)}, style ${f(s.style)}, layout ${f(s.layout)} of ${f(s.task)} ms a frame`;
  };
  return [
    {
      name: "webview: main-thread CPU per frame p95 streaming into the 4,999-item transcript",
      value: a.p95Ms,
      unit: "ms",
      ...(b ? { baseline: b.p95Ms, ratio: Math.round((a.p95Ms / Math.max(0.01, b.p95Ms)) * 1000) / 1000 } : {}),
      note: `thread time (trace), ${a.frames} frames, mean ${a.meanMs} ms; ${perFrame(long.split, a.frames)}; busiest work a frame (inclusive): ${Object.entries(a.perFrameMsBy)
        .slice(0, 6)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}${b ? `; baseline (empty transcript) mean ${b.meanMs} ms` : ""}`,
    },
    {
      name: "webview: most main-thread CPU in one frame while streaming",
      value: a.maxMs,
      unit: "ms",
      ...(b ? { baseline: b.maxMs } : {}),
      note: `${a.over16Ms} frame(s) over 16.7 ms and ${a.over50Ms} over 50 ms of CPU; longest task ${a.longestTaskMs} ms`,
    },
  ];
}

function codeServerFigures(): BenchMetric[] {
  const file = join(process.cwd(), "test-results", "e2e", "long-session.json");
  if (!existsSync(file)) return [{ name: "code-server: frame p95 while streaming (e2e)", value: null, unit: "ms", note: `not measured: no ${file} (written by test/e2e/long-session.e2e.test.ts)` }];
  try {
    const d = JSON.parse(readFileSync(file, "utf8")) as {
      streaming?: { p95Ms: number; maxMs: number; over50Ms: number; frames: number; longAnimationFrames?: number; longestAnimationFrameMs?: number };
      openWallMs?: number;
      hostStalls?: { longestWhileOpening: number };
    };
    const age = Math.round((Date.now() - statSync(file).mtimeMs) / 60_000);
    if (!d.streaming)
      return [
        { name: "code-server: frame p95 while streaming (e2e)", value: 0, unit: "ms", note: `incomplete: ${file} (written ${age} min ago) has no streaming figures: the e2e test failed before them` },
      ];
    return [
      {
        name: "code-server: frame p95 while streaming (e2e)",
        value: d.streaming.p95Ms,
        unit: "ms",
        note: `${d.streaming.frames} frames, longest ${d.streaming.maxMs} ms, ${d.streaming.over50Ms} over 50 ms; ${d.streaming.longAnimationFrames ?? "?"} long animation frame(s) of the panel's own (longest ${d.streaming.longestAnimationFrameMs ?? "?"} ms); written ${age} min ago`,
      },
      {
        name: "code-server: opening the session from the history (e2e, wall)",
        value: d.openWallMs ?? 0,
        unit: "ms",
        note: `longest host stall while opening: ${d.hostStalls?.longestWhileOpening ?? "?"} ms`,
      },
    ];
  } catch (err) {
    return [{ name: "code-server: frame p95 while streaming (e2e)", value: 0, unit: "ms", note: `unreadable: ${file}: ${(err as Error).message}` }];
  }
}

export async function bench(): Promise<BenchSection> {
  const lines = longSessionLines({ events: EVENTS });
  const vm = new SessionViewModel(parseLog(lines).events);
  const metrics = [...(await hostFigures(lines)), ...(await agentsHostFigures()), ...(await webviewFigures(vm)), ...codeServerFigures()];
  return {
    section: "long-session",
    method:
      "A deterministic 10,000-event session (1,000 turns: 4,999 transcript items, 3,000 of them messages). Host: the watchdog's longest stall while opening it, sliced vs one-go (same run). " +
      "Webview: the real panel bundle in headless Chromium, requestAnimationFrame intervals while a reply streams (about 16 KB of markdown, a delta of 24 characters every 16 ms for about 11 s) into the session's transcript vs into an empty one (same run), and the main thread's CPU per frame from a Chromium trace (thread time: what the frame cost the panel, the machine's load left out); DOM and heap after scrolling up to the first message. " +
      "Five background agents (issue 24): the same stream into an empty transcript while the Agents view's five entries are updated once a second as the host posts them (vs the stream alone, same run); host: the watchdog's longest stall of one Agents refresh reading five agents' logs. " +
      "code-server: figures of test/e2e/long-session.e2e.test.ts when present. The machine is shared and loaded: absolute frame times include other load.",
    metrics,
  };
}
