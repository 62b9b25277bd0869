/**
 * The `compaction` key of the settings files (contract section 4): `~/.yoke/settings.json`, then
 * the workspace's `.yoke/settings.json` over it. Problems are returned to be shown, never thrown:
 * a bad value falls back to the default for that field.
 */
import { homedir } from "node:os";
import { parseCompactionSettings, type CompactionSettings } from "../core/compaction/settings";
import { readYokeSettingsKey } from "./yoke-settings-key";

export function readCompactionSettings(cwd: string, home = homedir()): { settings: CompactionSettings; problems: string[] } {
  const { value, problems } = readYokeSettingsKey("compaction", cwd, { home, reportInvalidJson: true });
  const parsed = parseCompactionSettings(value);
  return { settings: parsed.settings, problems: [...problems, ...parsed.problems] };
}
