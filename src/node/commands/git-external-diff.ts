/**
 * Whether a configuration file git reads in a folder (system, global, the repository's, a
 * worktree's, and what they include) sets diff.external — for a read-only command's git
 * environment (core/commands/git-env.ts overrides it only then). `git config --get` reads files
 * only: no index, so no fsmonitor, and no hook. Remembered per folder for a few seconds, since a
 * session runs many commands in one folder and the answer changes only when the user edits a
 * configuration file. When git cannot tell (missing, timed out), the answer is "set", so the
 * override stays.
 */
import { spawnSync } from "node:child_process";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "../host-git";
import { hostProgram } from "../host-programs";

const TTL_MS = 5_000;
const seen = new Map<string, { at: number; set: boolean }>();

export function externalDiffConfigured(cwd: string, env: Readonly<Record<string, string>>): boolean {
  const now = Date.now();
  const hit = seen.get(cwd);
  if (hit && now - hit.at < TTL_MS) return hit.set;
  const r = spawnSync(hostProgram("git"), [...HOST_GIT_READ_ARGS, "config", "--get", "diff.external"], {
    cwd,
    env: { ...env, ...HOST_GIT_READ_ENV, GIT_EXTERNAL_DIFF: "" },
    encoding: "utf8",
    timeout: 5_000,
    stdio: ["ignore", "pipe", "ignore"],
  });
  // 1: the key is not set anywhere. 0: it is. Anything else (no git, an unreadable file): assume set.
  const set = r.status !== 1;
  if (seen.size > 64) seen.clear();
  seen.set(cwd, { at: now, set });
  return set;
}
