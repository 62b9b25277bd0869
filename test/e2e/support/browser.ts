// Debian's Chromium driven by playwright-core (never `playwright install`: no downloads here).
import { chromium, type Browser, type Page } from "playwright-core";

const CHROMIUM = process.env.YOKE_CHROMIUM ?? "/usr/bin/chromium";

/** A browser with one page sized for readable screenshots. */
export interface E2eBrowser {
  browser: Browser;
  page: Page;
  close(): Promise<void>;
}

/** Launches headless Chromium with the flags that work in a container. */
export async function launchBrowser(): Promise<E2eBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  return {
    browser,
    page,
    close: async () => {
      await browser.close().catch(() => undefined);
    },
  };
}
