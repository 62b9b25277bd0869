/**
 * One key of Yoke's own settings files, `~/.yoke/settings.json` then the workspace's
 * `.yoke/settings.json` over it, field by field. Problems are returned to be shown, never thrown:
 * a file that is missing or empty gives nothing, a value that is not an object is reported.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseJsonc } from "../core/settings/jsonc";

export interface KeyOptions {
  /** How the problem of a value that is not an object ends ("; the defaults apply"). */
  shape?: string;
  /** Report a file that is not valid JSON (only one reader of the files should). */
  reportInvalidJson?: boolean;
  home?: string;
}

function readKey(path: string, key: string, o: KeyOptions, problems: string[]): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  if (!text.trim()) return undefined;
  const parsed = parseJsonc(text);
  if (!parsed.ok) {
    if (o.reportInvalidJson) problems.push(`${path}: not valid JSON (${parsed.line}:${parsed.column}: ${parsed.message}); its ${key} settings were not read`);
    return undefined;
  }
  const value = parsed.value;
  const v = value && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  if (v === undefined) return undefined;
  if (!v || typeof v !== "object" || Array.isArray(v)) {
    problems.push(`${path}: "${key}" must be an object${o.shape ?? ""}`);
    return undefined;
  }
  return v as Record<string, unknown>;
}

/** The key's value, the workspace's fields over the user's (undefined when neither file sets it). */
export function readYokeSettingsKey(key: string, cwd: string, o: KeyOptions = {}): { value: Record<string, unknown> | undefined; problems: string[] } {
  const problems: string[] = [];
  const user = readKey(join(o.home ?? homedir(), ".yoke", "settings.json"), key, o, problems);
  const workspace = readKey(join(cwd, ".yoke", "settings.json"), key, o, problems);
  return { value: user || workspace ? { ...user, ...workspace } : undefined, problems };
}
