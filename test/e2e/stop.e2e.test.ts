// Stop: a model that stalls mid-stream is cancelled from the panel, the panel says so, and the
// next prompt in the same session works (the model sees the earlier exchange).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { openWorkbench, openYokeView, screenshotter } from "./support/workbench";

/** The first prompt stalls after its first chunk; any later prompt is answered at once. */
function stallingScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  if (readExchange(req).userText.includes("stall")) return { text: "Thinking about it", hang: true };
  return { text: "Back again: the earlier request was stopped." };
}

describe("Stop in code-server", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script: stallingScript });
    server = await launchCodeServer({
      name: "stop",
      workspaceSettings: { "yoke.provider": "openai-compatible", "yoke.baseUrl": llm.openaiBaseUrl, "yoke.model": "scripted-e2e" },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("cancels a stalled stream with the stop button and answers the next prompt in the same session", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "stop");
    await openWorkbench(page, server.url);
    const frame = await openYokeView(page);

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
