/** The permission engine: rules, settings merge, shell analysis and the gate. */
export { createPermissionGate, type PermissionGateOptions, type SettingsWriter, type YokePermissionGate } from "./gate";
export { mergeSettings, HOOK_EVENTS, PERMISSION_MODES } from "./merge-settings";
export { parseRule, formatRule } from "./rule-syntax";
export { initShellParser, type ShellParserWasm } from "./shell/parser";
export type { LoadedSource, MergedSettings, PermissionRule, SettingsProblem, SettingsSourceInfo, HookGroupConfig } from "./types";
