// Reads the yoke.* settings and the API keys (which live only in SecretStorage, keyed by provider).
import * as vscode from "vscode";
import type { PermissionMode } from "../core/loop/types";
import type { ProviderConfig } from "../core/providers/types";
import { DEFAULT_MODELS as CORE_DEFAULT_MODELS } from "../core/providers/defaults";

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

export function readSettings(): HostSettings {
  const c = vscode.workspace.getConfiguration("yoke");
  const raw = c.get<string>("provider");
  const provider = PROVIDERS.includes(raw as HostProviderId) ? (raw as HostProviderId) : "anthropic";
  // Only the user's own value here: a workspace's may only tighten (host-services.ts configuredPermissionMode decides a session's mode).
  const mode = c.inspect?.<string>("permissionMode")?.globalValue ?? "default";
  return {
    provider,
    explicit: PROVIDERS.includes(raw as HostProviderId),
    model: c.get<string>("model", "").trim() || DEFAULT_MODELS[provider],
    baseUrl: c.get<string>("baseUrl", "").trim(),
    stream: c.get<boolean>("stream", true),
    maxTurns: Math.max(1, c.get<number>("maxTurns", 50)),
    permissionMode: MODES.includes(mode as PermissionMode) ? (mode as PermissionMode) : "default",
    demoLabel: c.get<string>("demoLabel", "").trim(),
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

/** Writes a setting where it applies: the workspace when one is open and trusted, else the user's settings. */
export async function writeSetting(key: string, value: unknown): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length && vscode.workspace.isTrusted ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration("yoke").update(key, value, target);
}
