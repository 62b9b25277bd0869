// Permissions in a real VS Code: a command that asks shows the permission card (again after a
// window reload), "Always allow" writes the proposed rule to .yoke/settings.local.json and runs the
// command; a PreToolUse hook from .claude/settings.json blocks `rm`, and the model is told why.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedServer, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

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
  const vs = useYokeVscode({ name: "permissions", model: { script }, eachTestStartsIdle: true });

  it("asks for a command again after a window reload, and Always allow writes the rule and runs it", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    let frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await expect.poll(() => frame.locator("[data-testid=mode]").inputValue(), { timeout: 30_000 }).toBe("default");

    await sendPrompt(frame, "run the tests");
    let card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 60_000 });
    expect(await card.textContent()).toContain(TEST_COMMAND);
    expect(await card.getAttribute("data-tool")).toBe("run_command");
    await shot("ask-card");
    const requestsBefore = llm.requests.length;

    // The question survives a window reload: the panel resumes the session and asks again.
    frame = await vs.reloadWindow();
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

    const local = JSON.parse(readFileSync(vs.path(".yoke/settings.local.json"), "utf8")) as { permissions?: { allow?: string[] } };
    expect(local.permissions?.allow).toContain(RULE);
    const results = runCommandResults(llm);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatch(/\[Exit code \d+ after [\d.]+ m?s\.\]/);
    const toolCard = frame.locator("[data-testid=tool-card][data-tool-name=run_command]").last();
    expect(await toolCard.locator("[data-testid=tool-decision]").textContent()).toBe("asked you: allowed");
    expect(await frame.locator("#yoke-root").textContent()).toContain(`added ${RULE}`);
  });

  it("blocks rm with a PreToolUse hook from .claude/settings.json and tells the model why", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("permissions-hook");
    writeFileSync(vs.path("x.txt"), "keep me\n");
    mkdirSync(vs.path(".claude"), { recursive: true });
    writeFileSync(
      vs.path(".claude/settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: `echo '${HOOK_MESSAGE}' >&2; exit 2` }] }] } }, null, 2),
    );
    const frame = await vs.openPanel();
    await frame.locator("[data-testid=new-session]").click();
    await sendPrompt(frame, "remove x.txt");
    await waitForAssistantText(frame, "Finished:", 90_000);
    await waitForState(frame, "done");
    await shot("denied-by-hook");

    expect(existsSync(vs.path("x.txt"))).toBe(true);
    const results = runCommandResults(llm);
    expect(results.at(-1)).toContain(HOOK_MESSAGE);
    const decision = frame.locator("[data-testid=tool-card][data-tool-name=run_command] [data-testid=tool-decision]").last();
    expect(await decision.textContent()).toBe(`denied by hook: ${HOOK_MESSAGE}`);

    // A malformed settings file is reported in the panel (its rules do not apply).
    writeFileSync(vs.path(".yoke/settings.json"), '{ "permissions": { "allow": "Bash" ');
    const problem = frame.locator("[data-testid=settings-problem]").first();
    await problem.waitFor({ timeout: 30_000 });
    expect(await problem.textContent()).toContain(".yoke/settings.json");
    await shot("settings-problem");
  });

  it("switches the permission mode from the command palette and from the panel header", async () => {
    const { page } = vs;
    const frame = await vs.openPanel();
    await vs.runCommand("Yoke: Switch Permission Mode");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "Plan (read-only)" }).first().click();
    await frame.locator("[data-testid=mode][data-mode=plan]").waitFor({ state: "attached", timeout: 15_000 });
    await expect.poll(() => frame.locator("[data-testid=mode]").inputValue(), { timeout: 30_000 }).toBe("plan");
    await frame.locator("[data-testid=mode]").selectOption("acceptEdits");
    await frame.locator("[data-testid=mode][data-mode=acceptEdits]").waitFor({ state: "attached", timeout: 15_000 });
  });
});
