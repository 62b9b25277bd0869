/**
 * Reads the `verification` settings key (src/core/verification/settings.ts) through the one
 * settings reader (src/node/settings/reader.ts), in this order (later ones win): VS Code
 * yoke.verification (user), ~/.yoke/settings.json, .yoke/settings.json, VS Code
 * yoke.verification (workspace), .yoke/settings.local.json, --settings files, managed settings.
 * A command the repository wrote (a project origin, or an untracked local file in a folder that is
 * not trusted) is marked `fromProject`: it runs only as a run_command the permission gate allows.
 * A file that cannot be read or is not valid JSON gives no verification values (the permission
 * settings report such a file).
 */
import { homedir } from "node:os";
import { mayLoosen } from "../core/settings/origin";
import { parseVerificationSettings, type SettingsLayer, type VerificationSettings } from "../core/verification/settings";
import { readSettings } from "./settings/reader";

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

const RANK: Record<string, number> = { vscode: 0, user: 1, project: 2, "vscode-workspace": 3, "project-local": 4, extra: 5, managed: 6 };

export async function loadVerificationSettings(opts: VerificationSettingsOptions): Promise<{ settings: VerificationSettings; problems: string[] }> {
  const trusted = opts.trusted ?? true;
  const r = await readSettings({
    cwd: opts.cwd,
    home: opts.home ?? homedir(),
    trusted,
    extraFiles: opts.extraFiles,
    ...(opts.managedDir !== undefined ? { managedDir: opts.managedDir } : {}),
    ...(opts.git ? { git: opts.git } : {}),
    vscode: {
      ...(opts.vscodeUser !== undefined ? { user: { verification: opts.vscodeUser } } : {}),
      ...(opts.vscodeWorkspace !== undefined ? { workspace: { verification: opts.vscodeWorkspace } } : {}),
    },
  });
  const layers: SettingsLayer[] = r.layers
    .filter((l) => l.kind !== undefined && l.kind in RANK)
    .map((l, i) => ({ l, i }))
    .sort((a, b) => RANK[a.l.kind!]! - RANK[b.l.kind!]! || a.i - b.i)
    .map(({ l }) => ({
      label: l.format === "vscode" ? `${l.label.replace(/ settings$/, " setting")} yoke.verification`.replace("VS Code user setting", "VS Code setting") : l.label,
      value: l.value,
      project: !mayLoosen(l.origin, trusted),
    }));
  return parseVerificationSettings(layers);
}
