// Launches a real VS Code (code-server) per test file: fresh user-data-dir, extensions-dir and
// workspace in a temp dir, the packaged Yoke installed, its own process group killed on stop().
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import {
  findFreePort,
  installVsix,
  mergeJsonFile,
  setupCodeServer,
  startCodeServer,
} from "../../../scripts/lib/code-server.mjs";
import { RESULTS_DIR, SAMPLE_WORKSPACE, vsixPath } from "./paths";

/** Options for one code-server instance. */
export interface LaunchOptions {
  /** Name used for the temp dir and the log file in test-results/e2e. */
  name: string;
  /** false: workspace trust stays enabled and the folder is not trusted (Restricted Mode). Default true. */
  trusted?: boolean;
  /** Written to <workspace>/.vscode/settings.json. */
  workspaceSettings?: Record<string, unknown>;
  /** Merged over the default user settings. */
  userSettings?: Record<string, unknown>;
  /** Extra environment for code-server and its extension host. */
  env?: Record<string, string>;
  /** Files written into the workspace (path relative to it → content) after the sample is copied. */
  files?: Record<string, string>;
  /** More .vsix files installed next to Yoke (e.g. the test-only runner extension). */
  extensions?: string[];
}

/** A running instance; stop() kills its process group and removes the temp dir. */
export interface E2eCodeServer {
  /** Workbench URL with ?folder= the workspace. */
  url: string;
  base: string;
  workspace: string;
  userDataDir: string;
  /** The HOME of code-server and its extension host (empty at start: no machine settings leak in). */
  home: string;
  stop(): Promise<void>;
  output(): string;
}

const DEFAULT_USER_SETTINGS = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
  "workbench.layoutControl.enabled": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
};

/** Starts code-server with the packaged extension and a fresh copy of the sample workspace. */
export async function launchCodeServer(opts: LaunchOptions): Promise<E2eCodeServer> {
  const vsix = vsixPath();
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing: run npm run package (or npm run test:e2e)`);
  const setup = setupCodeServer();
  const tmp = mkdtempSync(join(tmpdir(), `yoke-e2e-${opts.name}-`));
  const extensionsDir = join(tmp, "extensions");
  const userDataDir = join(tmp, "user");
  const workspace = join(tmp, "sample-workspace");
  // A home of its own: no ~/.yoke or ~/.claude settings of the machine leak into the test.
  const home = join(tmp, "home");
  mkdirSync(home, { recursive: true });
  cpSync(SAMPLE_WORKSPACE, workspace, { recursive: true });
  for (const [rel, content] of Object.entries(opts.files ?? {})) {
    if (isAbsolute(rel) || rel.split(/[\\/]/).includes("..")) throw new Error(`workspace file ${rel} is not inside the workspace`);
    const file = join(workspace, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  installVsix(setup, { vsix, extensionsDir, userDataDir });
  for (const extra of opts.extensions ?? []) installVsix(setup, { vsix: extra, extensionsDir, userDataDir });
  mergeJsonFile(join(userDataDir, "User", "settings.json"), {
    ...DEFAULT_USER_SETTINGS,
    "security.workspace.trust.enabled": opts.trusted === false,
    ...(opts.userSettings ?? {}),
  });
  if (opts.workspaceSettings) {
    mergeJsonFile(join(workspace, ".vscode", "settings.json"), opts.workspaceSettings);
  }
  const port = await findFreePort();
  const server = await startCodeServer(setup, {
    port,
    extensionsDir,
    userDataDir,
    folder: workspace,
    env: { HOME: home, ...(opts.env ?? {}) },
    timeoutMs: 90_000,
  });
  const stop = async () => {
    await server.stop();
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, `${opts.name}.code-server.log`), server.output());
    if (!process.env.YOKE_E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
  };
  return { url: server.url, base: server.base, workspace, userDataDir, home, stop, output: server.output };
}
