// Loop control in the extension host: the fallback chain (yoke.fallbackModels), budgets
// (yoke.budgets.*), tool breakers, stuck detection, fix hints, and the commands gate shared by
// every session of this window.
import * as vscode from "vscode";
import { budgetsExtension, parseBudgets } from "../core/budgets";
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
  const c = vscode.workspace.getConfiguration("yoke");
  let specs;
  let budgets;
  try {
    specs = parseFallbackModels(c.get<unknown>("fallbackModels", []), "yoke.fallbackModels");
    budgets = parseBudgets({ maxCostUsd: c.get<number | null>("budgets.maxCostUsd") ?? undefined, maxTimeS: c.get<number | null>("budgets.maxTimeS") ?? undefined }, "yoke.budgets");
  } catch (err) {
    throw new LoopSettingsError(err instanceof Error ? err.message : String(err));
  }
  const models = [primary, ...(await Promise.all(specs.map((s) => make(s.provider, s.model))))];
  return {
    provider: fallbackChain(models),
    tools: withConcurrencyGates(tools, gates),
    extensions: [breakers, budgetsExtension(budgets), stuckExtension(), toolHintsExtension()],
  };
}
