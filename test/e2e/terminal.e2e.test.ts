// Commands in a real VS Code: a long command is mirrored live into the "Yoke" terminal, Ctrl+C typed
// there interrupts it and the model is told; a background command is listed in the panel, has its
// own "Yoke: <command>" terminal, and the panel's stop button kills it.
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const TICKS = "for i in $(seq 1 200); do echo tick $i; sleep 1; done";
const BACKGROUND = "sleep 300";

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const step = ex.steps.find((s) => s.name === "run_command");
  const background = ex.userText.includes("background");
  if (!step) {
    return { text: "Starting it.", toolCalls: [{ name: "run_command", input: background ? { command: BACKGROUND, background: true } : { command: TICKS } }] };
  }
  return { text: `Finished: ${step.output.trim().split("\n").at(-1) ?? ""}` };
}

/** The visible text of the terminal panel's rows (xterm's DOM renderer). */
async function terminalText(page: Page): Promise<string> {
  return ((await page.locator(".terminal-wrapper.active .xterm-rows").first().textContent()) ?? "").replace(/\u00a0/g, " ");
}

async function waitForTerminalText(page: Page, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = "";
  while (Date.now() < deadline) {
    text = await terminalText(page).catch(() => "");
    if (pattern.test(text)) return text;
    await page.waitForTimeout(200);
  }
  throw new Error(`the terminal did not show ${pattern} within ${timeoutMs} ms; it shows:\n${text}`);
}

describe("commands mirrored into VS Code terminals", () => {
  const vs = useYokeVscode({
    name: "terminal",
    model: { script },
    // A looser mode counts only from the user's own settings (a workspace's may only tighten).
    // xterm's DOM renderer, so the terminal's text is in the page.
    userSettings: { "yoke.permissionMode": "acceptEdits", "terminal.integrated.gpuAcceleration": "off" },
    eachTestStartsIdle: true,
  });

  it("shows a running command live in the Yoke terminal and stops it on Ctrl+C typed there", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(520);
    await expect.poll(() => frame.locator("[data-testid=mode]").inputValue(), { timeout: 30_000 }).toBe("acceptEdits");

    await sendPrompt(frame, "print ticks");
    // The terminal opens by itself, without taking the focus from the panel.
    await page.locator(".terminal-tab, .single-terminal-tab, .tabs-list .monaco-list-row", { hasText: "Yoke" }).first().waitFor({ timeout: 60_000 });
    // 13 rows show 12 s of ticks: the command line is still on screen when the first ticks are
    // (a loaded machine can take several seconds to paint the terminal).
    const text = await waitForTerminalText(page, /tick \d+\b/, 60_000);
    expect(text).toContain(`$ ${TICKS}`);
    expect(await frame.locator("[data-testid=sandbox]").textContent()).toBe("bwrap · network off");
    await shot("ticking");

    await page.locator(".terminal-wrapper .xterm").first().click();
    await page.keyboard.press("Control+C");
    await waitForAssistantText(frame, "Finished:", 30_000);
    await waitForState(frame, "done");
    const after = await waitForTerminalText(page, /\[interrupted · (SIGINT|exit \d+) · [\d.]+ m?s\]/);
    expect(after).not.toContain("tick 200");
    await shot("interrupted");

    const result =
      llm.requests
        .map(readExchange)
        .flatMap((ex) => ex.steps)
        .find((s) => s.name === "run_command")?.output ?? "";
    expect(result).toContain("tick 1");
    // The text of src/core/commands/result-text.ts statusText for an interrupted command.
    expect(result).toMatch(/\[Interrupted by the user \(Ctrl\+C\) after [\d.]+ m?s; (exit code 130|signal SIGINT)\.\]$/);
  });

  it("lists a background command in the panel and stops it from there", async () => {
    const { page } = vs;
    const shot = vs.screenshots("terminal-background");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "start a background sleep");
    const row = frame.locator("[data-testid=background-process]");
    await row.waitFor({ timeout: 60_000 });
    expect(await row.textContent()).toContain(BACKGROUND);
    await page
      .locator(".tabs-list .monaco-list-row, .terminal-tab", { hasText: `Yoke: ${BACKGROUND}` })
      .first()
      .waitFor({ timeout: 30_000 });
    await waitForState(frame, "done");
    await shot("listed");
    await row.locator("[data-testid=kill-process]").click();
    await row.waitFor({ state: "detached", timeout: 30_000 });
    await shot("stopped");
  });
});
