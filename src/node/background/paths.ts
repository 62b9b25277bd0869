/**
 * Where background agents live: their worktrees under
 * `$XDG_DATA_HOME/yoke/worktrees/<workspace-key>/` (default `~/.local/share/yoke/worktrees/`:
 * outside the repository, so the user's tree, its searches and its watchers never see them; not
 * under `~/.yoke`, whose files are Yoke's settings and which the permission gate protects from
 * every write) and their records under `~/.yoke/agents/<workspace-key>/`. The key is the session
 * store's (src/node/session-location.ts), so a worktree's sessions go to its workspace's store.
 */
import { homedir } from "node:os";
import * as nodePath from "node:path";
import { canonicalFolder, sessionsRoot, workspaceKey } from "../session-location";

export function worktreesRoot(home: string = homedir(), env: NodeJS.ProcessEnv = process.env): string {
  const data = env.XDG_DATA_HOME && nodePath.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : nodePath.join(home, ".local", "share");
  return nodePath.join(data, "yoke", "worktrees");
}

export function agentsRoot(home: string = homedir()): string {
  return nodePath.join(home, ".yoke", "agents");
}

/** The folder of a workspace's agent records. */
export function agentsDir(workspace: string, home?: string): string {
  return nodePath.join(agentsRoot(home), workspaceKey(workspace));
}

/** The folder of a workspace's agent worktrees. */
export function workspaceWorktreesDir(workspace: string, home?: string): string {
  return nodePath.join(worktreesRoot(home), workspaceKey(workspace));
}

/**
 * When `folder` is (inside) one of Yoke's agent worktrees: the workspace key it belongs to and
 * the worktree's folder. Sessions run there are kept in that workspace's store.
 */
export function agentWorktreeOf(folder: string, home?: string): { key: string; worktree: string; sessionDir: string; agentsDir: string } | undefined {
  const root = canonicalFolder(worktreesRoot(home));
  const p = canonicalFolder(folder);
  const rel = nodePath.relative(root, p);
  if (!rel || rel.startsWith("..") || nodePath.isAbsolute(rel)) return undefined;
  const [key, name] = rel.split(nodePath.sep);
  if (!key || !name) return undefined;
  return { key, worktree: nodePath.join(root, key, name), sessionDir: nodePath.join(sessionsRoot(home), key), agentsDir: nodePath.join(agentsRoot(home), key) };
}
