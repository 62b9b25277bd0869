/**
 * Reads the `verification` settings key (src/core/verification/settings.ts) from the settings
 * files the permission settings come from (~/.yoke/settings.json, .yoke/settings.json,
 * .yoke/settings.local.json, --settings files, managed settings; later ones win) and the VS Code
 * setting yoke.verification. A file that is missing, cannot be read or is not valid JSON gives no
 * verification values (the permission settings already report such a file to the user).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { parseVerificationSettings, type SettingsLayer, type VerificationSettings } from "../core/verification/settings";
import { settingsFileList } from "./settings-files";

export interface VerificationSettingsOptions {
  cwd: string;
  home?: string;
  extraFiles?: string[];
  /** yoke.verification from the VS Code user settings, and from the workspace's. */
  vscodeUser?: unknown;
  vscodeWorkspace?: unknown;
  managedDir?: string | null;
}

const KINDS = new Set(["user", "project", "project-local", "extra", "managed"]);

export function loadVerificationSettings(opts: VerificationSettingsOptions): { settings: VerificationSettings; problems: string[] } {
  const layers: SettingsLayer[] = [];
  if (opts.vscodeUser !== undefined) layers.push({ label: "VS Code setting yoke.verification", value: { verification: opts.vscodeUser } });
  const files = settingsFileList({ cwd: opts.cwd, home: opts.home ?? homedir(), extraFiles: opts.extraFiles, ...(opts.managedDir !== undefined ? { managedDir: opts.managedDir } : {}) });
  for (const f of files.filter((f) => KINDS.has(f.kind))) {
    if (f.kind === "project-local" && opts.vscodeWorkspace !== undefined) layers.push({ label: "VS Code workspace setting yoke.verification", value: { verification: opts.vscodeWorkspace } });
    let text: string;
    try {
      text = readFileSync(f.path!, "utf8");
    } catch {
      continue;
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (!text.trim()) continue;
    try {
      layers.push({ label: f.label, value: JSON.parse(text) });
    } catch {
      continue;
    }
  }
  return parseVerificationSettings(layers);
}
