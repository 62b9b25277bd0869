// Reads the yoke.* settings and the API keys (which live only in SecretStorage, keyed by provider).
// The one place of src/host that reads the yoke.* VS Code configuration (test/unit/arch/host-shape.test.ts
// fails on a `getConfiguration("yoke…")` anywhere else): the rest of the host asks the functions below.
import * as vscode from "vscode";
import type { PermissionMode } from "../core/loop/types";
import type { ProviderConfig } from "../core/providers/types";
import { DEFAULT_MODELS as CORE_DEFAULT_MODELS } from "../core/providers/defaults";
import { mergeLayers, nestVscodeKeys, type MergedSettings, type SettingsLayer } from "../core/settings/keys";
import { readSettings as readAllSettings, type ReadSettings } from "../node/settings/reader";
import { rooStorageBeside, type RooStorage } from "../node/roo-storage";

export type HostProviderId = "anthropic" | "openai" | "openai-compatible" | "vscode-lm";
export const PROVIDERS: readonly HostProviderId[] = ["anthropic", "openai", "openai-compatible", "vscode-lm"];
const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

/** Used when yoke.model is empty. */
export const DEFAULT_MODELS: Record<HostProviderId, string> = {
  anthropic: CORE_DEFAULT_MODELS.anthropic ?? "",
  openai: CORE_DEFAULT_MODELS.openai ?? "",
  "openai-compatible": "",
  "vscode-lm": "",
};

export interface HostSettings {
  provider: HostProviderId;
  /** The user chose a provider (in any settings scope). */
  explicit: boolean;
  model: string;
  baseUrl: string;
  stream: boolean;
  maxTurns: number;
  permissionMode: PermissionMode;
  demoLabel: string;
}

/** The yoke.* settings Yoke reads (package.json contributes.configuration), read here only. */
const KEYS = [
  "provider",
  "model",
  "baseUrl",
  "stream",
  "compaction",
  "edits.tool",
  "edits.applyPatchFreeform",
  "maxTurns",
  "fallbackModels",
  "architect",
  "budgets.maxCostUsd",
  "budgets.maxTimeS",
  "permissionMode",
  "demoLabel",
  "sessionDir",
  "permissions",
  "hooks",
  "sandbox",
  "telemetry",
  "verification",
] as const;
/** Restricted Mode ignores a workspace's values of these (package.json capabilities.untrustedWorkspaces). */
const RESTRICTED = new Set<string>(["provider", "baseUrl"]);

/**
 * Where this VS Code's Roo Code keeps its global custom modes: Roo's global storage folder (the
 * sibling of Yoke's own, so `--user-data-dir`, profiles and a remote's user data are followed) and
 * Roo's `roo-cline.customStoragePath` — the user's own value only: a workspace's could point the
 * user's modes (and their hooks and servers, trusted as the user's) at a folder of the repository.
 */
export function rooStorageOf(yokeGlobalStorage: vscode.Uri | undefined): { rooStorage: RooStorage } | undefined {
  if (yokeGlobalStorage?.scheme !== "file") return undefined;
  const custom = vscode.workspace.getConfiguration("roo-cline").inspect<string>("customStoragePath")?.globalValue;
  return { rooStorage: { globalStorage: rooStorageBeside(yokeGlobalStorage.fsPath), ...(typeof custom === "string" && custom.trim() ? { customStoragePath: custom } : {}) } };
}

/**
 * The yoke.* configuration, the user's scope and the workspace's (workspace and folder values,
 * from .vscode/settings.json or a .code-workspace file: they come with the repository), for the
 * one settings reader (src/node/settings/reader.ts), which decides what a workspace may set.
 */
export function yokeConfiguration(): { user: Record<string, unknown>; workspace: Record<string, unknown> } {
  const c = vscode.workspace.getConfiguration("yoke");
  const user: Record<string, unknown> = {};
  const workspace: Record<string, unknown> = {};
  const trusted = vscode.workspace.isTrusted !== false;
  for (const key of KEYS) {
    const i = c.inspect?.<unknown>(key);
    if (!i) {
      const v = c.get<unknown>(key);
      if (v !== undefined) user[key] = v;
      continue;
    }
    if (i.globalValue !== undefined) user[key] = i.globalValue;
    const ws =
      i.workspaceFolderValue !== undefined && isPlainObject(i.workspaceFolderValue) && isPlainObject(i.workspaceValue)
        ? { ...i.workspaceValue, ...i.workspaceFolderValue }
        : (i.workspaceFolderValue ?? i.workspaceValue);
    if (ws !== undefined && (trusted || !RESTRICTED.has(key))) workspace[key] = ws;
  }
  return { user, workspace };
}

/** One yoke.* key by scope (`inspect`), or only its effective value when the configuration cannot be inspected. */
export function yokeSetting<T>(key: string): { value: T | undefined; scopes?: { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } } {
  const c = vscode.workspace.getConfiguration("yoke");
  const i = (c as Partial<vscode.WorkspaceConfiguration>).inspect?.<T>(key);
  return i ? { value: c.get<T>(key), scopes: i } : { value: c.get<T>(key) };
}

/** yoke.sessionDir, the user's own value only (a repository must not choose where sessions are written). */
export function configuredSessionDir(): string | undefined {
  return yokeSetting<string>("sessionDir").scopes?.globalValue?.trim() || undefined;
}

export interface ReviewSettings {
  /** yoke.review.focus: "background" (default) never takes the focus; "foreground" does unless the user is typing. */
  focus: string;
  /** yoke.review.view: "inline" (default) or "diff". */
  view: string;
}

/** How a proposed change is shown (src/host/review/show-proposal.ts). */
export function reviewSettings(): ReviewSettings {
  const c = vscode.workspace.getConfiguration("yoke");
  return { focus: c.get<string>("review.focus", "background"), view: c.get<string>("review.view", "inline") };
}

/** The VS Code configuration alone, merged by the reader's rules (a workspace may only tighten). */
export function vscodeSettings(config = yokeConfiguration()): MergedSettings {
  const layers: SettingsLayer[] = [
    { label: "VS Code user settings", origin: "user", format: "vscode", kind: "vscode", value: nestVscodeKeys(config.user) },
    { label: "VS Code workspace settings", origin: "project", format: "vscode", kind: "vscode-workspace", value: nestVscodeKeys(config.workspace) },
  ];
  return mergeLayers(layers, { trusted: vscode.workspace.isTrusted !== false });
}

/**
 * Every setting of the first workspace folder: its settings files and the user's, with the VS Code
 * configuration, read by the one settings reader (src/node/settings/reader.ts).
 */
export async function workspaceSettings(): Promise<ReadSettings> {
  const config = yokeConfiguration();
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || folder.uri.scheme !== "file") return { ...vscodeSettings(config), layers: [], files: [] };
  return readAllSettings({ cwd: folder.uri.fsPath, trusted: vscode.workspace.isTrusted !== false, vscode: config });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function readSettings(): HostSettings {
  const v = vscodeSettings().vscode;
  const raw = v.provider?.value;
  const provider = PROVIDERS.includes(raw as HostProviderId) ? (raw as HostProviderId) : "anthropic";
  // Only the user's own value here: a workspace's may only tighten (host-services.ts configuredPermissionMode decides a session's mode).
  const mode = yokeConfiguration().user.permissionMode ?? "default";
  return {
    provider,
    explicit: PROVIDERS.includes(raw as HostProviderId),
    model: (v.model?.value ?? "").trim() || DEFAULT_MODELS[provider],
    // The user's own base URL only: a repository must not send the requests and the key to its server.
    baseUrl: (v.baseUrl?.value ?? "").trim(),
    stream: v.stream?.value ?? true,
    maxTurns: Math.max(1, v.maxTurns?.value ?? 50),
    permissionMode: MODES.includes(mode as PermissionMode) ? (mode as PermissionMode) : "default",
    demoLabel: (v.demoLabel?.value ?? "").trim(),
  };
}

/** Providers that cannot work without a key (a local openai-compatible server needs none). */
export function needsKey(s: HostSettings): boolean {
  return s.provider === "anthropic" || s.provider === "openai";
}

const secretName = (provider: string) => `yoke.apiKey.${provider}`;

export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}
  get(provider: string): Thenable<string | undefined> {
    return this.secrets.get(secretName(provider));
  }
  set(provider: string, key: string): Thenable<void> {
    return this.secrets.store(secretName(provider), key);
  }
  clear(provider: string): Thenable<void> {
    return this.secrets.delete(secretName(provider));
  }
  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((e) => {
      if (e.key.startsWith("yoke.apiKey.")) listener();
    });
  }
}

export function providerConfig(s: HostSettings, apiKey: string | undefined): ProviderConfig {
  return {
    provider: s.provider,
    model: s.model,
    ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    stream: s.stream,
  };
}

/** Writes the user's own (global) value of yoke.* settings, in order. */
export async function writeUserSettings(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration("yoke");
  for (const [key, value] of Object.entries(values)) await c.update(key, value, vscode.ConfigurationTarget.Global);
}

/** Writes a setting where it applies: the workspace when one is open and trusted, else the user's settings. */
export async function writeSetting(key: string, value: unknown): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length && vscode.workspace.isTrusted ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration("yoke").update(key, value, target);
}
