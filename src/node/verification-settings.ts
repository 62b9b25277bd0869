/**
 * Reads the `verification` settings key (src/core/verification/settings.ts) through the one
 * settings reader (src/node/settings/files.ts): ~/.yoke/settings.json, .yoke/settings.json,
 * .yoke/settings.local.json, --settings files, managed settings (later ones win) and the VS Code
 * settings yoke.verification, each with its origin. A command the repository wrote (a project
 * origin, or an untracked local file in a folder that is not trusted) is marked `fromProject`: it
 * runs only as a run_command the permission gate allows. A file that is missing, cannot be read
 * or is not valid JSON gives no verification values (the permission settings report such a file).
 */
import { homedir } from "node:os";
import { parseJsonc } from "../core/settings/jsonc";
import { mayLoosen, originOf } from "../core/settings/origin";
import { parseVerificationSettings, type SettingsLayer, type VerificationSettings } from "../core/verification/settings";
import { loadSettingsSources } from "./settings/files";

export interface VerificationSettingsOptions {
  cwd: string;
  home?: string;
  extraFiles?: string[];
  /** yoke.verification from the VS Code user settings, and from the workspace's. */
  vscodeUser?: unknown;
  vscodeWorkspace?: unknown;
  managedDir?: string | null;
  /** The folder is trusted (default true): an untracked local file counts as the user's only then. */
  trusted?: boolean;
  git?: string;
}

const KINDS = new Set(["user", "project", "project-local", "extra", "managed"]);

export async function loadVerificationSettings(opts: VerificationSettingsOptions): Promise<{ settings: VerificationSettings; problems: string[] }> {
  const trusted = opts.trusted ?? true;
  const layers: SettingsLayer[] = [];
  if (opts.vscodeUser !== undefined) layers.push({ label: "VS Code setting yoke.verification", value: { verification: opts.vscodeUser } });
  const sources = await loadSettingsSources({
    cwd: opts.cwd,
    home: opts.home ?? homedir(),
    extraFiles: opts.extraFiles,
    ...(opts.managedDir !== undefined ? { managedDir: opts.managedDir } : {}),
    ...(opts.git ? { git: opts.git } : {}),
  });
  for (const s of sources.filter((s) => KINDS.has(s.info.kind))) {
    if (s.info.kind === "project-local" && opts.vscodeWorkspace !== undefined) {
      layers.push({ label: "VS Code workspace setting yoke.verification", value: { verification: opts.vscodeWorkspace }, project: true });
    }
    if (s.text === undefined || !s.text.trim()) continue;
    const parsed = parseJsonc(s.text);
    if (!parsed.ok) continue;
    layers.push({ label: s.info.label, value: parsed.value, project: !mayLoosen(originOf(s.info), trusted) });
  }
  return parseVerificationSettings(layers);
}
