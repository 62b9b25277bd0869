// A review that outlives a window reload, and a review under files.autoSave, in a real VS Code
// (code-server: the workspace is a vscode-remote: URI, as in a Remote-SSH window).
// (a) The model proposes a two-hunk edit_file; the window is reloaded while it waits; the CodeLens
//     and the pending list come back on the proposal hot exit kept (applied once); Ctrl+Alt+Y
//     accepts hunk 1, the CodeLens rejects hunk 2; the file on disk is exactly that and the model
//     gets the decision as the result of its original call.
// (b) With files.autoSave "afterDelay" (300 ms), the proposal is never on disk while it is pending
//     (the file is read several times over more than the delay); Accept writes it. Switching auto
//     save on during an inline review does not write the proposal either.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { RESULTS_DIR } from "./support/paths";
import { openWorkbench, openYokeView, runCommand, screenshotter } from "./support/workbench";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";

const FILE = "src/tides.ts";
const OLD_1 = "/** Mean lunar semidiurnal period: 12 hours 25 minutes. */";
const NEW_1 = "/** Mean lunar semidiurnal period (the M2 constituent): 12 hours 25 minutes. */";
const OLD_2 = "  return result;\n}";
const NEW_2 = "  return Object.freeze(result) as Date[];\n}";

/** Prompt keyword -> the edits the scripted model proposes and what it answers once told the outcome. */
const PLANS: Record<string, { edits: Array<{ old_string: string; new_string: string }>; done: string }> = {
  "Document the M2 constituent": { edits: [{ old_string: OLD_1, new_string: NEW_1 }, { old_string: OLD_2, new_string: NEW_2 }], done: "Kept the comment after the reload." },
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
  const last = llm.requests.map(readExchange).filter((e) => e.userText.includes(prompt)).at(-1);
  return last?.steps.filter((s) => s.name === "edit_file").map((s) => s.output) ?? [];
}

const lens = (page: Page, hunk: number, title: string) =>
  page.locator(".codelens-decoration", { hasText: `hunk ${hunk}:` }).locator("a", { hasText: new RegExp(`^${title}$`) });

function launch(name: string, llm: ScriptedServer, userSettings: Record<string, unknown>) {
  return launchCodeServer({
    name,
    workspaceSettings: {
      "yoke.provider": "openai-compatible",
      "yoke.baseUrl": llm.openaiBaseUrl,
      "yoke.model": "scripted-e2e",
      "yoke.permissionMode": "default",
    },
    userSettings,
  });
}

describe("a review pending at a window reload", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script });
    // code-server's default is afterDelay; off here, so the proposal sits in the file's own editor (inline).
    server = await launch("review-reload", llm, { "files.autoSave": "off" });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("comes back after the reload; one hunk accepted with Ctrl+Alt+Y, one rejected; the disk and the model get exactly that", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "review-reload");
    const path = join(server.workspace, FILE);
    const original = readFileSync(path, "utf8");
    await openWorkbench(page, server.url);
    let frame = await openYokeView(page);
    await sendPrompt(frame, "Document the M2 constituent and make the result immutable.");
    await lens(page, 1, "Accept").waitFor({ timeout: 60_000 });
    await lens(page, 2, "Reject").waitFor({ timeout: 10_000 });
    await shot("before-reload");
    expect(readFileSync(path, "utf8")).toBe(original);
    const requestsBefore = llm.requests.length;

    await runCommand(page, "Developer: Reload Window");
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    frame = await openYokeView(page);
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

  it("switching files.autoSave on during an inline review saves the file without the proposal, and the review goes on in its own editor", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "review-autosave-switch");
    const path = join(server.workspace, FILE);
    const before = readFileSync(path, "utf8");
    const frame = await openYokeView(page);
    await sendPrompt(frame, "Rename the loop variable in src/tides.ts.");
    await page.locator(".editor-instance .view-line", { hasText: "let time = knownHigh" }).first().waitFor({ timeout: 60_000 });
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ timeout: 15_000 });
    const settings = join(server.workspace, ".vscode", "settings.json");
    const current = JSON.parse(readFileSync(settings, "utf8")) as Record<string, unknown>;
    writeFileSync(settings, JSON.stringify({ ...current, "files.autoSave": "afterDelay", "files.autoSaveDelay": 300 }, null, 2));
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
    writeFileSync(settings, JSON.stringify(current, null, 2));
  });
});

describe("files.autoSave never writes a proposal under review", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script });
    server = await launch("review-autosave", llm, { "files.autoSave": "afterDelay", "files.autoSaveDelay": 300 });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("keeps the disk at the original while the proposal is pending (auto saves included), and Accept writes it", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "review-autosave");
    const path = join(server.workspace, FILE);
    const original = readFileSync(path, "utf8");
    await openWorkbench(page, server.url);
    const frame = await openYokeView(page);
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
    await page.locator(".codelens-decoration a", { hasText: /^Accept File$/ }).click();
    await waitForAssistantText(frame, "Loop replaced.", 60_000);
    await shot("accepted");
    const expected = original.replace(PLANS["Speed up the catch-up loop"]!.edits[0]!.old_string, `${PLANS["Speed up the catch-up loop"]!.edits[0]!.new_string} // skip whole periods`);
    expect(readFileSync(path, "utf8")).toBe(expected);
    const result = editResults(llm, "Speed up the catch-up loop")[0] ?? "";
    expect(result).toContain("The user accepted the change to src/tides.ts.");
    expect(result).toContain("The user edited the proposal before accepting");
  });
});
