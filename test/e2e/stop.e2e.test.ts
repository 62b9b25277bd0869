// Stop: a model that stalls mid-stream is cancelled from the panel, the panel says so, and the
// next prompt in the same session works (the model sees the earlier exchange).
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

/** The first prompt stalls after its first chunk; any later prompt is answered at once. */
function stallingScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  if (readExchange(req).userText.includes("stall")) return { text: "Thinking about it", hang: true };
  return { text: "Back again: the earlier request was stopped." };
}

describe("Stop in code-server", () => {
  const vs = useYokeVscode({ name: "stop", model: { script: stallingScript } });

  it("cancels a stalled stream with the stop button and answers the next prompt in the same session", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    await sendPrompt(frame, "Please stall for a while.");
    const stop = frame.locator("[data-testid=stop]");
    await stop.waitFor({ state: "visible", timeout: 30_000 });
    await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBe(1);
    await shot("running");
    await stop.click();

    const status = frame.locator("[data-testid=status]");
    await expect.poll(() => status.getAttribute("data-state"), { timeout: 30_000 }).toBe("cancelled");
    await stop.waitFor({ state: "hidden", timeout: 10_000 });
    await shot("cancelled");

    await sendPrompt(frame, "Are you there?");
    await waitForAssistantText(frame, "Back again");
    await shot("continued");
    expect(llm.requests.length).toBe(2);
    const second = JSON.stringify(llm.requests[1]?.body.messages);
    expect(second).toContain("Please stall for a while.");
    expect(second).toContain("Are you there?");
  });
});
