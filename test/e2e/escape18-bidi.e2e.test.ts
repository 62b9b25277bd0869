// Issue 18: a command with a bidi override (U+202E) in the approval card shows what runs, not
// what the override draws. Raw, `cat notes.txt #‮ txt.seton f- mr ;` would be drawn with its
// tail reversed; the person must see the escape `\u202e` in a marked box and the text after it
// in its real order — in the card, in the tool call's header, after answering. Deny: nothing ran.
import { existsSync, writeFileSync } from "node:fs";
import type { Frame } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const RLO = "\u202e";
// Runs `cat notes.txt` and `rm -f notes.txt`; the override only changes how the comment after `#` is drawn.
const COMMAND = `cat notes.txt; rm -f notes.txt #${RLO} ssenisub ylno`;
const SHOWN = "cat notes.txt; rm -f notes.txt #\\u202e ssenisub ylno";

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const step = ex.steps.find((s) => s.name === "run_command");
  if (!step) return { text: "Looking at the notes.", toolCalls: [{ name: "run_command", input: { command: COMMAND } }] };
  return { text: `Result: ${step.output.split("\n")[0] ?? ""}` };
}

/**
 * Where the browser draws each character of `needle` inside the first element matching `selector`:
 * x of each, in text order, and the right edge of the element's escape box (the frame's coordinates).
 */
async function drawnX(frame: Frame, selector: string, needle: string): Promise<{ xs: number[]; escapeRight: number }> {
  return frame.evaluate(
    ([sel, text]) => {
      const root = document.querySelector(sel);
      if (!root) return { xs: [], escapeRight: NaN };
      const escapeRight = root.querySelector(".shown-escape")?.getBoundingClientRect().right ?? NaN;
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const at = (n as Text).data.indexOf(text);
        if (at < 0) continue;
        const xs: number[] = [];
        for (let k = 0; k < text.length; k++) {
          const r = document.createRange();
          r.setStart(n, at + k);
          r.setEnd(n, at + k + 1);
          xs.push(r.getBoundingClientRect().left);
        }
        return { xs, escapeRight };
      }
      return { xs: [], escapeRight };
    },
    [selector, needle] as const,
  );
}

describe("bidi controls in code-server", () => {
  const vs = useYokeVscode({ name: "escape18-bidi", model: { script } });

  it("the approval card of a command with U+202E shows the escape and the text in its real order; Deny runs nothing", async () => {
    const shot = vs.screenshots();
    writeFileSync(vs.path("notes.txt"), "keep me\n");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(640);
    await sendPrompt(frame, "read the notes");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 60_000 });

    // What the person reads: the escape, in a marked box, and no raw override anywhere in the card.
    const summary = card.locator(".permission-summary");
    const seen = await summary.innerText();
    expect(seen).toBe(SHOWN);
    expect(await card.innerText()).not.toContain(RLO);
    const escape = summary.locator("[data-testid=shown-escape]");
    expect(await escape.count()).toBe(1);
    expect(await escape.innerText()).toBe("\\u202e");
    expect(await escape.getAttribute("title")).toContain("U+202E");
    // The reason quotes the command too (with the same escape), and the arguments' JSON.
    expect(await card.locator(".permission-reason").innerText()).not.toContain(RLO);
    expect(await card.locator(".permission-detail pre").textContent()).not.toContain(RLO);
    // Drawn left to right in the order it runs: "ssenisub" after the escape is not reversed into "business".
    const { xs, escapeRight } = await drawnX(frame, "[data-testid=permission-card] .permission-summary", " ssenisub ylno");
    expect(xs.length).toBe(" ssenisub ylno".length);
    for (let k = 1; k < xs.length; k++) expect(xs[k]!, `character ${k} of " ssenisub ylno" is drawn after the one before`).toBeGreaterThan(xs[k - 1]!);
    // …and after the escape box, which stands where the override was.
    expect(escapeRight).toBeLessThanOrEqual(xs[0]! + 1);
    await shot("bidi-card");

    // The tool call's header shows the same.
    const header = frame.locator("[data-testid=tool-card][data-tool-name=run_command] .tool-summary").last();
    expect(await header.innerText()).toContain("\\u202e");
    expect(await header.innerText()).not.toContain(RLO);

    await card.locator("[data-testid=deny]").click();
    await waitForAssistantText(frame, "Result:", 90_000);
    await waitForState(frame, "done");
    await shot("bidi-denied");
    expect(existsSync(vs.path("notes.txt"))).toBe(true);
    expect(await header.innerText()).toContain("\\u202e");
    // The transcript as a whole: no raw override anywhere the person reads.
    expect(await frame.locator("#yoke-root").innerText()).not.toContain(RLO);
  });
});
