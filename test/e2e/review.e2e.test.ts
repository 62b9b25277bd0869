// Reviewing an edit in a real VS Code: the (scripted) model proposes a two-hunk edit_file, the
// user accepts hunk 1 and rejects hunk 2 with the CodeLens in the editor, the file on disk holds
// exactly that, and the model is told which hunk was applied.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { launchBrowser, type E2eBrowser } from "./support/browser";
import { launchCodeServer, type E2eCodeServer } from "./support/code-server";
import { RESULTS_DIR } from "./support/paths";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { openWorkbench, openYokeView, screenshotter } from "./support/workbench";

const FILE = "src/tides.ts";
const OLD_1 = "/** Mean lunar semidiurnal period: 12 hours 25 minutes. */";
const NEW_1 = "/** Mean lunar semidiurnal period (the M2 constituent): 12 hours 25 minutes. */";
const OLD_2 = "  return result;\n}";
const NEW_2 = "  return Object.freeze(result) as Date[];\n}";
const DONE = "Kept the comment; the freeze was rejected.";

/** read_file, then one edit_file with two far-apart edits, then an answer once the review is over. */
function reviewScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const steps = readExchange(req).steps;
  if (!steps.some((s) => s.name === "read_file")) return { toolCalls: [{ name: "read_file", input: { path: FILE } }] };
  if (!steps.some((s) => s.name === "edit_file")) {
    return {
      text: "Two small changes.",
      toolCalls: [{ name: "edit_file", input: { path: FILE, edits: [{ old_string: OLD_1, new_string: NEW_1 }, { old_string: OLD_2, new_string: NEW_2 }] } }],
    };
  }
  return { text: DONE };
}

describe("change review in code-server", () => {
  let llm: ScriptedServer;
  let server: E2eCodeServer;
  let browser: E2eBrowser;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ script: reviewScript });
    server = await launchCodeServer({
      name: "review",
      workspaceSettings: {
        "yoke.provider": "openai-compatible",
        "yoke.baseUrl": llm.openaiBaseUrl,
        "yoke.model": "scripted-e2e",
        "yoke.permissionMode": "default",
      },
      // code-server (web) saves after a delay by default, which would write the proposal while it
      // is under review; the desktop default is off, and that is what "nothing on disk yet" checks.
      userSettings: { "files.autoSave": "off" },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
  });

  it("writes exactly the accepted hunk and tells the model hunk 1 applied, hunk 2 rejected", async () => {
    const page = browser.page;
    const shot = screenshotter(page, "review");
    const path = join(server.workspace, FILE);
    const original = readFileSync(path, "utf8");
    expect(original).toContain(OLD_1);
    expect(original).toContain(OLD_2);

    await openWorkbench(page, server.url);
    const frame = await openYokeView(page);
    await sendPrompt(frame, "Document the M2 constituent and make the result immutable.");

    // The proposal opens in the editor with a CodeLens row per hunk.
    const lens = (hunk: number, title: string) =>
      page.locator(".codelens-decoration", { hasText: `hunk ${hunk}:` }).locator("a", { hasText: new RegExp(`^${title}$`) });
    await lens(1, "Accept").waitFor({ timeout: 60_000 });
    await lens(2, "Reject").waitFor({ timeout: 10_000 });
    await page.locator(".view-lines", { hasText: "the M2 constituent" }).first().waitFor();
    // Nothing is on disk while the user decides.
    expect(readFileSync(path, "utf8")).toBe(original);
    await shot("proposal-inline");

    await lens(1, "Accept").click();
    await page.locator(".codelens-decoration", { hasText: "hunk 1:" }).waitFor({ state: "detached", timeout: 10_000 });
    await shot("hunk-1-accepted");
    await lens(2, "Reject").click();

    await waitForAssistantText(frame, DONE, 60_000);
    // Decided: the CodeLens rows are gone and the editor is saved (no dirty marker on the tab).
    await page.locator(".codelens-decoration", { hasText: "to review" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await shot("review-done");

    const expected = original.replace(OLD_1, NEW_1);
    expect(readFileSync(path, "utf8")).toBe(expected);

    const after = llm.requests.map(readExchange).find((ex) => ex.steps.some((s) => s.name === "edit_file"));
    const result = after?.steps.find((s) => s.name === "edit_file");
    writeFileSync(join(RESULTS_DIR, "review-tool-result.txt"), result?.output ?? "(no edit_file result)");
    expect(result?.output).toContain("The user partly accepted the change to src/tides.ts: hunk 1 applied, hunk 2 rejected.");
    expect(result?.output).toContain(NEW_1);
  });
});
