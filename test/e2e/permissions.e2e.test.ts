// Permissions in a real VS Code: a command that asks shows the permission card (again after a
// window reload), "Always allow" writes the proposed rule to .yoke/settings.local.json and runs the
// command; a PreToolUse hook from .claude/settings.json blocks `rm`, and the model is told why.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { openWorkbench, openYokeView, runCommand, screenshotter, widenSideBar } from "./support/workbench";

const TEST_COMMAND = "npm run test -- --watch=false";
const RULE = "Bash(npm run test:*)";
const HOOK_MESSAGE = "no rm here";

/** "run the tests" → run_command npm test; "remove x.txt" → run_command rm x.txt; then say what happened. */
function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const step = ex.steps.find((s) => s.name === "run_command");
  const command = ex.userText.includes("remove") ? "rm x.txt" : TEST_COMMAND;
  if (!step) return { text: `Running ${command}.`, toolCalls: [{ name: "run_command", input: { command } }] };
  return { text: `Finished: ${step.output.split("\n").at(-1) ?? ""}` };
}

/** The run_command results the model received, in order. */
function runCommandResults(llm: ScriptedServer): string[] {
  const out: string[] = [];
  for (const req of llm.requests) {
    for (const s of readExchange(req).steps) if (s.name === "run_command" && !out.includes(s.output)) out.push(s.output);
  }
  return out;
}

describe("permissions in code-server", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script });
    server = await launchCodeServer({
      name: "permissions",
      workspaceSettings: {
        "yoke.provider": "openai-compatible",
        "yoke.baseUrl": llm.openaiBaseUrl,
        "yoke.model": "scripted-e2e",
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("asks for a command again after a window reload, and Always allow writes the rule and runs it", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "permissions");
    await openWorkbench(page, server.url);
    let frame = await openYokeView(page);
    await widenSideBar(page, 560);
    expect(await frame.locator("[data-testid=mode]").inputValue()).toBe("default");

    await sendPrompt(frame, "run the tests");
    let card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain(TEST_COMMAND);
    expect(await card.getAttribute("data-tool")).toBe("run_command");
    await shot("ask-card");
    const requestsBefore = llm.requests.length;

    // The question survives a window reload: the panel resumes the session and asks again.
    await runCommand(page, "Developer: Reload Window");
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    frame = await openYokeView(page);
    card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain(TEST_COMMAND);
    expect(llm.requests.length).toBe(requestsBefore); // asked again from the log, not from the model
    const always = frame.locator("[data-testid=always-allow]");
    expect(await always.textContent()).toContain(RULE);
    await shot("ask-card-after-reload");

    await always.click();
    await waitForAssistantText(frame, "Finished:", 90_000);
    await waitForState(frame, "done");
    await shot("always-allowed");

    const local = JSON.parse(readFileSync(join(server.workspace, ".yoke", "settings.local.json"), "utf8")) as { permissions?: { allow?: string[] } };
    expect(local.permissions?.allow).toContain(RULE);
    const results = runCommandResults(llm);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/\[Exit code \d+ after [\d.]+ m?s\.\]/);
    const toolCard = frame.locator("[data-testid=tool-card][data-tool-name=run_command]").last();
    expect(await toolCard.locator("[data-testid=tool-decision]").textContent()).toBe("asked you: allowed");
    expect(await frame.locator("#yoke-root").textContent()).toContain(`added ${RULE}`);
  });

  it("blocks rm with a PreToolUse hook from .claude/settings.json and tells the model why", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "permissions-hook");
    writeFileSync(join(server.workspace, "x.txt"), "keep me\n");
    mkdirSync(join(server.workspace, ".claude"), { recursive: true });
    writeFileSync(
      join(server.workspace, ".claude", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${HOOK_MESSAGE}' >&2; exit 2` }] }] } }, null, 2),
    );
    const frame = await openYokeView(page);
    await frame.locator("[data-testid=new-session]").click();
    await sendPrompt(frame, "remove x.txt");
    await waitForAssistantText(frame, "Finished:", 90_000);
    await waitForState(frame, "done");
    await shot("denied-by-hook");

    expect(existsSync(join(server.workspace, "x.txt"))).toBe(true);
    const results = runCommandResults(llm);
    expect(results.at(-1)).toContain(HOOK_MESSAGE);
    const decision = frame.locator("[data-testid=tool-card][data-tool-name=run_command] [data-testid=tool-decision]").last();
    expect(await decision.textContent()).toBe(`denied by hook: ${HOOK_MESSAGE}`);

    // A malformed settings file is reported in the panel (its rules do not apply).
    writeFileSync(join(server.workspace, ".yoke", "settings.json"), '{ "permissions": { "allow": "Bash" ');
    const problem = frame.locator("[data-testid=settings-problem]").first();
    await problem.waitFor({ timeout: 30_000 });
    expect(await problem.textContent()).toContain(".yoke/settings.json");
    await shot("settings-problem");
  });

  it("switches the permission mode from the command palette and from the panel header", async () => {
    const page = browser.page;
    const frame = await openYokeView(page);
    await runCommand(page, "Yoke: Set Permission Mode");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Plan (read-only)" }).first().click();
    await frame.locator("[data-testid=mode][data-mode=plan]").waitFor({ state: "attached", timeout: 15_000 });
    expect(await frame.locator("[data-testid=mode]").inputValue()).toBe("plan");
    await frame.locator("[data-testid=mode]").selectOption("acceptEdits");
    await frame.locator("[data-testid=mode][data-mode=acceptEdits]").waitFor({ state: "attached", timeout: 15_000 });
  });
});
