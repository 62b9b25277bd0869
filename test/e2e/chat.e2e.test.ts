// A chat turn in a real VS Code: the panel sends a prompt, the (scripted) model reads README.md
// with read_file, the answer streams into the panel, and everything survives a window reload.
import { beforeAll, describe, expect, it } from "vitest";
import { formatHashline, hashlineReady } from "../../src/core/edit/hashline";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { expandToolCard, lastAssistantText, sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const ANSWER = "The README describes tidewatch, which predicts the next high tide using the 12 h 25 min lunar period.";

/** First turn: read README.md. Once its result is in the request: answer from it. */
function readmeScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const read = readExchange(req).steps.find((s) => s.name === "read_file");
  if (!read) return { text: "Let me read the README first.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] };
  return { text: ANSWER, chunkDelayMs: 80 }; // about ten chunks: a second of visible streaming
}

describe("chat panel in code-server", () => {
  beforeAll(() => hashlineReady());
  const vs = useYokeVscode({ name: "chat", model: { script: readmeScript } });

  it("streams an answer after a read_file tool call and keeps the conversation across a window reload", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    // README.md open in the editor: what a person would look at while asking about it.
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "README.md" }).first().click();
    await page.locator(".editor-instance .view-lines", { hasText: "tidewatch" }).first().waitFor({ timeout: 30_000 });
    let frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await shot("panel-open");

    await sendPrompt(frame, "What does this project do?");
    await frame.locator("[data-testid=message-user]", { hasText: "What does this project do?" }).waitFor();
    // The answer streams: a partial message is on screen before the run is done.
    const streaming = frame.locator("[data-testid=message-assistant].streaming", { hasText: "The README" }).first();
    await streaming.waitFor({ state: "visible", timeout: 60_000 });
    const partial = ((await streaming.textContent()) ?? "").trim();
    expect(partial.length).toBeGreaterThan(0);
    expect(ANSWER.startsWith(partial)).toBe(true);
    await shot("streaming");
    await waitForAssistantText(frame, "12 h 25 min lunar period");
    await waitForState(frame, "done");
    expect((await lastAssistantText(frame)).trim()).toBe(ANSWER);
    await shot("answered");

    // The tool card shows the hashline view of README.md.
    const output = await expandToolCard(frame, "read_file");
    const firstLine = formatHashline(1, "# tidewatch");
    expect(firstLine).toMatch(/^1#[ZPMQVRWSNKTXJBYH]{2}\|# tidewatch$/);
    expect(output.split("\n")).toContain(firstLine);
    await shot("tool-card-expanded");

    // The model received the same view as the tool result.
    const withResult = llm.requests.map(readExchange).find((ex) => ex.steps.some((s) => s.name === "read_file"));
    const toolResult = withResult?.steps.find((s) => s.name === "read_file")?.output ?? "";
    expect(toolResult.split("\n")).toContain(firstLine);
    expect(toolResult).toContain("|Known gap: spring/neap variation is ignored");
    expect(llm.requests[0]?.body.model).toBe("scripted-e2e");

    // What the turn cost, under its control: 2 requests (the read_file call and the answer), tokens and the cache's share.
    const turnCost = frame.locator("[data-testid=turn-cost]").first();
    await turnCost.waitFor({ timeout: 30_000 });
    expect(await turnCost.textContent()).toMatch(/^[\d.]+k? in \(\d+% cached\) · \d+ out · (price unknown|\$[\d.]+) · 2 requests$/);
    expect(await turnCost.getAttribute("title")).toContain("Tool results (estimated tokens): read_file 1×");

    const before = {
      user: await texts(frame, "message-user"),
      assistant: await texts(frame, "message-assistant"),
      usage: await texts(frame, "usage-meter"),
      turnCost: await texts(frame, "turn-cost"),
    };
    const requestsBefore = llm.requests.length;

    frame = await vs.reloadWindow();
    await frame.locator("[data-testid=message-assistant]", { hasText: "12 h 25 min lunar period" }).waitFor({ timeout: 30_000 });
    await shot("after-reload");
    expect(await texts(frame, "message-user")).toEqual(before.user);
    expect(await texts(frame, "message-assistant")).toEqual(before.assistant);
    expect(await texts(frame, "usage-meter")).toEqual(before.usage);
    expect(await texts(frame, "turn-cost")).toEqual(before.turnCost);
    expect(await frame.locator("[data-testid=tool-card][data-tool-name=read_file]").count()).toBe(1);
    expect(llm.requests.length).toBe(requestsBefore); // restored from the session log, not re-asked
  });
});
