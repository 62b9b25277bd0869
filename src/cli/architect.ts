/**
 * Architect mode for CLI sessions (src/core/architect): the `architect` key of the settings files
 * (`{"model"?: "planner", "editorModel": "cheaper model"}`, `model` or `provider:model`). The
 * planner is the session's model chain unless `model` names another one.
 */
import { architectMode, parseArchitectSettings } from "../core/architect";
import type { Extension } from "../core/extensions/types";
import { fallbackChain, type FallbackSpec } from "../core/fallback";
import { createProvider } from "../core/providers/create";
import type { Provider, ProviderConfig } from "../core/providers/types";
import type { ToolDefinition } from "../core/tools/types";
import { UsageError } from "./args";
import { sessionSettings, type LoopControlFlags } from "./loop-control";
import { invalidKey } from "../node/settings/key-options";
import { providerConfigFromFlags } from "./provider-config";

export async function cliArchitect(
  flags: LoopControlFlags,
  config: ProviderConfig,
  session: Provider,
  tools: readonly ToolDefinition[],
): Promise<{ provider: Provider; extension: Extension } | undefined> {
  const settings = await sessionSettings(flags);
  const bad = invalidKey(settings, "architect");
  if (bad) throw new UsageError(bad);
  const s = settings.architect;
  let parsed;
  try {
    parsed = s ? parseArchitectSettings(s.value, `${s.from}: architect`) : undefined;
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  if (!parsed) return undefined;
  const make = async (spec: FallbackSpec): Promise<Provider> => {
    const cfg: ProviderConfig =
      !spec.provider || spec.provider === config.provider ? { ...config, model: spec.model } : await providerConfigFromFlags({ provider: spec.provider, model: spec.model, stream: config.stream });
    return fallbackChain([createProvider(cfg)]);
  };
  const planner = parsed.model ? await make(parsed.model) : session;
  return architectMode({ planner, editor: await make(parsed.editorModel), tools });
}
