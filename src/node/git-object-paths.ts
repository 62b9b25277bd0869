/**
 * The files git holds content for, for the permission gate (src/core/permissions/git-objects.ts):
 * the index and every path of every commit reachable from a ref, a reflog or the stash. Run with
 * the user's own git on the host, read-only (host-git.ts: no bare repository found by itself, no
 * fetch of a partial clone's missing objects, no fsmonitor; `GIT_OPTIONAL_LOCKS=0`, no replace
 * objects), remembered per repository until its refs, reflog or index change. Any failure, a
 * history too large to list within the bounds, or a repository git will not open answers
 * undefined (the gate then assumes git holds a covered file: its git commands that may show
 * objects ask under Read rules).
 */
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { GitObjectPaths } from "../core/permissions/context";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { hostProgram } from "./host-programs";

/** Longest a listing may take. */
const TIME_LIMIT_MS = 15_000;
/** Largest output of one listing (bytes). */
const MAX_OUTPUT = 64 * 1024 * 1024;

const cache = new Map<string, { key: string; paths: string[] }>();

function git(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, { ...HOST_GIT_READ_ENV, GIT_NO_REPLACE_OBJECTS: "1", LC_ALL: "C" });
  return new Promise((resolve) => {
    execFile(
      hostProgram("git"),
      [...HOST_GIT_READ_ARGS, "-c", "core.untrackedCache=false", "-c", "log.showSignature=false", "-C", dir, ...args],
      { env, timeout: TIME_LIMIT_MS, maxBuffer: MAX_OUTPUT, encoding: "utf8" },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
        resolve({ code, stdout: String(stdout ?? ""), stderr: String(stderr ?? "") });
      },
    );
  });
}

const mtime = async (p: string) => (await stat(p).catch(() => undefined))?.mtimeMs ?? 0;

/** How long where a folder's repository is remembered (ms). */
const WHERE_TTL_MS = 5_000;
const where = new Map<string, { at: number; found: Promise<{ top: string; gitDir: string } | "none" | undefined> }>();

function repositoryOf(dir: string): Promise<{ top: string; gitDir: string } | "none" | undefined> {
  const hit = where.get(dir);
  if (hit && Date.now() - hit.at < WHERE_TTL_MS) return hit.found;
  const found = git(dir, ["rev-parse", "--show-toplevel", "--absolute-git-dir"]).then((r) => {
    if (r.code !== 0) return /not a git repository/i.test(r.stderr) ? ("none" as const) : undefined;
    const [top, gitDir] = r.stdout.split("\n");
    return top && gitDir ? { top, gitDir } : undefined;
  });
  where.set(dir, { at: Date.now(), found });
  return found;
}

/** Changes when a ref, a reflog, the stash or the index changes (what can make a new path reachable). */
async function stateKey(gitDir: string): Promise<string> {
  const files = ["index", "HEAD", "packed-refs", "logs", "logs/HEAD", "logs/refs", "logs/refs/heads", "logs/refs/stash", "refs/heads", "refs/tags", "refs/stash", "refs/notes", "refs/remotes", "refs"];
  return (await Promise.all(files.map((f) => mtime(join(gitDir, f))))).join(",");
}

const pending = new Map<string, Promise<string[] | undefined>>();

export const nodeGitObjectPaths: GitObjectPaths = async (dir) => {
  const repo = await repositoryOf(dir);
  if (repo === "none") return [];
  if (!repo) return undefined;
  const { top, gitDir } = repo;
  const key = await stateKey(gitDir);
  const hit = cache.get(gitDir);
  if (hit?.key === key) return hit.paths;
  const running = pending.get(`${gitDir}\0${key}`);
  if (running) return running;
  const listing = (async () => {
    const [index, history] = await Promise.all([git(top, ["ls-files", "-z", "--cached"]), git(top, ["log", "--all", "--reflog", "--no-renames", "--format=", "--name-only", "-z"])]);
    // A repository with no commit yet: log fails, the index is all git holds.
    const empty = history.code !== 0 && /does not have any commits|bad default revision|unknown revision/i.test(history.stderr);
    if (index.code !== 0 || (history.code !== 0 && !empty)) return undefined;
    const names = new Set<string>();
    for (const out of [index.stdout, empty ? "" : history.stdout]) for (const n of out.split(/[\0\n]/)) if (n) names.add(n);
    const paths = [...names].map((n) => `${top}/${n}`);
    cache.set(gitDir, { key, paths });
    return paths;
  })().finally(() => pending.delete(`${gitDir}\0${key}`));
  pending.set(`${gitDir}\0${key}`, listing);
  return listing;
};
