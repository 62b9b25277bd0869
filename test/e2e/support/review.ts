// What the review tests share: the sample workspace's src/tides.ts and the lines they change, the
// VS Code they review in, and how a person reaches the review's CodeLens in the editor.
import { readFileSync } from "node:fs";
import type { Frame, Locator, Page } from "playwright-core";
import type { ScriptedServerOptions } from "../../../src/demo/scripted-llm-server";
import { sendPrompt } from "./yoke-panel";
import type { YokeVscode, YokeVscodeOptions } from "./yoke-vscode";

/** The file of test/fixtures/sample-workspace the review tests edit. */
export const FILE = "src/tides.ts";
/** Its line 1, and what the model makes of it. */
export const OLD_1 = "/** Mean lunar semidiurnal period: 12 hours 25 minutes. */";
export const NEW_1 = "/** Mean lunar semidiurnal period (the M2 constituent): 12 hours 25 minutes. */";
/** Its last two lines (15-16), and what the model makes of them. */
export const OLD_2 = "  return result;\n}";
export const NEW_2 = "  return Object.freeze(result) as Date[];\n}";

/**
 * A VS Code for reviewing: permission mode "default" (every edit is reviewed) and, unless `userSettings`
 * say otherwise, files.autoSave off. code-server (web) saves after a delay by default, which would
 * stage the proposal in an editor of its own; the desktop default is off, so the proposal is reviewed
 * inline in the file's own editor.
 */
export function reviewVscode(name: string, script: ScriptedServerOptions["script"], userSettings: Record<string, unknown> = { "files.autoSave": "off" }): YokeVscodeOptions {
  return { name, model: { script }, workspaceSettings: { "yoke.permissionMode": "default" }, userSettings };
}

/** The link `title` ("Accept", "Reject") in the CodeLens row of hunk `hunk` (1-based). */
export function hunkLens(page: Page, hunk: number, title: string): Locator {
  return page.locator(".codelens-decoration", { hasText: `hunk ${hunk}:` }).locator("a", { hasText: new RegExp(`^${title}$`) });
}

/** The link `title` ("Accept File", "Reject File", "Open Diff") in the file's CodeLens row. */
export function fileLens(page: Page, title: string): Locator {
  return page.locator(".codelens-decoration a", { hasText: new RegExp(`^${title}$`) });
}

/** The `N#HH` anchor a read_file (or grep) result showed for line `n`. */
export function anchor(readOutput: string, n: number): string {
  const m = new RegExp(`^(${n}#\\w+)\\|`, "m").exec(readOutput);
  if (!m) throw new Error(`no anchor for line ${n} in the tool result:\n${readOutput}`);
  return m[1]!;
}

/** What proposeTwoHunks() leaves the test with. */
export interface TwoHunkProposal {
  page: Page;
  frame: Frame;
  shot: (step: string) => Promise<string>;
  /** The absolute path of src/tides.ts, and its text before the proposal. */
  path: string;
  original: string;
}

/**
 * Opens the workbench and the panel, sends the prompt "Document the M2 constituent and make the
 * result immutable." (the review scripts answer it with a two-hunk edit of src/tides.ts, lines 1
 * and 15) and waits until the proposal shows a CodeLens row per hunk.
 */
export async function proposeTwoHunks(vs: YokeVscode): Promise<TwoHunkProposal> {
  const page = vs.page;
  const shot = vs.screenshots();
  const path = vs.path(FILE);
  const original = readFileSync(path, "utf8");
  // Open already when each test starts idle (the fixture's beforeEach opened it).
  if (!(await page.locator(".monaco-workbench").isVisible())) await vs.openWorkbench();
  const frame = await vs.openPanel();
  await sendPrompt(frame, "Document the M2 constituent and make the result immutable.");
  await hunkLens(page, 1, "Accept").waitFor({ timeout: 60_000 });
  await hunkLens(page, 2, "Reject").waitFor({ timeout: 10_000 });
  return { page, shot, path, original, frame };
}
