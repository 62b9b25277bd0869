/** Rules, settings sources and their merge result. */
import type { PermissionMode } from "../loop/types";

export type RuleList = "allow" | "ask" | "deny";

/** Where a rule or setting came from. */
export interface SettingsSourceInfo {
  /** Which source: VS Code settings, ~/.yoke, .yoke, .yoke local, .claude, .claude local, --settings, or answers given in this session. */
  kind: "vscode" | "user" | "project" | "project-local" | "claude" | "claude-local" | "extra" | "session";
  /** Shown in reasons, e.g. `.yoke/settings.json`. */
  label: string;
  /** Absolute file path, for files. */
  path?: string;
  /** The folder `/path` rule specifiers are relative to. */
  baseDir: string;
  /**
   * The file is shared with the repository (git tracks it, or it is a project file meant to be
   * committed), so a hostile repository could have written it: it may restrict, never loosen.
   */
  checkedIn?: boolean;
}

/** One settings source as the host found it: file text (undefined when absent) or an object (VS Code). */
export interface LoadedSource {
  info: SettingsSourceInfo;
  text?: string;
  value?: unknown;
  /** The file exists but could not be read. */
  error?: string;
}

export interface PermissionRule {
  /** As written (trimmed), e.g. `Bash(npm run test:*)`. */
  raw: string;
  /** Bash, Read, Edit, mcp__server, mcp__server__tool… */
  tool: string;
  specifier?: string;
  list: RuleList;
  source: SettingsSourceInfo;
}

export interface SettingsProblem {
  source: SettingsSourceInfo;
  message: string;
  /** "info": accepted but without effect yet (e.g. a hook event Yoke never fires); default: a warning. */
  level?: "info";
}

/** A command hook group from a settings file (`hooks.<Event>[i]`). */
export interface HookGroupConfig {
  event: string;
  matcher: string;
  hooks: Array<{
    type: "command";
    command: string;
    /** Seconds (default 600). */
    timeout?: number;
    /** Permission-rule condition on tool events, e.g. `Bash(git *)`: the hook runs only when it matches. */
    if?: string;
    /** Exec form: `command` is the program, these its arguments; no shell. */
    args?: string[];
    /** Runs in the background; cannot block; its output reaches the model on the next request. */
    async?: boolean;
    /** Like async, and an exit 2 wakes the model with its stderr. */
    asyncRewake?: boolean;
    /** Shell form: bash (default) or powershell. */
    shell?: "bash" | "powershell";
    /** "block": a timeout or an unexpected exit status blocks like a hook that cannot start. */
    onFailure?: "block" | "ignore";
    statusMessage?: string;
  }>;
  /** Handlers of types Yoke cannot run (`prompt`, `agent`, `http`, `mcp_tool`): on a PreToolUse or PermissionRequest they make matching calls ask. */
  unsupported?: Array<{ type: string }>;
  source: SettingsSourceInfo;
}

export interface MergedSettings {
  /** Every rule, highest-priority source first. */
  rules: PermissionRule[];
  defaultMode?: { mode: PermissionMode; source: SettingsSourceInfo };
  /** Extra folders treated like the workspace (permissions.additionalDirectories). */
  additionalDirectories: string[];
  hooks: HookGroupConfig[];
  problems: SettingsProblem[];
}
