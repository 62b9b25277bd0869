/**
 * What `git checkout X` would take X for, for the permission gate (src/core/permissions/evaluate-bash.ts,
 * checkoutDiscards): whether X names a commit and whether it matches a path git tracks. Run with the
 * user's own git on the host, read-only and hardened as every host git Yoke runs to read a folder
 * (host-git.ts: no bare repository found by itself, no fetch, no fsmonitor, no hooks, no optional locks;
 * here no replace objects and no alias, since only plumbing runs). The operand is passed after
 * `--end-of-options` / `--`, so it is never read as an option. Any failure answers undefined (the gate
 * then reads the command as a discard).
 */
import { execFile } from "node:child_process";
import type { GitCheckoutTarget } from "../core/permissions/context";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { hostProgram } from "./host-programs";

const TIME_LIMIT_MS = 10_000;

function git(dir: string, args: string[], base: readonly string[] = HOST_GIT_READ_ARGS): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, { ...HOST_GIT_READ_ENV, GIT_NO_REPLACE_OBJECTS: "1", LC_ALL: "C" });
  return new Promise((resolve) => {
    execFile(hostProgram("git"), [...base, "-C", dir, ...args], { env, timeout: TIME_LIMIT_MS, maxBuffer: 1024 * 1024, encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout: String(stdout ?? ""), stderr: String(stderr ?? "") });
    });
  });
}

export const nodeGitCheckoutTarget: GitCheckoutTarget = async (dir, operand) => {
  if (!operand || operand.includes("\0")) return undefined;
  const top = await git(dir, ["rev-parse", "--show-toplevel"]);
  // No repository: git checkout fails whatever X is (nothing to discard).
  if (top.code !== 0) return /not a git repository/i.test(top.stderr) ? { commit: false, tracked: false } : undefined;
  const [commit, tracked] = await Promise.all([
    git(dir, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${operand}^{commit}`]),
    // Literal pathspec semantics as git checkout would use them (git checkout X reads X as a pathspec: globs
    // were already read as paths by the gate, so only a plain name reaches here). One match is enough.
    git(dir, ["ls-files", "-z", "--", operand]),
  ]);
  if (tracked.code !== 0) return undefined;
  // rev-parse --verify --quiet: 0 and an id when X names a commit; 1 and nothing when it does not.
  if (commit.code !== 0 && commit.code !== 1) return undefined;
  return { commit: commit.code === 0 && /^[0-9a-f]{40,64}\s*$/.test(commit.stdout), tracked: tracked.stdout.length > 0 };
};
