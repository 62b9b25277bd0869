// Custom slash commands in code-server (issue 23): typing `/` in the panel's composer lists the
// workspace's commands with their descriptions and argument hints; the one chosen from the keyboard,
// with its argument, is expanded by the session, and the expansion is what reaches the model.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const COMMAND = ["---", "description: Tell the tide of a day", "argument-hint: <day>", "---", "Give the high water of $0 from the tide table. TIDE-CMD-MARKER"].join("\n");

const allText = (req: RecordedRequest) => JSON.stringify(req.body.messages);

async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  // The project command with allowed-tools: two writes, then the answer (checked first: later tests' sessions carry earlier messages).
  if (allText(req).includes("NOTES-RUN-MARKER")) {
    if (allText(req).includes("run-b.md")) return { text: "Both notes written." };
    if (allText(req).includes("run-a.md")) return { toolCalls: [{ name: "run_command", input: { command: "touch run-b.md" } }] };
    return { toolCalls: [{ name: "run_command", input: { command: "touch run-a.md" } }] };
  }
  // The second test's session carries the first one's messages: its own marker first.
  if (allText(req).includes("FORM-PROMPT-MARKER")) return { text: "The form prompt ran." };
  if (allText(req).includes("STAMP-OUTPUT-77")) return { text: "The stamp line ran." };
  if (allText(req).includes("Give the high water of Monday from the tide table. TIDE-CMD-MARKER")) return { text: "The tide command ran for Monday." };
  return { text: "unexpected prompt" };
}

describe("custom slash commands in code-server", () => {
  const vs = useYokeVscode({
    name: "custom-commands",
    model: { script },
    eachTestStartsIdle: true,
    files: {
      ".claude/commands/tide.md": COMMAND,
      ".claude/commands/other.md": "Another command.",
      ".claude/commands/stamp.md": "Stamped: !`touch stamped-by-command.txt && echo STAMP-OUTPUT-77`",
      // A Copilot prompt file: the panel asks for its ${input:…} in an input box.
      // A project command whose allowed-tools the user is asked about once for the run.
      ".claude/commands/notes.md": "---\nallowed-tools: Bash(touch:*)\n---\nMake the two notes. NOTES-RUN-MARKER",
      ".github/prompts/form.prompt.md":
        "---\ndescription: Plan a form\nmode: ask\n---\nPlan a form with the fields ${input:fields:a comma-separated list}. Selection: ${selection}. FORM-PROMPT-MARKER",
    },
  });

  it("/ lists the commands with description and hint; the chosen one with its argument is expanded for the model, the transcript shows what was typed", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("custom-commands");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.click();
    await input.pressSequentially("/ti");
    const item = frame.locator("[data-testid=mention-item]", { hasText: "/tide" });
    await item.waitFor({ state: "visible", timeout: 30_000 });
    expect(await item.textContent()).toContain("<day> — Tell the tide of a day — (project)");
    expect(await frame.locator("[data-testid=mention-item]", { hasText: "/other" }).count()).toBe(0);
    await shot("completion");
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("/tide ");
    await input.pressSequentially("Monday");
    await input.press("Enter");
    await waitForAssistantText(frame, "The tide command ran for Monday.");
    await waitForState(frame, "done");
    await frame.locator("[data-testid=message-user]", { hasText: "/tide Monday" }).waitFor({ timeout: 10_000 });
    await shot("answered");
    const req = llm.requests.find((r) => allText(r).includes("TIDE-CMD-MARKER"));
    expect(req).toBeDefined();
    // Claude Code's positional arguments are 0-based today ($0 the first, as $ARGUMENTS[0]).
    expect(allText(req!)).toContain("Give the high water of Monday from the tide table.");
    expect(allText(req!)).not.toContain("$0");
  });

  it("a `!` line the engine asks about shows the permission card in the panel; Allow once runs it before the message is sent", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("custom-commands-bang");
    const frame = await vs.openPanel();
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.fill("/stamp");
    await input.press("Enter");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ state: "visible", timeout: 30_000 });
    expect(await card.textContent()).toContain("touch stamped-by-command.txt");
    expect(existsSync(join(vs.workspace, "stamped-by-command.txt"))).toBe(false);
    await shot("card");
    await card.locator("[data-testid=allow-once]").click();
    await waitForAssistantText(frame, "The stamp line ran.");
    expect(existsSync(join(vs.workspace, "stamped-by-command.txt"))).toBe(true);
    // The line's output took its place (not a "was not run" note, which would also name the marker).
    expect(allText(llm.requests.at(-1)!)).toContain("Stamped: ");
    expect(allText(llm.requests.at(-1)!)).not.toContain("was not run");
  });

  it("a Copilot prompt file's ${input:…} the message does not give is asked in an input box; the answer, not a placeholder, reaches the model", async () => {
    const { llm, page } = vs;
    const shot = vs.screenshots("custom-commands");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.fill("/form");
    await input.press("Enter");
    const box = page.locator(".quick-input-widget .quick-input-box input");
    await box.waitFor({ state: "visible", timeout: 60_000 });
    expect(await box.getAttribute("placeholder")).toBe("a comma-separated list");
    await shot("copilot-input-box");
    await box.fill("email, password");
    await box.press("Enter");
    await waitForAssistantText(frame, "The form prompt ran.", 90_000);
    await waitForState(frame, "done");
    const req = llm.requests.find((r) => allText(r).includes("FORM-PROMPT-MARKER"));
    expect(allText(req!)).toContain("Plan a form with the fields email, password.");
    expect(allText(req!)).not.toContain("not given");
    expect(allText(req!)).toContain("for this request use only these tools:");
  });

  it("a project command's allowed-tools: the card offers Allow for this run / Ask each time (no Allow once); allowed, both commands of the run run with no other card", async () => {
    const shot = vs.screenshots("custom-commands-for-run");
    const frame = await vs.openPanel();
    const input = frame.locator("[data-testid=prompt-input]");
    await input.waitFor({ state: "visible", timeout: 30_000 });
    await input.fill("/notes");
    await input.press("Enter");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ state: "visible", timeout: 60_000 });
    expect(await card.getAttribute("data-scope")).toBe("run");
    expect(await card.textContent()).toContain("this command asks for: Bash(touch:*)");
    const buttons = await card.locator(".permission-actions > vscode-button").evaluateAll((bs) => bs.map((b) => b.textContent?.trim()));
    expect(buttons).toEqual(["Allow for this run", "Ask each time"]);
    expect(await frame.locator("[data-testid=allow-once]").count()).toBe(0);
    expect(existsSync(join(vs.workspace, "run-a.md"))).toBe(false);
    await shot("card");
    await card.locator("[data-testid=allow-run]").click();
    await waitForAssistantText(frame, "Both notes written.", 90_000);
    await waitForState(frame, "done");
    // What was clicked is what happened: both commands of the run, one question.
    expect(existsSync(join(vs.workspace, "run-a.md"))).toBe(true);
    expect(existsSync(join(vs.workspace, "run-b.md"))).toBe(true);
    expect(await frame.locator("[data-testid=permission-card]").count()).toBe(0);
  });
});
