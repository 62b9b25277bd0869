/**
 * Reads the settings sources from disk, in the order the permission engine merges them (lowest
 * priority first), and writes "always allow" rules to .yoke/settings.local.json.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { SettingsWriter } from "../core/permissions/gate";
import { parseJsonWithPosition } from "../core/permissions/json-position";
import type { LoadedSource, RuleList, SettingsSourceInfo } from "../core/permissions/types";

export interface SettingsFileOptions {
  /** Workspace root. */
  cwd: string;
  home?: string;
  /** The VS Code setting `yoke.permissions` ({allow, ask, deny, defaultMode, additionalDirectories}). */
  vscodePermissions?: unknown;
  /** The VS Code setting `yoke.hooks`, if the host offers one. */
  vscodeHooks?: unknown;
  /** Extra files (`--settings`), highest priority, in the order given. */
  extraFiles?: string[];
}

/** The files read, lowest priority first, with the labels used in reasons. */
export function settingsFileList(opts: SettingsFileOptions): SettingsSourceInfo[] {
  const home = opts.home ?? homedir();
  const cwd = resolve(opts.cwd);
  const file = (kind: SettingsSourceInfo["kind"], label: string, path: string, baseDir: string): SettingsSourceInfo => ({ kind, label, path, baseDir });
  return [
    file("user", "~/.yoke/settings.json", join(home, ".yoke", "settings.json"), home),
    file("project", ".yoke/settings.json", join(cwd, ".yoke", "settings.json"), cwd),
    file("project-local", ".yoke/settings.local.json", join(cwd, ".yoke", "settings.local.json"), cwd),
    file("claude", ".claude/settings.json", join(cwd, ".claude", "settings.json"), cwd),
    file("claude-local", ".claude/settings.local.json", join(cwd, ".claude", "settings.local.json"), cwd),
    ...(opts.extraFiles ?? []).map((f) => {
      const abs = resolve(cwd, f);
      return file("extra", `--settings ${f}`, abs, dirname(abs));
    }),
  ];
}

/** Reads every source; a missing file is absent (except a --settings file), an unreadable one carries `error`. */
export function loadSettingsSources(opts: SettingsFileOptions): LoadedSource[] {
  const cwd = resolve(opts.cwd);
  const sources: LoadedSource[] = [];
  if (opts.vscodePermissions !== undefined || opts.vscodeHooks !== undefined) {
    sources.push({
      info: { kind: "vscode", label: "VS Code setting yoke.permissions", baseDir: cwd },
      value: { permissions: opts.vscodePermissions ?? undefined, hooks: opts.vscodeHooks ?? undefined },
    });
  }
  for (const info of settingsFileList(opts)) {
    let text: string | undefined;
    let error: string | undefined;
    try {
      text = readFileSync(info.path!, "utf8");
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") error = code ?? String(err);
      else if (info.kind === "extra") error = "no such file";
    }
    if (text !== undefined && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    sources.push({ info, text, error });
  }
  return sources;
}

/** The Node realPath port: symlinks resolved, undefined when the path does not exist. */
export async function nodeRealPath(path: string): Promise<string | undefined> {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** Writes rules to `<cwd>/.yoke/settings.local.json`, keeping everything else in the file. */
export function createSettingsWriter(cwd: string): SettingsWriter {
  const path = join(resolve(cwd), ".yoke", "settings.local.json");
  return {
    async addRule(rule: string, list: RuleList) {
      let data: Record<string, unknown> = {};
      let existing: string | undefined;
      try {
        existing = readFileSync(path, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
      if (existing !== undefined && existing.trim() !== "") {
        const parsed = parseJsonWithPosition(existing);
        if (!parsed.ok) throw new Error(`${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message}); fix it before adding rules`);
        if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) throw new Error(`${path}: the settings must be a JSON object`);
        data = parsed.value as Record<string, unknown>;
      }
      const perms = (data.permissions ??= {}) as Record<string, unknown>;
      if (typeof perms !== "object" || Array.isArray(perms)) throw new Error(`${path}: "permissions" must be an object`);
      const current = perms[list] ?? [];
      if (!Array.isArray(current)) throw new Error(`${path}: "permissions.${list}" must be an array`);
      if (!current.includes(rule)) current.push(rule);
      perms[list] = current;
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(data, null, 2) + "\n");
      renameSync(tmp, path);
      return { path };
    },
  };
}
