/**
 * Reads settings sources (lowest priority first) and merges their permission rules, default mode,
 * additional directories and hooks. A malformed source is reported and treated as absent.
 */
import type { PermissionMode } from "../loop/types";
import { parseJsonWithPosition } from "./json-position";
import { parseRule } from "./rule-syntax";
import type { HookGroupConfig, LoadedSource, MergedSettings, PermissionRule, RuleList, SettingsProblem, SettingsSourceInfo } from "./types";
import { readHooks } from "../hooks/config";

export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];
export { HOOK_EVENTS } from "../hooks/config";
const WORKSPACE_KINDS = new Set<SettingsSourceInfo["kind"]>(["project", "project-local", "claude", "claude-local"]);
const CHECKED_IN_KINDS = new Set<SettingsSourceInfo["kind"]>(["project", "claude"]);

export interface MergeOptions {
  /** false in an untrusted workspace (VS Code Restricted Mode): workspace files may only restrict. */
  trusted?: boolean;
}

interface SourceContent {
  rules: PermissionRule[];
  defaultMode?: PermissionMode;
  additionalDirectories: string[];
  hooks: HookGroupConfig[];
}

/** `sources` lowest priority first (VS Code, user, .yoke, .yoke local, .claude, .claude local, --settings). */
export function mergeSettings(sources: LoadedSource[], opts: MergeOptions = {}): MergedSettings {
  const merged: MergedSettings = { rules: [], additionalDirectories: [], hooks: [], problems: [] };
  const trusted = opts.trusted ?? true;
  for (const source of sources) {
    const content = readSource(source, merged.problems);
    if (!content) continue;
    const restricted = !trusted && WORKSPACE_KINDS.has(source.info.kind);
    const rules = restricted ? content.rules.filter((r) => r.list !== "allow") : content.rules;
    if (restricted && (rules.length !== content.rules.length || content.defaultMode || content.hooks.length || content.additionalDirectories.length)) {
      merged.problems.push({ source: source.info, message: `${source.info.label}: the workspace is not trusted, so its allow rules, defaultMode, additionalDirectories and hooks are ignored (deny and ask rules still apply)` });
    }
    merged.rules.unshift(...rules);
    if (!restricted) {
      if (content.defaultMode === "bypassPermissions" && CHECKED_IN_KINDS.has(source.info.kind)) {
        merged.problems.push({ source: source.info, message: `${source.info.label}: defaultMode "bypassPermissions" is ignored in a shared project file; set it in ~/.yoke/settings.json, a settings.local.json file or the VS Code setting` });
      } else if (content.defaultMode) merged.defaultMode = { mode: content.defaultMode, source: source.info };
      merged.additionalDirectories.push(...content.additionalDirectories);
      merged.hooks.push(...content.hooks);
    }
  }
  return merged;
}

function readSource(source: LoadedSource, problems: SettingsProblem[]): SourceContent | undefined {
  const { info } = source;
  let value = source.value;
  if (source.error) {
    problems.push({ source: info, message: `${info.path ?? info.label}: cannot be read (${source.error}); the file is ignored (its rules do not apply)` });
    return undefined;
  }
  if (source.text !== undefined) {
    if (source.text.trim() === "") return undefined;
    const parsed = parseJsonWithPosition(source.text);
    if (!parsed.ok) {
      problems.push({ source: info, message: `${info.path ?? info.label}:${parsed.line}:${parsed.column}: invalid JSON, ${parsed.message}; the file is ignored until it is fixed (its rules do not apply)` });
      return undefined;
    }
    value = parsed.value;
  }
  if (value === undefined || value === null) return undefined;
  const shapeError = checkShape(value);
  if (shapeError) {
    problems.push({ source: info, message: `${info.path ?? info.label}: ${shapeError}; the file is ignored until it is fixed (its rules do not apply)` });
    return undefined;
  }
  const obj = value as { permissions?: Record<string, unknown>; hooks?: Record<string, unknown> };
  const content: SourceContent = { rules: [], additionalDirectories: [], hooks: [] };
  const perms = obj.permissions ?? {};
  for (const list of ["deny", "ask", "allow"] as RuleList[]) {
    for (const text of (perms[list] as string[] | undefined) ?? []) {
      const parsed = parseRule(text);
      if ("error" in parsed) {
        problems.push({ source: info, message: `${info.path ?? info.label}: permissions.${list}: ${parsed.error}; this rule is skipped` });
        continue;
      }
      content.rules.push({ raw: text.trim(), tool: parsed.tool, specifier: parsed.specifier, list, source: info });
    }
  }
  content.defaultMode = perms.defaultMode as PermissionMode | undefined;
  content.additionalDirectories = (perms.additionalDirectories as string[] | undefined) ?? [];
  content.hooks = readHooks(obj.hooks ?? {}, info, problems);
  return content;
}

function checkShape(value: unknown): string | undefined {
  if (typeof value !== "object" || Array.isArray(value)) return "the settings must be a JSON object";
  const perms = (value as Record<string, unknown>).permissions;
  if (perms !== undefined) {
    if (typeof perms !== "object" || perms === null || Array.isArray(perms)) return `"permissions" must be an object`;
    const p = perms as Record<string, unknown>;
    for (const key of ["allow", "ask", "deny", "additionalDirectories"]) {
      const list = p[key];
      if (list !== undefined && (!Array.isArray(list) || list.some((x) => typeof x !== "string"))) return `"permissions.${key}" must be an array of strings`;
    }
    if (p.defaultMode !== undefined && !PERMISSION_MODES.includes(p.defaultMode as PermissionMode))
      return `"permissions.defaultMode" must be one of ${PERMISSION_MODES.join(", ")} (found ${JSON.stringify(p.defaultMode)})`;
  }
  const hooks = (value as Record<string, unknown>).hooks;
  if (hooks !== undefined && (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))) return `"hooks" must be an object keyed by event name`;
  return undefined;
}
