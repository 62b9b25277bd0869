// Launches a real VS Code (code-server) per test file: fresh user-data-dir, extensions-dir and
// workspace in a temp dir, the packaged Yoke installed, its own process group killed on stop().
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { findFreePort, installVsix, mergeJsonFile, setupCodeServer, startCodeServer } from "../../../scripts/lib/code-server.mjs";
import { RESULTS_DIR, SAMPLE_WORKSPACE, vsixPath } from "./paths";

/** Options for one code-server instance. */
export interface LaunchOptions {
  /** Name used for the temp dir and the log file in test-results/e2e. */
  name: string;
  /** false: workspace trust stays enabled and the folder is not trusted (Restricted Mode). Default true. */
  trusted?: boolean;
  /**
   * Written to <workspace>/.vscode/settings.json; with `folders`, to the .code-workspace file's
   * "settings" (in a multi-root window VS Code reads window-scoped settings such as yoke.provider
   * only from there).
   */
  workspaceSettings?: Record<string, unknown>;
  /** Merged over the default user settings. */
  userSettings?: Record<string, unknown>;
  /** Extra environment for code-server and its extension host. */
  env?: Record<string, string>;
  /** Files written into the workspace (path relative to it → content) after the sample is copied. */
  files?: Record<string, string>;
  /** Files written into the profile's User folder (path relative to it → content), e.g. the user's own `mcp.json`. */
  userFiles?: Record<string, string>;
  /** More .vsix files installed next to Yoke (e.g. the test-only runner extension). */
  extensions?: string[];
  /**
   * More root folders (name → its files, relative path → content): VS Code then opens a
   * multi-root workspace (a .code-workspace file) of the sample workspace followed by these.
   */
  folders?: Record<string, Record<string, string>>;
}

/** A running instance; stop() kills its process group and removes the temp dir. */
export interface E2eCodeServer {
  /** Workbench URL with ?folder= the workspace (?workspace= the .code-workspace file with `folders`). */
  url: string;
  base: string;
  /** The first root folder: a fresh copy of test/fixtures/sample-workspace. */
  workspace: string;
  /** Every root folder by name (the sample workspace is "sample-workspace"). */
  folders: Record<string, string>;
  /** The .code-workspace file, when there are several root folders. */
  workspaceFile?: string;
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
  writeFiles(workspace, opts.files ?? {});
  const folders: Record<string, string> = { "sample-workspace": workspace };
  for (const [name, files] of Object.entries(opts.folders ?? {})) {
    if (!/^\w[\w.-]*$/.test(name) || name in folders || name === "home" || name === "user" || name === "extensions") {
      throw new Error(`folder name ${JSON.stringify(name)} is taken or not a plain name`);
    }
    folders[name] = join(tmp, name);
    mkdirSync(folders[name], { recursive: true });
    writeFiles(folders[name], files);
  }
  const workspaceFile = opts.folders ? join(tmp, `${opts.name}.code-workspace`) : undefined;
  installVsix(setup, { vsix, extensionsDir, userDataDir });
  writeFiles(join(userDataDir, "User"), opts.userFiles ?? {});
  for (const extra of opts.extensions ?? []) installVsix(setup, { vsix: extra, extensionsDir, userDataDir });
  mergeJsonFile(join(userDataDir, "User", "settings.json"), {
    ...DEFAULT_USER_SETTINGS,
    "security.workspace.trust.enabled": opts.trusted === false,
    ...(opts.userSettings ?? {}),
  });
  if (workspaceFile) {
    const roots = Object.keys(folders).map((name) => ({ path: name }));
    writeFileSync(workspaceFile, `${JSON.stringify({ folders: roots, settings: opts.workspaceSettings ?? {} }, null, 2)}\n`);
  } else if (opts.workspaceSettings) {
    mergeJsonFile(join(workspace, ".vscode", "settings.json"), opts.workspaceSettings);
  }
  const port = await findFreePort();
  const server = await startCodeServer(setup, {
    port,
    extensionsDir,
    userDataDir,
    folder: workspaceFile ?? workspace,
    env: { HOME: home, ...(opts.env ?? {}) },
    timeoutMs: 90_000,
  });
  const stop = async () => {
    await server.stop();
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, `${opts.name}.code-server.log`), server.output());
    if (!process.env.YOKE_E2E_KEEP) rmSync(tmp, { recursive: true, force: true });
  };
  return { url: server.url, base: server.base, workspace, folders, workspaceFile, userDataDir, home, stop, output: server.output };
}

/** Writes `files` (relative path → content) under `dir`, refusing paths that leave it. */
function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    if (isAbsolute(rel) || rel.split(/[\\/]/).includes("..")) throw new Error(`file ${rel} is not inside ${dir}`);
    const file = join(dir, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}
