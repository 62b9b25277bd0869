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
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ArchitectSettings } from "../core/architect";
import { parseArchitectSettings } from "../core/architect";
import type { Budgets } from "../core/budgets";
import { DEFAULT_COMPACTION, type CompactionSettings } from "../core/compaction/settings";
import type { EditToolSetting, FreeformSetting } from "../core/tools/edit-tool";
import { parseFallbackModels, parseFallbackSpec, type FallbackSpec } from "../core/fallback";
import type { LoadedSource } from "../core/permissions/types";
import { plain } from "../core/settings/keys";
import { parseTelemetrySettings, type TelemetrySettings } from "../core/telemetry/settings";
import type { SandboxSettings } from "./commands/session-runner";
import { invalidKey } from "./settings/key-options";
import { problemLines, readSettings, readUserSettings } from "./settings/reader";
import type { RooStorage } from "./roo-storage";

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
  /**
   * Every yoke.* value by scope (keys without the prefix, as in package.json: `budgets.maxCostUsd`),
   * for the one settings reader: fallback models, budgets, architect, compaction, telemetry come from it.
   */
  config?: { user: Record<string, unknown>; workspace: Record<string, unknown> };
  maxTurns?: number;
  /** Where this VS Code's Roo Code keeps its global custom modes (its storage folder, `roo-cline.customStoragePath`). */
  rooStorage?: RooStorage;
}

/** What the CLI's flags set (they win over the settings files). */
export interface CliSessionValues {
  /** --fallback-model (repeatable): `model` or `provider:model`. */
  fallbackModels?: string[];
  maxCostUsd?: number;
  maxTimeS?: number;
  maxTurns?: number;
  /** --output-style NAME: the output style the session starts with (over the `outputStyle` setting). */
  outputStyle?: string;
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
  vscode?: Pick<VscodeSessionValues, "permissions" | "hooks" | "verification" | "config"> & { sandbox?: SandboxSettings };
  /** Assistant turns per message (undefined: the loop's default). */
  maxTurns?: number;
  /** Models tried after the session's own, in order. */
  fallbackModels: FallbackSpec[];
  budgets: Budgets;
  architect?: ArchitectSettings;
  compaction: CompactionSettings;
  /** Which edit tool the model is offered (`edits.tool`; auto: by model family, core/tools/edit-tool.ts). */
  editTool: EditToolSetting;
  /** Whether apply_patch may be a freeform tool (`edits.applyPatchFreeform`; docs/edits.md). */
  applyPatchFreeform: FreeformSetting;
  /** The guidance budget in tokens (`guidance.maxTokens`, `guidance.firstRequestTokens`; docs/guidance.md). */
  guidanceBudget: { totalTokens?: number; firstTokens?: number };
  telemetry?: TelemetrySettings;
  offline: boolean;
  /** Problems to show the user (a bad value fell back to its default). */
  problems: string[];
  /**
   * The settings files as the one reader read them (text, and who wrote each), for the mechanisms
   * that read keys of their own from them (MCP's `mcpServers`): each file is read once per session.
   */
  settingsFiles: readonly LoadedSource[];
  /** The output style chosen for the session (--output-style); else the settings files' `outputStyle` applies. */
  outputStyle?: string;
  /** Where the running VS Code's Roo Code keeps its global custom modes (the panel); the CLI looks in the usual places. */
  rooStorage?: RooStorage;
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
            ...(v.config ? { config: v.config } : {}),
            ...(isObject(v.sandbox) ? { sandbox: v.sandbox as SandboxSettings } : {}),
          },
        }
      : {}),
  };
}

/**
 * The one place that decides where each setting of a session comes from: the one settings reader
 * (src/node/settings/reader.ts: every settings file and the yoke.* values, each with its origin,
 * project origins only tightening), then the CLI's flags. Throws SessionSettingsError for a value
 * that cannot work (the CLI exits 2, the panel shows it): a mistyped budget must not mean no budget.
 */
export async function readSessionSettings(inputs: SessionSettingsInputs): Promise<SessionSettings> {
  const ws = workspaceSettings(inputs);
  const { cwd, home, extraFiles } = ws;
  const v = inputs.vscode;
  const r = inputs.localFiles === false ? readUserSettings(home, v?.config?.user) : await readSettings({ cwd, home, extraFiles, trusted: inputs.trusted, ...(v?.config ? { vscode: v.config } : {}) });
  // Unknown keys, invalid values and what a project may not set: each once, with its file and key.
  const problems = problemLines(r);
  const c = r.compaction;
  const compaction: CompactionSettings = {
    threshold: c.threshold?.value ?? DEFAULT_COMPACTION.threshold,
    strategy: c.strategy?.value ?? DEFAULT_COMPACTION.strategy,
    ...(c.model ? { model: c.model.value } : {}),
  };
  const flags = inputs.cli ?? {};
  const base = {
    ...ws,
    compaction,
    editTool: r.edits.tool?.value ?? "auto",
    applyPatchFreeform: r.edits.applyPatchFreeform?.value ?? "auto",
    guidanceBudget: {
      ...(r.guidance.maxTokens ? { totalTokens: r.guidance.maxTokens.value } : {}),
      ...(r.guidance.firstRequestTokens ? { firstTokens: r.guidance.firstRequestTokens.value } : {}),
    },
    offline: !!inputs.offline,
    problems,
    settingsFiles: r.files,
    ...(flags.outputStyle ? { outputStyle: flags.outputStyle } : {}),
    ...(v?.rooStorage ? { rooStorage: v.rooStorage } : {}),
  };
  const budgets = plain(r.budgets);
  if (inputs.offline) return { ...base, maxTurns: flags.maxTurns ?? v?.maxTurns, fallbackModels: [], budgets: {} };

  for (const key of ["fallbackModels", "budgets", "architect"]) {
    const bad = invalidKey(r, key);
    if (bad) throw new SessionSettingsError(bad);
  }
  const fallbackModels = flags.fallbackModels?.length
    ? asSettingsError(() => flags.fallbackModels!.map(parseFallbackSpec))
    : asSettingsError(() => parseFallbackModels(r.fallbackModels?.value ?? [], `${r.fallbackModels?.from ?? "settings"}: fallbackModels`));
  const architect = r.architect ? asSettingsError(() => parseArchitectSettings(r.architect!.value, `${r.architect!.from}: architect`)) : undefined;
  let telemetry: TelemetrySettings | undefined;
  const badTelemetry = invalidKey(r, "telemetry");
  if (badTelemetry && !v) throw new SessionSettingsError(badTelemetry);
  try {
    telemetry = parseTelemetrySettings(r.telemetry?.value, `${r.telemetry?.from ?? "settings"}: telemetry`);
  } catch (err) {
    // In the extension tracing never stops a session (it says why it is off); the CLI refuses a bad value.
    if (!v) throw new SessionSettingsError(err instanceof Error ? err.message : String(err));
    problems.push(`telemetry off: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    ...base,
    maxTurns: v ? v.maxTurns : (flags.maxTurns ?? budgets.maxTurns),
    fallbackModels,
    budgets: { maxCostUsd: flags.maxCostUsd ?? budgets.maxCostUsd, maxTimeS: flags.maxTimeS ?? budgets.maxTimeS },
    ...(architect ? { architect } : {}),
    ...(telemetry ? { telemetry } : {}),
  };
}
