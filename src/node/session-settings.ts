/**
 * The settings of one session, as ONE typed object (SessionSettings), assembled in ONE function
 * (readSessionSettings) from the readers that exist today: the settings files
 * (src/node/settings/files.ts, compaction-settings.ts), the user's ~/.yoke/settings.json, the CLI's
 * flags, and — in the extension — the yoke.* VS Code settings the host hands over as plain values.
 *
 * The session recipe (session-recipe.ts) builds every mechanism from this object and from nothing
 * else. Which source fills which field is decided here only, so one settings reader (one validated
 * object with each value's origin) can later replace the body of this function without touching
 * the recipe or the mechanisms.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { ArchitectSettings } from "../core/architect";
import { parseArchitectSettings } from "../core/architect";
import { parseBudgets, type Budgets } from "../core/budgets";
import { parseCompactionSettings, type CompactionSettings } from "../core/compaction/settings";
import { parseFallbackModels, parseFallbackSpec, type FallbackSpec } from "../core/fallback";
import { parseJsonc } from "../core/settings/jsonc";
import { parseTelemetrySettings, type TelemetrySettings } from "../core/telemetry/settings";
import type { SandboxSettings } from "./commands/session-runner";
import { readCompactionSettings } from "./compaction-settings";
import { loadSettingsSources } from "./settings/files";

/** A setting that cannot work (a bad fallback model, budget, architect value): the message says what to fix. */
export class SessionSettingsError extends Error {}

/** An object setting of VS Code by scope: the user's own value, and the workspace's (it may only restrict). */
export interface ScopedValue {
  user?: unknown;
  workspace?: unknown;
}

/**
 * The yoke.* VS Code settings a session uses, read by the extension host (src/host) and handed
 * over as values: this module never imports `vscode`.
 */
export interface VscodeSessionValues {
  permissions?: ScopedValue;
  hooks?: ScopedValue;
  verification?: ScopedValue;
  /** yoke.sandbox, the user's own value only (a workspace must not turn the sandbox off). */
  sandbox?: unknown;
  /** yoke.telemetry, the user's own value only (machine scope). */
  telemetry?: unknown;
  fallbackModels?: unknown;
  budgets?: { maxCostUsd?: number | null; maxTimeS?: number | null };
  architect?: unknown;
  /** yoke.compaction, over the settings files' `compaction`. */
  compaction?: unknown;
  maxTurns?: number;
}

/** What the CLI's flags set (they win over the settings files). */
export interface CliSessionValues {
  /** --fallback-model (repeatable): `model` or `provider:model`. */
  fallbackModels?: string[];
  maxCostUsd?: number;
  maxTimeS?: number;
  maxTurns?: number;
}

export interface SessionSettingsInputs {
  cwd: string;
  /** The other folders of a multi-root workspace. */
  folders?: string[];
  sessionDir: string;
  trusted: boolean;
  /** How the user trusts the folder, told in Restricted Mode. */
  restrictedHint?: string;
  home?: string;
  /** Extra settings files (`--settings`), highest priority. */
  extraFiles?: string[];
  /** The folder's settings files can be read (false in a virtual workspace). Default true. */
  localFiles?: boolean;
  /** The extension's yoke.* values; when given, loop control, architect and telemetry come from them (as before). */
  vscode?: VscodeSessionValues;
  /** The CLI's flags. */
  cli?: CliSessionValues;
  /** A command that never calls the model (`yoke compact`): no model chain, architect or telemetry settings are read. */
  offline?: boolean;
}

/** Every setting a session is built from (src/node/session-recipe.ts). */
export interface SessionSettings {
  cwd: string;
  folders: string[];
  home: string;
  sessionDir: string;
  trusted: boolean;
  restrictedHint?: string;
  extraFiles: string[];
  /** The permission engine's and the hooks' VS Code sources, verification's, the user's sandbox override. */
  vscode?: Pick<VscodeSessionValues, "permissions" | "hooks" | "verification"> & { sandbox?: SandboxSettings };
  /** Assistant turns per message (undefined: the loop's default). */
  maxTurns?: number;
  /** Models tried after the session's own, in order. */
  fallbackModels: FallbackSpec[];
  budgets: Budgets;
  architect?: ArchitectSettings;
  compaction: CompactionSettings;
  telemetry?: TelemetrySettings;
  offline: boolean;
  /** Problems to show the user (a bad value fell back to its default). */
  problems: string[];
}

/** The value of `key` in the settings file with the highest priority that sets it. */
export async function settingsFileValue(opts: { cwd: string; home?: string; extraFiles?: string[] }, key: string): Promise<{ value: unknown; label: string } | undefined> {
  const sources = await loadSettingsSources({ cwd: opts.cwd, home: opts.home ?? homedir(), extraFiles: opts.extraFiles });
  let found: { value: unknown; label: string } | undefined;
  for (const s of sources) {
    let value = s.value;
    if (value === undefined && s.text !== undefined) {
      const parsed = parseJsonc(s.text);
      if (!parsed.ok) continue; // the permission loader reports unreadable files
      value = parsed.value;
    }
    if (value && typeof value === "object" && key in value) found = { value: (value as Record<string, unknown>)[key], label: s.info.label };
  }
  return found;
}

/** `telemetry` of the user's own ~/.yoke/settings.json (a repository's files cannot turn it on). */
function userTelemetryValue(home: string): { value: unknown; where: string } | undefined {
  const path = join(home, ".yoke", "settings.json");
  try {
    const text = readFileSync(path, "utf8");
    const parsed = text.trim() ? parseJsonc(text) : undefined;
    if (!parsed?.ok) return undefined;
    return { value: (parsed.value as Record<string, unknown> | null)?.telemetry, where: `${path}: telemetry` };
  } catch {
    return undefined; // missing, or unreadable (the permission settings report a broken file)
  }
}

function asSettingsError<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw new SessionSettingsError(err instanceof Error ? err.message : String(err));
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What the permission engine, the hooks and the command runner are made from (synchronous: the panel caches them per window). */
export type WorkspaceSettings = Pick<SessionSettings, "cwd" | "folders" | "home" | "sessionDir" | "trusted" | "restrictedHint" | "extraFiles" | "vscode">;

export function workspaceSettings(inputs: SessionSettingsInputs): WorkspaceSettings {
  const v = inputs.vscode;
  return {
    cwd: resolve(inputs.cwd),
    folders: (inputs.folders ?? []).map((f) => resolve(f)),
    home: inputs.home ?? homedir(),
    sessionDir: inputs.sessionDir,
    trusted: inputs.trusted,
    ...(inputs.restrictedHint ? { restrictedHint: inputs.restrictedHint } : {}),
    extraFiles: inputs.extraFiles ?? [],
    ...(v
      ? {
          vscode: {
            permissions: v.permissions,
            hooks: v.hooks,
            verification: v.verification,
            ...(isObject(v.sandbox) ? { sandbox: v.sandbox as SandboxSettings } : {}),
          },
        }
      : {}),
  };
}

/**
 * The one place that decides where each setting of a session comes from. Throws
 * SessionSettingsError for a value that cannot work (the CLI exits 2, the panel shows it).
 */
export async function readSessionSettings(inputs: SessionSettingsInputs): Promise<SessionSettings> {
  const ws = workspaceSettings(inputs);
  const { cwd, home, extraFiles } = ws;
  const problems: string[] = [];
  const v = inputs.vscode;
  const files = inputs.localFiles === false ? { settings: undefined, problems: [] as string[] } : readCompactionSettings(cwd, home);
  const compaction = parseCompactionSettings({ ...files.settings, ...(isObject(v?.compaction) ? v.compaction : {}) });
  problems.push(...files.problems, ...compaction.problems);
  const base = { ...ws, compaction: compaction.settings, offline: !!inputs.offline, problems };
  if (inputs.offline) return { ...base, maxTurns: inputs.cli?.maxTurns ?? v?.maxTurns, fallbackModels: [], budgets: {} };

  if (v) {
    // The extension: the yoke.* settings (the settings files' keys are the CLI's).
    const fallbackModels = asSettingsError(() => parseFallbackModels(v.fallbackModels ?? [], "yoke.fallbackModels"));
    const budgets = asSettingsError(() => parseBudgets({ maxCostUsd: v.budgets?.maxCostUsd ?? undefined, maxTimeS: v.budgets?.maxTimeS ?? undefined }, "yoke.budgets"));
    const architect = asSettingsError(() => parseArchitectSettings(v.architect, "yoke.architect"));
    let telemetry: TelemetrySettings | undefined;
    try {
      telemetry = parseTelemetrySettings(v.telemetry, "yoke.telemetry");
    } catch (err) {
      // Tracing never stops a session: say why it is off.
      problems.push(`telemetry off: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { ...base, maxTurns: v.maxTurns, fallbackModels, budgets, ...(architect ? { architect } : {}), ...(telemetry ? { telemetry } : {}) };
  }

  // The CLI: its flags, then the settings files (--settings first, then the folder's and the user's).
  const where = { cwd, home, extraFiles };
  const flags = inputs.cli ?? {};
  let fallbackModels: FallbackSpec[];
  if (flags.fallbackModels?.length) fallbackModels = asSettingsError(() => flags.fallbackModels!.map(parseFallbackSpec));
  else {
    const s = await settingsFileValue(where, "fallbackModels");
    fallbackModels = s ? asSettingsError(() => parseFallbackModels(s.value, `${s.label}: fallbackModels`)) : [];
  }
  const b = await settingsFileValue(where, "budgets");
  const fromFiles = b ? asSettingsError(() => parseBudgets(b.value, `${b.label}: budgets`)) : {};
  const a = await settingsFileValue(where, "architect");
  const architect = a ? asSettingsError(() => parseArchitectSettings(a.value, `${a.label}: architect`)) : undefined;
  const t = userTelemetryValue(home);
  const telemetry = t ? asSettingsError(() => parseTelemetrySettings(t.value, t.where)) : undefined;
  return {
    ...base,
    maxTurns: flags.maxTurns ?? fromFiles.maxTurns,
    fallbackModels,
    budgets: { maxCostUsd: flags.maxCostUsd ?? fromFiles.maxCostUsd, maxTimeS: flags.maxTimeS ?? fromFiles.maxTimeS },
    ...(architect ? { architect } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}
