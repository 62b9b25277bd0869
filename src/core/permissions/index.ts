/** The permission engine: rules, settings merge, shell analysis and the gate. */
export { createPermissionGate, type PermissionGateOptions, type SettingsWriter, type YokePermissionGate } from "./gate";
export { isCheckedIn, mergeSettings, HOOK_EVENTS, PERMISSION_MODES } from "./merge-settings";
export { sandboxProtection, type DirEntry, type ListDir, type SandboxProtection } from "./sandbox-view";
export { parseRule, formatRule } from "./rule-syntax";
export { initShellParser, type ShellParserWasm } from "./shell/parser";
export type { FailClosed, LoadedSource, MergedSettings, PermissionRule, SettingsProblem, SettingsSourceInfo, HookGroupConfig } from "./types";
