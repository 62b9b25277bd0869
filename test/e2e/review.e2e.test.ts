// Reviewing an edit in a real VS Code: the (scripted) model proposes a two-hunk edit_file, the
// user accepts hunk 1 and rejects hunk 2 with the CodeLens in the editor, the file on disk holds
// exactly that, and the model is told which hunk was applied.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ScriptedServer, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { RESULTS_DIR } from "./support/paths";
import { anchor, FILE, fileLens, hunkLens, NEW_1, NEW_2, OLD_1, OLD_2, proposeTwoHunks, reviewVscode } from "./support/review";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const DONE = "Kept the comment; the freeze was rejected.";

/** What the scripted model does for a prompt: read the file, propose edits, answer when told the outcome. */
interface Plan {
  edits: Array<{ old_string: string; new_string: string }>;
  /** Delay before the edit_file turn (the user is busy meanwhile). */
  delayMs?: number;
  done: string;
}

const PLANS: Record<string, Plan> = {
  "Document the M2 constituent": {
    edits: [
      { old_string: OLD_1, new_string: NEW_1 },
      { old_string: OLD_2, new_string: NEW_2 },
    ],
    done: DONE,
  },
  "Shorten a doc comment": {
    edits: [{ old_string: "/** Returns the first high tide strictly after `lastHigh`. */", new_string: "/** The next high tide after `lastHigh`. */" }],
    delayMs: 4_000,
    done: "Understood, left as it was.",
  },
  "Rename the loop variable": { edits: [{ old_string: "  let t = knownHigh.getTime();", new_string: "  let time = knownHigh.getTime();" }], done: "unused" },
  "Tidy the loop": {
    edits: [{ old_string: "  while (t < from.getTime()) t += TIDAL_PERIOD_MS;", new_string: "  while (t < from.getTime()) t += TIDAL_PERIOD_MS; // catch up" }],
    done: "Noted your edit.",
  },
  "Use the diff view": { edits: [{ old_string: "(12 * 60 + 25) * 60 * 1000", new_string: "44_700_000" }], done: "Kept the formula." },
  "Inline the helper": { edits: [{ old_string: "  return result;\n}", new_string: "  return result.slice();\n}" }], done: "Will use a constant." },
  "Apply this at once": { edits: [{ old_string: "  const result: Date[] = [];", new_string: "  const result: Date[] = []; // high tides" }], done: "Applied." },
};

/** New files: write_file straight away (nothing to read). */
const WRITES: Record<string, { path: string; content: string; done: string }> = {
  "Start a notes file": { path: "notes/tides.md", content: "# Notes\n\nSpring tides follow new and full moons.\n", done: "Notes not created." },
  "Write the changelog": { path: "CHANGELOG.md", content: "# Changelog\n\n- 0.1.0: first release\n", done: "Changelog written." },
};

function reviewScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const write = Object.entries(WRITES).find(([k]) => ex.userText.includes(k))?.[1];
  if (write) {
    if (!ex.steps.some((s) => s.name === "write_file")) return { toolCalls: [{ name: "write_file", input: { path: write.path, content: write.content } }] };
    return { text: write.done };
  }
  const plan = Object.entries(PLANS).find(([k]) => ex.userText.includes(k))?.[1];
  if (!plan) return { text: "No plan for this prompt." };
  if (!ex.steps.some((s) => s.name === "read_file")) return { toolCalls: [{ name: "read_file", input: { path: FILE } }] };
  if (!ex.steps.some((s) => s.name === "edit_file")) {
    return { text: "Proposing a change.", toolCalls: [{ name: "edit_file", input: { path: FILE, edits: plan.edits } }], ...(plan.delayMs ? { delayMs: plan.delayMs } : {}) };
  }
  return { text: plan.done };
}

/** The edit_file result of the exchange that started with `prompt`. */
function editResult(llm: ScriptedServer, prompt: string, tool = "edit_file"): string | undefined {
  const ex = llm.requests.map(readExchange).find((e) => e.userText.includes(prompt) && e.steps.some((s) => s.name === tool));
  return ex?.steps.find((s) => s.name === tool)?.output;
}

/**
 * The person accepts hunk 1 and rejects hunk 2 with the CodeLens; waits until the model has answered
 * (DONE), the CodeLens rows are gone and the editor is saved (no dirty marker on the tab).
 */
async function acceptHunk1RejectHunk2(page: Page, frame: Frame, shot: (step: string) => Promise<string>): Promise<void> {
  await hunkLens(page, 1, "Accept").click();
  await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ state: "detached", timeout: 10_000 });
  await shot("hunk-1-accepted");
  await hunkLens(page, 2, "Reject").click();
  await waitForAssistantText(frame, DONE, 60_000);
  await page.locator(".codelens-decoration", { hasText: "to review" }).waitFor({ state: "detached", timeout: 10_000 });
  await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
  await shot("review-done");
}

describe("change review in code-server", () => {
  // files.autoSave off (reviewVscode): "nothing on disk yet" checks the desktop default.
  // Each test starts idle: one that times out with the agent working cannot fail the next ones.
  const vs = useYokeVscode({ ...reviewVscode("review", reviewScript), eachTestStartsIdle: true });

  it("writes exactly the accepted hunk and tells the model hunk 1 applied, hunk 2 rejected", async () => {
    const { page, shot, path, original, frame } = await proposeTwoHunks(vs);
    expect(original).toContain(OLD_1);
    expect(original).toContain(OLD_2);
    await page.locator(".view-lines", { hasText: "the M2 constituent" }).first().waitFor();
    // Nothing is on disk while the user decides.
    expect(readFileSync(path, "utf8")).toBe(original);
    await shot("proposal-inline");
    // The diff editor (original from memory on the left) opens beside the file.
    await fileLens(page, "Open Diff").click();
    await page.locator(".monaco-diff-editor .editor.original .view-lines", { hasText: OLD_1 }).first().waitFor({ timeout: 15_000 });
    await page.locator(".monaco-diff-editor .editor.modified .view-lines", { hasText: "the M2 constituent" }).first().waitFor();
    await shot("diff-editor");

    await acceptHunk1RejectHunk2(page, frame, shot);

    const expected = original.replace(OLD_1, NEW_1);
    expect(readFileSync(path, "utf8")).toBe(expected);

    const result = editResult(vs.llm, "Document the M2 constituent");
    writeFileSync(join(RESULTS_DIR, "review-tool-result.txt"), result ?? "(no edit_file result)");
    expect(result).toContain("The user partly accepted the change to src/tides.ts: hunk 1 applied, hunk 2 rejected.");
    expect(result).toContain(NEW_1);
  });

  it("keeps the focus and every keystroke in the editor the user is typing in when a proposal arrives", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-focus");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Shorten a doc comment in src/tides.ts.");

    // Back to work: open format.ts and type while the model is busy (its edit arrives after 4 s).
    await page.keyboard.press("F1");
    const quick = page.locator(".quick-input-widget .quick-input-box input");
    await quick.fill("format.ts");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "format.ts" }).first().waitFor();
    await page.keyboard.press("Enter");
    const formatEditor = page.locator(".editor-instance .monaco-editor", { hasText: "formatTide" }).first();
    await formatEditor.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    const typed = "// typed while Yoke proposed a change";
    const proposal = fileLens(page, "Accept File");
    for (const ch of typed) {
      await page.keyboard.type(ch);
      await page.waitForTimeout(150);
    }
    // Keep typing until the proposal is on screen, then a little more.
    let extra = "";
    const deadline = Date.now() + 30_000;
    while (!(await proposal.isVisible()) && Date.now() < deadline) {
      await page.keyboard.type("x");
      extra += "x";
      await page.waitForTimeout(150);
    }
    await expect(proposal.isVisible()).resolves.toBe(true);
    await page.keyboard.type(" done");
    await shot("typing-with-proposal-beside");
    // Every character landed in format.ts, which still has the keyboard focus.
    await formatEditor.locator(".view-lines", { hasText: `${typed}${extra} done` }).waitFor({ timeout: 60_000 });
    expect(await page.locator(".monaco-editor.focused", { hasText: "formatTide" }).count()).toBe(1);

    // Reject from the panel's pending-changes list.
    const row = frame.locator('[data-testid=pending-change][data-path="src/tides.ts"]');
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("+1");
    await row.locator("[data-testid=reject-change]").click();
    await waitForAssistantText(frame, "Understood, left as it was.", 60_000);
    await shot("rejected-from-panel");
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(editResult(vs.llm, "Shorten a doc comment")).toContain("The user rejected the change to src/tides.ts; the file is unchanged.");
  });

  it("restores the original when the agent is stopped during a review", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-stop");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Rename the loop variable in src/tides.ts.");
    await page.locator(".view-lines", { hasText: "let time = knownHigh" }).first().waitFor({ timeout: 60_000 });
    await shot("proposal");
    await frame.locator("[data-testid=stop]").click();
    await page.locator(".codelens-decoration", { hasText: "to review" }).waitFor({ state: "detached", timeout: 15_000 });
    await page.locator(".view-lines", { hasText: "let t = knownHigh" }).first().waitFor({ timeout: 10_000 });
    await expect.poll(() => page.locator(".tab.dirty", { hasText: "tides.ts" }).count(), { timeout: 10_000 }).toBe(0);
    await shot("stopped");
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("accepts the hunk at the cursor with Ctrl+Alt+Y and tells the model about the user's own edit", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-keys");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Tidy the loop in src/tides.ts.");
    const line = page.locator(".editor-instance .view-line", { hasText: "// catch up" }).first();
    await line.waitFor({ timeout: 60_000 });
    // As a person would: act once the proposal's CodeLens is up (the extension host has caught up).
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ timeout: 15_000 });
    await line.click();
    await page.keyboard.press("End");
    await page.keyboard.type(" (by hand)");
    await page.keyboard.press("Control+Alt+y");
    await waitForAssistantText(frame, "Noted your edit.", 60_000);
    await shot("accepted-with-user-edit");
    const proposed = "  while (t < from.getTime()) t += TIDAL_PERIOD_MS; // catch up";
    expect(readFileSync(path, "utf8")).toBe(before.replace("  while (t < from.getTime()) t += TIDAL_PERIOD_MS;", `${proposed} (by hand)`));
    const result = editResult(vs.llm, "Tidy the loop") ?? "";
    expect(result).toContain("The user accepted the change to src/tides.ts.");
    expect(result).toContain(`The user edited the proposal before accepting:\n--- src/tides.ts (as proposed)\n+++ src/tides.ts (as saved)`);
    expect(result).toContain(`-${proposed}\n+${proposed} (by hand)`);
  });

  it("creates a new file only when accepted, and leaves no file behind when rejected", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-new-file");
    const frame = await vs.openPanel();

    await sendPrompt(frame, "Start a notes file about spring tides.");
    await page.locator(".view-lines", { hasText: "Spring tides follow" }).first().waitFor({ timeout: 60_000 });
    await shot("new-file-proposed");
    await fileLens(page, "Reject File").click();
    await waitForAssistantText(frame, "Notes not created.", 60_000);
    await expect.poll(() => existsSync(vs.path("notes/tides.md")), { timeout: 10_000 }).toBe(false);
    expect(existsSync(vs.path("notes"))).toBe(false); // the folder made for it is gone too
    expect(editResult(vs.llm, "Start a notes file", "write_file")).toContain("The user rejected the change to notes/tides.md; the file was not created.");

    await sendPrompt(frame, "Write the changelog.");
    await page.locator(".view-lines", { hasText: "first release" }).first().waitFor({ timeout: 60_000 });
    await fileLens(page, "Accept File").click();
    await waitForAssistantText(frame, "Changelog written.", 60_000);
    await shot("new-file-accepted");
    expect(readFileSync(vs.path("CHANGELOG.md"), "utf8")).toBe(WRITES["Write the changelog"]!.content);
  });

  it("reviews in a diff editor when yoke.review.view is diff, and Ctrl+Alt+N there rejects the hunk", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-diff-view");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const restoreSettings = vs.changeWorkspaceSettings({ "yoke.review.view": "diff" });
    try {
      await page.waitForTimeout(1_500); // the settings file is picked up
      const frame = await vs.openPanel();
      await sendPrompt(frame, "Use the diff view to simplify the period constant.");
      const modified = page.locator(".monaco-diff-editor .editor.modified .view-line", { hasText: "44_700_000" }).first();
      await modified.waitFor({ timeout: 60_000 });
      await page.locator(".monaco-diff-editor .editor.original .view-lines", { hasText: "(12 * 60 + 25)" }).first().waitFor();
      await shot("diff-editor");
      await frame.locator('[data-testid=pending-change][data-path="src/tides.ts"][data-status=pending]').waitFor({ timeout: 15_000 });
      await modified.click();
      await page.waitForTimeout(500); // the editor's context keys reach the keybinding service
      await page.keyboard.press("Control+Alt+n");
      await waitForAssistantText(frame, "Kept the formula.", 60_000);
      await shot("rejected-with-keybinding");
      expect(readFileSync(path, "utf8")).toBe(before);
      expect(editResult(vs.llm, "Use the diff view")).toContain("The user rejected the change to src/tides.ts; the file is unchanged.");
    } finally {
      restoreSettings(); // also when the test fails: the next test reviews inline
    }
  });

  it("sends the user's note with a rejection made from the command palette", async () => {
    const page = vs.page;
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Inline the helper in src/tides.ts.");
    const line = page.locator(".editor-instance .view-line", { hasText: "result.slice()" }).first();
    await line.waitFor({ timeout: 60_000 });
    await line.click();
    await vs.runCommand("Yoke: Reject File Changes with a Note");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    await input.fill("keep returning the same array");
    await page.keyboard.press("Enter");
    await waitForAssistantText(frame, "Will use a constant.", 60_000);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(editResult(vs.llm, "Inline the helper")).toContain("The user rejected the change to src/tides.ts; the file is unchanged. Reason: keep returning the same array");
  });

  it("applies at once in acceptEdits mode, lists the change, and reverts it from the panel", async () => {
    const shot = vs.screenshots("review-auto");
    const path = vs.path(FILE);
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await frame.locator("[data-testid=model-label]").waitFor();
    // The person picks Accept edits in the panel (a workspace's settings may no longer loosen the mode).
    const mode = frame.locator("[data-testid=mode]");
    await mode.selectOption("acceptEdits");
    await expect.poll(() => mode.inputValue(), { timeout: 10_000 }).toBe("acceptEdits");
    const restoreSettings = () => mode.selectOption("default");
    await sendPrompt(frame, "Apply this at once: comment the result array.");
    await waitForAssistantText(frame, "Applied.", 60_000);
    expect(readFileSync(path, "utf8")).toBe(before.replace("  const result: Date[] = [];", "  const result: Date[] = []; // high tides"));
    const row = frame.locator('[data-testid=pending-change][data-path="src/tides.ts"][data-status=applied]');
    await row.waitFor({ timeout: 10_000 });
    await shot("applied-listed");
    await row.locator("[data-testid=revert-change]").click();
    await expect.poll(() => readFileSync(path, "utf8"), { timeout: 10_000 }).toBe(before);
    await shot("reverted");
    await restoreSettings();
  });
});

// Issue 9: a hashline edit that needed a tolerance rule still reviews honestly. The model replaces
// line 1 and, with its indentation lost, line 15 (inside a function); the proposal the person sees
// has line 15 re-indented, and the model is told which rule applied, also when the person rejects that hunk.
const TOLERANT_NEW_15 = "return Object.freeze(result) as Date[];";

function toleranceScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const read = ex.steps.find((s) => s.name === "read_file");
  if (!read) return { toolCalls: [{ name: "read_file", input: { path: FILE } }] };
  if (!ex.steps.some((s) => s.name === "edit_file")) {
    const edits = [
      { op: "replace", pos: anchor(read.output, 1), lines: [NEW_1] },
      { op: "replace", pos: anchor(read.output, 15), lines: [TOLERANT_NEW_15] },
    ];
    return { text: "Proposing a change.", toolCalls: [{ name: "edit_file", input: { path: FILE, edits } }] };
  }
  return { text: DONE };
}

describe("change review of a hashline edit that used a tolerance rule", () => {
  const vs = useYokeVscode({ ...reviewVscode("review-tolerance", toleranceScript), eachTestStartsIdle: true });

  it("shows the restored indentation, writes only the accepted hunk, and tells the model hunk 1 applied, hunk 2 rejected and the rule", async () => {
    const { page, shot, path, original, frame } = await proposeTwoHunks(vs);
    expect(original.split("\n")[14]).toBe("  return result;"); // line 15 is indented: the model's copy lost that
    // What the person reviews: line 15 with the indentation of the line it replaces, not as the model sent it.
    const proposed15 = page.locator(".editor-instance .view-line", { hasText: TOLERANT_NEW_15 }).first();
    await proposed15.waitFor();
    expect((await proposed15.textContent())?.replace(/\u00a0/g, " ")).toBe(`  ${TOLERANT_NEW_15}`);
    expect(readFileSync(path, "utf8")).toBe(original);
    await shot("proposal-reindented");

    await acceptHunk1RejectHunk2(page, frame, shot);

    expect(readFileSync(path, "utf8")).toBe(original.replace(OLD_1, NEW_1));
    const read = editResult(vs.llm, "Document the M2 constituent", "read_file") ?? "";
    const result = editResult(vs.llm, "Document the M2 constituent");
    writeFileSync(join(RESULTS_DIR, "review-tolerance-tool-result.txt"), result ?? "(no edit_file result)");
    expect(result).toBe(
      [
        "The user partly accepted the change to src/tides.ts: hunk 1 applied, hunk 2 rejected.",
        "The changed regions now read:",
        "hunk 1 (applied), lines 1-1:",
        NEW_1,
        "hunk 2 (rejected, as before), lines 15-15:",
        "  return result;",
        "",
        "Notes on the proposal:",
        `- Edit 2 (replace ${anchor(read, 15)}) [rule indent-restored]: its lines had lost their indentation, so each got the indentation of the line it stands for (2 spaces).`,
        "",
        "Call read_file on src/tides.ts for fresh anchors before editing it again.",
      ].join("\n"),
    );
  });
});
