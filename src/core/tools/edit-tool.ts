/**
 * Which edit tool a model is offered (setting `edits.tool`, docs/edits.md): the one its family was
 * trained on. OpenAI's GPT-4.1, GPT-5, Codex and o-series models are trained on the V4A
 * `apply_patch` format; Claude and every other model get `edit_file` (old/new pairs and hashline ops).
 */
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
