// The demo in code-server, as a newcomer meets it: a fresh profile with no provider configured and
// no local model server, so the panel's first-run view offers the demo model; one click starts it
// and the empty panel suggests one prompt per feature. Each suggested prompt is clicked and walked
// through, asserting on what the person sees and on the files on disk:
//   - a two-hunk edit reviewed inline (hunk 1 accepted, hunk 2 rejected): the file holds hunk 1 only;
//   - a checkpoint restore (offered above the prompt box once the session has turns): the model adds
//     a line, turn 1's Restore… → Files only takes it out again on disk;
//   - a compaction of that session: the divider and the answer after it;
//   - a sandboxed command: its output in the Yoke terminal;
//   - a permission question answered "Always allow": the rule in .yoke/settings.local.json and the
//     second run not asked;
//   - a stuck loop stopped, with its notice.
// Every answer is labelled as the demo model. With YOKE_E2E_SCREENSHOTS=1 each feature's screenshot
// is also written to docs/screenshots/ (the README's "What it looks like").
import { mkdirSync, readFileSync } from "node:fs";
import { release, type } from "node:os";
import { join } from "node:path";
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_LINE, DEMO_BANNER, DEMO_PROMPTS, SANDBOX_COMMAND } from "../../src/demo/demo-tour";
import { ROOT } from "./support/paths";
import { hunkLens } from "./support/review";
import { lastAssistantText, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const BANNER = DEMO_BANNER.replace(/\*/g, "");
const DOC_SHOTS = process.env.YOKE_E2E_SCREENSHOTS === "1";
const DOC_DIR = join(ROOT, "docs", "screenshots");

/**
 * With YOKE_E2E_SCREENSHOTS=1, docs/screenshots/demo-<name>.png: the Yoke panel alone ("panel"),
 * or the panel with the editor and the bottom panel ("window", no activity or status bar).
 */
async function docShot(page: Page, name: string, what: "panel" | "window"): Promise<void> {
  if (!DOC_SHOTS) return;
  mkdirSync(DOC_DIR, { recursive: true });
  const parts = what === "panel" ? ["#workbench\\.parts\\.sidebar"] : ["#workbench\\.parts\\.sidebar", "#workbench\\.parts\\.editor", "#workbench\\.parts\\.panel"];
  const boxes = [];
  for (const p of parts) {
    const loc = page.locator(p).first();
    if (await loc.isVisible().catch(() => false)) {
      const box = await loc.boundingBox();
      if (box) boxes.push(box);
    }
  }
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const clip = { x, y, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
  await page.screenshot({ path: join(DOC_DIR, `demo-${name}.png`), clip });
}

/** Clicks the suggested prompt `label`: in the empty panel, or (`where` "next") above the prompt box. */
async function suggest(frame: Frame, label: string, where: "empty" | "next" = "empty"): Promise<void> {
  const list = frame.locator(where === "empty" ? "[data-testid=demo-prompts]" : "[data-testid=demo-prompts-next]");
  await list.waitFor({ state: "visible", timeout: 60_000 });
  const button = list.locator("[data-testid=demo-prompt]", { hasText: label }).first();
  await button.waitFor({ state: "visible", timeout: 15_000 });
  await button.click();
}

async function newSession(frame: Frame): Promise<void> {
  await waitForState(frame, "done", 60_000).catch(() => undefined);
  await frame.locator("[data-testid=new-session]").first().click();
  await frame.locator("[data-testid=demo-prompts]").waitFor({ state: "visible", timeout: 30_000 });
  expect(await frame.locator("[data-testid=message-user]").count()).toBe(0);
}

/** The header names the demo model and the latest answer says it comes from it. */
async function expectDemoLabelled(frame: Frame): Promise<void> {
  expect(await frame.locator("[data-testid=model-label]").textContent()).toBe("demo model");
  expect(await lastAssistantText(frame)).toContain(BANNER);
}

/**
 * Clicks `title` in hunk `hunk`'s CodeLens row until that row is gone (the hunk decided). On a loaded
 * machine a click can land while the editor lays its lenses out again and do nothing, as a person's
 * would; they click again. A decided hunk has no row left to click, so nothing is decided twice.
 */
async function decideHunk(page: Page, hunk: number, title: "Accept" | "Reject"): Promise<void> {
  const lens = hunkLens(page, hunk, title);
  for (let attempt = 1; ; attempt++) {
    await lens.waitFor({ state: "visible", timeout: 30_000 });
    await lens.click();
    const gone = await lens.waitFor({ state: "detached", timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (gone) return;
    if (attempt === 4) throw new Error(`hunk ${hunk}'s ${title} did nothing after ${attempt} clicks`);
  }
}

/** The visible text of the active terminal (xterm's DOM renderer: terminal.integrated.gpuAcceleration off). */
async function terminalText(page: Page): Promise<string> {
  return ((await page.locator(".terminal-wrapper.active .xterm-rows").first().textContent()) ?? "").replace(/\u00a0/g, " ");
}

describe("the demo in code-server, as a newcomer meets it", () => {
  const vs = useYokeVscode({
    name: "demo",
    // No model and no provider settings: a fresh profile. Review inline in the file's own editor
    // (code-server's delayed auto-save would stage a proposal in an editor of its own), and xterm's
    // DOM renderer so the Yoke terminal's text can be read.
    userSettings: { "files.autoSave": "off", "terminal.integrated.gpuAcceleration": "off" },
    testsBuildOnEachOther: "one tour, as a newcomer takes it: each stop continues the session and the files the stop before left",
  });
  let frame: Frame;
  /** README.md as the first stop left it (hunk 1 accepted, hunk 2 rejected). */
  let readmeAfterTurn1 = "";

  it("offers the demo model in the first-run view; one click shows one suggested prompt per feature", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    frame = await vs.openPanel();
    await vs.widenSideBar(480);
    await frame.locator("[data-testid=first-run]").waitFor({ state: "visible", timeout: 60_000 });
    expect(await frame.locator("[data-testid=model-label]").textContent()).toBe("no model");
    const offer = frame.locator("[data-testid=use-demo-model]");
    // Shown once the look for local servers (Ollama, LM Studio, llama.cpp) is over.
    await offer.waitFor({ state: "visible", timeout: 60_000 });
    await shot("first-run");
    await docShot(vs.page, "01-first-run", "panel");

    await offer.click();
    const prompts = frame.locator("[data-testid=demo-prompts]");
    await prompts.waitFor({ state: "visible", timeout: 60_000 });
    await frame.locator("[data-testid=first-run]").waitFor({ state: "hidden", timeout: 15_000 });
    await expect.poll(() => frame.locator("[data-testid=model-label]").textContent(), { timeout: 30_000 }).toBe("demo model");
    expect(await prompts.locator("[data-testid=demo-prompt]").allTextContents()).toEqual(DEMO_PROMPTS.map((p) => p.label));
    expect(await prompts.textContent()).toContain("demo model");
    // The one click pointed the user settings at the demo model the extension host serves.
    const user = JSON.parse(readFileSync(join(vs.server.userDataDir, "User", "settings.json"), "utf8")) as Record<string, unknown>;
    expect(user).toMatchObject({ "yoke.provider": "openai-compatible", "yoke.model": "demo", "yoke.demoLabel": "demo model" });
    expect(user["yoke.baseUrl"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await shot("suggested-prompts");
    await docShot(vs.page, "02-suggested-prompts", "panel");
  });

  it("Review a two-part edit: two hunks inline, hunk 1 accepted and hunk 2 rejected, the file holds hunk 1 only", async () => {
    const shot = vs.screenshots("demo-edit");
    const page = vs.page;
    const path = vs.path("README.md");
    const before = readFileSync(path, "utf8");
    await suggest(frame, "Review a two-part edit");
    await hunkLens(page, 1, "Accept").waitFor({ timeout: 90_000 });
    await hunkLens(page, 2, "Reject").waitFor({ timeout: 15_000 });
    // Nothing is written while the person decides.
    expect(readFileSync(path, "utf8")).toBe(before);
    await shot("two-hunks");
    await docShot(page, "03-review-two-hunks", "window");
    await decideHunk(page, 1, "Accept");
    await decideHunk(page, 2, "Reject");
    const answer = await waitForAssistantText(frame, "Yoke told me what you decided", 90_000);
    expect(answer).toContain(BANNER);
    await expect.poll(() => readFileSync(path, "utf8"), { timeout: 30_000 }).toContain("Change 1 of 2 by Yoke's demo model");
    const after = readFileSync(path, "utf8");
    expect(after).not.toContain("Change 2 of 2");
    expect(after.replace(/\n[^\n]*Change 1 of 2 by Yoke's demo model[^\n]*/, "")).toBe(before);
    await waitForState(frame, "done", 60_000);
    await expectDemoLabelled(frame);
    readmeAfterTurn1 = after;
    await shot("reviewed");
  });

  it("Restore a checkpoint (offered above the prompt box): the model adds a line, turn 1's Restore… takes it out on disk", async () => {
    const shot = vs.screenshots("demo-checkpoint");
    const page = vs.page;
    const path = vs.path("README.md");
    await suggest(frame, "Restore a checkpoint", "next");
    await hunkLens(page, 1, "Accept").waitFor({ timeout: 90_000 });
    await decideHunk(page, 1, "Accept");
    const answer = await waitForAssistantText(frame, "now has the added line", 90_000);
    expect(answer).toContain(BANNER);
    expect(answer).toContain("under my answer to turn 1");
    await expect.poll(() => readFileSync(path, "utf8"), { timeout: 30_000 }).toContain(CHECKPOINT_LINE);
    await waitForState(frame, "done", 60_000);

    const control = frame.locator('[data-testid=turn-control][data-turn="1"]').first();
    await control.waitFor({ state: "visible", timeout: 30_000 });
    await control.locator("[data-testid=turn-restore]").click();
    const preview = frame.locator("[data-testid=checkpoint-preview]");
    await preview.waitFor({ state: "visible", timeout: 30_000 });
    const file = preview.locator('[data-testid=checkpoint-file][data-path="README.md"]');
    await file.waitFor({ timeout: 15_000 });
    expect(await file.getAttribute("data-action")).toBe("write");
    expect(await file.locator("[data-testid=checkpoint-file-counts]").textContent()).toBe("+0 −1");
    // Nothing changes before the person chooses.
    expect(readFileSync(path, "utf8")).toContain(CHECKPOINT_LINE);
    await shot("preview");
    await docShot(page, "04-checkpoint-preview", "panel");
    await preview.locator("[data-testid=checkpoint-restore-files]").click();
    await expect.poll(() => readFileSync(path, "utf8"), { timeout: 30_000 }).toBe(readmeAfterTurn1);
    await frame.locator("[data-testid=notice]", { hasText: "Restored the files to the end of turn 1" }).first().waitFor({ state: "visible", timeout: 15_000 });
    // A files restore keeps the conversation: both turns are still there.
    expect(await frame.locator("[data-testid=message-user]").count()).toBe(2);
    await frame.locator("[data-testid=checkpoint-undo]").waitFor({ state: "visible", timeout: 15_000 });
    expect(await frame.locator("[data-testid=model-label]").textContent()).toBe("demo model");
    await shot("restored");
    await docShot(page, "05-checkpoint-restored", "panel");
  });

  it("Compact the context (in the same session): the divider shows, and the answer after it", async () => {
    const shot = vs.screenshots("demo-compaction");
    await suggest(frame, "Compact the context", "next");
    await frame.locator("[data-testid=compaction-divider]").first().waitFor({ state: "visible", timeout: 180_000 });
    const answer = await waitForAssistantText(frame, "Yoke compacted the context and sent the request again", 120_000);
    expect(answer).toContain(BANNER);
    await waitForState(frame, "done", 60_000);
    await expectDemoLabelled(frame);
    await frame.locator("[data-testid=compaction-divider]").first().scrollIntoViewIfNeeded();
    await shot("compacted");
    await docShot(vs.page, "06-compaction", "panel");
  });

  it("Run a sandboxed command: allowed without a question, its output in the Yoke terminal", async () => {
    const shot = vs.screenshots("demo-sandbox");
    const page = vs.page;
    await newSession(frame);
    await suggest(frame, "Run a sandboxed command");
    const answer = await waitForAssistantText(frame, "The command ran in the sandbox", 120_000);
    expect(answer).toContain("Hello from the Yoke sandbox");
    expect(answer).toContain(BANNER);
    const card = frame.locator("[data-testid=tool-card][data-tool-name=run_command]");
    expect(await card.count()).toBe(1);
    expect(await frame.locator("[data-testid=permission-card]").isVisible()).toBe(false);
    await page.locator(".terminal-tab, .single-terminal-tab, .tabs-list .monaco-list-row", { hasText: "Yoke" }).first().waitFor({ timeout: 60_000 });
    // What the command printed, in the Yoke terminal (a loaded machine can take a while to paint it).
    await expect.poll(() => terminalText(page).catch(() => ""), { timeout: 60_000 }).toContain("Hello from the Yoke sandbox");
    // The command line echoes the greeting too: `uname -sr`'s answer is what only running it prints.
    expect(SANDBOX_COMMAND).toContain("uname -sr");
    await expect.poll(() => terminalText(page).catch(() => ""), { timeout: 30_000 }).toContain(`${type()} ${release()}`);
    await waitForState(frame, "done", 60_000);
    await expectDemoLabelled(frame);
    await shot("terminal");
    await docShot(page, "07-sandboxed-command", "window");
  });

  it("Answer a permission question: Always allow writes the rule, and the same command runs again without a question", async () => {
    const shot = vs.screenshots("demo-permission");
    await newSession(frame);
    await suggest(frame, "Answer a permission question");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ state: "visible", timeout: 90_000 });
    expect(await card.textContent()).toContain("node --version");
    const always = card.locator("[data-testid=always-allow]");
    const rule = /Bash\([^)]*\)/.exec((await always.textContent()) ?? "")?.[0];
    expect(rule).toBeDefined();
    await shot("question");
    await docShot(vs.page, "08-permission-question", "panel");
    await always.click();
    const answer = await waitForAssistantText(frame, "It ran a second time without a question", 120_000);
    expect(answer).toContain(BANNER);
    expect(answer).toMatch(/Node said: \S/);
    const cards = frame.locator("[data-testid=tool-card][data-tool-name=run_command]");
    expect(await cards.count()).toBe(2);
    expect(await cards.nth(0).locator("[data-testid=tool-decision]").textContent()).toBe("asked you: allowed");
    expect(await cards.nth(1).locator("[data-testid=tool-decision]").textContent()).toContain(`allowed by rule ${rule}`);
    const local = JSON.parse(readFileSync(vs.path(".yoke/settings.local.json"), "utf8")) as { permissions?: { allow?: string[] } };
    expect(local.permissions?.allow).toContain(rule);
    await waitForState(frame, "done", 60_000);
    await expectDemoLabelled(frame);
    await shot("always-allowed");
  });

  it("Stop a stuck loop: the stuck detector nudges, then stops the loop and says so", async () => {
    const shot = vs.screenshots("demo-stuck");
    await newSession(frame);
    await suggest(frame, "Stop a stuck loop");
    const notice = frame.locator("[data-testid=notice]", { hasText: "Stopped: the agent seems stuck" }).first();
    await notice.waitFor({ state: "visible", timeout: 180_000 });
    // Stopped well before the model would have given up by itself (12 listings).
    expect(await frame.locator("[data-testid=tool-card][data-tool-name=list_files]").count()).toBeLessThan(12);
    expect(await frame.locator("[data-testid=message-assistant]").first().textContent()).toContain(BANNER);
    expect(await frame.locator("[data-testid=model-label]").textContent()).toBe("demo model");
    await notice.scrollIntoViewIfNeeded();
    await shot("stopped");
    await docShot(vs.page, "09-stuck-loop-stopped", "panel");
  });
});
