/**
 * Reads settings sources (lowest priority first) and merges their permission rules, default mode,
 * additional directories and hooks.
 *
 * Trust comes from who wrote a setting. What loosens (allow rules, a mode looser than default,
 * additionalDirectories, and a hook's "allow" answer, which the hooks read from `source.checkedIn`)
 * counts only from the user's own sources: ~/.yoke/settings.json, ~/.claude/settings.json, VS Code
 * user settings, --settings files, managed settings, and workspace files git does not track. What
 * restricts (deny and ask rules, plan, dontAsk, disableBypassPermissionsMode) counts from every source.
 *
 * What cannot be read fails closed: a malformed deny or ask rule makes its tool ask, a file that is
 * not valid JSON or cannot be read makes every tool ask, an emptied file keeps the deny and ask rules
 * of its last good version (from git or the previous load). Each case is a problem the user sees.
 */
import type { PermissionMode } from "../loop/types";
import { findDuplicateKeys, parseJsonc } from "../settings/jsonc";
import { readRule } from "./rule-syntax";
import type { FailClosed, HookGroupConfig, LoadedSource, MergedSettings, PermissionRule, RuleList, SettingsProblem, SettingsSourceInfo } from "./types";
import { readHooks } from "../hooks/config";
import { readCursorHooks } from "../hooks/cursor";
import { readKiroHook } from "../hooks/kiro";

export const PERMISSION_MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];
export { HOOK_EVENTS } from "../hooks/config";

/**
 * Claude Code's values of `permissions.defaultMode` and what Yoke makes of them: `manual` is
 * Claude Code's alias of default; `dontAsk` is default mode with every question answered "no";
 * `auto` is Claude Code's classifier mode, which Yoke does not have, so it asks (default).
 */
const MODE_VALUES: Record<string, { mode: PermissionMode; dontAsk?: boolean; note?: string }> = {
  default: { mode: "default" },
  acceptEdits: { mode: "acceptEdits" },
  plan: { mode: "plan" },
  bypassPermissions: { mode: "bypassPermissions" },
  manual: { mode: "default" },
  dontAsk: { mode: "default", dontAsk: true },
  auto: { mode: "default", note: `"auto" is Claude Code's classifier mode, which Yoke does not have; Yoke starts in default mode (it asks)` },
};
const LOOSER_MODES = new Set<PermissionMode>(["acceptEdits", "bypassPermissions"]);
const WORKSPACE_KINDS = new Set<SettingsSourceInfo["kind"]>(["project", "project-local", "claude", "claude-local", "vscode-workspace"]);
/** Always shared with the repository: the files meant to be committed, and VS Code workspace settings. */
const SHARED_KINDS = new Set<SettingsSourceInfo["kind"]>(["project", "claude", "vscode-workspace", "ignore-file"]);
const PERMISSION_KEYS = new Set(["allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode", "disableAutoMode", "allowManagedPermissionRulesOnly"]);
/** Keys from old guides: rules that deny are used as deny rules (fail closed), ones that allow are not. */
const LEGACY_DENY_KEYS = new Set(["deniedTools", "disallowedTools"]);
const LEGACY_ALLOW_KEYS = new Set(["allowedTools"]);

export interface MergeOptions {
  /** false in an untrusted workspace (VS Code Restricted Mode): workspace files may only restrict. */
  trusted?: boolean;
  /**
   * The last good text of each file (by path), kept by the gate across reloads: a file that is
   * emptied, unreadable or broken keeps the deny and ask rules of that version. Updated in place.
   */
  memory?: Map<string, string>;
}

/** Is the source shared with the repository (so it may restrict, never loosen)? */
export function isCheckedIn(info: SettingsSourceInfo): boolean {
  if (SHARED_KINDS.has(info.kind)) return true;
  if (info.kind === "project-local" || info.kind === "claude-local") return info.checkedIn !== false;
  return info.checkedIn === true;
}

interface SourceContent {
  rules: PermissionRule[];
  defaultMode?: { value: string; mode: PermissionMode; dontAsk?: boolean };
  additionalDirectories: string[];
  hooks: HookGroupConfig[];
  failClosed: FailClosed[];
  bypassDisabled: boolean;
  disableAllHooks: boolean;
  managedRulesOnly: boolean;
  managedHooksOnly: boolean;
}

const emptyContent = (): SourceContent => ({
  rules: [],
  additionalDirectories: [],
  hooks: [],
  failClosed: [],
  bypassDisabled: false,
  disableAllHooks: false,
  managedRulesOnly: false,
  managedHooksOnly: false,
});

/** `sources` lowest priority first (VS Code user, ~/.claude, ~/.yoke, .yoke, .yoke local, .claude, .claude local, VS Code workspace, --settings, managed). */
export function mergeSettings(sources: LoadedSource[], opts: MergeOptions = {}): MergedSettings {
  const merged: MergedSettings = { rules: [], additionalDirectories: [], hooks: [], failClosed: [], problems: [] };
  const trusted = opts.trusted ?? true;
  let disableAllHooks: SettingsSourceInfo | undefined;
  let managedRulesOnly: SettingsSourceInfo | undefined;
  let managedHooksOnly: SettingsSourceInfo | undefined;
  for (const source of sources) {
    const content = readSource(remembered(source, opts.memory), merged.problems, opts.memory);
    if (!content) continue;
    const { info } = source;
    const restricted = !trusted && WORKSPACE_KINDS.has(info.kind);
    const shared = !restricted && isCheckedIn(info);
    const loosening = describeLoosening(content);
    if (restricted && (loosening.length || content.hooks.length)) {
      merged.problems.push({
        source: info,
        message: `${info.label}: the workspace is not trusted, so its allow rules, defaultMode, additionalDirectories and hooks are ignored (deny and ask rules still apply)`,
      });
    } else if (shared && loosening.length) {
      merged.problems.push({ source: info, message: sharedMessage(info, loosening) });
    }
    const mayLoosen = !restricted && !shared;
    merged.rules.unshift(...content.rules.filter((r) => r.list !== "allow" || mayLoosen));
    merged.failClosed.push(...content.failClosed);
    if (content.bypassDisabled) merged.bypassDisabled = info;
    const mode = content.defaultMode;
    if (mode && (mayLoosen || !LOOSER_MODES.has(mode.mode))) {
      merged.defaultMode = { mode: mode.mode, source: info, ...(mode.value !== mode.mode ? { declared: mode.value } : {}), ...(mode.dontAsk ? { dontAsk: true } : {}) };
    }
    if (mayLoosen) merged.additionalDirectories.push(...content.additionalDirectories);
    if (!restricted) merged.hooks.push(...content.hooks);
    if (content.disableAllHooks) {
      if (mayLoosen) disableAllHooks = info;
      else merged.problems.push({ source: info, message: `${info.label}: "disableAllHooks" is ignored because ${sharedWhy(info)}: it would switch off your own hooks` });
    }
    if (info.kind === "managed") {
      if (content.managedRulesOnly) managedRulesOnly = info;
      if (content.managedHooksOnly) managedHooksOnly = info;
    }
  }
  if (managedRulesOnly) {
    const dropped = merged.rules.filter((r) => r.list === "allow" && r.source.kind !== "managed");
    if (dropped.length) {
      merged.rules = merged.rules.filter((r) => !dropped.includes(r));
      merged.problems.push({
        source: managedRulesOnly,
        message: `${managedRulesOnly.label}: allowManagedPermissionRulesOnly is set, so ${countOf(new Set(dropped.map((r) => r.raw)).size, "allow rule")} from other settings files ${dropped.length === 1 ? "is" : "are"} not used (their deny and ask rules still apply)`,
      });
    }
  }
  const keepHooks = managedHooksOnly ?? disableAllHooks;
  if (keepHooks) {
    const before = merged.hooks.length;
    merged.hooks = merged.hooks.filter((h) => h.source.kind === "managed");
    if (before > merged.hooks.length) {
      const why = managedHooksOnly ? "allowManagedHooksOnly is set" : '"disableAllHooks" is set';
      merged.problems.push({
        source: keepHooks,
        message: `${keepHooks.label}: ${why}, so ${countOf(before - merged.hooks.length, "hook group")} from other settings files ${before - merged.hooks.length === 1 ? "does" : "do"} not run`,
      });
    }
  }
  if (merged.bypassDisabled && merged.defaultMode?.mode === "bypassPermissions") {
    merged.problems.push({
      source: merged.defaultMode.source,
      message: `${merged.defaultMode.source.label}: defaultMode "bypassPermissions" is not used because ${merged.bypassDisabled.label} disables bypassPermissions mode (disableBypassPermissionsMode); Yoke starts in default mode`,
    });
    merged.defaultMode = { mode: "default", source: merged.bypassDisabled, declared: "bypassPermissions" };
  }
  return merged;
}

function countOf(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** The loosening settings of a source, for messages (empty when it only restricts). */
function describeLoosening(c: SourceContent): string[] {
  const out: string[] = [];
  const allows = c.rules.filter((r) => r.list === "allow");
  const distinct = new Set(allows.map((r) => r.raw));
  if (distinct.size) out.push(`${distinct.size === 1 ? "the allow rule" : `${distinct.size} allow rules`} (${[...distinct].slice(0, 3).join(", ")}${distinct.size > 3 ? ", …" : ""})`);
  if (c.defaultMode && LOOSER_MODES.has(c.defaultMode.mode)) out.push(`defaultMode ${JSON.stringify(c.defaultMode.value)}`);
  if (c.additionalDirectories.length) out.push(`additionalDirectories ${JSON.stringify(c.additionalDirectories)}`);
  return out;
}

function sharedWhy(info: SettingsSourceInfo): string {
  if (info.kind === "vscode-workspace") return "workspace settings are shared with the repository";
  if (info.checkedInWhy) return `the file is shared with the repository (${info.checkedInWhy})`;
  if (info.kind === "project" || info.kind === "claude") return "the file is shared with the repository (it is the project's committed settings file)";
  return "the file is shared with the repository (Yoke could not confirm that git does not track it)";
}

function sharedMessage(info: SettingsSourceInfo, loosening: string[]): string {
  const where =
    info.kind === "vscode-workspace"
      ? "your VS Code user settings"
      : info.kind === "claude" || info.kind === "claude-local"
        ? "an untracked .claude/settings.local.json, ~/.claude/settings.json or ~/.yoke/settings.json"
        : "an untracked .yoke/settings.local.json or ~/.yoke/settings.json";
  const what = loosening.length === 1 ? loosening[0]! : `${loosening.slice(0, -1).join(", ")} and ${loosening[loosening.length - 1]}`;
  const verb = loosening.length === 1 && !/^\d+ allow rules/.test(what) ? "is" : "are";
  return `${info.label}: ${what} ${verb} ignored because ${sharedWhy(info)}, and a repository may only restrict what Yoke does; put ${verb === "is" ? "it" : "them"} in ${where}`;
}

/** Attaches the previous load's text as the fallback of a source that is now broken. */
function remembered(source: LoadedSource, memory: Map<string, string> | undefined): LoadedSource {
  if (!memory || source.fallback) return source;
  const key = source.info.path ?? source.info.label;
  const prev = memory.get(key);
  if (prev === undefined) return source;
  const broken = parseSource(source)?.ok === false;
  return broken ? { ...source, fallback: { text: prev, from: "the version Yoke loaded before" } } : source;
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; empty?: boolean; failed: string };

/** The source's settings object, or why it cannot be read. */
function parseSource(source: LoadedSource): Parsed | undefined {
  if (source.error !== undefined) return { ok: false, failed: `cannot be read (${source.error})` };
  let value = source.value;
  if (source.text !== undefined) {
    if (source.text.trim() === "") return { ok: false, empty: true, failed: "is empty" };
    const parsed = parseJsonc(source.text);
    if (!parsed.ok) return { ok: false, failed: `is not valid JSON (${parsed.line}:${parsed.column}: ${parsed.message})` };
    value = parsed.value;
  }
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) return { ok: false, failed: "is not a JSON object (the settings must be one)" };
  return { ok: true, value: value as Record<string, unknown> };
}

function readSource(source: LoadedSource, problems: SettingsProblem[], memory: Map<string, string> | undefined): SourceContent | undefined {
  const { info } = source;
  const where = info.path ?? info.label;
  const key = info.path ?? info.label;
  const parsed = parseSource(source);
  if (!parsed) {
    if (source.text === undefined && source.error === undefined) memory?.delete(key);
    return undefined;
  }
  if (parsed.ok) {
    const content = readObject(parsed.value, info, problems);
    if (source.text !== undefined) reportDuplicates(source.text, info, content, problems);
    if (memory && source.text !== undefined) memory.set(key, source.text);
    return content;
  }
  // Broken: keep what an earlier version restricted, and ask where the content is unknown.
  const content = emptyContent();
  const earlier = source.fallback ? parseSource({ info, text: source.fallback.text }) : undefined;
  const kept = earlier?.ok ? readObject(earlier.value, info, []) : undefined;
  const restrictive = kept ? kept.rules.filter((r) => r.list !== "allow") : [];
  if (kept) {
    content.rules.push(...restrictive);
    content.bypassDisabled = kept.bypassDisabled;
    content.failClosed.push(...kept.failClosed);
  }
  const distinct = new Set(restrictive.map((r) => `${r.list} ${r.raw}`)).size;
  const keptText = kept
    ? distinct
      ? `; ${source.fallback!.from} held ${countOf(distinct, "deny and ask rule")}, which keep applying until it is fixed (its allow rules, defaultMode, additionalDirectories and hooks do not)`
      : `; ${source.fallback!.from} held no deny or ask rules`
    : "";
  if (parsed.empty) {
    problems.push({
      source: info,
      message: `${where}: the file is empty, so it holds no rules${keptText || "; if it held rules before, they no longer apply — restore it (for example from git) or delete it"}`,
    });
    return content;
  }
  content.failClosed.push({ tool: "*", source: info, why: `${info.label} ${parsed.failed}` });
  problems.push({ source: info, message: `${where}: the file ${parsed.failed}; Yoke cannot know which rules it holds, so every tool call asks until it is fixed${keptText}` });
  return content;
}

/**
 * A key written twice keeps only its last value (JSON.parse): the earlier rules are lost. For the
 * permissions object or its deny and ask lists that is a loss Yoke cannot undo, so every tool asks.
 */
function reportDuplicates(text: string, info: SettingsSourceInfo, content: SourceContent, problems: SettingsProblem[]): void {
  for (const d of findDuplicateKeys(text)) {
    const where = [...d.path, d.key].join(".");
    const guarding = (d.path.length === 0 && d.key === "permissions") || (d.path.length === 1 && d.path[0] === "permissions" && (d.key === "deny" || d.key === "ask"));
    if (guarding) {
      content.failClosed.push({ tool: "*", source: info, why: `${info.label} defines "${where}" twice` });
      problems.push({
        source: info,
        message: `${info.path ?? info.label}:${d.line}:${d.column}: "${where}" is defined twice; JSON keeps only the last one, so the rules of the first are lost and every tool call asks until it is fixed (merge the two)`,
      });
    } else {
      problems.push({ source: info, message: `${info.path ?? info.label}:${d.line}:${d.column}: "${where}" is defined twice; only the last one is used` });
    }
  }
}

/** Reads a settings object; what it does not understand is reported, and deny and ask rules it cannot read fail closed. */
function readObject(obj: Record<string, unknown>, info: SettingsSourceInfo, problems: SettingsProblem[]): SourceContent {
  const where = info.path ?? info.label;
  const content = emptyContent();
  const report = (message: string) => problems.push({ source: info, message: `${where}: ${message}` });
  const failClosed = (tool: string, why: string) => content.failClosed.push({ tool, source: info, why });

  // Cursor's hooks file holds hooks only (hooks/cursor.ts).
  const perms = info.format ? undefined : obj.permissions;
  if (perms !== undefined && perms !== null) {
    if (typeof perms !== "object" || Array.isArray(perms)) {
      report(`"permissions" must be an object (found ${describe(perms)}); Yoke cannot read its rules, so every tool call asks until it is fixed`);
      failClosed("*", `"permissions" in ${info.label} cannot be read`);
    } else {
      readPermissions(perms as Record<string, unknown>, info, content, report, failClosed);
    }
  }
  // A Kiro hook file is one hook (hooks/kiro.ts), nothing else.
  if (info.format === "kiro-hook") {
    content.hooks = readKiroHook(obj, info, problems);
    return content;
  }
  const hooks = obj.hooks;
  if (hooks !== undefined && hooks !== null) {
    if (typeof hooks !== "object" || Array.isArray(hooks)) report(`"hooks" must be an object keyed by event name (found ${describe(hooks)}); no hook of this file runs`);
    else content.hooks = info.format === "cursor-hooks" ? readCursorHooks(hooks as Record<string, unknown>, info, problems) : readHooks(hooks as Record<string, unknown>, info, problems);
  }
  content.disableAllHooks = obj.disableAllHooks === true;
  content.managedRulesOnly = obj.allowManagedPermissionRulesOnly === true || (isObject(perms) && perms.allowManagedPermissionRulesOnly === true);
  content.managedHooksOnly = obj.allowManagedHooksOnly === true;
  return content;
}

function readPermissions(perms: Record<string, unknown>, info: SettingsSourceInfo, content: SourceContent, report: (message: string) => void, failClosed: (tool: string, why: string) => void): void {
  const addRules = (list: RuleList, value: unknown, key: string) => {
    const restricting = list !== "allow";
    let entries: unknown[];
    if (Array.isArray(value)) entries = value;
    else if (typeof value === "string" && restricting) {
      report(`permissions.${key} must be an array of rule strings; Yoke reads the string as one rule`);
      entries = [value];
    } else {
      if (restricting) {
        report(`permissions.${key} must be an array of rule strings (found ${describe(value)}); Yoke cannot read its rules, so every tool call asks until it is fixed`);
        failClosed("*", `permissions.${key} in ${info.label} cannot be read`);
      } else report(`permissions.${key} must be an array of rule strings (found ${describe(value)}); it is ignored (it allows nothing)`);
      return;
    }
    entries.forEach((entry, i) => {
      if (typeof entry !== "string") {
        if (restricting) {
          report(`permissions.${key}[${i}] is ${describe(entry)}, not a rule string; Yoke cannot read it, so every tool call asks until it is fixed`);
          failClosed("*", `permissions.${key}[${i}] in ${info.label} cannot be read`);
        } else report(`permissions.${key}[${i}] is ${describe(entry)}, not a rule string; it is skipped (it allows nothing)`);
        return;
      }
      const read = readRule(entry, list);
      if ("claudeOnly" in read) return;
      if ("unused" in read) return report(`permissions.${key}: ${read.unused}`);
      if ("error" in read) {
        if (!read.askFor) return report(`permissions.${key}: ${read.error}; this rule is skipped (it allows nothing)`);
        report(`permissions.${key}: ${read.error}; Yoke cannot read this rule, so ${read.askFor === "*" ? "every tool call" : `every ${read.askFor} call`} asks until it is fixed`);
        return failClosed(read.askFor, `the ${list} rule ${JSON.stringify(entry.trim())} in ${info.label} cannot be read`);
      }
      if (read.note) report(`permissions.${key}: ${read.note}`);
      for (const tool of read.tools) content.rules.push({ raw: entry.trim(), tool, specifier: read.use.specifier, list, source: info });
    });
  };
  for (const list of ["deny", "ask", "allow"] as const) if (perms[list] !== undefined && perms[list] !== null) addRules(list, perms[list], list);
  for (const key of Object.keys(perms)) {
    if (LEGACY_DENY_KEYS.has(key)) {
      report(`permissions.${key} is not a Claude Code key (write permissions.deny); Yoke uses its entries as deny rules`);
      addRules("deny", perms[key], key);
    } else if (LEGACY_ALLOW_KEYS.has(key)) report(`permissions.${key} is not a Claude Code key (write permissions.allow); it is ignored`);
    else if (!PERMISSION_KEYS.has(key)) report(`permissions.${key} is not a key Yoke knows (${[...PERMISSION_KEYS].join(", ")}); it is ignored`);
  }

  const mode = perms.defaultMode;
  if (mode !== undefined && mode !== null) {
    const known = typeof mode === "string" ? MODE_VALUES[mode] : undefined;
    if (known) {
      content.defaultMode = { value: mode as string, ...known };
      if (known.note) report(`permissions.defaultMode: ${known.note}`);
    } else {
      report(`permissions.defaultMode ${JSON.stringify(mode)} is not a mode Yoke knows (${Object.keys(MODE_VALUES).join(", ")}); Yoke uses default mode (it asks) instead`);
      content.defaultMode = { value: String(mode), mode: "default" };
    }
  }

  const dirs = perms.additionalDirectories;
  if (dirs !== undefined && dirs !== null) {
    if (!Array.isArray(dirs)) report(`permissions.additionalDirectories must be an array of folder paths (found ${describe(dirs)}); it is ignored`);
    else {
      dirs.forEach((d, i) => {
        if (typeof d === "string" && d.trim() !== "") content.additionalDirectories.push(d.trim());
        else report(`permissions.additionalDirectories[${i}] is ${describe(d)}, not a folder path; it is ignored`);
      });
    }
  }

  const bypass = perms.disableBypassPermissionsMode;
  if (bypass !== undefined && bypass !== null && bypass !== false) {
    content.bypassDisabled = true;
    if (bypass !== "disable") report(`permissions.disableBypassPermissionsMode should be "disable" (found ${describe(bypass)}); Yoke disables bypassPermissions mode anyway`);
  }
  const auto = perms.disableAutoMode;
  if (auto !== undefined && auto !== null && auto !== "disable") report(`permissions.disableAutoMode should be "disable" (found ${describe(auto)}); Yoke has no auto mode, so it changes nothing`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}
