/**
 * The `subagents` key of the settings files (proposed for contract section 4): `~/.yoke/settings.json`,
 * then the workspace's `.yoke/settings.json` over it, field by field. Problems are returned to be
 * shown, never thrown: a bad field falls back to its default.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseSubagentSettings, subagentsExtension, type SubagentSettings } from "../core/subagents";
import type { Extension } from "../core/extensions/types";

function readKey(path: string, problems: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  if (!text.trim()) return undefined;
  try {
    const value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as { subagents?: unknown };
    const v = value && typeof value === "object" ? value.subagents : undefined;
    if (v === undefined) return undefined;
    if (!v || typeof v !== "object" || Array.isArray(v)) {
      problems.push(`${path}: "subagents" must be an object like {"maxDepth": 2, "maxConcurrent": 3}; the defaults apply`);
      return undefined;
    }
    return v as Record<string, unknown>;
  } catch {
    return undefined; // not JSON: the other settings readers report it
  }
}

export function readSubagentSettings(cwd: string, home = homedir()): { settings: SubagentSettings; problems: string[] } {
  const problems: string[] = [];
  const user = readKey(join(home, ".yoke", "settings.json"), problems);
  const workspace = readKey(join(cwd, ".yoke", "settings.json"), problems);
  const parsed = parseSubagentSettings(user || workspace ? { ...user, ...workspace } : undefined);
  return { settings: parsed.settings, problems: [...problems, ...parsed.problems] };
}

/** The subagents extension with the settings of the folder `cwd`; problems go to `warn`. */
export function nodeSubagentsExtension(cwd: string, warn: (message: string) => void): Extension {
  const { settings, problems } = readSubagentSettings(cwd);
  for (const p of problems) warn(`settings: ${p}`);
  return subagentsExtension({ settings });
}
