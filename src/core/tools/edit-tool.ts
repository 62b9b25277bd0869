/**
 * Which edit tool a model is offered (setting `edits.tool`, docs/edits.md): the one its family was
 * trained on. OpenAI's GPT-4.1, GPT-5, Codex and o-series models are trained on the V4A
 * `apply_patch` format; Claude and every other model get `edit_file` (old/new pairs and hashline ops).
 */
import type { ToolDefinition } from "./types";

export type EditToolSetting = "auto" | "edit_file" | "apply_patch";
export type EditToolName = Exclude<EditToolSetting, "auto">;

/** The model names trained on apply_patch (a provider prefix such as `openai/` is ignored). */
const APPLY_PATCH_MODELS = /^(gpt-4\.1|gpt-5|codex|o[1-9](-|$)|.*-codex)/;

export function editToolFor(setting: EditToolSetting, model: string): { tool: EditToolName; why: string } {
  if (setting !== "auto") return { tool: setting, why: `the setting edits.tool is "${setting}"` };
  const name = model.toLowerCase().replace(/^.*\//, "");
  if (APPLY_PATCH_MODELS.test(name)) return { tool: "apply_patch", why: `${model} is an OpenAI model trained on the apply_patch format` };
  return { tool: "edit_file", why: `${model} is not one of the models trained on apply_patch (gpt-4.1, gpt-5, codex, o-series)` };
}

/**
 * Setting `edits.applyPatchFreeform`: whether apply_patch is offered as a freeform tool (OpenAI's
 * custom tool with the V4A grammar). `auto`: where the provider has custom tools (OpenAI's own
 * API, GPT-5 models); `on`: on OpenAI's wire whatever the server or model (a server that does not
 * know custom tools rejects the request); `off`: always a function tool with one argument `input`.
 */
export type FreeformSetting = "auto" | "on" | "off";

/** The tool as offered under that setting (a tool that declares no freeform format is unchanged). */
export function withFreeformSetting<T extends ToolDefinition>(tool: T, setting: FreeformSetting): T {
  if (!tool.freeform || setting === "auto") return tool;
  if (setting === "off") {
    const { freeform: _dropped, ...rest } = tool;
    return rest as T;
  }
  return { ...tool, freeform: { ...tool.freeform, offer: "always" } };
}
