/**
 * Loop control for CLI sessions: the fallback chain over --model and --fallback-model / the
 * `fallbackModels` setting, the budgets (--max-cost, --max-time, setting `budgets`), tool circuit
 * breakers, stuck detection and fix hints.
 */
import { homedir } from "node:os";
import { budgetsExtension } from "../core/budgets";
import { toolBreakersExtension } from "../core/breakers";
import type { Extension } from "../core/extensions/types";
import { fallbackChain, parseFallbackModels, parseFallbackSpec, type FallbackSpec } from "../core/fallback";
import { createProvider } from "../core/providers/create";
import type { Provider, ProviderConfig } from "../core/providers/types";
import { stuckExtension } from "../core/stuck";
import { toolHintsExtension } from "../core/tool-hints";
import { readSettings, type ReadSettings } from "../node/settings/reader";
import { invalidKey } from "../node/settings/key-options";
import { plain } from "../core/settings/keys";
import { UsageError } from "./args";
import { providerConfigFromFlags } from "./provider-config";

export interface LoopControlFlags {
  cwd: string;
  fallbackModels?: string[];
  maxCostUsd?: number;
  maxTimeS?: number;
  maxTurns?: number;
  settings?: string[];
  /** The user trusts the folder (its untracked local settings count as the user's only then). */
  trusted?: boolean;
}

/** The settings of the session's folder, through the one settings reader (project origins can only tighten). */
export function sessionSettings(flags: LoopControlFlags): Promise<ReadSettings> {
  return readSettings({ cwd: flags.cwd, home: homedir(), extraFiles: flags.settings, trusted: flags.trusted ?? true });
}

export async function cliLoopControl(flags: LoopControlFlags, config: ProviderConfig): Promise<{ provider: Provider; extensions: Extension[]; maxTurns?: number }> {
  const settings = await sessionSettings(flags);
  // A value that cannot be read stops the run: a mistyped budget must not mean no budget.
  for (const key of ["fallbackModels", "budgets"]) {
    const bad = invalidKey(settings, key);
    if (bad) throw new UsageError(bad);
  }
  let specs: FallbackSpec[];
  try {
    specs = flags.fallbackModels?.length ? flags.fallbackModels.map(parseFallbackSpec) : parseFallbackModels(settings.fallbackModels?.value ?? []);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const budgets = plain(settings.budgets);
  const models: Provider[] = [createProvider(config)];
  for (const spec of specs) {
    const cfg: ProviderConfig =
      !spec.provider || spec.provider === config.provider ? { ...config, model: spec.model } : await providerConfigFromFlags({ provider: spec.provider, model: spec.model, stream: config.stream });
    models.push(createProvider(cfg));
  }
  return {
    provider: fallbackChain(models),
    extensions: [
      toolBreakersExtension(),
      budgetsExtension({ maxCostUsd: flags.maxCostUsd ?? budgets.maxCostUsd, maxTimeS: flags.maxTimeS ?? budgets.maxTimeS }),
      stuckExtension(),
      toolHintsExtension(),
    ],
    maxTurns: flags.maxTurns ?? budgets.maxTurns,
  };
}
