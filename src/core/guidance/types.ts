/**
 * Guidance: every kind of text that steers the agent besides the system prompt — lessons (gptme
 * format), skills (Anthropic SKILL.md), rules (Cursor, Copilot, Cline, Roo) and project memory
 * (AGENTS.md, CLAUDE.md). One loader reads them all (loader.ts), one matcher scores them
 * (match.ts), one extension injects them into a session (extension.ts).
 */
import type { Effort } from "../providers/types";
import type { HookGroupConfig } from "../permissions/types";

export type GuidanceKind = "lesson" | "skill" | "rule" | "memory";
export type GuidanceOrigin = "builtin" | "user" | "workspace";

/**
 * When an entry applies: `always` (in force from the first request), `match` (a lesson whose
 * keywords/patterns/tools/globs fire), `glob` (a file rule: when a touched file matches),
 * `requested` (listed by description; the model loads it with load_skill), `manual` (only when
 * pinned or named with @name in the user's message), `folder` (nested project memory: when a
 * file in its folder is first read or edited).
 */
export type Activation = "always" | "match" | "glob" | "requested" | "manual" | "folder";

export type LessonStatus = "active" | "automated" | "deprecated" | "archived";

export interface GuidanceMatch {
  keywords: string[];
  patterns: string[];
  tools: string[];
  globs: string[];
}

export interface GuidanceEntry {
  /** Stable key: `kind:source` (pin/mute remember this). */
  id: string;
  name: string;
  kind: GuidanceKind;
  /** Where it comes from, for people: a workspace-relative path, `~/…`, or `lessons/…` for built-in ones. */
  source: string;
  origin: GuidanceOrigin;
  /** Absolute path of the file. */
  path: string;
  /** The text given to the model (frontmatter removed; CLAUDE.md imports appended). */
  body: string;
  title?: string;
  description?: string;
  activation: Activation;
  status: LessonStatus;
  /** Higher first among equal scores; scales a lesson's score (normal = 1). */
  priority: number;
  match: GuidanceMatch;
  /** Project memory and file rules: the folder they apply to (absolute). */
  dir?: string;
  /** Skills with Claude Code's `context: fork`: loaded, it runs in a sub-agent (`agent:` names it) and the model gets only its answer. */
  fork?: { agent?: string; effort?: Effort; model?: string };
  /** An inline skill's `effort` (Claude Code's): the model's reasoning effort from its load (or its naming again) to the end of the turn. */
  effort?: Effort;
  /** An inline skill's `model` (Claude Code's): the model that answers from its load (or its naming again) to the end of the turn, on the session's provider. */
  model?: string;
  /**
   * Skills: Claude Code's `hooks`, run with the session's from the skill's load (load_skill, @name) for
   * the rest of the session (a forked skill's in its sub-agent). A repository's only in a trusted
   * workspace; they may block, never allow.
   */
  hooks?: HookGroupConfig[];
  /** Skills: Claude Code's `allowed-tools` — grants for the skill's own `!` lines when it is loaded (a repository skill's asked once). */
  allowedTools?: string[];
  /** A plugin's skill: the plugin's installed folder. */
  pluginRoot?: string;
  /** Skills: names of the files next to SKILL.md (relative to its folder). */
  files?: string[];
  /** The file's real path (symlinks resolved): a file is sent once per session, whatever names lead to it. */
  realPath?: string;
  /**
   * Project memory with `@path` imports: its own text, then each imported file's block, with the
   * real path of the file each came from (a block already sent in the session is not sent again).
   */
  parts?: Array<{ path: string; text: string }>;
  /** Real paths of every file whose text this entry carries (itself and all its imports). */
  includes?: string[];
  /** Rules: the folder (or file) of the collection it came from, for ranking under the budget (`.cursor/rules`). */
  collection?: string;
  /** A rule of a folder above the workspace folder (Windsurf's, up to the git root): its `dir` holds the whole folder. */
  above?: boolean;
  /**
   * A rule above a workspace folder opened through a symbolic link: that folder as configured and
   * its real path. The rule's folder is on the real side (git and Windsurf find the repository's top
   * from the real path), so a touched file under `root` is matched as the same file under `real`.
   */
  linked?: { root: string; real: string };
  /** What of the file's text is not used, and why (Windsurf's limits on its rules: windsurf-limits.ts). */
  cut?: string;
}

/** A file found where guidance lives that is not guidance (a Cline workflow or hook, a Roo rule of another mode). */
export interface ExcludedFile {
  path: string;
  source: string;
  why: string;
}

export interface GuidanceProblem {
  /** Absolute path (or as the source port named it). */
  path: string;
  /** 1-based line, when known. */
  line?: number;
  message: string;
}

export interface GuidanceSet {
  entries: GuidanceEntry[];
  problems: GuidanceProblem[];
  /** Files left out on purpose, with why (`yoke lessons list` shows them). */
  excluded?: ExcludedFile[];
}

/** A guidance file outside the workspace: a built-in lesson or one of the user's own. */
export interface GuidanceFile {
  /** Absolute path, POSIX separators. */
  path: string;
  text: string;
  origin: "builtin" | "user";
  /** What it is: a lesson, a skill's SKILL.md, a memory file (~/.claude/CLAUDE.md, ~/.yoke/AGENTS.md), or a rule (~/.claude/rules, ~/.roo/rules). */
  role: "lesson" | "skill" | "memory" | "rule";
  /** Rules: whose format (Claude Code's `paths:` frontmatter, Roo's plain files, Kiro's steering `inclusion`). */
  format?: "claude" | "roo" | "kiro";
  /** Shown as the source (e.g. `~/.yoke/lessons/x.md`, `lessons/python/traceback.md`). */
  display: string;
  /** Skills: the files next to SKILL.md, relative to its folder. */
  files?: string[];
  /** Why it was not read (a plugin's file that leads out of the plugin, a secret): a problem, and no entry. */
  problem?: string;
  /** A plugin's skill: the plugin's name, which names the skill `PLUGIN:NAME` (Claude Code's namespace for plugin skills). */
  namespace?: string;
  /** A plugin's skill: the plugin's installed folder (`${CLAUDE_PLUGIN_ROOT}` in its text). */
  pluginRoot?: string;
}

/**
 * The port for guidance outside the workspace (src/node implements it with Node fs for the CLI
 * and the extension host, which runs where the home folder is, also in Remote-SSH).
 */
export interface GuidanceFiles {
  list(): Promise<GuidanceFile[]>;
  /** Reads a file outside the workspace (a CLAUDE.md `@~/…` import); undefined when absent. */
  read?(path: string): Promise<string | undefined>;
  /** The user's home folder (absolute), for `@~/` imports and `~` in sources. */
  home?: string;
  /**
   * Windsurf's rules of the folders above a workspace folder, up to the top of its git repository
   * (Windsurf searches up to the git root): each `.windsurf/rules` file of those folders, with the
   * folder it belongs to. None when the folder is the repository's top or in no repository.
   */
  rulesAbove?(root: string): Promise<RuleAbove[]>;
}

/** A rule file of a folder above a workspace folder (GuidanceFiles.rulesAbove). */
export interface RuleAbove {
  /** Absolute, POSIX separators. */
  path: string;
  /** Its real path (links resolved; inside the repository). */
  real: string;
  /** The folder holding its `.windsurf/rules` (the rule's globs are relative to it). */
  dir: string;
  /** Shown as the source: relative to the workspace folder (`../.windsurf/rules/ts.md`). */
  display: string;
  text: string;
  /** Why it was not read (a link out of the repository, a secret): a problem, and no rule. */
  problem?: string;
}

/** What the matcher looks at. */
export interface MatchSignals {
  /** The user's message(s) since the last injection. */
  message?: string;
  /** Tools used recently (Yoke names; permission and hook names are matched too). */
  tools?: readonly string[];
  /** Tool outputs (a traceback, a failing test). */
  outputs?: readonly string[];
  /** Files touched (absolute paths). */
  files?: readonly string[];
}

export interface ScoredEntry {
  entry: GuidanceEntry;
  score: number;
  /** Why, for people: `keyword "flaky"`, `glob src/**\/*.ts (src/a.ts)`, `tool run_command`, `always`. */
  reasons: string[];
}

/** Pinned entries are always in force, muted ones never (ids; remembered per workspace by the host). */
export interface GuidancePrefs {
  pinned: readonly string[];
  muted: readonly string[];
}
