/**
 * The `subagents` key of the settings files (proposed for contract section 4): `~/.yoke/settings.json`,
 * then the workspace's `.yoke/settings.json` over it, field by field. Problems are returned to be
 * shown, never thrown: a bad field falls back to its default.
 */
import { homedir } from "node:os";
import { parseSubagentSettings, subagentsExtension, type SubagentSettings } from "../core/subagents";
import type { Extension } from "../core/extensions/types";
import { readYokeSettingsKey } from "./yoke-settings-key";

export function readSubagentSettings(cwd: string, home = homedir()): { settings: SubagentSettings; problems: string[] } {
  // A file that is not JSON is reported by the other settings readers.
  const { value, problems } = readYokeSettingsKey("subagents", cwd, { home, shape: ' like {"maxDepth": 2, "maxConcurrent": 3}; the defaults apply' });
  const parsed = parseSubagentSettings(value);
  return { settings: parsed.settings, problems: [...problems, ...parsed.problems] };
}

/** The subagents extension with the settings of the folder `cwd`; problems go to `warn`. */
export function nodeSubagentsExtension(cwd: string, warn: (message: string) => void): Extension {
  const { settings, problems } = readSubagentSettings(cwd);
  for (const p of problems) warn(`settings: ${p}`);
  return subagentsExtension({ settings });
}
