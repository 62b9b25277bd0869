// A review that outlives a window reload, and a review under files.autoSave, in a real VS Code
// (code-server: the workspace is a vscode-remote: URI, as in a Remote-SSH window).
// (a) The model proposes a two-hunk edit_file; the window is reloaded while it waits; the CodeLens
//     and the pending list come back on the proposal hot exit kept (applied once); Ctrl+Alt+Y
//     accepts hunk 1, the CodeLens rejects hunk 2; the file on disk is exactly that and the model
//     gets the decision as the result of its original call. Reloaded with the Yoke panel closed
//     (the Explorer in the side bar), the review still comes back in the editor, CodeLens and
//     decorations, without the panel opening (Yoke activates on startup and takes up the session
//     the window had); Accept File writes it and the model is told.
// (b) With files.autoSave "afterDelay" (300 ms), the proposal is never on disk while it is pending
//     (the file is read several times over more than the delay); Accept writes it. Switching auto
//     save on during an inline review does not write the proposal either.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Locator } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ScriptedServer, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { RESULTS_DIR } from "./support/paths";
import { FILE, fileLens, hunkLens, NEW_1, NEW_2, OLD_1, OLD_2, proposeTwoHunks, reviewVscode } from "./support/review";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const OLD_DOC = "/** Returns the first high tide strictly after `lastHigh`. */";
const NEW_DOC = "/** Returns the high tide one tidal period after `lastHigh`. */";
const OLD_RESULT = "  const result: Date[] = [];";
const NEW_RESULT = "  const result: Date[] = []; // in time order";

/** Prompt keyword -> the edits the scripted model proposes and what it answers once told the outcome. */
const PLANS: Record<string, { edits: Array<{ old_string: string; new_string: string }>; done: string }> = {
  "Document the M2 constituent": {
    edits: [
      { old_string: OLD_1, new_string: NEW_1 },
      { old_string: OLD_2, new_string: NEW_2 },
    ],
    done: "Kept the comment after the reload.",
  },
  "Clarify the next-tide doc": {
    edits: [
      { old_string: OLD_DOC, new_string: NEW_DOC },
      { old_string: OLD_RESULT, new_string: NEW_RESULT },
    ],
    done: "Both clarifications are in.",
  },
  "Speed up the catch-up loop": {
    edits: [{ old_string: "  while (t < from.getTime()) t += TIDAL_PERIOD_MS;", new_string: "  t += Math.ceil(Math.max(0, from.getTime() - t) / TIDAL_PERIOD_MS) * TIDAL_PERIOD_MS;" }],
    done: "Loop replaced.",
  },
  "Rename the loop variable": { edits: [{ old_string: "  let t = knownHigh.getTime();", new_string: "  let time = knownHigh.getTime();" }], done: "Left the name alone." },
};

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const plan = Object.entries(PLANS).find(([k]) => ex.userText.includes(k))?.[1];
  if (!plan) return { text: "No plan for this prompt." };
  if (!ex.steps.some((s) => s.name === "read_file")) return { toolCalls: [{ name: "read_file", input: { path: FILE } }] };
  if (!ex.steps.some((s) => s.name === "edit_file")) return { text: "Proposing a change.", toolCalls: [{ name: "edit_file", input: { path: FILE, edits: plan.edits } }] };
  return { text: plan.done };
}

/** The edit_file results the model received in the exchanges of `prompt` (one per call). */
function editResults(llm: ScriptedServer, prompt: string): string[] {
  const last = llm.requests
    .map(readExchange)
    .filter((e) => e.userText.includes(prompt))
    .at(-1);
  return last?.steps.filter((s) => s.name === "edit_file").map((s) => s.output) ?? [];
}

/** Whole-line "added" marks Yoke's decorations put in an editor's overlay layer (one per proposed line). */
function addedLineMarks(editor: Locator): Promise<number> {
  return editor.locator(".view-overlays .cdr").evaluateAll(
    (els) =>
      els.filter((el) => {
        const style = getComputedStyle(el);
        return style.borderLeftWidth === "3px" && style.borderLeftStyle === "solid";
      }).length,
  );
}

/** The "− N lines replaced (hover)" notes drawn after proposed lines (decoration text is CSS content). */
function replacedNotes(editor: Locator): Promise<string[]> {
  return editor.locator(".view-lines span").evaluateAll((els) =>
    els.flatMap((el) => {
      const content = getComputedStyle(el, "::after").content;
      return content && content !== "none" && content.includes("replaced") ? [JSON.parse(content) as string] : [];
    }),
  );
}

const lens = hunkLens;

describe("a review pending at a window reload", () => {
  // code-server's default is afterDelay; off here, so the proposal sits in the file's own editor (inline).
  const vs = useYokeVscode({ ...reviewVscode("review-reload", script), eachTestStartsIdle: true });

  it("comes back after the reload; one hunk accepted with Ctrl+Alt+Y, one rejected; the disk and the model get exactly that", async () => {
    const { llm } = vs;
    const { page, shot, path, original } = await proposeTwoHunks(vs);
    await shot("before-reload");
    expect(readFileSync(path, "utf8")).toBe(original);
    const requestsBefore = llm.requests.length;

    const frame = await vs.reloadWindow();
    // The CodeLens rows and the pending list are back, on the proposal hot exit kept in the editor.
    await lens(page, 1, "Accept").waitFor({ timeout: 60_000 });
    await lens(page, 2, "Reject").waitFor({ timeout: 10_000 });
    await page.locator(".codelens-decoration", { hasText: "2 of 2 hunks to review" }).waitFor({ timeout: 10_000 });
    await frame.locator('[data-testid=pending-change][data-path="src/tides.ts"][data-status=pending]').waitFor({ timeout: 15_000 });
    const lines = page.locator(".editor-instance .view-lines").first();
    await lines.locator(".view-line", { hasText: "the M2 constituent" }).first().waitFor();
    // Applied once, not twice: one M2 comment line and one freeze line in the editor.
    expect(await lines.locator(".view-line", { hasText: "the M2 constituent" }).count()).toBe(1);
    expect(await lines.locator(".view-line", { hasText: "Object.freeze(result)" }).count()).toBe(1);
    expect(readFileSync(path, "utf8")).toBe(original);
    expect(llm.requests.length).toBe(requestsBefore); // the model was not asked again
    await shot("after-reload");

    // Ctrl+Alt+Y on hunk 1 (the cursor in it), then the CodeLens Reject on hunk 2.
    await lines.locator(".view-line", { hasText: "the M2 constituent" }).first().click();
    await page.waitForTimeout(500); // the editor's context keys reach the keybinding service
    await page.keyboard.press("Control+Alt+y");
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ state: "detached", timeout: 10_000 });
    await lens(page, 2, "Reject").click();

    await waitForAssistantText(frame, "Kept the comment after the reload.", 60_000);
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await shot("decided");
    expect(readFileSync(path, "utf8")).toBe(original.replace(OLD_1, NEW_1));
    const results = editResults(llm, "Document the M2 constituent");
    writeFileSync(join(RESULTS_DIR, "review-reload-tool-result.txt"), results.join("\n---\n"));
    expect(results).toHaveLength(1);
    expect(results[0]).toContain("The user partly accepted the change to src/tides.ts: hunk 1 applied, hunk 2 rejected.");
    expect(results[0]).toContain(NEW_1);
  });

  it("comes back in the editor after a reload with the Yoke panel closed, and Accept through the CodeLens writes it and tells the model", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("review-reload-panel-closed");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Clarify the next-tide doc and the result array.");
    await lens(page, 1, "Accept").waitFor({ timeout: 60_000 });
    await lens(page, 2, "Accept").waitFor({ timeout: 10_000 });
    // The person moves on to the Explorer: the Yoke view is no longer on screen when the window reloads.
    await vs.runCommand("View: Show Explorer");
    await page.locator(".explorer-folders-view").first().waitFor({ state: "visible", timeout: 15_000 });
    await expect.poll(() => vs.panelVisible(), { timeout: 10_000 }).toBe(false);
    await shot("explorer-before-reload");
    const requestsBefore = llm.requests.length;

    await vs.reloadWorkbench();
    // The review is back in the editor without the panel: the header and a CodeLens row per hunk...
    await page.locator(".codelens-decoration", { hasText: "2 of 2 hunks to review" }).waitFor({ timeout: 60_000 });
    await lens(page, 1, "Accept").waitFor({ timeout: 10_000 });
    await lens(page, 2, "Accept").waitFor({ timeout: 10_000 });
    const editor = page.locator(".editor-instance .monaco-editor", { hasText: "one tidal period after" }).first();
    const lines = editor.locator(".view-lines");
    expect(await lines.locator(".view-line", { hasText: NEW_DOC }).count()).toBe(1);
    expect(await lines.locator(".view-line", { hasText: NEW_RESULT.trim() }).count()).toBe(1);
    // ...and the proposed lines are decorated as added (whole-line marks in the editor's overlays)
    // with a note of what they replace at the end of the line.
    await expect.poll(() => addedLineMarks(editor), { timeout: 10_000 }).toBe(2);
    expect(await replacedNotes(editor)).toEqual(["  − 1 line replaced (hover)", "  − 1 line replaced (hover)"]);
    // The panel was never opened in this window, and the Explorer is still what the side bar shows.
    expect(await vs.panelVisible()).toBe(false);
    expect(await page.locator(".explorer-folders-view").first().isVisible()).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(llm.requests.length).toBe(requestsBefore); // the model was not asked again
    await shot("review-back-panel-closed");

    await fileLens(page, "Accept File").click();
    // The decision goes to the model as the result of its original call (the panel is still closed).
    await expect.poll(() => editResults(llm, "Clarify the next-tide doc").length, { timeout: 60_000 }).toBe(1);
    await page.locator(".codelens-decoration", { hasText: "to review" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    expect(await vs.panelVisible()).toBe(false);
    await shot("accepted-panel-closed");
    expect(readFileSync(path, "utf8")).toBe(before.replace(OLD_DOC, NEW_DOC).replace(OLD_RESULT, NEW_RESULT));
    const [result] = editResults(llm, "Clarify the next-tide doc");
    writeFileSync(join(RESULTS_DIR, "review-reload-panel-closed-tool-result.txt"), result ?? "");
    expect(result).toBe("The user accepted the change to src/tides.ts.\n\nCall read_file on src/tides.ts for fresh anchors before editing it again.");
    // Opening the panel now shows the session that went on meanwhile, down to the model's answer.
    const opened = await vs.openPanel();
    await waitForAssistantText(opened, "Both clarifications are in.", 30_000);
    await shot("panel-opened-after");
  });

  it("switching files.autoSave on during an inline review saves the file without the proposal, and the review goes on in its own editor", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("review-autosave-switch");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Rename the loop variable in src/tides.ts.");
    await page.locator(".editor-instance .view-line", { hasText: "let time = knownHigh" }).first().waitFor({ timeout: 60_000 });
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ timeout: 15_000 });
    const restoreSettings = vs.changeWorkspaceSettings({ "files.autoSave": "afterDelay", "files.autoSaveDelay": 300 });
    // VS Code saves every dirty editor when auto save is switched on; the proposal must not land.
    await page.locator(".notifications-toasts", { hasText: "moved to its own editor" }).first().waitFor({ timeout: 20_000 });
    await shot("moved");
    for (let i = 0; i < 4; i++) {
      expect(readFileSync(path, "utf8")).toBe(before);
      await page.waitForTimeout(400);
    }
    await lens(page, 1, "Reject").click();
    await waitForAssistantText(frame, "Left the name alone.", 60_000);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(editResults(llm, "Rename the loop variable")[0]).toContain("The user rejected the change to src/tides.ts; the file is unchanged.");
    restoreSettings();
  });
});

describe("files.autoSave never writes a proposal under review", () => {
  const vs = useYokeVscode(reviewVscode("review-autosave", script, { "files.autoSave": "afterDelay", "files.autoSaveDelay": 300 }));

  it("keeps the disk at the original while the proposal is pending (auto saves included), and Accept writes it", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("review-autosave");
    const path = vs.path(FILE);
    const original = readFileSync(path, "utf8");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Speed up the catch-up loop in src/tides.ts.");
    const proposed = page.locator(".editor-instance .view-line", { hasText: "Math.ceil(Math.max(0" }).first();
    await proposed.waitFor({ timeout: 60_000 });
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ timeout: 15_000 });
    await frame.locator('[data-testid=pending-change][data-path="src/tides.ts"][data-status=pending]').waitFor({ timeout: 15_000 });
    // The user types in the proposal (auto save saves that editor after 300 ms): still nothing on disk.
    await proposed.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" // skip whole periods");
    for (let i = 0; i < 5; i++) {
      await page.waitForTimeout(400);
      expect(readFileSync(path, "utf8")).toBe(original);
    }
    await shot("pending-with-autosave");
    await fileLens(page, "Accept File").click();
    await waitForAssistantText(frame, "Loop replaced.", 60_000);
    await shot("accepted");
    const expected = original.replace(PLANS["Speed up the catch-up loop"]!.edits[0]!.old_string, `${PLANS["Speed up the catch-up loop"]!.edits[0]!.new_string} // skip whole periods`);
    expect(readFileSync(path, "utf8")).toBe(expected);
    const result = editResults(llm, "Speed up the catch-up loop")[0] ?? "";
    expect(result).toContain("The user accepted the change to src/tides.ts.");
    expect(result).toContain("The user edited the proposal before accepting");
  });
});
