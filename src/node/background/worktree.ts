/**
 * The git side of background agents: a worktree on a new branch from the user's HEAD (with, when
 * asked, a copy of the uncommitted changes), the configured ignored files copied or linked in,
 * the agent's whole change as git sees it, and the worktree's removal. Everything goes through
 * real git: `git worktree add/remove/list`, `git branch`, `git diff`, `git apply`.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { isPathChanged } from "../../core/ports";
import { createSafeFiles, type SafeFiles } from "../safe-open";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { agentBranch, checkCopyPath } from "../../core/background/agents";
import { DIFF_NO_PROGRAMS, filtersOffEnv, git, gitOk } from "./git";
import { workspaceWorktreesDir } from "./paths";

/** A folder that is not in a git repository (or one without a commit): background agents need git. */
export class NotARepositoryError extends Error {}

/** The repository's top level and HEAD commit, or a clear refusal. */
export async function repositoryOf(folder: string): Promise<{ top: string; head: string }> {
  const top = await git(folder, ["rev-parse", "--show-toplevel"]).catch((err: unknown) => {
    throw new NotARepositoryError(`${folder}: ${err instanceof Error ? err.message : String(err)}`);
  });
  if (top.code !== 0) {
    throw new NotARepositoryError(
      `${folder} is not in a git repository: a background agent works in a git worktree on its own branch, so that its change can be reviewed, merged or discarded. Run \`git init\` and commit first, or run the task in the foreground (yoke run without --background/--worktree).`,
    );
  }
  const head = await git(folder, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (head.code !== 0) throw new NotARepositoryError(`${top.stdout.trim()} has no commit yet: a worktree starts from HEAD, so commit once first.`);
  return { top: top.stdout.trim(), head: head.stdout.trim() };
}

export interface CreateWorktreeOptions {
  workspace: string;
  id: string;
  task: string;
  /** Carry the user's uncommitted changes: none, tracked files' changes, or those plus untracked (not ignored) files. */
  carry: "none" | "tracked" | "all";
  /** worktrees.copy / worktrees.link: ignored-but-needed files, relative to the repository. */
  copy?: readonly string[];
  link?: readonly string[];
  home?: string;
}

export interface CreatedWorktree {
  top: string;
  worktree: string;
  branch: string;
  baseCommit: string;
  /** Paths of worktrees.copy / .link that were not there or were refused, with why. */
  skipped: string[];
  /** The paths copied or linked in that git does not ignore (a link is not a folder to .gitignore's `dir/`): kept out of the agent's change. */
  placed: string[];
}

export async function createAgentWorktree(o: CreateWorktreeOptions): Promise<CreatedWorktree> {
  const { top, head } = await repositoryOf(o.workspace);
  const branch = agentBranch(o.task, o.id);
  const parent = workspaceWorktreesDir(top, o.home);
  mkdirSync(parent, { recursive: true });
  const worktree = nodePath.join(parent, branch.slice("yoke/".length));
  await gitOk(top, ["worktree", "add", "--quiet", "-b", branch, worktree, head]);
  try {
    if (o.carry !== "none") await carryChanges(top, worktree, o.carry);
    const { skipped, placed } = await placeIgnored(top, worktree, o.copy ?? [], o.link ?? []);
    // What git ignores needs no exclusion (and git add refuses to be told about it).
    const notIgnored: string[] = [];
    for (const p of placed) if ((await git(worktree, ["check-ignore", "-q", "--", p])).code !== 0) notIgnored.push(p);
    return { top, worktree, branch, baseCommit: head, skipped, placed: notIgnored };
  } catch (err) {
    await removeAgentWorktree(top, worktree, branch).catch(() => undefined);
    throw err;
  }
}

/** The user's uncommitted changes (a binary patch against HEAD) applied in the worktree. */
async function carryChanges(top: string, worktree: string, carry: "tracked" | "all"): Promise<void> {
  let patch: string;
  // The files are taken as they are (Yoke's git runs none of the person's filter or diff programs on them).
  const raw = await filtersOffEnv(top);
  if (carry === "tracked") {
    patch = await gitOk(top, ["diff", ...DIFF_NO_PROGRAMS, "--binary", "HEAD"], { env: raw });
  } else {
    // A copy of the user's index (its stat data spares rehashing every file), so their own
    // index (what they staged) is never touched.
    const dir = mkdtempSync(nodePath.join(tmpdir(), "yoke-carry-"));
    try {
      const env = { ...raw, GIT_INDEX_FILE: nodePath.join(dir, "index") };
      const own = nodePath.resolve(top, (await gitOk(top, ["rev-parse", "--git-path", "index"])).trim());
      // Its own mtime kept: git's racy-clean check compares the files' times with the index's.
      if (existsSync(own)) cpSync(own, env.GIT_INDEX_FILE, { preserveTimestamps: true });
      else await gitOk(top, ["read-tree", "HEAD"], { env });
      await gitOk(top, ["add", "-A", "--", "."], { env });
      patch = await gitOk(top, ["diff", ...DIFF_NO_PROGRAMS, "--cached", "--binary", "HEAD"], { env });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (patch.trim()) await gitOk(worktree, ["apply", "--binary", "--whitespace=nowarn"], { input: patch });
}

/** Copies (or symlinks) the configured paths from the repository into the worktree; returns what was skipped. */
async function placeIgnored(top: string, worktree: string, copy: readonly string[], link: readonly string[]): Promise<{ skipped: string[]; placed: string[] }> {
  const skipped: string[] = [];
  const placed: string[] = [];
  const realTop = realpathSync(top);
  for (const [list, how] of [
    [copy, "copy"],
    [link, "link"],
  ] as const) {
    for (const raw of list) {
      const checked = checkCopyPath(raw);
      if ("error" in checked) {
        skipped.push(`${raw}: ${checked.error}`);
        continue;
      }
      const from = nodePath.join(top, checked.path);
      if (!existsSync(from)) {
        skipped.push(`${checked.path}: not in the repository`);
        continue;
      }
      // A symlink in the repository must not lead the copy outside it.
      const real = realpathSync(from);
      if (real !== realTop && !real.startsWith(realTop + nodePath.sep)) {
        skipped.push(`${checked.path}: leads outside the repository (${real})`);
        continue;
      }
      const to = nodePath.join(worktree, checked.path);
      const refused = destinationRefused(worktree, checked.path);
      if (refused) {
        skipped.push(`${checked.path}: ${refused}`);
        continue;
      }
      if (how === "copy") {
        try {
          await copyChecked(createSafeFiles([realTop]), real, to);
        } catch (err) {
          rmSync(to, { recursive: true, force: true });
          // A name that vanished or stopped being a folder mid-copy changed on the way as much as a link did.
          const code = (err as NodeJS.ErrnoException).code;
          if (!isPathChanged(err) && code !== "ENOENT" && code !== "ENOTDIR" && code !== "ELOOP") throw err;
          skipped.push(`${checked.path}: it changed while Yoke copied it (${err instanceof Error ? err.message : String(err)}); Yoke does not copy through a symbolic link`);
          continue;
        }
      } else symlinkSync(real, to);
      placed.push(checked.path);
    }
  }
  return { skipped, placed };
}

/**
 * Copies `from` (a file or folder of the user's tree, under the safe files' root) to `to` in the
 * fresh worktree. Every file and folder is opened by descriptor, no link below the repository's
 * top followed (src/node/safe-open.ts): a command of a session may exchange a folder on the way
 * with a link to the home while the copy runs (`x` ↔ `xl → ~` with `worktrees.copy: ["x/.ssh"]`
 * copied `~/.ssh` into the worktree, where the agent read the key — red team 25). A link inside
 * what is copied is copied as a link (as `cp -R` does); a FIFO or device is left out.
 */
async function copyChecked(safe: SafeFiles, from: string, to: string): Promise<void> {
  const st = await fsp.lstat(from);
  if (st.isSymbolicLink()) {
    symlinkSync(await fsp.readlink(from), to);
    return;
  }
  if (st.isFile()) {
    const r = await safe.read(from);
    writeFileSync(to, r.data, { mode: st.mode & 0o777 });
    await fsp.utimes(to, st.atime, st.mtime);
    return;
  }
  if (!st.isDirectory()) return;
  const dir = await safe.openDir(from);
  let names: string[];
  try {
    names = await fsp.readdir(safe.viaProc ? `/proc/self/fd/${dir.fd}` : from);
  } finally {
    await dir.close();
  }
  mkdirSync(to, { mode: st.mode & 0o777 });
  for (const name of names) await copyChecked(safe, `${from}/${name}`, nodePath.join(to, name));
  await fsp.utimes(to, st.atime, st.mtime);
}

/**
 * Why Yoke may not place `rel` in the fresh worktree, or undefined after making the folders on its
 * way. The checkout is the repository's: a committed symbolic link on the way (`cfg ->
 * ../../../../../..` is the home in every agent worktree) would lead the copy or link out of the
 * worktree, so every folder on the way must be a real folder (made here, one at a time, when
 * missing) and nothing, not even a dangling link, may stand at the destination. Nothing else
 * writes the worktree yet (the agent starts after), so what is checked is what is written.
 */
export function destinationRefused(worktree: string, rel: string): string | undefined {
  const parts = rel.split("/");
  let at = worktree;
  for (const [i, part] of parts.entries()) {
    at = nodePath.join(at, part);
    let st: ReturnType<typeof lstatSync> | undefined;
    try {
      st = lstatSync(at);
    } catch {
      st = undefined;
    }
    const last = i === parts.length - 1;
    if (last)
      return st
        ? st.isSymbolicLink()
          ? `a symbolic link of the repository stands there (${parts.join("/")}), so Yoke does not write through it`
          : "already in the worktree (tracked by git)"
        : undefined;
    if (!st) {
      mkdirSync(at);
      continue;
    }
    const shown = parts.slice(0, i + 1).join("/");
    if (st.isSymbolicLink()) return `${shown} is a symbolic link in the worktree (the repository's checkout), so Yoke does not copy or link through it`;
    if (!st.isDirectory()) return `${shown} is a file in the worktree, not a folder`;
  }
  return undefined;
}

/** `git add` pathspecs for the whole worktree but the placed paths. */
export function addSpecs(exclude: readonly string[] = []): string[] {
  return ["--", ".", ...exclude.map((p) => `:(exclude,literal)${p}`)];
}

/**
 * The worktree's whole state as a git tree (committed and uncommitted, untracked files too,
 * ignored ones not), written through a copy of its index: the agent's own index is not touched.
 * The files are taken as they are: no filter driver of the person's configuration runs on them
 * (it runs on the host, in the worktree the agent wrote: filtersOffEnv).
 */
export async function worktreeTree(worktree: string, exclude: readonly string[] = []): Promise<string> {
  const dir = mkdtempSync(nodePath.join(tmpdir(), "yoke-snap-"));
  try {
    const index = nodePath.join(dir, "index");
    const real = nodePath.resolve(worktree, (await gitOk(worktree, ["rev-parse", "--git-path", "index"])).trim());
    // Its own mtime kept: git's racy-clean check compares the files' times with the index's.
    if (existsSync(real)) cpSync(real, index, { preserveTimestamps: true });
    else await gitOk(worktree, ["read-tree", "HEAD"], { env: { GIT_INDEX_FILE: index } });
    const env = { ...(await filtersOffEnv(worktree)), GIT_INDEX_FILE: index };
    await gitOk(worktree, ["add", "-A", ...addSpecs(exclude)], { env });
    return (await gitOk(worktree, ["write-tree"], { env })).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One changed path between the agent's base and its worktree. */
export interface ChangedFile {
  path: string;
  /** A added, M modified, D deleted, T type changed. */
  status: string;
}

export async function changedFiles(worktree: string, base: string, tree: string): Promise<ChangedFile[]> {
  const t = tree;
  const out = await gitOk(worktree, ["diff", ...DIFF_NO_PROGRAMS, "--no-renames", "--name-status", "-z", base, t]);
  const parts = out.split("\0").filter(Boolean);
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) files.push({ status: parts[i]!, path: parts[i + 1]! });
  return files;
}

/** The agent's whole change as a unified diff (its branch's commits and its uncommitted work, against its base). */
export async function agentPatch(worktree: string, base: string, tree: string): Promise<string> {
  const t = tree;
  return gitOk(worktree, ["diff", ...DIFF_NO_PROGRAMS, "--no-renames", "--binary", base, t]);
}

/** Removes the worktree (git worktree remove) and deletes its branch: nothing of the agent is left in the repository. */
export async function removeAgentWorktree(top: string, worktree: string, branch: string): Promise<void> {
  if (existsSync(worktree)) {
    const r = await git(top, ["worktree", "remove", "--force", "--force", worktree]);
    if (r.code !== 0 && existsSync(worktree)) rmSync(worktree, { recursive: true, force: true });
  }
  await git(top, ["worktree", "prune"]);
  const b = await git(top, ["branch", "-D", branch]);
  if (b.code !== 0 && !/not found/.test(b.stderr)) throw new Error(`git branch -D ${branch} failed: ${b.stderr.trim()}`);
}

/** The worktrees git knows for the repository (porcelain `worktree` lines). */
export async function listWorktrees(top: string): Promise<string[]> {
  const out = await gitOk(top, ["worktree", "list", "--porcelain"]);
  return out
    .split("\n")
    .filter((l) => l.startsWith("worktree "))
    .map((l) => l.slice("worktree ".length));
}
