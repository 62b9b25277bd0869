// Sessions: "New session" clears the panel, the history lists both sessions, and opening the
// first one shows its conversation again; sending there continues it with its whole context.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

/** Echoes the prompt, so each answer names the session it belongs to. */
function echoScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  return { text: `Noted: ${readExchange(req).userText}` };
}

describe("session history in code-server", () => {
  const vs = useYokeVscode({ name: "history", model: { script: echoScript } });

  it("starts a new session, lists both, and reopens and continues the first", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();

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
