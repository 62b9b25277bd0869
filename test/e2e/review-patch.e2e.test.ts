// A multi-file apply_patch reviewed as one change in a real VS Code (issue 21): the scripted model
// sends one patch that adds src/moon.ts, changes src/tides.ts in two places and deletes
// src/legacy.ts. The panel lists the three files together as one pending change; the person
// rejects hunk 2 of tides.ts with its CodeLens, then accepts the rest of the change from the
// panel: the disk holds exactly that, and the model is told per file. A second prompt's patch is
// rejected as a whole from the panel: the disk is unchanged.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { FILE, hunkLens, NEW_1, OLD_1, reviewVscode } from "./support/review";
import { sendPrompt, waitForAssistantText } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const LEGACY = "src/legacy.ts";
const MOON = "src/moon.ts";
const LEGACY_TEXT = "export const legacyPeriodHours = 12.42;\n";
const PATCH = [
  "*** Begin Patch",
  `*** Add File: ${MOON}`,
  "+export const SYNODIC_MONTH_DAYS = 29.53;",
  `*** Update File: ${FILE}`,
  "@@",
  `-${OLD_1}`,
  `+${NEW_1}`,
  " export const TIDAL_PERIOD_MS = (12 * 60 + 25) * 60 * 1000;",
  "@@",
  "   for (; t < to.getTime(); t += TIDAL_PERIOD_MS) result.push(new Date(t));",
  "-  return result;",
  "+  return Object.freeze(result) as Date[];",
  " }",
  "*** End of File",
  `*** Delete File: ${LEGACY}`,
  "*** End Patch",
].join("\n");

const DONE_PARTIAL = "Patch reviewed: kept as you decided.";
const DONE_REJECTED = "Understood, nothing changed.";

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  if (!ex.steps.some((s) => s.name === "apply_patch")) return { text: "Proposing one patch.", toolCalls: [{ name: "apply_patch", input: { input: PATCH } }] };
  return { text: ex.userText.includes("again") ? DONE_REJECTED : DONE_PARTIAL };
}

describe("a multi-file patch under review in code-server", () => {
  const base = reviewVscode("review-patch", script);
  const vs = useYokeVscode({
    ...base,
    workspaceSettings: { ...base.workspaceSettings, "yoke.edits.tool": "apply_patch" },
    testsBuildOnEachOther: "one window: the second case puts back the file the first deleted and sends its prompt in the same session",
  });

  /** The apply_patch result of the exchange that started with `prompt`. */
  const patchResult = (prompt: string) => {
    const ex = vs.llm.requests.map(readExchange).find((e) => e.userText.includes(prompt) && e.steps.some((s) => s.name === "apply_patch"));
    return ex?.steps.find((s) => s.name === "apply_patch")?.output;
  };

  it("shows the three files as one pending change; one hunk rejected in the editor, the rest accepted from the panel: the disk holds exactly that", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-patch");
    const tides = vs.path(FILE);
    const original = readFileSync(tides, "utf8");
    writeFileSync(vs.path(LEGACY), LEGACY_TEXT);
    // The first load of the workbench can take over 30 s on a loaded machine (Playwright's default).
    page.setDefaultNavigationTimeout(180_000);
    if (!(await page.locator(".monaco-workbench").isVisible())) await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Add the moon, document M2 and freeze the result, drop legacy.");

    const set = frame.locator("[data-testid=pending-change-set]");
    await set.waitFor({ timeout: 180_000 });
    await frame.locator("[data-testid=pending-change-set][data-files='3']").waitFor({ timeout: 60_000 });
    const rows = set.locator("[data-testid=pending-change]");
    expect(await rows.evaluateAll((els) => els.map((e) => [e.getAttribute("data-op"), e.getAttribute("data-path"), e.getAttribute("data-status")]))).toEqual([
      ["add", MOON, "pending"],
      ["update", FILE, "pending"],
      ["delete", LEGACY, "pending"],
    ]);
    expect(await frame.locator(".pending-title").textContent()).toBe("Changes to review (1)");
    // Nothing on disk while the person decides.
    expect(readFileSync(tides, "utf8")).toBe(original);
    expect(readFileSync(vs.path(LEGACY), "utf8")).toBe(LEGACY_TEXT);
    await shot("one-change-three-files");

    // tides.ts's editor: its hunks with their CodeLens, and the change's own row.
    await page.locator(".tab", { hasText: "tides.ts" }).first().click();
    await hunkLens(page, 2, "Reject").waitFor({ timeout: 60_000 });
    await page.locator(".codelens-decoration", { hasText: "part of one change of 3 files" }).first().waitFor({ timeout: 10_000 });
    await hunkLens(page, 2, "Reject").click();
    await page.locator(".codelens-decoration", { hasText: "hunk 2:" }).waitFor({ state: "detached", timeout: 10_000 });
    // Still nothing written: the rest of the change is undecided.
    expect(readFileSync(tides, "utf8")).toBe(original);
    expect(existsSync(vs.path(LEGACY))).toBe(true);
    await shot("hunk-2-rejected");

    await set.locator("[data-testid=accept-change-set]").click();
    await waitForAssistantText(frame, DONE_PARTIAL, 180_000);
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await shot("change-decided");

    expect(readFileSync(vs.path(MOON), "utf8")).toBe("export const SYNODIC_MONTH_DAYS = 29.53;\n");
    expect(readFileSync(tides, "utf8")).toBe(original.replace(OLD_1, NEW_1));
    expect(existsSync(vs.path(LEGACY))).toBe(false);
    const told = patchResult("Add the moon")!;
    expect(told).toContain("The user reviewed the patch (3 files) as one change: 2 accepted, 1 partly accepted. Per file:");
    expect(told).toContain(`- A ${MOON}: accepted (created).`);
    expect(told).toContain(`- M ${FILE}: partly accepted: hunk 1 applied, hunk 2 rejected.`);
    expect(told).toContain(`- D ${LEGACY}: accepted; the file was deleted.`);
    // Back as it was for the next test.
    writeFileSync(tides, original);
    rmSync(vs.path(MOON));
  }, 600_000);

  it("rejecting the whole change from the panel leaves the disk unchanged", async () => {
    const page = vs.page;
    const shot = vs.screenshots("review-patch-reject");
    const tides = vs.path(FILE);
    const original = readFileSync(tides, "utf8");
    writeFileSync(vs.path(LEGACY), LEGACY_TEXT);
    if (!(await page.locator(".monaco-workbench").isVisible())) await vs.openWorkbench();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "Add the moon and drop legacy again.");
    const set = frame.locator("[data-testid=pending-change-set][data-files='3']");
    await set.waitFor({ timeout: 180_000 });
    await shot("pending");
    await set.locator("[data-testid=reject-change-set]").click();
    await waitForAssistantText(frame, DONE_REJECTED, 180_000);
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 10_000 });
    await shot("rejected");
    expect(readFileSync(tides, "utf8")).toBe(original);
    expect(readFileSync(vs.path(LEGACY), "utf8")).toBe(LEGACY_TEXT);
    expect(existsSync(vs.path(MOON))).toBe(false);
    expect(patchResult("again")).toMatch(/^The user rejected the whole patch \(3 files\); no file was changed\./);
    rmSync(vs.path(LEGACY));
  }, 600_000);
});
