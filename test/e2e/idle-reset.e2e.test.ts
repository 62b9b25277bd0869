// Tests that do not cascade: the first test leaves VS Code as a test that timed out half-way would
// (the agent still working on a stalled model stream, the command palette open, the plan mode on,
// a file edited and not saved); the next test starts from the idle state all the same
// (useYokeVscode's eachTestStartsIdle, support/idle.ts) and works as a person would expect.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  if (readExchange(req).userText.includes("Work until stopped")) return { text: "Working on it", hang: true };
  return { text: "Hello from a fresh session." };
}

describe("each end-to-end test starts idle", () => {
  const vs = useYokeVscode({ name: "idle-reset", model: { script }, userSettings: { "files.autoSave": "off" }, eachTestStartsIdle: true });

  it("(on purpose) ends with the agent working, the palette open, plan mode on and an unsaved edit", async () => {
    const page = vs.page;
    const shot = vs.screenshots("idle-reset-left-busy");
    expect(vs.lastReset?.openedWorkbench).toBe(true);
    const frame = await vs.openPanel();
    const mode = frame.locator("[data-testid=mode]");
    await mode.selectOption("plan");
    await expect.poll(() => mode.inputValue(), { timeout: 10_000 }).toBe("plan");

    // An edit the test never saves.
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget .quick-input-box input").fill("tides.ts");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "tides.ts" }).first().waitFor();
    await page.keyboard.press("Enter");
    const editor = page.locator(".editor-instance .monaco-editor", { hasText: "TIDAL_PERIOD_MS" }).first();
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("// not saved\n");
    await page.locator(".tab.dirty", { hasText: "tides.ts" }).waitFor({ timeout: 15_000 });

    const panel = await vs.openPanel();
    await sendPrompt(panel, "Work until stopped.");
    await panel.locator("[data-testid=stop]").waitFor({ state: "visible", timeout: 30_000 });
    await expect.poll(() => vs.llm.requests.length, { timeout: 30_000 }).toBe(1);
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget:not(.quick-input-widget-closing) .quick-input-box input").waitFor({ state: "visible", timeout: 15_000 });
    await shot("left-busy");
    // The Send button a next test would click is hidden: without the reset it would fail.
    expect(await panel.locator("[data-testid=send]").isVisible()).toBe(false);
  });

  it("starts from the idle state anyway: a new session, Send ready, the file's own mode, no palette, nothing unsaved", async () => {
    const page = vs.page;
    const shot = vs.screenshots("idle-reset-next");
    // What the reset found and undid.
    expect(vs.lastReset).toMatchObject({ openedWorkbench: false, stoppedRun: true, modeWas: "plan" });
    expect(vs.lastReset!.closedOverlays).toBeGreaterThanOrEqual(2); // the palette, then the save prompt
    expect(await page.locator(".quick-input-widget:not(.quick-input-widget-closing)").isVisible()).toBe(false);
    expect(await page.locator(".tab.dirty").count()).toBe(0);
    expect(readFileSync(vs.path("src/tides.ts"), "utf8")).not.toContain("// not saved");

    const frame = await vs.openPanel();
    expect(await frame.locator("[data-testid=mode]").inputValue()).toBe("default");
    expect(await frame.locator("[data-testid=message-user]").count()).toBe(0);
    await sendPrompt(frame, "Say hello.");
    await waitForAssistantText(frame, "Hello from a fresh session.");
    await frame.locator("[data-testid=send]:not([disabled])").waitFor({ state: "visible", timeout: 30_000 });
    await shot("answered");
    // The stalled request was left (Stop) and this one is a new conversation.
    expect(vs.llm.requests.length).toBe(2);
    expect(JSON.stringify(vs.llm.requests[1]?.body.messages)).not.toContain("Work until stopped");
  });
});
