// The streamed message drawn block by block (webview/views/streamed-markdown.ts) in a real
// Chromium: after every chunk the message shows exactly what drawing the whole text so far shows
// (renderMarkdown, the final item's view), for the markdown models write — paragraphs, lists tight
// and loose, code fences with blank lines inside, headings of both kinds, quotes, tables — cut into
// chunks of many sizes, including one character at a time. And the blocks already final are not
// drawn again: their nodes stay the same objects while text arrives after them.
import { existsSync } from "node:fs";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));

const DOCS: Record<string, string> = {
  paragraphs: "First paragraph with **bold** and `code`.\n\nSecond one,\nwrapped over two lines.\n\nThird *and* last.",
  lists: "Steps:\n\n- read the file\n- change it\n\n1. one\n2. two\n\n- loose item\n\n- another loose item\n\n  with a second paragraph\n\nAfter the list.",
  code: "Here:\n\n```ts\nexport const a = 1;\n\n\nexport const b = 2;\n```\n\nAnd indented:\n\n    raw code\n\n    more raw\n\nDone.",
  headings: "# Title\n\nText under it.\n\nSetext heading\n==============\n\nAnother\n---\n\n## Two\n\nEnd.",
  quotes: "> quoted line\n> and more\n\n> another quote\n\nPlain.",
  table: "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nBelow the table.",
  mixed: "Intro with a [link](https://example.com).\n\n- item with `code`\n  continued lazily\n- second\n\n```\nno language\n```\n\n***\n\nA paragraph\n- that turns into a list\n\nthe end",
  unclosedFence: "Start.\n\n```js\nconst x = 1;\n\nconst y = 2;",
};

describe.skipIf(!CHROMIUM)("streamed markdown in Chromium", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const out = await esbuild.build({
      stdin: {
        contents: `import { StreamedMarkdown } from "./webview/views/streamed-markdown"; import { renderMarkdown } from "./webview/views/markdown";
          window.__stream = (text, sizes) => {
            const body = document.createElement("div"); const full = document.createElement("div");
            const md = new StreamedMarkdown(body); const diffs = []; let at = 0; let k = 0;
            while (at < text.length) {
              at = Math.min(text.length, at + sizes[k++ % sizes.length]);
              md.render(text.slice(0, at));
              full.innerHTML = renderMarkdown(text.slice(0, at));
              if (body.innerHTML !== full.innerHTML) diffs.push({ at, got: body.innerHTML, want: full.innerHTML });
            }
            return diffs.slice(0, 3);
          };
          window.__kept = () => {
            const body = document.createElement("div"); const md = new StreamedMarkdown(body);
            let text = "Para one.\\n\\nPara two.\\n\\nPara three.\\n\\n";
            md.render(text); const first = body.firstChild;
            for (let i = 0; i < 20; i++) { text += "word" + i + " "; md.render(text); }
            return { same: body.firstChild === first, firstText: first.textContent, blocks: body.children.length };
          };`,
        resolveDir: process.cwd(),
        loader: "ts",
      },
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      target: "es2022",
      logLevel: "error",
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage();
    await page.setContent("<!doctype html><body></body>");
    await page.addScriptTag({ content: out.outputFiles[0]!.text });
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, text] of Object.entries(DOCS)) {
    it(`draws "${name}" as the whole text draws, after every chunk`, async () => {
      for (const sizes of [[1], [7], [24], [3, 11, 2, 40, 5]]) {
        const diffs = await page.evaluate(([t, s]) => (window as unknown as { __stream: (t: string, s: number[]) => unknown[] }).__stream(t, s), [text, sizes] as const);
        expect(diffs, `chunks of ${sizes.join(",")}`).toEqual([]);
      }
    });
  }

  it("keeps the blocks that are final: the first paragraph's node is not drawn again as text arrives", async () => {
    const r = await page.evaluate(() => (window as unknown as { __kept: () => { same: boolean; firstText: string; blocks: number } }).__kept());
    expect(r).toEqual({ same: true, firstText: "Para one.", blocks: 4 });
  });
});
