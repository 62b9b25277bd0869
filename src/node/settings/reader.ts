/**
 * The one settings reader: every Yoke and Claude Code settings file (files.ts lists and reads them
 * and asks git which ones the repository wrote) and the VS Code configuration the host passes in,
 * parsed once with the one JSONC parser (src/core/settings/jsonc.ts), each value with its origin,
 * merged by the rules of src/core/settings/keys.ts (project origins can only tighten). Unknown
 * keys and invalid values are problems (file, key, message) for the CLI to print and the host to show.
 *
 * A result is kept while no settings file, git's index or the options change, so the several
 * mechanisms of a session that ask for settings share one read.
 */
import { lstatSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseJsonc } from "../../core/settings/jsonc";
import { mergeLayers, nestVscodeKeys, type MergedSettings, type SettingsLayer, type SettingsProblem } from "../../core/settings/keys";
import { originOf } from "../../core/settings/origin";
import type { LoadedSource, SettingsSourceInfo } from "../../core/permissions/types";
import { defaultManagedDir, loadSettingsSources, localSettingsFiles, localSettingsFolder, readSettingsText, settingsFileList, type SettingsFileOptions } from "./files";

export type { SettingsLayer, SettingsProblem, MergedSettings } from "../../core/settings/keys";

export interface ReadSettingsOptions extends Pick<SettingsFileOptions, "cwd" | "home" | "extraFiles" | "managedDir" | "git" | "localFrom"> {
  /** The folder is trusted (default true): untracked local files count as the user's only then. */
  trusted?: boolean;
  /**
   * The VS Code configuration (`yoke.*`, keys without the prefix, as in package.json:
   * `budgets.maxCostUsd`), the user's scope and the workspace's (host only).
   */
  vscode?: { user?: Record<string, unknown>; workspace?: Record<string, unknown> };
}

export interface ReadSettings extends MergedSettings {
  /** Every file and VS Code scope that gave settings, lowest priority first. */
  layers: SettingsLayer[];
  /**
   * The settings files as read (text or error, and who wrote each: `info.kind`, `info.checkedIn`),
   * lowest priority first: the mechanisms that read keys of their own from these files (MCP's
   * `mcpServers`) take the texts from here rather than reading the files again.
   */
  files: LoadedSource[];
}

const CLAUDE_KINDS = new Set<SettingsSourceInfo["kind"]>(["claude-user", "claude", "claude-local", "managed"]);

/** A settings file as a layer, or the problem that keeps it from being one (nothing of a broken file is used). */
export function layerOf(source: LoadedSource): { layer?: SettingsLayer; problem?: SettingsProblem } {
  const { info } = source;
  const file = info.path ?? info.label;
  if (source.error !== undefined) return { problem: { file, message: `${file} cannot be read (${source.error}); none of its settings are used`, fileLevel: true } };
  if (source.text === undefined || source.text.trim() === "") return {};
  const parsed = parseJsonc(source.text);
  if (!parsed.ok) {
    return { problem: { file, message: `${file} is not valid JSON (${parsed.line}:${parsed.column}: ${parsed.message}); none of its settings are used until it is fixed`, fileLevel: true } };
  }
  if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    return { problem: { file, message: `${file} is not a JSON object (the settings must be one); none of its settings are used`, fileLevel: true } };
  }
  return {
    layer: {
      label: info.label,
      ...(info.path ? { path: info.path } : {}),
      origin: originOf(info),
      kind: info.kind,
      format: CLAUDE_KINDS.has(info.kind) ? "claude" : "yoke",
      value: parsed.value as Record<string, unknown>,
    },
  };
}

/** The layers of the loaded sources, the VS Code scopes in their places (user over ~/.yoke, workspace over the workspace files). */
function layersOf(sources: readonly LoadedSource[], vscode: ReadSettingsOptions["vscode"]): { layers: SettingsLayer[]; problems: SettingsProblem[] } {
  const layers: SettingsLayer[] = [];
  const problems: SettingsProblem[] = [];
  const user = vscode?.user ? nestVscodeKeys(vscode.user) : undefined;
  const workspace = vscode?.workspace ? nestVscodeKeys(vscode.workspace) : undefined;
  const userLayer: SettingsLayer | undefined = user && Object.keys(user).length ? { label: "VS Code user settings", origin: "user", format: "vscode", kind: "vscode", value: user } : undefined;
  const wsLayer: SettingsLayer | undefined =
    workspace && Object.keys(workspace).length ? { label: "VS Code workspace settings", origin: "project", format: "vscode", kind: "vscode-workspace", value: workspace } : undefined;
  let userPlaced = false;
  let wsPlaced = false;
  for (const s of sources) {
    // Cursor's hooks files hold hooks only (the gate reads them), no Yoke settings.
    if (s.info.kind === "vscode" || s.info.kind === "vscode-workspace" || s.info.kind === "session" || s.info.format !== undefined) continue;
    if (!wsPlaced && (s.info.kind === "extra" || s.info.kind === "managed")) {
      if (wsLayer) layers.push(wsLayer);
      wsPlaced = true;
    }
    const { layer, problem } = layerOf(s);
    if (problem) problems.push(problem);
    if (layer) layers.push(layer);
    if (s.info.kind === "user" && userLayer) {
      layers.push(userLayer);
      userPlaced = true;
    }
  }
  if (!userPlaced && userLayer) layers.unshift(userLayer);
  if (!wsPlaced && wsLayer) layers.push(wsLayer);
  return { layers, problems };
}

const cache = new Map<string, { signature: string; result: ReadSettings }>();

/** What a read depends on: the settings files and folders, and git's index (which files are tracked). */
function signature(opts: ReadSettingsOptions, cwd: string, home: string, localFrom: string | undefined): string {
  const managedDir = opts.managedDir === undefined ? defaultManagedDir() : opts.managedDir;
  const local = localSettingsFiles({ cwd, home, localFrom: localFrom ?? cwd });
  const paths = [
    ...settingsFileList({ cwd, home, extraFiles: opts.extraFiles, managedDir }).map((f) => f.path!),
    // The other checkout's local files (an agent's worktree: the person's workspace's), and what decides whether its git tracks them.
    ...(local ? [...local.files.map((f) => f.path!), join(local.from, ".git", "index"), join(local.from, ".git"), join(local.from, ".yoke"), join(local.from, ".claude")] : []),
    ...(managedDir ? [join(managedDir, "managed-settings.d")] : []),
    join(cwd, ".git", "index"),
    join(cwd, ".git", "HEAD"),
    join(cwd, ".git"),
    join(cwd, ".yoke"),
    join(cwd, ".claude"),
    join(cwd, ".yoke", ".git"),
    join(cwd, ".claude", ".git"),
  ];
  return paths
    .map((p) => {
      const stamp = (s: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint; mode: bigint }) => `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.mode}`;
      let out = "";
      try {
        out += stamp(lstatSync(p, { bigint: true }));
        out += "|" + stamp(statSync(p, { bigint: true }));
      } catch {
        out += "-";
      }
      return out;
    })
    .join(";");
}

/**
 * Reads every settings source of the folder `cwd` (and the user's), merged with origins. Files
 * that cannot be read or parsed give nothing and a problem; unknown keys and invalid values are
 * problems; what a project origin may not set is ignored and reported.
 */
export async function readSettings(opts: ReadSettingsOptions): Promise<ReadSettings> {
  const cwd = resolve(opts.cwd);
  const home = opts.home ?? homedir();
  const trusted = opts.trusted ?? true;
  // In an agent's worktree the person's workspace's local files too (the same files the gate reads).
  const localFrom = localSettingsFolder({ cwd, home, ...(opts.localFrom !== undefined ? { localFrom: opts.localFrom } : {}) });
  const key = JSON.stringify([cwd, home, opts.extraFiles ?? [], opts.managedDir === undefined ? "default" : opts.managedDir, opts.git ?? "git", trusted, opts.vscode ?? null, localFrom ?? null]);
  const sig = signature(opts, cwd, home, localFrom);
  const hit = cache.get(key);
  if (hit && hit.signature === sig) return structuredClone(hit.result);
  const sources = await loadSettingsSources({
    cwd,
    home,
    extraFiles: opts.extraFiles,
    ...(opts.managedDir !== undefined ? { managedDir: opts.managedDir } : {}),
    ...(opts.git ? { git: opts.git } : {}),
    // Decided above: the files read are the ones the signature watches (cwd itself: none).
    localFrom: localFrom ?? cwd,
  });
  const { layers, problems } = layersOf(sources, opts.vscode);
  const merged = mergeLayers(layers, { trusted });
  const files = sources.filter((s) => s.info.path !== undefined);
  const result: ReadSettings = { ...merged, problems: [...problems, ...merged.problems], layers, files };
  cache.set(key, { signature: sig, result });
  if (cache.size > 32) cache.delete(cache.keys().next().value!);
  return structuredClone(result);
}

/**
 * The user's own settings only (~/.yoke/settings.json, and the VS Code user scope), read at once:
 * for the keys only the user may set (`sandbox`, `telemetry`), where no workspace file counts.
 */
export function readUserSettings(home = homedir(), vscodeUser?: Record<string, unknown>): ReadSettings {
  const path = join(home, ".yoke", "settings.json");
  const info: SettingsSourceInfo = { kind: "user", label: "~/.yoke/settings.json", path, baseDir: home };
  const { text, error } = readSettingsText(path);
  const source: LoadedSource = { info, ...(text !== undefined ? { text } : {}), ...(error !== undefined ? { error } : {}) };
  const { layers, problems } = layersOf([source], vscodeUser ? { user: vscodeUser } : undefined);
  const merged = mergeLayers(layers, { trusted: true });
  return { ...merged, problems: [...problems, ...merged.problems], layers, files: [source] };
}

/** The problems to show, one line each (file and key in the message). `withFiles`: also files that cannot be parsed (the permission settings report those already). */
export function problemLines(settings: Pick<ReadSettings, "problems">, withFiles = false): string[] {
  return [...new Set(settings.problems.filter((p) => withFiles || !p.fileLevel).map((p) => (p.key ? `${p.file}: ${p.message}` : p.message)))];
}
