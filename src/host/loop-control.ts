// Loop control in the extension host: the fallback chain (yoke.fallbackModels), budgets
// (yoke.budgets.*), tool breakers, stuck detection, fix hints, and the commands gate shared by
// every session of this window.
import { budgetsExtension } from "../core/budgets";
import { plain } from "../core/settings/keys";
import { invalidKey } from "../node/settings/key-options";
import { workspaceSettings } from "./settings";
import { toolBreakersExtension } from "../core/breakers";
import { defaultGates, withConcurrencyGates } from "../core/concurrency";
import type { Extension } from "../core/extensions/types";
import { fallbackChain, parseFallbackModels } from "../core/fallback";
import type { Provider } from "../core/providers/types";
import { stuckExtension } from "../core/stuck";
import { toolHintsExtension } from "../core/tool-hints";
import type { ToolDefinition } from "../core/tools/types";

/** A yoke.fallbackModels / yoke.budgets value that cannot work; the message says what to fix. */
export class LoopSettingsError extends Error {}

// One window, one set of circuits and gates: a dead server or a busy machine is the same for every session.
const gates = defaultGates();
const breakers = toolBreakersExtension();

/** `make(provider, model)` builds the provider of a fallback entry (the host knows keys and URLs). */
export async function hostLoopControl(
  primary: Provider,
  tools: ToolDefinition[],
  make: (provider: string | undefined, model: string) => Promise<Provider>,
): Promise<{ provider: Provider; tools: ToolDefinition[]; extensions: Extension[] }> {
  // The settings files and yoke.*, through the one settings reader: a workspace may only remove fallback models and lower budgets.
  const settings = await workspaceSettings();
  let specs;
  try {
    for (const key of ["fallbackModels", "budgets"]) {
      const bad = invalidKey(settings, key);
      if (bad) throw new Error(bad);
    }
    specs = parseFallbackModels(settings.fallbackModels?.value ?? [], "yoke.fallbackModels");
  } catch (err) {
    throw new LoopSettingsError(err instanceof Error ? err.message : String(err));
  }
  const budgets = plain(settings.budgets);
  const models = [primary, ...(await Promise.all(specs.map((s) => make(s.provider, s.model))))];
  return {
    provider: fallbackChain(models),
    tools: withConcurrencyGates(tools, gates),
    extensions: [breakers, budgetsExtension({ maxCostUsd: budgets.maxCostUsd, maxTimeS: budgets.maxTimeS }), stuckExtension(), toolHintsExtension()],
  };
}
