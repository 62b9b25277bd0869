// Architect mode in the extension host (src/core/architect): the yoke.architect setting (or the
// `architect` key of the user's settings files; a workspace may not set it)
// (`{"model"?: "planner", "editorModel": "cheaper model"}`, each `model` or `provider:model`),
// read when a session starts, so it is a setting per session.
import { architectMode, parseArchitectSettings } from "../core/architect";
import type { Extension } from "../core/extensions/types";
import { fallbackChain } from "../core/fallback";
import type { Provider } from "../core/providers/types";
import type { ToolDefinition } from "../core/tools/types";
import { LoopSettingsError } from "./loop-control";
import { workspaceSettings } from "./settings";
import { invalidKey } from "../node/settings/key-options";

export async function hostArchitect(
  session: Provider,
  tools: readonly ToolDefinition[],
  make: (provider: string | undefined, model: string) => Promise<Provider>,
): Promise<{ provider: Provider; extension: Extension } | undefined> {
  const settings = await workspaceSettings();
  let parsed;
  try {
    const bad = invalidKey(settings, "architect");
    if (bad) throw new Error(bad);
    parsed = parseArchitectSettings(settings.architect?.value, `${settings.architect?.from ?? "yoke"}: architect`);
  } catch (err) {
    throw new LoopSettingsError(err instanceof Error ? err.message : String(err));
  }
  if (!parsed) return undefined;
  const planner = parsed.model ? fallbackChain([await make(parsed.model.provider, parsed.model.model)]) : session;
  const editor = fallbackChain([await make(parsed.editorModel.provider, parsed.editorModel.model)]);
  return architectMode({ planner, editor, tools });
}
