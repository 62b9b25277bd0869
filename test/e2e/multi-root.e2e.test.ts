// A two-folder workspace in a real VS Code (code-server opens a .code-workspace file): the model is
// told both folders' names, reads and edits a file of the SECOND folder by the path the system
// prompt teaches ("harbour/src/tides.ts"), and the person accepts the change with the CodeLens.
// Both folders hold a src/tides.ts, so a path resolved against the wrong folder would show. Then a
// grep and a list_files over "." reach both folders.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedServer, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange, type ToolStep } from "../../src/demo/wire-conversation";
import { RESULTS_DIR } from "./support/paths";
import { anchor, fileLens } from "./support/review";
import { expandToolCard, sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const FOLDER = "harbour";
const FILE = "src/tides.ts";
const TARGET = `${FOLDER}/${FILE}`;
const HARBOUR_TIDES = [
  "// Harbour tide table: the berths open around high water.",
  "export const BERTH_WINDOW_MINUTES = 90;",
  "",
  "export function berthOpen(minutesFromHigh: number): boolean {",
  "  return Math.abs(minutesFromHigh) <= BERTH_WINDOW_MINUTES;",
  "}",
  "",
].join("\n");
/** What the model replaces lines 2 and 5 with (two hunks). */
const NEW_2 = "export const BERTH_WINDOW_MINUTES = 120;";
const NEW_5 = "  return Math.abs(minutesFromHigh) < BERTH_WINDOW_MINUTES;";
const EDITED = HARBOUR_TIDES.replace("= 90;", "= 120;").replace("<= BERTH_WINDOW_MINUTES", "< BERTH_WINDOW_MINUTES");

const step = (steps: ToolStep[], name: string) => steps.find((s) => s.name === name);

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  if (ex.userText.includes("Widen the berth window")) {
    const read = step(ex.steps, "read_file");
    if (!read) return { toolCalls: [{ name: "read_file", input: { path: TARGET } }] };
    if (!step(ex.steps, "edit_file")) {
      const edits = [
        { op: "replace", pos: anchor(read.output, 2), lines: [NEW_2] },
        { op: "replace", pos: anchor(read.output, 5), lines: [NEW_5] },
      ];
      return { text: "Proposing the wider window.", toolCalls: [{ name: "edit_file", input: { path: TARGET, edits } }] };
    }
    return { text: "The harbour's berth window is now 120 minutes." };
  }
  if (ex.userText.includes("Survey both folders")) {
    if (!step(ex.steps, "grep")) return { toolCalls: [{ name: "grep", input: { pattern: "tide", path: "." } }] };
    if (!step(ex.steps, "list_files")) return { toolCalls: [{ name: "list_files", input: { path: "." } }] };
    return { text: "Both folders surveyed." };
  }
  return { text: "No plan for this prompt." };
}

/** The steps of the last request of the exchange that started with `prompt`. */
function steps(llm: ScriptedServer, prompt: string): ToolStep[] {
  return (
    llm.requests
      .map(readExchange)
      .filter((e) => e.userText.includes(prompt))
      .at(-1)?.steps ?? []
  );
}

/** Every file below `dir` (relative path → content). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe("a two-folder workspace in code-server", () => {
  const vs = useYokeVscode({
    name: "multi-root",
    model: { script },
    folders: { [FOLDER]: { [FILE]: HARBOUR_TIDES, "README.md": "# Harbour\n\nBerth planning around high water.\n" } },
    workspaceSettings: { "yoke.permissionMode": "default" },
    userSettings: { "files.autoSave": "off" },
    eachTestStartsIdle: true,
  });

  it("reads and edits a file in the second folder by its folder-name path; Accept in the editor writes only there", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    const first = snapshot(vs.workspace);
    const target = vs.path(FILE, FOLDER);
    expect(readFileSync(target, "utf8")).toBe(HARBOUR_TIDES);

    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Widen the berth window of the harbour to two hours.");

    // The proposal opens in the second folder's file, a CodeLens row per hunk.
    await page.locator(".codelens-decoration", { hasText: "2 of 2 hunks to review" }).waitFor({ timeout: 60_000 });
    const editor = page.locator(".editor-instance .monaco-editor", { hasText: "BERTH_WINDOW_MINUTES = 120" }).first();
    await editor.waitFor({ timeout: 10_000 });
    await page.locator(".breadcrumbs-control", { hasText: FOLDER }).first().waitFor({ timeout: 10_000 });
    expect(readFileSync(target, "utf8")).toBe(HARBOUR_TIDES); // nothing on disk while the person decides
    await shot("proposal-in-second-folder");

    // The model was told both folders, by name and root, and how to write a path in the second one.
    const system = (llm.requests[0]!.body.messages as Array<{ role: string; content: string }>).find((m) => m.role === "system")?.content ?? "";
    writeFileSync(join(RESULTS_DIR, "multi-root-system-prompt.txt"), system);
    expect(system).toContain("This workspace has 2 folders.");
    expect(system).toContain(`- sample-workspace: ${vs.workspace} (commands run here)`);
    expect(system).toContain(`- ${FOLDER}: ${vs.server.folders[FOLDER]}\n`);
    expect(system).toContain(`start a relative path with the folder's name (e.g. "${FOLDER}/src/index.ts")`);
    // The read gave the second folder's lines (not the first folder's src/tides.ts), with anchors.
    const read = step(steps(llm, "Widen the berth window"), "read_file")!;
    expect(read.isError).toBe(false);
    expect(read.output).toMatch(/^2#\w+\|export const BERTH_WINDOW_MINUTES = 90;$/m);
    expect(read.output).not.toContain("TIDAL_PERIOD_MS");

    await fileLens(page, "Accept File").click();
    await waitForAssistantText(frame, "The harbour's berth window is now 120 minutes.", 60_000);
    // Decided: the CodeLens rows are gone and the editor is saved.
    await page.locator(".codelens-decoration", { hasText: "to review" }).waitFor({ state: "detached", timeout: 10_000 });
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await shot("accepted");

    expect(readFileSync(target, "utf8")).toBe(EDITED);
    expect(snapshot(vs.workspace)).toEqual(first); // the first folder (its own src/tides.ts too) is untouched
    const edit = step(steps(llm, "Widen the berth window"), "edit_file")!;
    writeFileSync(join(RESULTS_DIR, "multi-root-tool-result.txt"), edit.output);
    expect(edit.isError).toBe(false);
    expect(edit.output).toMatch(new RegExp(`^The user accepted the edit of ${TARGET}: \\+2 -2 lines \\(2 edits\\)\\.`));
    expect(edit.output).toContain("Diff with fresh anchors (- removed, + added):");
    expect(edit.output).toMatch(/^\+2#\w+\|export const BERTH_WINDOW_MINUTES = 120;$/m);

    // The panel's cards name the file by its folder-relative path.
    for (const tool of ["read_file", "edit_file"]) {
      const summary = frame.locator(`[data-testid=tool-card][data-tool-name=${tool}] .tool-summary`).first();
      expect(await summary.textContent()).toContain(TARGET);
      expect(await frame.locator(`[data-testid=tool-card][data-tool-name=${tool}]`).first().getAttribute("data-status")).toBe("done");
    }
    expect(await expandToolCard(frame, "read_file")).toContain("BERTH_WINDOW_MINUTES = 90;");
    await shot("cards");
  });

  it('searches and lists "." across both folders, each path starting with its folder\'s name', async () => {
    const { llm } = vs;
    const shot = vs.screenshots("multi-root-survey");
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Survey both folders for tide code.");
    await waitForAssistantText(frame, "Both folders surveyed.", 60_000);
    const done = steps(llm, "Survey both folders");
    const grep = step(done, "grep")!;
    const list = step(done, "list_files")!;
    writeFileSync(join(RESULTS_DIR, "multi-root-survey.txt"), `${grep.output}\n---\n${list.output}`);
    expect(grep.isError).toBe(false);
    expect(grep.output).toMatch(/^sample-workspace\/src\/tides\.ts:\n4#\w+\|\/\*\* Returns the first high tide/m);
    expect(grep.output).toMatch(new RegExp(`^${FOLDER}/src/tides\\.ts:\\n1#\\w+\\|// Harbour tide table`, "m"));
    expect(list.isError).toBe(false);
    expect(list.output).toContain(`sample-workspace/ (${vs.workspace})\n  src/\n    format.ts`);
    expect(list.output).toContain(`${FOLDER}/ (${vs.server.folders[FOLDER]})\n  src/\n    tides.ts\n  README.md`);
    await shot("surveyed");
  });
});
