// The demo in code-server, as a newcomer meets it: no provider configured and no local model
// server, so the panel's first-run view offers the demo model; one click starts it, and the empty
// panel suggests one prompt per feature. Each suggested prompt is walked through: a two-hunk edit
// reviewed inline (hunk 1 accepted, hunk 2 rejected), a sandboxed command in the Yoke terminal, a
// permission question answered "Always allow", a stuck loop stopped, a compaction. Every answer
// is labelled as the demo model. (The checkpoint restore has no suggested prompt yet: see docs/demo.md.)
import { readFileSync } from "node:fs";
import type { Frame } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEMO_BANNER, DEMO_PROMPTS } from "../../src/demo/demo-tour";
import { hunkLens } from "./support/review";
import { waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const prompt = (label: string) => DEMO_PROMPTS.find((p) => p.label === label)!;

/** Clicks the suggested prompt `label` in the empty panel. */
async function suggest(frame: Frame, label: string): Promise<void> {
  const list = frame.locator("[data-testid=demo-prompts]");
  await list.waitFor({ state: "visible", timeout: 30_000 });
  await list.locator("[data-testid=demo-prompt]", { hasText: label }).first().click();
}

async function newSession(frame: Frame): Promise<void> {
  await frame.locator("[data-testid=new-session]").first().click();
  await frame.locator("[data-testid=demo-prompts]").waitFor({ state: "visible", timeout: 30_000 });
}

describe("the demo in code-server", () => {
  const vs = useYokeVscode({
    name: "demo",
    // Every edit is reviewed; code-server's delayed auto-save would stage the proposal elsewhere.
    workspaceSettings: { "yoke.permissionMode": "default" },
    userSettings: { "files.autoSave": "off", "terminal.integrated.gpuAcceleration": "off" },
  });
  let frame: Frame;

  it("offers the demo model in the first-run view; one click shows the suggested prompts", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    frame = await vs.openPanel();
    const offer = frame.locator("[data-testid=use-demo-model]");
    await offer.waitFor({ state: "visible", timeout: 60_000 });
    await shot("first-run");
    await offer.click();
    try {
      await frame.locator("[data-testid=demo-prompts]").waitFor({ state: "visible", timeout: 60_000 });
    } catch (err) {
      // Say what the host logged (the Yoke output channel) and what the panel shows.
      await vs.runCommand("Yoke: Show Log").catch(() => undefined);
      await vs.page.waitForTimeout(3_000);
      const logText = await vs.page
        .locator(".output-view, .panel .monaco-editor .view-lines")
        .first()
        .textContent()
        .catch(() => "");
      const panelText = await frame
        .locator("body")
        .textContent()
        .catch(() => "");
      throw new Error(`the demo prompts did not appear: ${(err as Error).message}\nYoke log: ${logText}\npanel: ${panelText}`, { cause: err });
    }
    await expect.poll(() => frame.locator("[data-testid=model-label]").textContent(), { timeout: 30_000 }).toBe("demo model");
    expect(await frame.locator("[data-testid=demo-prompt]").allTextContents()).toEqual(DEMO_PROMPTS.map((p) => p.label));
    expect(await frame.locator("[data-testid=demo-prompts]").textContent()).toContain("demo model");
    await shot("suggested-prompts");
  });

  it("reviews a two-hunk edit inline: hunk 1 accepted, hunk 2 rejected", async () => {
    const shot = vs.screenshots();
    const page = vs.page;
    const path = vs.path("README.md");
    const before = readFileSync(path, "utf8");
    await suggest(frame, "Review a two-part edit");
    await hunkLens(page, 1, "Accept").waitFor({ timeout: 90_000 });
    await hunkLens(page, 2, "Reject").waitFor({ timeout: 15_000 });
    await shot("two-hunks");
    await hunkLens(page, 1, "Accept").click();
    await hunkLens(page, 2, "Reject").waitFor({ timeout: 15_000 });
    await hunkLens(page, 2, "Reject").click();
    const answer = await waitForAssistantText(frame, "Yoke told me what you decided", 90_000);
    expect(answer).toContain(DEMO_BANNER.replace(/\*/g, ""));
    await expect.poll(() => readFileSync(path, "utf8"), { timeout: 30_000 }).toContain("Change 1 of 2 by Yoke's demo model");
    const after = readFileSync(path, "utf8");
    expect(after).not.toContain("Change 2 of 2");
    expect(after.replace(/\n[^\n]*Change 1 of 2 by Yoke's demo model[^\n]*/, "")).toBe(before);
    await shot("reviewed");
  });

  it("runs a read-only command in the sandbox, shown in the Yoke terminal", async () => {
    const shot = vs.screenshots();
    await newSession(frame);
    await suggest(frame, "Run a sandboxed command");
    await waitForAssistantText(frame, "The command ran in the sandbox", 90_000);
    expect(await frame.locator("[data-testid=tool-card][data-tool-name=run_command]").count()).toBe(1);
    await vs.page.locator(".terminal-tab, .single-terminal-tab, .tabs-list .monaco-list-row", { hasText: "Yoke" }).first().waitFor({ timeout: 60_000 });
    expect(await frame.locator("[data-testid=message-assistant]").last().textContent()).toContain("Hello from the Yoke sandbox");
    await shot("sandboxed-command");
  });

  it("compacts the context of that session", async () => {
    const shot = vs.screenshots();
    // In the session of the command before: a compaction summarises earlier turns.
    await waitForState(frame, "done", 60_000);
    const input = frame.locator("[data-testid=prompt-input]");
    await input.fill(prompt("Compact the context").text);
    await frame.locator("[data-testid=send]").click();
    await frame.locator("[data-testid=compaction-divider]").first().waitFor({ state: "visible", timeout: 120_000 });
    await waitForAssistantText(frame, "Yoke compacted the context and sent the request again", 90_000);
    await shot("compacted");
  });
  it("asks for permission; after Always allow the same command runs without a question", async () => {
    const shot = vs.screenshots();
    await newSession(frame);
    await suggest(frame, "Answer a permission question");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ state: "visible", timeout: 90_000 });
    await shot("permission-question");
    await card.locator("[data-testid=always-allow]").click();
    await waitForAssistantText(frame, "It ran a second time without a question", 90_000);
    expect(await frame.locator("[data-testid=tool-card][data-tool-name=run_command]").count()).toBe(2);
    await shot("always-allowed");
  });

  it("gets stuck in a loop and is stopped", async () => {
    const shot = vs.screenshots();
    await newSession(frame);
    await suggest(frame, "Stop a stuck loop");
    await frame.locator("[data-testid=notice]", { hasText: "Stopped: the agent seems stuck" }).first().waitFor({ state: "visible", timeout: 120_000 });
    await shot("stuck-stopped");
  });
});
