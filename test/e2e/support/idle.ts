// A known idle state before each end-to-end test, so one slow or failed test cannot fail the ones
// after it (a first test that timed out with the agent still working used to leave the next ones
// without a Send button). Every step waits for what a person would see, never for a fixed time.
import type { Frame, Locator, Page } from "playwright-core";
import { openWorkbench, openYokeView, runCommand } from "./workbench";

export interface IdleOptions {
  /** The workbench URL: opened when the page shows no workbench yet (the first test, or a crashed page). */
  url: string;
  /** The permission mode each test starts in (the panel's mode menu is set back to it). */
  mode: string;
}

/** What resetToIdle() found and undid, for the tests that prove it. */
export interface IdleReport {
  openedWorkbench: boolean;
  closedOverlays: number;
  stoppedRun: boolean;
  modeWas: string;
}

const QUICK_INPUT = ".quick-input-widget:not(.quick-input-widget-closing)";
const DIALOG = ".monaco-dialog-box";

async function visible(l: Locator): Promise<boolean> {
  return l
    .first()
    .isVisible()
    .catch(() => false);
}

/** Escape closes a quick input (palette, quick pick, input box) or a dialog; as often as one is open. */
async function closeOverlays(page: Page): Promise<number> {
  let closed = 0;
  for (let i = 0; i < 6; i++) {
    const quick = page.locator(QUICK_INPUT);
    const dialog = page.locator(DIALOG);
    const [q, d] = [await visible(quick), await visible(dialog)];
    if (!q && !d) break;
    // A save prompt (a dirty editor being closed): keep nothing a failed test left unsaved.
    const dontSave = dialog.locator(".monaco-button", { hasText: /^Don't Save$/ });
    if (d && (await visible(dontSave))) await dontSave.first().click();
    else await page.keyboard.press("Escape");
    await (q ? quick : dialog)
      .first()
      .waitFor({ state: "hidden", timeout: 10_000 })
      .catch(() => undefined);
    closed += 1;
  }
  return closed;
}

/**
 * Brings one test file's VS Code to the state every test may assume: the workbench open, no quick
 * input or dialog, no editor left open, the agent idle (a running turn stopped, so a review in
 * progress is withdrawn), the mode menu at `mode`, and a new, empty session in the panel.
 */
export async function resetToIdle(page: Page, opts: IdleOptions): Promise<IdleReport> {
  const report: IdleReport = { openedWorkbench: false, closedOverlays: 0, stoppedRun: false, modeWas: opts.mode };
  if (!page.url().startsWith(opts.url) || !(await visible(page.locator(".monaco-workbench")))) {
    await openWorkbench(page, opts.url);
    report.openedWorkbench = true;
  }
  report.closedOverlays = await closeOverlays(page);
  const frame = await openYokeView(page);

  // Stop a run, as a person does: the Stop button, then the Send button is back.
  const stop = frame.locator("[data-testid=stop]");
  if (await visible(stop)) {
    await stop.click();
    report.stoppedRun = true;
  }
  await idleComposer(frame).waitFor({ state: "visible", timeout: 60_000 });
  // A stopped review puts the file back and takes its CodeLens away.
  await page.locator(".codelens-decoration", { hasText: "to review" }).first().waitFor({ state: "detached", timeout: 30_000 });

  // Editors a test left open (saved or not) go, so the next one sees only what it opens.
  await runCommand(page, "View: Close All Editors");
  report.closedOverlays += await closeOverlays(page);
  await page
    .locator(".editor-instance .monaco-editor")
    .first()
    .waitFor({ state: "detached", timeout: 15_000 })
    .catch(() => undefined);

  const panel = await openYokeView(page);
  const mode = panel.locator("[data-testid=mode]");
  report.modeWas = await mode.inputValue();
  if (report.modeWas !== opts.mode) await mode.selectOption(opts.mode);
  await panel.locator(`[data-testid=mode]:has(option[value="${opts.mode}"]:checked)`).waitFor({ timeout: 15_000 });

  await panel.locator("[data-testid=new-session]").click();
  await panel.locator("[data-testid=message-user], [data-testid=message-assistant], [data-testid=permission-card]").first().waitFor({ state: "detached", timeout: 30_000 });
  await idleComposer(panel).waitFor({ state: "visible", timeout: 30_000 });
  return report;
}

/** The composer of an idle agent: Send shown and enabled, the prompt box ready. */
export function idleComposer(frame: Frame): Locator {
  return frame.locator("[data-testid=send]:not([disabled]):not([hidden])");
}
