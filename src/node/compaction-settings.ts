/**
 * The `compaction` key of the settings files (contract section 4): `~/.yoke/settings.json`, then
 * the workspace's `.yoke/settings.json` over it. Problems are returned to be shown, never thrown:
 * a bad value falls back to the default for that field.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseCompactionSettings, type CompactionSettings } from "../core/compaction/settings";

function readKey(path: string, problems: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  if (!text.trim()) return undefined;
  try {
    const value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as { compaction?: unknown };
    const c = value && typeof value === "object" ? value.compaction : undefined;
    if (c === undefined) return undefined;
    if (!c || typeof c !== "object" || Array.isArray(c)) {
      problems.push(`${path}: "compaction" must be an object`);
      return undefined;
    }
    return c as Record<string, unknown>;
  } catch (err) {
    problems.push(`${path}: not valid JSON (${err instanceof Error ? err.message : String(err)}); its compaction settings were not read`);
    return undefined;
  }
}

export function readCompactionSettings(cwd: string, home = homedir()): { settings: CompactionSettings; problems: string[] } {
  const problems: string[] = [];
  const user = readKey(join(home, ".yoke", "settings.json"), problems);
  const workspace = readKey(join(cwd, ".yoke", "settings.json"), problems);
  const parsed = parseCompactionSettings(user || workspace ? { ...user, ...workspace } : undefined);
  return { settings: parsed.settings, problems: [...problems, ...parsed.problems] };
}
