// The transcript window of the real webview bundle in Chromium: a 4,000-item session (10,000
// events) is shown as a bounded window; scrolling up loads earlier parts until the first message,
// a search jumps to a match far back, new items and streamed text still arrive at the end.
// The host is played by the page's stand-in of acquireVsCodeApi, answering from the real view model.
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { longSessionLines, longSessionPrompt } from "../../../src/bench/long-session/fixture";
import { parseLog } from "../../../src/core/session/session-log";
import { renderPanelHtml } from "../../../src/node/panel/html";
import { SessionViewModel } from "../../../src/node/panel/view-model";
import { PROTOCOL_VERSION, type Snapshot, type ViewItem } from "../../../src/protocol/messages";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf", ".html": "text/html" };
const MAX_NODES = 300;

describe.skipIf(!CHROMIUM)("transcript window in Chromium", () => {
  let dir: string;
  let server: Server;
  let browser: Browser;
  let page: Page;
  const vm = new SessionViewModel(parseLog(longSessionLines({ events: 10_000 })).events);
  const all = vm.items().items;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "yoke-transcript-"));
    await esbuild.build({
      entryPoints: { webview: "webview/main.ts" },
      outdir: dir,
      bundle: true,
      platform: "browser",
      format: "iife",
      target: "es2022",
      loader: { ".css": "css" },
      logLevel: "error",
    });
    copyFileSync("node_modules/@vscode/codicons/dist/codicon.css", join(dir, "codicon.css"));
    copyFileSync("node_modules/@vscode/codicons/dist/codicon.ttf", join(dir, "codicon.ttf"));
    server = createServer((req, res) => {
      const name = (req.url ?? "/").split("?")[0]!.slice(1) || "index.html";
      if (name === "index.html") {
        const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const nonce = "testnonce0123456789";
        const html = renderPanelHtml({ cspSource: origin, scriptUri: `${origin}/webview.js`, styleUri: `${origin}/webview.css`, codiconUri: `${origin}/codicon.css`, nonce });
        // The host's stand-in: answers loadItems from window.__items, searches window.__items' texts.
        const stub = `<script nonce="${nonce}">window.__sent=[];window.__items=[];window.acquireVsCodeApi=()=>({postMessage:m=>{window.__sent.push(m);
          const items=window.__items;
          if(m.type==="loadItems")setTimeout(()=>window.postMessage({type:"items",req:m.req,sessionId:"long",start:Math.min(m.start,items.length),total:items.length,items:items.slice(m.start,m.start+m.count)},"*"),5);
          if(m.type==="searchTranscript"){const q=m.query.toLowerCase();const matches=[];items.forEach((it,index)=>{const t=JSON.stringify(it).toLowerCase();if(t.includes(q))matches.push({index,id:it.id,kind:it.kind,snippet:q});});
            setTimeout(()=>window.postMessage({type:"searchResults",req:m.req,query:m.query,matches,truncated:false},"*"),5);}
        }});</script>`;
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
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 420, height: 800 } });
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`);
    await page.waitForFunction(() => (window as unknown as { __sent: unknown[] }).__sent.length > 0);
    await page.evaluate((items) => ((window as unknown as { __items: ViewItem[] }).__items = items), all);
    const tail = vm.items(200);
    const snapshot: Snapshot = {
      protocol: PROTOCOL_VERSION,
      sessionId: "long",
      title: "t",
      state: "done",
      resumed: true,
      items: tail.items,
      omitted: tail.omitted,
      pending: null,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 },
      modelLabel: "scripted-long",
      mode: "default",
      restricted: false,
      firstRun: null,
      history: [],
    };
    await page.evaluate((s) => window.postMessage({ type: "state", snapshot: s }, "*"), snapshot);
    await page.locator("[data-testid=transcript-earlier]").waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
  });

  const nodeCount = () => page.locator(".messages > .transcript-item").count();
  /** Whether the element is (at least partly) inside the scroll area the user sees. */
  const onScreen = (selector: string) =>
    page.evaluate((sel) => {
      const el = document.querySelector(sel);
      const s = document.querySelector(".scroller")!.getBoundingClientRect();
      const r = el?.getBoundingClientRect();
      return Boolean(r) && r!.height > 0 && r!.bottom > s.top + 4 && r!.top < s.bottom - 4;
    }, selector);
  const userTexts = () => page.locator("[data-testid=message-user]").allTextContents();

  it("shows the end of the session and says how much is before it", async () => {
    expect(all).toHaveLength(4_999); // 4 items per turn and the checkpoint control between turns
    await expect.poll(() => page.locator("[data-testid=transcript-earlier]").textContent()).toContain("4799 earlier items");
    expect(await nodeCount()).toBe(200);
    expect((await userTexts()).at(-1)).toBe(longSessionPrompt(999));
  });

  it("scrolls up through the whole history to the first message, keeping the DOM bounded", async () => {
    let most = 0;
    for (let i = 0; i < 200; i++) {
      await page.locator(".scroller").evaluate((s) => (s.scrollTop = 0));
      await page.waitForTimeout(30);
      most = Math.max(most, await nodeCount());
      if ((await userTexts())[0] === longSessionPrompt(0)) break;
    }
    expect((await userTexts())[0]).toBe(longSessionPrompt(0));
    expect(most).toBeLessThanOrEqual(MAX_NODES);
    expect(await page.locator("[data-testid=transcript-earlier]").isHidden()).toBe(true);
    await expect.poll(() => page.locator("[data-testid=transcript-later]").textContent()).toMatch(/\d+ later items/);
  });

  it("goes back to the latest, and new items arrive at the end", async () => {
    await page.locator("[data-testid=transcript-latest]").click();
    await expect.poll(async () => (await userTexts()).at(-1)).toBe(longSessionPrompt(999));
    await page.evaluate(() => window.postMessage({ type: "event", index: 4999, view: { kind: "user", id: "u-new", text: "a new message" } }, "*"));
    await expect.poll(async () => (await userTexts()).at(-1)).toBe("a new message");
    await page.evaluate(() => window.postMessage({ type: "delta", kind: "text", text: "streamed **reply**" }, "*"));
    await expect.poll(() => page.locator(".message.streaming").textContent()).toContain("streamed reply");
    expect(await nodeCount()).toBeLessThanOrEqual(MAX_NODES);
    // A long stream: the view follows its end, block after block.
    await page.evaluate(() => {
      for (let i = 1; i <= 80; i++) window.postMessage({ type: "delta", kind: "text", text: `\n\nParagraph ${i} of the streamed reply, long enough to wrap in the panel.` }, "*");
    });
    await expect.poll(() => page.locator(".message.streaming").textContent()).toContain("Paragraph 80 of");
    await expect.poll(() => onScreen(".message.streaming .body > p:last-child")).toBe(true);
    // Scrolled up by the user, it stays where the user is while more arrives.
    await page.mouse.move(200, 400);
    await page.mouse.wheel(0, -1500);
    await expect.poll(() => onScreen(".message.streaming .body > p:last-child")).toBe(false);
    const top = await page.locator(".scroller").evaluate((s) => s.scrollTop);
    await page.evaluate(() => window.postMessage({ type: "delta", kind: "text", text: "\n\nOne more paragraph." }, "*"));
    await expect.poll(() => page.locator(".message.streaming").textContent()).toContain("One more paragraph.");
    expect(await page.locator(".scroller").evaluate((s) => s.scrollTop)).toBe(top);
    // The final message replaces the streamed one.
    await page.evaluate(() => window.postMessage({ type: "event", index: 5000, view: { kind: "assistant", id: "a-new", text: "done" } }, "*"));
    await expect.poll(() => page.locator(".message.streaming").count()).toBe(0);
  });

  it("searches for a message far back and shows it marked", async () => {
    const input = page.locator("[data-testid=transcript-search]");
    await input.fill(longSessionPrompt(3).slice(0, 14)); // "Request #0004:"
    await input.press("Enter");
    await expect.poll(() => page.locator("[data-testid=transcript-search-count]").textContent()).toBe("1 of 1");
    const hit = page.locator(".transcript-item.search-hit");
    await expect.poll(() => hit.textContent()).toBe(longSessionPrompt(3));
    expect(await hit.isVisible()).toBe(true);
    expect(await onScreen(".transcript-item.search-hit")).toBe(true);
    expect(await nodeCount()).toBeLessThanOrEqual(MAX_NODES);
  });

  it("goes to the latest from the window's bottom edge, which stays in sight, and a search hit far back is on screen", async () => {
    // After the jump near the start, "Go to the latest" is in view without scrolling to the window's end.
    expect(await onScreen("[data-testid=transcript-latest]")).toBe(true);
    await page.locator("[data-testid=transcript-latest]").click();
    // (The host's stand-in knows the session's items only, not the ones posted above.)
    await expect.poll(() => onScreen(`[data-id="${all.at(-1)!.id}"]`)).toBe(true);
    const input = page.locator("[data-testid=transcript-search]");
    await input.fill("Request #0420:");
    await input.press("Enter");
    await expect.poll(() => page.locator("[data-testid=transcript-search-count]").textContent()).toBe("1 of 1");
    await expect.poll(() => page.locator(".transcript-item.search-hit").textContent()).toBe(longSessionPrompt(419));
    // Kept in view while the items around it get their real heights.
    await expect.poll(() => onScreen(".transcript-item.search-hit")).toBe(true);
    await page.waitForTimeout(300);
    expect(await onScreen(".transcript-item.search-hit")).toBe(true);
  });
});
