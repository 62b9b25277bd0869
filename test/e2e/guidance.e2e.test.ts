// Guidance in the panel (issue 11): the lessons and rules in force are listed with why; muting
// one is remembered; "Yoke: Add to Project Memory" appends to AGENTS.md.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

describe("guidance in code-server", () => {
  const vs = useYokeVscode({
    name: "guidance",
    model: { script: () => ({ text: "Noted: rerun with a fixed seed." }) },
    files: {
      ".yoke/lessons/flaky.md": "---\nmatch:\n  keywords: ['flak*']\n---\n# Flaky tests\nFLAKY-LESSON: rerun with a fixed seed before changing code.\n",
      ".cursor/rules/style.mdc": "---\nalwaysApply: true\n---\nSTYLE-RULE: keep answers short.\n",
    },
  });

  it("lists the active lesson and rule with their reasons, mutes one, and adds to project memory", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "the flaky test failed again");
    await waitForAssistantText(frame, "fixed seed");
    await waitForState(frame, "done");

    // The model received both, appended after the user's message.
    const body = JSON.stringify(llm.requests.at(-1)!.body);
    expect(body).toContain("FLAKY-LESSON");
    expect(body).toContain("STYLE-RULE");

    const lesson = frame.locator('[data-testid=guidance-item][data-id="lesson:.yoke/lessons/flaky.md"]');
    await lesson.waitFor({ state: "visible", timeout: 30_000 });
    expect(await lesson.locator("[data-testid=guidance-reason]").textContent()).toBe('keyword "flak*"');
    expect(await lesson.getAttribute("data-state")).toBe("active");
    const rule = frame.locator('[data-testid=guidance-item][data-id="rule:.cursor/rules/style.mdc"]');
    expect(await rule.locator("[data-testid=guidance-reason]").textContent()).toBe("always");
    await shot("active-guidance");

    await lesson.locator("[data-testid=guidance-mute]").click();
    await expect.poll(() => lesson.getAttribute("data-muted"), { timeout: 15_000 }).toBe("true");
    await shot("muted");

    await vs.runCommand("Yoke: Add to Project Memory");
    await vs.page.keyboard.type("Always run the linter before committing.");
    await vs.page.keyboard.press("Enter");
    await expect
      .poll(
        () => {
          try {
            return readFileSync(vs.path("AGENTS.md"), "utf8");
          } catch {
            return "";
          }
        },
        { timeout: 15_000 },
      )
      .toContain("Always run the linter before committing.");
  });
});
