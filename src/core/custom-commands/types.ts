/** Custom slash commands (issue 23): what a command file means, whichever tool's format it is in. */
import type { HookGroupConfig } from "../permissions/types";
import type { Effort } from "../providers/types";

/** The tool whose format a folder of commands is in; each is read as its own tool reads it. */
export type CommandFormat = "claude" | "copilot" | "cline" | "roo" | "cursor" | "windsurf" | "codex";

/** One folder of command files. */
export interface CommandSource {
  /** Absolute folder, POSIX separators. */
  dir: string;
  format: CommandFormat;
  /**
   * Where it comes from, as shown next to the command ("project", "user", "plugin:NAME"). Claude
   * Code: a project command overrides a user command of the same name, so sources are given
   * highest priority first (the project's before the user's; plugins last).
   */
  origin: string;
  /** A namespace for every command of the source (a plugin's name: `/plugin:command`). */
  namespace?: string;
  /**
   * Only these files of `dir` (relative, `/` separators), instead of listing it: a plugin's
   * plugin.json may name single command files (`"commands": ["./custom/special.md"]`).
   */
  files?: string[];
  /**
   * `skills`: a Claude Code skills folder — each sub-folder's SKILL.md is the command `/NAME` (its
   * frontmatter `name`, else the folder's), unless it says `user-invocable: false`.
   */
  layout?: "skills";
  /**
   * A plugin's installed folder: `${CLAUDE_PLUGIN_ROOT}` in its commands' and skills' text is that
   * folder, as Claude Code substitutes it (`` !`node ${CLAUDE_PLUGIN_ROOT}/scripts/x.js` ``).
   */
  pluginRoot?: string;
}

/** Reads command folders (Node: src/node/custom-commands.ts). */
export interface CommandFiles {
  /** Files under `dir` (recursive), as paths relative to it with `/` separators; [] when it does not exist. */
  list(dir: string): Promise<string[]>;
  read(path: string): Promise<string | undefined>;
}

export interface CustomCommand {
  /** What the user types after `/` (Claude: the file name; Copilot: `name` or the file name; Cline: the file name with `.md`). */
  name: string;
  /** Other names that run it (a Claude command in a sub-folder: `frontend:component`; a Cline workflow without `.md`). */
  aliases: string[];
  format: CommandFormat;
  origin: string;
  /** Claude Code's sub-folder namespace (`frontend` for frontend/component.md), shown as `(project:frontend)`. */
  namespace?: string;
  /** Absolute file path. */
  path: string;
  description?: string;
  /** The description is the body's first paragraph (no `description` in the frontmatter): shown to the person, never offered to the model. */
  descriptionFromBody?: boolean;
  argumentHint?: string;
  /** Claude `arguments` (a list, or one space-separated string): `$name` in the body is that argument by position. */
  argumentNames?: string[];
  /** Permission rules granted while the command's turn runs (Claude `allowed-tools`). */
  allowedTools: string[];
  /** The model for the command's turn (Claude `model`, Copilot `model`). */
  model?: string;
  /** Claude `disable-model-invocation`: the model may not run it itself (Yoke's model never runs commands; kept for the listing). */
  disableModelInvocation: boolean;
  /**
   * Claude Code's `context: fork`: the command runs in a sub-agent (the custom agent `agent:` names,
   * else a general-purpose one) and this conversation gets only its answer.
   */
  fork?: { agent?: string };
  /** Claude Code's `effort`: the model's reasoning effort while the command runs (its sub-agent's, when forked). */
  effort?: Effort;
  /**
   * Claude Code's `hooks`: run with the session's from the command's run for the rest of the session
   * (its sub-agent's run only, when forked; a `Stop` hook is then the sub-agent's SubagentStop). A
   * project command's only in a trusted workspace, and they may block, never allow.
   */
  hooks?: HookGroupConfig[];
  /** Copilot `mode` (ask, edit, agent) and `tools`, for the listing. */
  mode?: string;
  tools?: string[];
  /** The prompt text (after the frontmatter). */
  body: string;
  /** A plugin's command or skill: the plugin's installed folder (its `!` lines may read it, read-only, in the sandbox). */
  pluginRoot?: string;
}

/** A file that could not be read as a command, or a name two commands claim. */
export interface CommandProblem {
  /** `path:line: message` style location. */
  path: string;
  line?: number;
  message: string;
}

export interface LoadedCommands {
  commands: CustomCommand[];
  problems: CommandProblem[];
}
