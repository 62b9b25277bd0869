// Driving the VS Code workbench (code-server) and finding Yoke's webview inside it.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Frame, Page } from "playwright-core";
import { onTestFailed } from "vitest";
import { RESULTS_DIR } from "./paths";

/** Opens the workbench URL and waits until the workbench and its extension host are up. */
export async function openWorkbench(page: Page, url: string): Promise<void> {
  // Generous: at a load of 20+ on two cores the page's load event took over 30 s (the default).
  await page.goto(url, { timeout: 120_000 });
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  // The status bar is rendered once the workbench has restored its parts.
  await page.locator("#workbench\\.parts\\.statusbar").waitFor({ timeout: 60_000 });
}

/**
 * Runs a command through the command palette (F1), matching its label. The palette's list is
 * computed when it opens, so a command contributed by an extension that is still starting may be
 * missing: close and reopen until it shows up. A palette that closes under us (something else took
 * the keyboard focus, e.g. a view that focuses its input as it opens) stays on screen for 150 ms
 * marked `inert` and takes no typing: only an open one that is not closing is typed into.
 */
export async function runCommand(page: Page, label: string, timeoutMs = 45_000): Promise<void> {
  const input = page.locator(".quick-input-widget:not(.quick-input-widget-closing) .quick-input-box input");
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
  const deadline = Date.now() + timeoutMs;
  while (true) {
    await page.keyboard.press("F1");
    const opened = await input.waitFor({ state: "visible", timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (opened) {
      const filled = await input.fill(`>${label}`, { timeout: 5_000 }).then(
        () => true,
        () => false,
      );
      const found =
        filled &&
        (await row.waitFor({ timeout: 4_000 }).then(
          () => true,
          () => false,
        ));
      if (found) break;
      await page.keyboard.press("Escape");
    } else {
      await page
        .locator("#workbench\\.parts\\.statusbar")
        .click({ position: { x: 600, y: 5 } })
        .catch(() => undefined);
    }
    if (Date.now() > deadline) {
      mkdirSync(RESULTS_DIR, { recursive: true });
      await page.screenshot({ path: join(RESULTS_DIR, `command-not-found-${Date.now()}.png`) }).catch(() => undefined);
      throw new Error(`command "${label}" did not appear in the command palette within ${timeoutMs} ms`);
    }
    await page.waitForTimeout(500);
  }
  await page.keyboard.press("Enter");
  await page
    .locator(".quick-input-widget .quick-input-box input")
    .waitFor({ state: "hidden", timeout: 10_000 })
    .catch(() => undefined);
}

/** Polls all frames (webviews are nested iframes) for the one containing `selector`. */
export async function findFrame(page: Page, selector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.$(selector)) return frame;
      } catch {
        // frame detached while we looked
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no frame contains ${selector} after ${timeoutMs} ms (frames: ${page.frames().length})`);
}

/**
 * "Developer: Reload Window", then waits until the page has really navigated (the old workbench's
 * DOM must not answer for the new one) and the new workbench has restored its parts.
 */
export async function reloadWorkbench(page: Page): Promise<void> {
  const navigated = page.waitForEvent("domcontentloaded", { timeout: 60_000 });
  await runCommand(page, "Developer: Reload Window");
  await navigated;
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  await page.locator("#workbench\\.parts\\.statusbar").waitFor({ timeout: 60_000 });
}

/**
 * Whether Yoke's chat webview is on screen: a frame holds #yoke-root and its iframe element in the
 * workbench is visible. A view that was never opened in this window has no frame at all.
 */
export async function yokeViewVisible(page: Page): Promise<boolean> {
  for (const frame of page.frames()) {
    const root = await frame.$("#yoke-root").catch(() => null);
    if (!root) continue;
    // Webviews are nested: walk up to the iframe the workbench itself holds.
    let outer: Frame = frame;
    while (outer.parentFrame() && outer.parentFrame() !== page.mainFrame()) outer = outer.parentFrame()!;
    const element = await outer.frameElement().catch(() => undefined);
    if (element && (await element.isVisible())) return true;
  }
  return false;
}

/** Opens the Yoke chat view and returns the webview frame holding #yoke-root. */
export async function openYokeView(page: Page): Promise<Frame> {
  await runCommand(page, "Yoke: Focus on Chat View");
  return findFrame(page, "#yoke-root", 45_000);
}

/**
 * Screenshots named <prefix>-<NN>-<step>.png in test-results/e2e (kept as artefacts), plus
 * <prefix>-failed.png when the current test fails. Call inside a test.
 */
export function screenshotter(page: Page, prefix: string): (step: string) => Promise<string> {
  let n = 0;
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Screenshots of an earlier run of this test would mislead: remove them.
  const mine = (name: string) => name.startsWith(`${prefix}-`) && /^(\d\d-.*|failed)\.png$/.test(name.slice(prefix.length + 1));
  for (const name of readdirSync(RESULTS_DIR)) if (mine(name)) rmSync(join(RESULTS_DIR, name), { force: true });
  onTestFailed(async () => {
    await page.screenshot({ path: join(RESULTS_DIR, `${prefix}-failed.png`) }).catch(() => undefined);
  });
  return async (step: string) => {
    n += 1;
    const file = join(RESULTS_DIR, `${prefix}-${String(n).padStart(2, "0")}-${step}.png`);
    await page.screenshot({ path: file });
    return file;
  };
}

/** Drags the side bar's edge so it is `width` pixels wide (readable screenshots of the panel). */
export async function widenSideBar(page: Page, width: number): Promise<void> {
  const box = await page.locator("#workbench\\.parts\\.sidebar").boundingBox();
  if (!box) return;
  const edge = box.x + box.width + 1;
  await page.mouse.move(edge, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + width, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
}
