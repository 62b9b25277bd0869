/**
 * Where nested guidance is found below a workspace folder: the memory file names (any folder),
 * Cursor's and Windsurf's rule files. Small on purpose: the CLI's entry reads it to start git's index listing
 * before the command's bundle loads (src/node/git-tracked.ts).
 */

/** Project memory file names, looked for in every folder from the root down to a touched file. */
export const MEMORY_NAMES = ["AGENTS.md", "CLAUDE.md"];
export const RULE_FILES_GLOB = "**/.cursor/rules/**/*.mdc";
/** Cursor reads `.md` rules too ("Cursor supports .md and .mdc extensions"). */
export const RULE_MD_FILES_GLOB = "**/.cursor/rules/**/*.md";
/** Windsurf's rule folders below the root (Windsurf finds `.windsurf/rules` in every sub-folder). */
export const WINDSURF_RULE_FILES_GLOB = "**/.windsurf/rules/**/*.md";
/** The rule folders a sub-project may have, as they appear in a path (`web/.cursor/rules/x.mdc`). */
export const NESTED_RULE_FOLDERS: readonly string[] = ["/.cursor/rules/", "/.windsurf/rules/"];
/** The globs the loader asks git's index (or ripgrep) for, in this order. */
export const NESTED_GUIDANCE_GLOBS: readonly string[] = [...MEMORY_NAMES.map((n) => `**/${n}`), RULE_FILES_GLOB, RULE_MD_FILES_GLOB, WINDSURF_RULE_FILES_GLOB];
