// The panel's MCP view shows a server's last log messages (MCP logging), in a real VS Code
// (code-server): a real stdio server made of the MCP SDK's McpServer (test/support/mcp-log-server.mjs)
// logs a message with an ANSI escape and a bidi override (U+202E) and one with a newline while the
// scripted model calls its tool. The view lists both under the server, each escape drawn as marked
// text (`\x1b`, `\u202e` in a `shown-escape` span) and no raw control character anywhere it shows.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const SERVER = require.resolve("../support/mcp-log-server.mjs");
const TOOL = "mcp__logger__shout";
/** A raw ESC or U+202E in text the person reads. */
const raw = (text: string | null) => (text ?? "").includes("\u001b") || (text ?? "").includes("\u202e");

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const step = readExchange(req).steps.find((s) => s.name === TOOL);
  if (!step) return { text: "Calling the logger.", toolCalls: [{ name: TOOL, input: {} }] };
  return { text: `The logger said: ${step.output}` };
}

describe("an MCP server's log in the panel's MCP view", () => {
  const vs = useYokeVscode({
    name: "mcp-logs",
    model: { script },
    files: {
      ".mcp.json": JSON.stringify({ mcpServers: { logger: { command: process.execPath, args: [SERVER] } } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["logger"] }),
    },
  });

  it("shows the server's log lines with the ANSI escape and the bidi override as marked text, nothing raw", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(640);
    await sendPrompt(frame, "shout through MCP");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 90_000 });
    expect(await card.getAttribute("data-tool")).toBe(TOOL);
    await frame.locator("[data-testid=allow-once]").click();
    await waitForAssistantText(frame, "The logger said: shouted", 90_000);
    await waitForState(frame, "done");

    const panel = frame.locator("[data-testid=mcp-servers]");
    await panel.locator("summary").first().click();
    const row = panel.locator("[data-testid=mcp-server][data-name=logger]");
    expect(await row.getAttribute("data-state")).toBe("running");
    await row.locator("summary").click();
    const lines = row.locator("[data-testid=mcp-log]");
    await expect.poll(() => lines.count(), { timeout: 30_000 }).toBe(2);
    await shot("mcp-logs");

    // The first: level, then the text with each ESC and the override as a marked escape, in order.
    const first = lines.nth(0);
    expect(await first.innerText()).toMatch(/^\d\d:\d\d:\d\d warning \\x1b\[31mALARM\\x1b\[0m\\x1b\[2K all clear #\\u202e ssenisub$/);
    const escapes = first.locator("[data-testid=shown-escape]");
    expect(await escapes.allInnerTexts()).toEqual(["\\x1b", "\\x1b", "\\x1b", "\\u202e"]);
    expect(await escapes.nth(3).getAttribute("title")).toContain("U+202E");
    // The override does not reverse what follows it: " ssenisub" is drawn left to right after its box.
    const order = await first.evaluate((li) => {
      const box = li.querySelectorAll(".shown-escape")[3]!.getBoundingClientRect().right;
      const text = [...li.childNodes].at(-1)!;
      const xs: number[] = [];
      for (let k = 0; k < (text.textContent ?? "").length; k++) {
        const r = document.createRange();
        r.setStart(text, k);
        r.setEnd(text, k + 1);
        xs.push(r.getBoundingClientRect().left);
      }
      return { box, xs, text: text.textContent };
    });
    expect(order.text).toBe(" ssenisub");
    for (let k = 1; k < order.xs.length; k++) expect(order.xs[k]!).toBeGreaterThan(order.xs[k - 1]!);
    expect(order.box).toBeLessThanOrEqual(order.xs[0]! + 1);

    // The second: one entry of the list (its newline does not make a row of its own).
    expect(await lines.nth(1).textContent()).toMatch(/^\d\d:\d\d:\d\d info first line\nsecond line$/);
    // Its second line is drawn indented past where every entry starts (a hanging indent): a logged
    // "\n12:00:00 error …" cannot pass for an entry of its own.
    const starts = await lines.nth(1).evaluate((li) => {
      const left = (node: Node, k: number) => {
        const r = document.createRange();
        r.setStart(node, k);
        r.setEnd(node, k + 1);
        return r.getBoundingClientRect().left;
      };
      const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      const withBreak = nodes.find((n) => n.data.includes("\n"))!;
      return { entry: left(nodes[0]!, 0), continued: left(withBreak, withBreak.data.indexOf("\n") + 1) };
    });
    expect(starts.continued).toBeGreaterThan(starts.entry + 4);
    // Nothing raw anywhere in the view.
    expect(raw(await panel.innerText())).toBe(false);
    expect(raw(await panel.textContent())).toBe(false);
  });
});
