/** Rules, settings sources and their merge result. */
import type { PermissionMode } from "../loop/types";

export type RuleList = "allow" | "ask" | "deny";

/** Where a rule or setting came from. */
export interface SettingsSourceInfo {
  /**
   * Which source: VS Code user settings, ~/.claude/settings.json, ~/.yoke, .yoke, .yoke local,
   * .claude, .claude local, VS Code workspace settings, --settings, Claude Code's managed settings,
   * or answers given in this session.
   */
  kind: "vscode" | "claude-user" | "user" | "project" | "project-local" | "claude" | "claude-local" | "vscode-workspace" | "extra" | "managed" | "session" | "ignore-file";
  /** Shown in reasons, e.g. `.yoke/settings.json`. */
  label: string;
  /** Absolute file path, for files. */
  path?: string;
  /** The folder `/path` rule specifiers are relative to. */
  baseDir: string;
  /**
   * The folder `./path` and bare relative specifiers resolve against, when it is not the
   * workspace root: the source is the settings of another folder of a multi-root workspace.
   */
  cwd?: string;
  /**
   * The file is shared with the repository (git tracks it, or it is a project file meant to be
   * committed), so a hostile repository could have written it: it may restrict, never loosen.
   * Read by the merge (allow rules, a looser defaultMode and additionalDirectories are ignored) and
   * by the hooks (a hook from such a source may block, never allow). Workspace files
   * (`project-local`, `claude-local`) count as checked in unless the loader says `false`;
   * `project`, `claude` and `vscode-workspace` always do.
   */
  checkedIn?: boolean;
  /** Why `checkedIn` is true, for messages: "git tracks it", "it is reached through a symbolic link"... */
  checkedInWhy?: string;
  /** The file is Cursor's hooks file (`{"version": 1, "hooks": {...}}` in Cursor's event names). */
  format?: "cursor-hooks" | "kiro-hook";
  /** More environment for the hooks of this source (a plugin's `CLAUDE_PLUGIN_ROOT`). */
  hookEnv?: Record<string, string>;
}

/** One settings source as the host found it: file text (undefined when absent) or an object (VS Code). */
export interface LoadedSource {
  info: SettingsSourceInfo;
  text?: string;
  value?: unknown;
  /** The file exists but could not be read. */
  error?: string;
  /**
   * An earlier version of the file that held rules, used when this one is empty, unreadable or not
   * valid JSON: its deny and ask rules keep applying (a truncated settings file must not silently
   * drop them). The loader fills it from git (the committed version of a tracked file); the gate
   * from the last version it loaded (MergeOptions.memory).
   */
  fallback?: { text: string; from: string };
}

export interface PermissionRule {
  /** As written (trimmed), e.g. `Bash(npm run test:*)`. */
  raw: string;
  /** Bash, Read, Edit, mcp__server, mcp__server__tool, or a tool-name pattern (`*`, `mcp__*`) in deny and ask rules. */
  tool: string;
  specifier?: string;
  list: RuleList;
  source: SettingsSourceInfo;
  /**
   * A deny rule from another agent's ignore file (ignore-files.ts): it matches a path exactly when this
   * function says so (gitignore's matching, negations included); `specifier` only covers what it may
   * match, for the checks of paths known in part.
   */
  ignoreFile?: (abs: string) => boolean;
  /**
   * The ignore file's tool also refuses the commands that read such a path (Cline and Roo Code check
   * their file-reading commands); unset: only Yoke's file tools are refused (Cursor: its terminal is
   * not governed by .cursorignore).
   */
  ignoreFileCommands?: boolean;
}

export interface SettingsProblem {
  source: SettingsSourceInfo;
  message: string;
  /** "info": accepted but without effect yet (e.g. a hook event Yoke never fires); default: a warning. */
  level?: "info";
}

/**
 * Something in a settings source Yoke could not read, so it asks instead of guessing: a malformed
 * deny or ask rule (that tool asks), or a file that is not valid JSON or cannot be read (every
 * tool asks). The gate turns an "allow" for a matching permission into "ask", naming `why`.
 */
export interface FailClosed {
  /** A permission name or a tool-name pattern (`*` = every tool). */
  tool: string;
  source: SettingsSourceInfo;
  /** For the reason, e.g. `the deny rule "Bash(rm" in .claude/settings.json is malformed`. */
  why: string;
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
    /** Claude Code's `once`: runs at most once in the session (the first matching event), then not again. */
    once?: boolean;
    /** Shell form: bash (default) or powershell. */
    shell?: "bash" | "powershell";
    /** "block": a timeout or an unexpected exit status blocks like a hook that cannot start. */
    onFailure?: "block" | "ignore";
    statusMessage?: string;
    /**
     * Yoke's extension: `false` runs the hook outside the sandbox, on the host (honoured only from
     * the user's own settings; see docs/hooks.md); `true` confines it even when the user's
     * `sandbox.hooks` is "off". Absent: the session's default (confined).
     */
    sandbox?: boolean;
    /**
     * A Cursor hook (`.cursor/hooks.json`, hooks/cursor.ts): Cursor's event name; it gets Cursor's
     * input and is read as Cursor's answer. `matcher`: its entry's matcher, read as Cursor reads it
     * (cursorMatcherAccepts); `unreadMatcher`: a matcher on an event Cursor documents none for (the
     * hook runs for every call of its event), so an "allow" from it is not taken.
     */
    cursor?: { event: string; matcher?: string; unreadMatcher?: string };
    /** A Kiro hook (`.kiro/hooks/*.kiro.hook`, hooks/kiro.ts): its name and trigger; its exit status is read as Kiro's. */
    kiro?: { name: string; trigger: string };
  }>;
  /** Handlers of types Yoke cannot run (`prompt`, `agent`, `http`, `mcp_tool`): on a PreToolUse or PermissionRequest they make matching calls ask. */
  unsupported?: Array<{ type: string }>;
  /** Its source; `source.checkedIn` says whether the hook may allow (see SettingsSourceInfo). */
  source: SettingsSourceInfo;
}

export interface MergedSettings {
  /** Every rule, highest-priority source first. */
  rules: PermissionRule[];
  /**
   * The mode a session starts in. `declared` is the value as written when Yoke maps it (Claude
   * Code's `manual` = default, `auto` = default, `dontAsk` = default with `dontAsk`).
   */
  defaultMode?: { mode: PermissionMode; source: SettingsSourceInfo; declared?: string; dontAsk?: boolean };
  /** `permissions.disableBypassPermissionsMode: "disable"` was set here (any source: it only restricts). */
  bypassDisabled?: SettingsSourceInfo;
  /** Extra folders treated like the workspace (permissions.additionalDirectories). */
  additionalDirectories: string[];
  hooks: HookGroupConfig[];
  /** What could not be read and makes Yoke ask (see FailClosed). */
  failClosed: FailClosed[];
  problems: SettingsProblem[];
}
