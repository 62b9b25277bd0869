// The one fixture of the end-to-end tests: a scripted model (src/demo/scripted-llm-server.ts), a
// real VS Code (code-server) with the packaged Yoke and a fresh copy of the sample workspace, and
// headless Chromium on it. Call useYokeVscode() in a describe() block: it starts everything in
// beforeAll (model first, so the settings can name its URL), stops everything in afterAll, and
// returns a handle whose page, model, server and workspace are there once the tests run. With
// `eachTestStartsIdle`, a beforeEach brings VS Code back to a known idle state (support/idle.ts).
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Frame, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedServerOptions } from "../../../src/demo/scripted-llm-server";
import { launchBrowser, type E2eBrowser } from "./browser";
import { launchCodeServer, type E2eCodeServer, type LaunchOptions } from "./code-server";
import { resetToIdle, type IdleReport } from "./idle";
import { RESULTS_DIR } from "./paths";
import { openWorkbench, openYokeView, reloadWorkbench, runCommand, screenshotter, widenSideBar, yokeViewVisible } from "./workbench";

/** The scripted model and how Yoke is pointed at it. */
export interface ScriptedModel extends Omit<ScriptedServerOptions, "port" | "host"> {
  /** The wire format Yoke speaks to it: "openai" (yoke.provider openai-compatible, the default) or "anthropic". */
  wire?: "openai" | "anthropic";
  /** yoke.model. Default "scripted-e2e". */
  name?: string;
  /**
   * Where yoke.provider, yoke.baseUrl and yoke.model are written. Default "user" (the profile's
   * User/settings.json): Yoke ignores a workspace's yoke.baseUrl (a repository must not send the
   * requests and the key to its own server; docs/security.md), so "workspace" only suits a model
   * that needs no base URL.
   */
  settingsIn?: "workspace" | "user";
}

/** What one test file's VS Code looks like. */
export interface YokeVscodeOptions {
  /** Names the temp dir, the code-server log in test-results/e2e and the default screenshot prefix. */
  name: string;
  /** The scripted model; absent: no model server and no provider settings. */
  model?: ScriptedModel;
  /** false: workspace trust on and the folder not trusted (Restricted Mode). Default true. */
  trusted?: boolean;
  /** Written to <workspace>/.vscode/settings.json (after the model's settings, so they can override them). */
  workspaceSettings?: Record<string, unknown>;
  /** Merged over the default user settings (after the model's settings). */
  userSettings?: Record<string, unknown>;
  /** Files written into the workspace (relative path → content) before VS Code starts. */
  files?: Record<string, string>;
  /** Files written into the profile's User folder (relative path → content) before VS Code starts: the user's own `mcp.json`. */
  userFiles?: Record<string, string>;
  /**
   * More root folders (name → files): a multi-root workspace of the sample workspace and these.
   * workspaceSettings (and the model's settings) then go to the .code-workspace file.
   */
  folders?: Record<string, Record<string, string>>;
  /**
   * Launch options known only at run time (built before code-server starts, in beforeAll):
   * environment for code-server and its extension host, more .vsix files to install.
   */
  launch?: () => Promise<Pick<LaunchOptions, "env" | "extensions">> | Pick<LaunchOptions, "env" | "extensions">;
  /**
   * Before each test: the workbench open, no quick input, dialog or editor left, the agent idle
   * (a running turn stopped), the mode menu at `mode` (default: yoke.permissionMode of the user's,
   * else the workspace's settings, else "default") and a new session — so a test that failed or
   * timed out half-way cannot fail the ones after it. For files whose tests do not build on each other.
   */
  eachTestStartsIdle?: boolean | { mode?: string };
  /**
   * A file whose tests are one story (each builds on the state the one before left) says so here,
   * instead of eachTestStartsIdle: a file with more than one test must choose one of the two
   * (test/unit/arch/e2e-idle.test.ts).
   */
  testsBuildOnEachOther?: string;
}

/** The running fixture. Its fields throw until beforeAll has started everything. */
export interface YokeVscode {
  readonly page: Page;
  readonly browser: E2eBrowser;
  readonly server: E2eCodeServer;
  /** The scripted model (throws when the fixture has none). */
  readonly llm: ScriptedServer;
  /** The workspace folder code-server opened (a fresh copy of test/fixtures/sample-workspace). */
  readonly workspace: string;
  /**
   * Changes workspace settings while VS Code runs: merges `patch` into .vscode/settings.json (the
   * .code-workspace file's "settings" in a multi-root workspace). Returns a function that writes the
   * file back as it was. VS Code picks the change up after a moment (watch for its effect).
   */
  changeWorkspaceSettings(patch: Record<string, unknown>): () => void;
  /** The same for the user's settings (User/settings.json of code-server's profile): where a looser permission mode counts. */
  changeUserSettings(patch: Record<string, unknown>): () => void;
  /** An absolute path inside the workspace, or inside the root folder `folder` of a multi-root one. */
  path(relative: string, folder?: string): string;
  /** Opens the workbench and waits until it and its extension host are up. */
  openWorkbench(): Promise<void>;
  /** Focuses Yoke's chat view; returns its webview frame. */
  openPanel(): Promise<Frame>;
  /** Runs a command from the command palette by its label. */
  runCommand(label: string, timeoutMs?: number): Promise<void>;
  /** "Developer: Reload Window", then the chat view again; returns its new frame. */
  reloadWindow(): Promise<Frame>;
  /** "Developer: Reload Window" only: waits for the workbench and leaves the side bar as it was restored. */
  reloadWorkbench(): Promise<void>;
  /** Whether Yoke's chat webview is rendered and visible right now (false while the panel is closed). */
  panelVisible(): Promise<boolean>;
  /** Makes the side bar `width` pixels wide. */
  widenSideBar(width: number): Promise<void>;
  /** A screenshotter (see workbench.ts) with `prefix`, by default the fixture's name. Call inside a test. */
  screenshots(prefix?: string): (step: string) => Promise<string>;
  /** With eachTestStartsIdle: what the reset before the current test found and undid. */
  readonly lastReset: IdleReport | undefined;
}

function providerSettings(model: ScriptedModel, llm: ScriptedServer): Record<string, unknown> {
  const anthropic = model.wire === "anthropic";
  return {
    "yoke.provider": anthropic ? "anthropic" : "openai-compatible",
    "yoke.baseUrl": anthropic ? llm.anthropicBaseUrl : llm.openaiBaseUrl,
    "yoke.model": model.name ?? "scripted-e2e",
  };
}

function ready<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`useYokeVscode: ${what} is not there yet (use it inside a test, after beforeAll)`);
  return value;
}

/** Registers beforeAll/afterAll for one VS Code with Yoke, a scripted model and a browser. */
export function useYokeVscode(opts: YokeVscodeOptions): YokeVscode {
  let llm: ScriptedServer | undefined;
  let server: E2eCodeServer | undefined;
  let browser: E2eBrowser | undefined;

  beforeAll(async () => {
    let workspaceSettings = opts.workspaceSettings;
    let userSettings = opts.userSettings;
    if (opts.model) {
      const { wire: _wire, name: _name, settingsIn, ...serverOptions } = opts.model;
      llm = await startScriptedLlmServer(serverOptions);
      const provider = providerSettings(opts.model, llm);
      if (settingsIn === "workspace") workspaceSettings = { ...provider, ...workspaceSettings };
      else userSettings = { ...provider, ...userSettings };
    }
    const extra = (await opts.launch?.()) ?? {};
    rmSync(watchdogDir(opts.name), { recursive: true, force: true });
    server = await launchCodeServer({
      name: opts.name,
      trusted: opts.trusted,
      workspaceSettings,
      userSettings,
      files: opts.files,
      userFiles: opts.userFiles,
      folders: opts.folders,
      // Each extension host (one per window, again after a reload) writes its watchdog report here.
      env: { YOKE_WATCHDOG_DIR: watchdogDir(opts.name), ...extra.env },
      extensions: extra.extensions,
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await llm?.close();
    collectWatchdogReports(opts.name);
  });

  let lastReset: IdleReport | undefined;
  if (opts.eachTestStartsIdle) {
    const wanted = typeof opts.eachTestStartsIdle === "object" ? opts.eachTestStartsIdle.mode : undefined;
    const mode = wanted ?? (opts.userSettings?.["yoke.permissionMode"] as string | undefined) ?? (opts.workspaceSettings?.["yoke.permissionMode"] as string | undefined) ?? "default";
    beforeEach(async () => {
      lastReset = undefined;
      lastReset = await resetToIdle(ready(browser, "the browser").page, { url: ready(server, "code-server").url, mode });
    }, 240_000);
  }

  const page = () => ready(browser, "the browser").page;
  return {
    get page() {
      return page();
    },
    get browser() {
      return ready(browser, "the browser");
    },
    get server() {
      return ready(server, "code-server");
    },
    get llm() {
      if (!opts.model) throw new Error(`useYokeVscode(${opts.name}): no model was configured`);
      return ready(llm, "the scripted model");
    },
    get workspace() {
      return ready(server, "code-server").workspace;
    },
    changeWorkspaceSettings: (patch) => {
      const s = ready(server, "code-server");
      const file = s.workspaceFile ?? join(s.workspace, ".vscode", "settings.json");
      const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
      const json = before === undefined ? {} : (JSON.parse(before) as Record<string, unknown>);
      const next = s.workspaceFile ? { ...json, settings: { ...(json.settings as Record<string, unknown> | undefined), ...patch } } : { ...json, ...patch };
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
      return () => (before === undefined ? rmSync(file) : writeFileSync(file, before));
    },
    changeUserSettings: (patch) => {
      const s = ready(server, "code-server");
      const file = join(s.userDataDir, "User", "settings.json");
      const before = existsSync(file) ? readFileSync(file, "utf8") : undefined;
      const json = before === undefined ? {} : (JSON.parse(before) as Record<string, unknown>);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ ...json, ...patch }, null, 2)}\n`);
      return () => (before === undefined ? rmSync(file) : writeFileSync(file, before));
    },
    path: (relative, folder) => {
      const s = ready(server, "code-server");
      const root = folder === undefined ? s.workspace : s.folders[folder];
      if (!root) throw new Error(`useYokeVscode(${opts.name}): no root folder ${folder}`);
      return join(root, relative);
    },
    openWorkbench: () => openWorkbench(page(), ready(server, "code-server").url),
    openPanel: () => openYokeView(page()),
    runCommand: (label, timeoutMs) => runCommand(page(), label, timeoutMs),
    reloadWindow: async () => {
      await reloadWorkbench(page());
      return openYokeView(page());
    },
    reloadWorkbench: () => reloadWorkbench(page()),
    panelVisible: () => yokeViewVisible(page()),
    widenSideBar: (width) => widenSideBar(page(), width),
    screenshots: (prefix = opts.name) => screenshotter(page(), prefix),
    get lastReset() {
      return lastReset;
    },
  };
}

/** Only the browser, for a test that starts VS Code its own way (npm start). Closed in afterAll. */
export interface BrowserOnly {
  readonly page: Page;
  /** Closes the browser now (afterAll does it otherwise). */
  close(): Promise<void>;
  openWorkbench(url: string): Promise<void>;
  openPanel(): Promise<Frame>;
  screenshots(prefix: string): (step: string) => Promise<string>;
}

/** Registers beforeAll/afterAll for a headless Chromium page. */
export function useBrowser(): BrowserOnly {
  let browser: E2eBrowser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const page = () => ready(browser, "the browser").page;
  return {
    get page() {
      return page();
    },
    close: async () => {
      await browser?.close();
    },
    openWorkbench: (url) => openWorkbench(page(), url),
    openPanel: () => openYokeView(page()),
    screenshots: (prefix) => screenshotter(page(), prefix),
  };
}

/** Where the extension hosts of one test file's VS Code write their event-loop watchdog reports. */
function watchdogDir(name: string): string {
  return join(RESULTS_DIR, "watchdog", name);
}

/**
 * Gathers the watchdog reports of a test file's windows into test-results/e2e/watchdog.json (one
 * entry per test file, the latest run replacing the one before), which `npm run bench` reads.
 */
function collectWatchdogReports(name: string): void {
  const dir = watchdogDir(name);
  const reports = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /^watchdog-\d+\.json$/.test(f))
        .flatMap((f) => {
          try {
            return [JSON.parse(readFileSync(join(dir, f), "utf8")) as unknown];
          } catch {
            return [];
          }
        })
    : [];
  const file = join(RESULTS_DIR, "watchdog.json");
  let all: { files: Record<string, unknown> } = { files: {} };
  try {
    all = JSON.parse(readFileSync(file, "utf8")) as typeof all;
  } catch {
    // first file of the suite
  }
  all.files[name] = { collectedAt: new Date().toISOString(), windows: reports };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}
