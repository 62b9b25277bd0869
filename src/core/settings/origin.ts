/**
 * Where a setting came from, and what that origin may do. Every value Yoke reads from a settings
 * file or the VS Code configuration carries its origin:
 *
 * - `user`: the user's own files (~/.yoke/settings.json, ~/.claude/settings.json, ~/.claude.json)
 *   and VS Code user settings;
 * - `managed`: Claude Code's managed settings (an administrator's);
 * - `cli`: a `--settings` file named on the command line;
 * - `project`: written by the repository — committed or staged, inside a submodule or nested
 *   repository, reached through a link that leaves the workspace, `.yoke/settings.json`,
 *   `.claude/settings.json`, `.mcp.json`, `.vscode/*` and VS Code workspace settings;
 * - `project-local`: a workspace file git does not track (`settings.local.json`, ignored), which
 *   only the user (or the agent, through a protected-path question) can have written.
 *
 * Project origins may only tighten: deny and ask rules, stricter modes. What loosens — allow
 * rules, a looser mode, additionalDirectories, hooks' "allow" answers, MCP server approval,
 * verification commands that run without the gate, commands such as statusLine — counts only
 * from user, managed and cli origins, and from project-local ones when the folder is trusted.
 */
import type { PermissionMode } from "../loop/types";
import type { SettingsSourceInfo } from "../permissions/types";

export type SettingsOrigin = "user" | "managed" | "cli" | "project" | "project-local";

/** The origin of a permission settings source (see merge-settings.ts's isCheckedIn for `checkedIn`). */
export function originOf(info: SettingsSourceInfo): SettingsOrigin {
  switch (info.kind) {
    case "managed":
      return "managed";
    case "extra":
      return "cli";
    case "vscode":
    case "claude-user":
    case "user":
    case "session":
      return "user";
    case "project":
    case "claude":
    case "vscode-workspace":
    case "ignore-file":
      return "project";
    case "project-local":
    case "claude-local":
      return info.checkedIn === false ? "project-local" : "project";
  }
}

/** May a value of this origin loosen what Yoke does (allow, run, approve)? */
export function mayLoosen(origin: SettingsOrigin, trusted: boolean): boolean {
  if (origin === "project") return false;
  if (origin === "project-local") return trusted;
  return true;
}

/** How much a mode lets happen without a question: plan < default < acceptEdits < bypassPermissions. */
const LOOSENESS: Record<PermissionMode, number> = { plan: 0, default: 1, acceptEdits: 2, bypassPermissions: 3 };

export function looserMode(a: PermissionMode, than: PermissionMode): boolean {
  return LOOSENESS[a] > LOOSENESS[than];
}

/**
 * The mode chosen by a setting that exists in the user's scope and the workspace's (VS Code
 * `yoke.permissionMode`, read with inspect()): the workspace's value counts only when it is not
 * looser than the user's (or than `fallback`, the mode the user's files choose, when the user set
 * none). Returns the mode and, when the workspace's value was ignored, why.
 */
export function scopedMode(user: PermissionMode | undefined, workspace: PermissionMode | undefined, fallback: PermissionMode): { mode: PermissionMode | undefined; ignored?: string } {
  if (workspace === undefined) return { mode: user };
  const base = user ?? fallback;
  if (looserMode(workspace, base)) {
    return {
      mode: user,
      ignored: `the workspace setting yoke.permissionMode "${workspace}" is ignored: workspace settings come with the repository and may only choose a stricter mode than yours ("${base}"); set it in your user settings`,
    };
  }
  return { mode: workspace };
}
