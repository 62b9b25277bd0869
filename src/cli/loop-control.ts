/**
 * Loop control for CLI sessions: the fallback chain over --model and --fallback-model / the
 * `fallbackModels` setting, the budgets (--max-cost, --max-time, setting `budgets`), tool circuit
 * breakers, stuck detection and fix hints.
 */
import { parseJsonc } from "../core/settings/jsonc";
import { homedir } from "node:os";
import { budgetsExtension, parseBudgets } from "../core/budgets";
import { toolBreakersExtension } from "../core/breakers";
import type { Extension } from "../core/extensions/types";
import { fallbackChain, parseFallbackModels, parseFallbackSpec, type FallbackSpec } from "../core/fallback";
import { createProvider } from "../core/providers/create";
import type { Provider, ProviderConfig } from "../core/providers/types";
import { stuckExtension } from "../core/stuck";
import { toolHintsExtension } from "../core/tool-hints";
import { loadSettingsSources } from "../node/settings/files";
import { UsageError } from "./args";
import { providerConfigFromFlags } from "./provider-config";

export interface LoopControlFlags {
  cwd: string;
  fallbackModels?: string[];
  maxCostUsd?: number;
  maxTimeS?: number;
  maxTurns?: number;
  settings?: string[];
}

/** The value of `key` in the settings file with the highest priority that sets it. */
export async function setting(flags: LoopControlFlags, key: string): Promise<{ value: unknown; label: string } | undefined> {
  const sources = await loadSettingsSources({ cwd: flags.cwd, home: homedir(), extraFiles: flags.settings });
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

export async function cliLoopControl(flags: LoopControlFlags, config: ProviderConfig): Promise<{ provider: Provider; extensions: Extension[]; maxTurns?: number }> {
  let specs: FallbackSpec[];
  try {
    if (flags.fallbackModels?.length) specs = flags.fallbackModels.map(parseFallbackSpec);
    else {
      const s = await setting(flags, "fallbackModels");
      specs = s ? parseFallbackModels(s.value, `${s.label}: fallbackModels`) : [];
    }
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  let budgets: ReturnType<typeof parseBudgets> = {};
  const b = await setting(flags, "budgets");
  try {
    if (b) budgets = parseBudgets(b.value, `${b.label}: budgets`);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
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
