// The palette and editor commands (issue 13) in code-server, as a person uses them: Explain
// Selection from the editor's context menu, Edit Selection… producing a diff the user accepts,
// Fix Problems in File sending the file's diagnostics, Add Selection (Ctrl+Alt+K) / Add File to
// Chat reaching the model with the next message, New Task (Ctrl+Alt+J), Stop, Switch Model,
// Switch Permission Mode, Open Session…, Show Log, and the status-bar item's states.
import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { hunkLens } from "./support/review";
import { findFrame } from "./support/workbench";
import { sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const BROKEN = 'export const count: number = "three";\n';
const FROZEN = "  return Object.freeze(result) as Date[];";

function script(req: RecordedRequest): ScriptedTurn {
  const ex = readExchange(req);
  const u = ex.userText;
  if (u.startsWith("Explain the code I selected")) return { text: "EXPLAINED: the loop catches up with the start." };
  if (u.startsWith("Edit the code I selected")) {
    if (ex.steps.some((s) => s.name === "edit_file")) return { text: "EDITED: the result is frozen." };
    // The anchor the prompt gave for the selected line: no read_file needed.
    const pos = /^(\d+#[A-Z]{2})\| {2}return result;$/m.exec(u)?.[1];
    if (!pos) return { text: "NO ANCHOR in the prompt." };
    return { text: "Freezing it.", toolCalls: [{ name: "edit_file", input: { path: "src/tides.ts", edits: [{ op: "replace", pos, lines: [FROZEN] }] } }] };
  }
  if (u.startsWith("Fix the problems VS Code reports")) return { text: "FIX PLANNED: count becomes 3." };
  if (u.includes("stall")) return { text: "Thinking it over", hang: true };
  return { text: `ECHO: ${u.split("\n")[0]}` };
}

const userTexts = (requests: readonly RecordedRequest[]) => requests.map((r) => readExchange(r).userText);
/** The text of each user message of a request, in order (attachments are user messages of their own). */
const userContents = (req: RecordedRequest): string[] =>
  (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

/**
 * The quick input, open and usable. While it closes (150 ms, e.g. because something else took the
 * keyboard focus) VS Code marks it `inert`: it is still on screen but takes no typing. Wait for
 * one that is not closing, and open it again if it closed under us.
 */
async function quickInput(page: Page, text: string): Promise<void> {
  const open = page.locator(".quick-input-widget:not(.quick-input-widget-closing) .quick-input-box input");
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    const ok = await open
      .waitFor({ state: "visible", timeout: 10_000 })
      .then(() => open.fill(text, { timeout: 5_000 }))
      .then(
        () => true,
        () => false,
      );
    if (ok) return;
    if (attempt >= 3) throw new Error(`the quick input did not take "${text}" (3 attempts)`);
    await page.keyboard.press("Escape");
  }
}

/** Runs a command from the palette (quickInput, then its row). */
async function command(page: Page, label: string): Promise<void> {
  await quickInput(page, `>${label}`);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
  await row.waitFor({ timeout: 30_000 });
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget .quick-input-box input").waitFor({ state: "hidden", timeout: 10_000 });
}

/** Opens a file through Quick Open and waits for a line of it in the editor. */
async function openFile(page: Page, name: string, marker: string): Promise<void> {
  await quickInput(page, name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 15_000 });
  await page.keyboard.press("Enter");
  await page.locator(".editor-instance .view-lines", { hasText: marker }).first().waitFor({ timeout: 30_000 });
}

/** Selects lines from..to whole (Go to Line, then Shift+Down to the start of the next line). */
async function selectLines(page: Page, from: number, to: number): Promise<void> {
  const quick = page.locator(".quick-input-widget .quick-input-box input");
  await quickInput(page, `:${from}`);
  await page.keyboard.press("Enter");
  await quick.waitFor({ state: "hidden", timeout: 10_000 });
  await page.locator(".editor-instance .monaco-editor.focused").first().waitFor({ timeout: 10_000 });
  await page.locator("#workbench\\.parts\\.statusbar", { hasText: `Ln ${from}, Col 1` }).waitFor({ timeout: 10_000 });
  for (let n = from; n <= to; n++) await page.keyboard.press("Shift+ArrowDown");
  // The editor's status item says "(N selected)" once the selection is there.
  await page.locator("#workbench\\.parts\\.statusbar", { hasText: `Ln ${to + 1}, Col 1 (` }).waitFor({ timeout: 10_000 });
}

/** Picks the quick-pick row holding `text`. */
async function pick(page: Page, text: string): Promise<void> {
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: text }).first();
  await row.waitFor({ timeout: 20_000 });
  await row.click();
}

describe("palette and editor commands in code-server", () => {
  const vs = useYokeVscode({
    name: "palette",
    model: { script },
    files: { "src/count.ts": BROKEN },
    workspaceSettings: { "yoke.permissionMode": "default" },
    // The proposal is reviewed in the file's own editor (code-server's default would save after a delay).
    userSettings: { "files.autoSave": "off" },
    eachTestStartsIdle: true,
  });
  const statusBar = (): Locator => vs.page.locator("#workbench\\.parts\\.statusbar .statusbar-item", { hasText: "Yoke:" }).first();
  const barText = async () => ((await statusBar().textContent()) ?? "").replace(/\s+/g, " ").trim();

  it("shows idle in the status bar and explains the selection chosen from the editor's context menu", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-explain");
    await vs.openWorkbench();
    await expect.poll(barText, { timeout: 60_000 }).toBe("Yoke: idle · Ask · scripted-e2e");
    const frame = await vs.openPanel();
    await vs.widenSideBar(520);
    await openFile(page, "tides.ts", "TIDAL_PERIOD_MS");
    await selectLines(page, 12, 13);
    await page
      .locator(".editor-instance .view-line", { hasText: "let t = knownHigh.getTime();" })
      .first()
      .click({ button: "right", position: { x: 40, y: 5 } });
    await shot("context-menu");
    await page.locator(".monaco-menu .action-item", { hasText: "Explain Selection" }).first().click();

    await waitForAssistantText(frame, "EXPLAINED:");
    await waitForState(frame, "done");
    const sent = userTexts(llm.requests).find((t) => t.startsWith("Explain the code I selected"));
    expect(sent).toBeDefined();
    expect(sent!.split("\n")[0]).toBe("Explain the code I selected in src/tides.ts, lines 12-13:");
    expect(sent).toContain("```typescript\n  let t = knownHigh.getTime();\n  while (t < from.getTime()) t += TIDAL_PERIOD_MS;\n```");
    expect(sent).toContain("Do not change any files.");
    await shot("explained");
  });

  it("Edit Selection… asks for the instruction, proposes a diff, and the accepted edit is on disk", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-edit");
    const path = vs.path("src/tides.ts");
    const before = readFileSync(path, "utf8");
    const frame = await vs.openPanel();
    await openFile(page, "tides.ts", "TIDAL_PERIOD_MS");
    await selectLines(page, 15, 15);
    await vs.runCommand("Yoke: Edit Selection…");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible", timeout: 15_000 });
    expect(await page.locator(".quick-input-widget").textContent()).toContain("src/tides.ts, line 15");
    await input.fill("Freeze the result so callers cannot change it");
    await shot("instruction");
    await page.keyboard.press("Enter");

    // The proposal is a diff under review: nothing on disk yet, and Yoke waits for the user.
    await hunkLens(page, 1, "Accept").waitFor({ timeout: 60_000 });
    await page.locator(".view-lines", { hasText: "Object.freeze(result)" }).first().waitFor({ timeout: 10_000 });
    expect(readFileSync(path, "utf8")).toBe(before);
    await expect.poll(barText, { timeout: 15_000 }).toMatch(/^Yoke: waiting for you · Ask · /);
    await shot("proposal");

    await hunkLens(page, 1, "Accept").click();
    await waitForAssistantText(frame, "EDITED: the result is frozen.", 60_000);
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 15_000 });
    expect(readFileSync(path, "utf8")).toBe(before.replace("  return result;\n}", `${FROZEN}\n}`));
    const sent = userTexts(llm.requests).find((t) => t.startsWith("Edit the code I selected"));
    expect(sent!.split("\n").slice(0, 3)).toEqual(["Edit the code I selected in src/tides.ts, line 15, as follows:", "", "Freeze the result so callers cannot change it"]);
    // The model edited with the anchor of the prompt, without reading the file first.
    const exchange = llm.requests.map(readExchange).find((e) => e.userText === sent && e.steps.length > 0);
    expect(exchange?.steps.map((s) => s.name)).toEqual(["edit_file"]);
    await expect.poll(barText, { timeout: 30_000 }).toMatch(/^Yoke: idle · /);
    await shot("accepted");
  });

  it("Fix Problems in File sends the file's diagnostics from the language server", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-fix");
    const frame = await vs.openPanel();
    await openFile(page, "count.ts", "export const count");
    // TypeScript's server reports the error (a squiggle) once it has loaded the project.
    await page.locator(".editor-instance .squiggly-error").first().waitFor({ state: "attached", timeout: 120_000 });
    await vs.runCommand("Yoke: Fix Problems in File");
    await waitForAssistantText(frame, "FIX PLANNED", 60_000);
    const sent = userTexts(llm.requests).find((t) => t.startsWith("Fix the problems VS Code reports"));
    expect(sent).toBeDefined();
    expect(sent!.split("\n")[0]).toBe("Fix the problems VS Code reports in src/count.ts (1 error):");
    expect(sent).toMatch(/^- src\/count\.ts:1:\d+ error \(ts 2322\): Type '(string|"three")' is not assignable to type 'number'\.$/m);
    expect(sent).toMatch(/^1#[A-Z]{2}\|export const count: number = "three";$/m);
    await shot("sent");
  });

  it("Add Selection to Chat (Ctrl+Alt+K) and Add File to Chat become chips that reach the model with the next message", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-context");
    await openFile(page, "tides.ts", "TIDAL_PERIOD_MS");
    await selectLines(page, 1, 2);
    await page.keyboard.press("Control+Alt+k");
    // The command shows the panel and puts the chip into its prompt box, which takes the focus.
    // Nothing else is done until the chip is there: the focus moving into the panel would close a
    // quick input opened meanwhile (the "inert" palette of the flaky runs).
    const frame = await findFrame(page, "[data-testid=composer-chip]", 30_000);
    const chips = () => texts(frame, "composer-chip");
    await expect.poll(chips, { timeout: 20_000 }).toEqual(["@tides.ts:1-2"]);
    await expect.poll(() => frame.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid), { timeout: 10_000 }).toBe("prompt-input");

    await openFile(page, "README.md", "tidewatch");
    await command(page, "Yoke: Add File to Chat");
    await expect.poll(chips, { timeout: 20_000 }).toEqual(["@tides.ts:1-2", "@README.md"]);
    await openFile(page, "package.json", '"name"');
    await command(page, "Yoke: Add File to Chat");
    await expect.poll(chips, { timeout: 20_000 }).toEqual(["@tides.ts:1-2", "@README.md", "@package.json"]);
    await shot("three-chips");
    await frame.locator("[data-testid=composer-chip]", { hasText: "package.json" }).locator("[data-testid=chip-remove]").click();
    await expect.poll(chips, { timeout: 10_000 }).toEqual(["@tides.ts:1-2", "@README.md"]);

    await sendPrompt(frame, "What did I attach?");
    await waitForAssistantText(frame, "ECHO: What did I attach?");
    // The box is empty again; the sent message shows what it carried.
    await expect.poll(chips, { timeout: 10_000 }).toEqual([]);
    const message = frame.locator("[data-testid=message-user]", { hasText: "What did I attach?" });
    expect(await message.locator("[data-testid=message-chip]").allTextContents()).toEqual(["@tides.ts:1-2", "@README.md"]);
    // What the model got: the words, then the attachments (the same block as @-mentions make).
    const req = llm.requests.find((r) => readExchange(r).userText === "What did I attach?")!;
    const users = userContents(req);
    expect(users.at(-2)).toBe("What did I attach?");
    const attached = users.at(-1)!;
    expect(attached).toMatch(/^<context source="mentions">\n/);
    expect(attached).toContain(
      '<attachment kind="selection" path="src/tides.ts" lines="1-2">\n/** Mean lunar semidiurnal period: 12 hours 25 minutes. */\nexport const TIDAL_PERIOD_MS = (12 * 60 + 25) * 60 * 1000;\n',
    );
    // README.md as read_file shows it (anchored lines), read when the message was sent.
    const readme = readFileSync(vs.path("README.md"), "utf8").split("\n")[0]!;
    expect(attached).toMatch(new RegExp(`<attachment kind="file" path="README.md">\\nFile: README.md \\(lines 1-\\d+ of \\d+\\)\\n1#[A-Z]{2}\\|${readme.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(JSON.stringify(req.body.messages)).not.toContain("package.json");
    await shot("sent");
  });

  it("New Task (Ctrl+Alt+J) opens a fresh session with the keyboard in the prompt box", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-new-task");
    await openFile(page, "tides.ts", "TIDAL_PERIOD_MS");
    await page.locator(".editor-instance .view-line", { hasText: "TIDAL_PERIOD_MS =" }).first().click();
    await page.locator(".editor-instance .monaco-editor.focused").first().waitFor({ timeout: 10_000 });
    await page.keyboard.press("Control+Alt+j");
    // Not through the palette: the keyboard focus must stay where New Task put it. What the person
    // sees first: an empty transcript and the cursor in the prompt box of the panel.
    const frame = await findFrame(page, "#yoke-root");
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual([]);
    await expect.poll(() => frame.evaluate(() => document.hasFocus() && (document.activeElement as HTMLElement | null)?.dataset.testid), { timeout: 15_000 }).toBe("prompt-input");
    expect(await texts(frame, "composer-chip")).toEqual([]);
    const before = llm.requests.length;
    await page.keyboard.type("Say hello from the new task");
    await expect.poll(() => frame.locator("[data-testid=prompt-input]").inputValue(), { timeout: 10_000 }).toBe("Say hello from the new task");
    await page.keyboard.press("Enter");
    await waitForAssistantText(frame, "ECHO: Say hello from the new task");
    expect(await texts(frame, "message-user")).toEqual(["Say hello from the new task"]);
    // A new session: the model got this message alone, without the earlier exchanges.
    const req = llm.requests.slice(before).find((r) => readExchange(r).userText === "Say hello from the new task")!;
    expect(userContents(req)).toEqual(["Say hello from the new task"]);
    expect(JSON.stringify(req.body.messages)).not.toContain("What did I attach?");
    await shot("new-task");
  });

  it("Stop stops a running turn; the status bar shows working, then idle", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("palette-stop");
    const frame = await vs.openPanel();
    const count = llm.requests.length;
    await sendPrompt(frame, "Please stall for a while.");
    await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBe(count + 1);
    await expect.poll(barText, { timeout: 15_000 }).toMatch(/^Yoke: working · Ask · scripted-e2e$/);
    await shot("working");
    await vs.runCommand("Yoke: Stop");
    await expect.poll(() => frame.locator("[data-testid=status]").getAttribute("data-state"), { timeout: 30_000 }).toBe("cancelled");
    await expect.poll(barText, { timeout: 15_000 }).toBe("Yoke: idle · Ask · scripted-e2e");
    await shot("stopped");
  });

  it("Switch Model and Switch Permission Mode change what the status bar shows and what the next request uses", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots("palette-switch");
    const frame = await vs.openPanel();
    await vs.runCommand("Yoke: Switch Model");
    // The current model, and the one the server lists (GET /v1/models).
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "scripted-e2e" }).first().waitFor({ timeout: 15_000 });
    await shot("models");
    await pick(page, "scripted-model");
    // At once, before any message: the status bar and the panel's header name the new model.
    await expect.poll(barText, { timeout: 30_000 }).toBe("Yoke: idle · Ask · scripted-model");
    await expect.poll(() => frame.locator("[data-testid=model-label]").textContent(), { timeout: 15_000 }).toBe("scripted-model");

    await vs.runCommand("Yoke: Switch Permission Mode");
    await pick(page, "Plan (read-only)");
    await expect.poll(barText, { timeout: 30_000 }).toBe("Yoke: idle · Plan · scripted-model");
    await frame.locator("[data-testid=mode][data-mode=plan]").waitFor({ state: "attached", timeout: 15_000 });
    await shot("switched");

    await sendPrompt(frame, "Which model answers now?");
    await waitForAssistantText(frame, "ECHO: Which model answers now?");
    expect(llm.requests.at(-1)?.body.model).toBe("scripted-model");
    expect(await frame.locator("[data-testid=model-label]").textContent()).toBe("scripted-model");
  });

  it("Open Session… reopens a past session in the panel; Show Log shows Yoke's log", async () => {
    const { page } = vs;
    const shot = vs.screenshots("palette-open");
    const frame = await vs.openPanel();
    await vs.runCommand("Yoke: Open Session…");
    await pick(page, "Explain the code I selected");
    await expect.poll(async () => (await texts(frame, "message-user"))[0] ?? "", { timeout: 15_000 }).toContain("Explain the code I selected in src/tides.ts, lines 12-13:");
    // The first test's session (each test starts a new one), not the session open before.
    const answers = (await texts(frame, "message-assistant")).map((t) => t.trim());
    expect(answers).toEqual(["EXPLAINED: the loop catches up with the start."]);
    await shot("opened");

    await vs.runCommand("Yoke: Show Log");
    // Yoke's log channel in the Output panel: timestamped lines with their level (a loaded machine logs warnings too).
    await page
      .locator(".part.panel .view-lines", { hasText: /\[(trace|debug|info|warning|warn|error)\]/ })
      .first()
      .waitFor({ timeout: 45_000 });
    await shot("log");
  });
});
