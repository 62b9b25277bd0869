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
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { GitCheckoutTarget, GitRunsFrom } from "../core/permissions/context";
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

/**
 * The paths git itself runs or reads as configuration for the repository containing `dir`, for the
 * permission gate (red team W, session 21): the hooks folder core.hooksPath names (relative to the
 * working tree's top; `.git/hooks` is protected already) and every file an `include.path` or
 * `includeIf.*.path` names (relative to the file that names it, `~/` the home), whether it exists yet
 * or not. One in the workspace is protected like `.git/hooks` and `.git/config`. Read with one
 * `git config` (in every configuration git reads: system, global, the repository's, included files),
 * without the floor's `core.hooksPath=/dev/null`, which would hide the answer; it runs no hook,
 * fsmonitor or pager. Undefined when there is no repository or git failed.
 */
/**
 * Keys whose value is a program or a shell command git runs (red team X): `core.fsmonitor =
 * tools/fsmon.sh` ran the workspace's script at the person's next `git status`, and a filter's clean
 * command, a diff driver's textconv, `core.sshCommand`, a pager, an editor, a `!` alias likewise.
 */
const COMMAND_KEYS =
  "core\\.(fsmonitor|sshcommand|pager|editor|askpass)|sequence\\.editor|diff\\.external|(diff|merge|filter|difftool|mergetool|pager|alias)\\..*|gpg\\.(.*\\.)?program|credential\\..*helper|remote\\..*\\.(uploadpack|receivepack)";

/** The words of a command git runs that are shaped like files (a folder or an extension), from the working tree's top; wrong, a path is only protected more. */
function commandFiles(value: string, top: string, home: string): string[] {
  const out: string[] = [];
  for (const word of value.split(/[\s;|&()<>'"`=]+/)) {
    if (!word || word.startsWith("-") || word.includes("$") || /^[a-z][a-z0-9+.-]*:\/\//i.test(word) || word.endsWith("/")) continue;
    if (!/\/|\.[A-Za-z0-9_-]+$/.test(word)) continue;
    const abs = word.startsWith("~/") ? (home ? resolve(home, word.slice(2)) : undefined) : resolve(top, word);
    // Not the working tree or a folder above it.
    if (abs && abs !== top && !top.startsWith(`${abs}/`)) out.push(abs);
  }
  return out;
}

export const nodeGitRunsFrom: GitRunsFrom = async (dir) => {
  // The working tree's top: the nearest folder holding `.git` (git reports origins relative to it).
  let top = resolve(dir);
  while (!existsSync(join(top, ".git"))) {
    if (dirname(top) === top) return undefined;
    top = dirname(top);
  }
  const base = HOST_GIT_READ_ARGS.filter((a, i, all) => a !== "core.hooksPath=/dev/null" && !(a === "-c" && all[i + 1] === "core.hooksPath=/dev/null"));
  // One process: `--get-regexp` exits 1 when nothing matches; -z: origin NUL "key\nvalue" NUL.
  const r = await git(top, ["config", "--show-origin", "-z", "--get-regexp", `^(include(if\\..*)?\\.path|core\\.hookspath|${COMMAND_KEYS})$`], base);
  if (r.code !== 0 && r.code !== 1) return undefined;
  const parts = r.stdout.split("\0");
  const home = process.env.HOME ?? "";
  const out: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const origin = parts[i]!;
    const nl = parts[i + 1]!.indexOf("\n");
    const key = parts[i + 1]!.slice(0, nl);
    const value = parts[i + 1]!.slice(nl + 1);
    if (!value || nl < 0) continue;
    const path = value.startsWith("~/") && home ? resolve(home, value.slice(2)) : value;
    // core.hooksPath is relative to the working tree's top; an include to the file that names it.
    if (key === "core.hookspath") out.push(resolve(top, path));
    else if (/^include(if\..*)?\.path$/.test(key)) {
      if (origin.startsWith("file:")) out.push(resolve(dirname(resolve(top, origin.slice(5))), path));
    } else out.push(...commandFiles(value, top, home));
  }
  return out;
};
