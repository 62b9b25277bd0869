// Sessions: "New session" clears the panel, the history lists both sessions, and opening the
// first one shows its conversation again; sending there continues it with its whole context.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { openWorkbench, openYokeView, screenshotter } from "./support/workbench";

/** Echoes the prompt, so each answer names the session it belongs to. */
function echoScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  return { text: `Noted: ${readExchange(req).userText}` };
}

describe("session history in code-server", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script: echoScript });
    server = await launchCodeServer({
      name: "history",
      workspaceSettings: { "yoke.provider": "openai-compatible", "yoke.baseUrl": llm.openaiBaseUrl, "yoke.model": "scripted-e2e" },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("starts a new session, lists both, and reopens and continues the first", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "history");
    await openWorkbench(page, server.url);
    const frame = await openYokeView(page);

    await sendPrompt(frame, "alpha session");
    await waitForAssistantText(frame, "Noted: alpha session");
    await waitForState(frame, "done");

    await frame.locator("[data-testid=new-session]").first().click();
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual([]);
    await sendPrompt(frame, "beta session");
    await waitForAssistantText(frame, "Noted: beta session");
    await waitForState(frame, "done");
    expect(await texts(frame, "message-user")).toEqual(["beta session"]);

    const history = frame.locator("[data-testid=history]");
    await history.locator("summary").click();
    const items = frame.locator("[data-testid=session-item]");
    await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(2);
    await shot("history-open");
    await items.filter({ hasText: "alpha session" }).first().click();
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual(["alpha session"]);
    await shot("alpha-reopened");

    await sendPrompt(frame, "alpha again");
    await waitForAssistantText(frame, "Noted: alpha again");
    await waitForState(frame, "done");
    expect(await texts(frame, "message-user")).toEqual(["alpha session", "alpha again"]);
    const last = JSON.stringify(llm.requests.at(-1)?.body.messages);
    expect(last).toContain("alpha session");
    expect(last).not.toContain("beta session");
    await shot("alpha-continued");
  });
});
