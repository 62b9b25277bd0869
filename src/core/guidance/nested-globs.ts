/**
 * Where nested guidance is found below a workspace folder: the memory file names (any folder) and
 * Cursor's rule files. Small on purpose: the CLI's entry reads it to start git's index listing
 * before the command's bundle loads (src/node/git-tracked.ts).
 */

/** Project memory file names, looked for in every folder from the root down to a touched file. */
export const MEMORY_NAMES = ["AGENTS.md", "CLAUDE.md"];
export const RULE_FILES_GLOB = "**/.cursor/rules/**/*.mdc";
/** The globs the loader asks git's index (or ripgrep) for, in this order. */
export const NESTED_GUIDANCE_GLOBS: readonly string[] = [...MEMORY_NAMES.map((n) => `**/${n}`), RULE_FILES_GLOB];
