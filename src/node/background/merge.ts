/**
 * Merging a background agent's change back into the user's tree, never overwriting their work.
 *
 * `apply` (the default): for every file the agent changed, a three-way merge by git
 * (`git merge-file`) of the user's file as it is now (their commits and uncommitted edits), the
 * agent's base, and the agent's version (only the accepted hunks, when some were chosen). Every
 * file is checked first; when any of them conflicts — the user changed the same lines — nothing
 * is written and the refusal names the files and lines.
 *
 * `merge`: the agent's work is committed on its branch and the branch is merged with `git merge`,
 * after `git merge-tree` showed it merges cleanly and no file it touches has uncommitted changes.
 */
import { execFile } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import * as nodePath from "node:path";
import { HOME_WHY, homeEntryWritable, protectedEntry, protectedName } from "../../core/protected-paths";
import { applyHunks, computeHunks, type Hunk } from "../../core/review-hunks";
import { filteredPaths, git, gitOk } from "./git";
import { changedFiles, worktreeTree } from "./worktree";
import { hostProgram } from "../host-programs";
import { isPathChanged } from "../../core/ports";
import { createSafeFiles, type SafeFiles } from "../safe-open";

export interface MergeTarget {
  /** The user's repository top level. */
  top: string;
  worktree: string;
  branch: string;
  baseCommit: string;
  /** For the commit message of `merge`. */
  task: string;
  id: string;
  /** Paths copied or linked in (worktrees.copy/.link): not part of the change. */
  placed?: readonly string[];
}

/** Which hunks to take: per path, the 1-based hunk numbers (as `yoke agents diff` prints them), or all of the file. */
export type HunkSelection = Map<string, "all" | Set<number>>;

export interface Conflict {
  path: string;
  /** For people: which lines, whose. */
  detail: string;
}

/** `filtered`: files written as they are in the agent's worktree that a filter of the person's git applies to (path → driver): their own `git add` runs it. */
export type MergeResult = { ok: true; files: string[]; strategy: "apply" | "merge"; filtered?: Record<string, string> } | { ok: false; conflicts: Conflict[]; reason: string };

async function blob(cwd: string, rev: string, path: string): Promise<Buffer | null> {
  const r = await git(cwd, ["cat-file", "-e", `${rev}:${path}`]);
  if (r.code !== 0) return null;
  return new Promise((resolve, reject) => {
    execFile(hostProgram("git"), ["-c", "core.fsmonitor=false", "cat-file", "blob", `${rev}:${path}`], { cwd, encoding: "buffer", maxBuffer: 1024 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

async function modeOf(cwd: string, rev: string, path: string): Promise<string | undefined> {
  const out = await git(cwd, ["ls-tree", rev, "--", path]);
  return out.stdout.split(" ")[0] || undefined;
}

const isBinary = (b: Buffer | null) => b !== null && b.subarray(0, 8000).includes(0);
const same = (a: Buffer | null, b: Buffer | null) => (a === null ? b === null : b !== null && a.equals(b));

/** The hunks the agent's file has against its base (the numbering `yoke agents diff` prints). */
export function fileHunks(base: Buffer | null, agent: Buffer | null): Hunk[] {
  return computeHunks(base === null ? null : base.toString("utf8"), agent === null ? "" : agent.toString("utf8"));
}

const span = (start: number, count: number) => (count === 0 ? `after line ${start}` : count === 1 ? `line ${start + 1}` : `lines ${start + 1}–${start + count}`);

/** Which of the user's edits and the agent's touch the same original lines: the explanation of a conflict. */
function explain(path: string, base: string, user: string, agent: string): string {
  const mine = computeHunks(base, user, 0);
  const theirs = computeHunks(base, agent, 0);
  const parts: string[] = [];
  for (const u of mine) {
    for (const a of theirs) {
      const uEnd = u.beforeStart + Math.max(u.beforeLines.length, 1);
      const aEnd = a.beforeStart + Math.max(a.beforeLines.length, 1);
      if (u.beforeStart < aEnd && a.beforeStart < uEnd) {
        parts.push(`your ${span(u.afterStart, u.afterLines.length)} and the agent's ${span(a.afterStart, a.afterLines.length)} both change the original ${span(a.beforeStart, a.beforeLines.length)}`);
      }
    }
  }
  return parts.length ? parts.join("; ") : "your edits and the agent's touch neighbouring lines, which git cannot merge";
}

/**
 * Why the agent's file must not be written at `rel` of the user's tree, or undefined: a symbolic
 * link at the path or any folder on the way (the write would land where the link points — a
 * `.git/hooks` file, a file outside the repository), or a protected path (code or configuration
 * something runs later: src/core/protected-paths.ts), which only the user writes.
 */
export function unsafeDestination(top: string, rel: string, home = homedir()): string | undefined {
  const parts = rel.split("/");
  if (parts.includes(".git")) return "it is inside .git, which only git writes";
  const entry = protectedEntry(rel) ?? protectedName(parts[parts.length - 1]!, false);
  if (entry) return `it is a protected path (${entry.why}); Yoke does not merge it: copy it by hand if you want it`;
  // A repository that holds the home folder (dotfiles kept in git): the home's entries the sandbox
  // and the gate keep from the agent (homeEntryWritable) are the person's to write, not a merge's —
  // an agent writes them freely in its worktree, which is no home (red team K: .bash_aliases,
  // .claude.json, .local/bin merged into the home and run by the person's next shell).
  const within = (p: string, dir: string) => {
    const r = nodePath.relative(dir, p);
    return r === "" || (!r.startsWith("..") && !nodePath.isAbsolute(r));
  };
  const dest = nodePath.join(top, rel);
  if (home && home !== nodePath.sep && within(home, top) && within(dest, home) && dest !== home) {
    const first = nodePath.relative(home, dest).split(nodePath.sep)[0]!;
    if (!homeEntryWritable(first)) return `it is ~/${first} of your home folder (${HOME_WHY}); Yoke does not merge it: copy it by hand if you want it`;
  }
  let at = top;
  for (const part of parts) {
    at = nodePath.join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return undefined; // nothing there yet: the rest is created
    }
    if (st.isSymbolicLink()) {
      let to: string;
      try {
        to = `to ${readlinkSync(at)}`;
      } catch {
        to = "swapped while Yoke looked at it";
      }
      return `${nodePath.relative(top, at)} is a symbolic link in your tree (${to}); Yoke does not write through it`;
    }
  }
  return undefined;
}

/** The user's file as it is now (null: none), read without following a link; undefined when a link is found on the way. */
async function readUserFile(safe: SafeFiles, path: string): Promise<Buffer | null | undefined> {
  try {
    return Buffer.from((await safe.read(path)).data);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (isPathChanged(err)) return undefined;
    throw err;
  }
}

/** One file of a merge: the user's file as it is now, and what it becomes (null: removed). */
export interface PlannedFile {
  path: string;
  user: Buffer | null;
  content: Buffer | null;
  /** The agent's git file mode (`100755`: executable), carried to the user's file. */
  mode?: string;
  /** Only the mode changes (the agent made the file executable, or not): the content is the user's. */
  modeOnly?: boolean;
  /** The user's file or the agent's is binary (NUL bytes), or under a git filter: taken whole or not at all. */
  binary?: boolean;
  /** The git filter driver the person's configuration applies to the file (`lfs`): the content is the agent's file as it is, for their own `git add` to filter. */
  filter?: string;
}

/**
 * Whether the user's file is what the base commit holds, as git sees it in the user's own tree: git
 * runs the person's filter there when it must rehash the file (as their own `git status` does; the
 * agent's worktree is not involved).
 */
async function unchangedSince(top: string, base: string, path: string, user: Buffer | null, baseBlob: Buffer | null): Promise<boolean> {
  if (user === null || baseBlob === null) return user === null && baseBlob === null;
  const r = await git(top, ["diff", "--quiet", "--no-ext-diff", "--no-textconv", base, "--", path], { env: { GIT_LITERAL_PATHSPECS: "1" } });
  return r.code === 0;
}

/** The user's file as a git mode (`100755` when any execute bit is set), or undefined when there is none. */
function userMode(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? (st.mode & 0o111 ? "100755" : "100644") : undefined;
  } catch {
    return undefined;
  }
}

export type MergePlan = { ok: true; plan: PlannedFile[] } | { ok: false; conflicts: Conflict[]; reason: string };

/** Applies the agent's change (or the selected hunks of it) to the user's working tree; writes nothing when anything conflicts. */
export async function applyAgentChange(t: MergeTarget, select?: HunkSelection): Promise<MergeResult> {
  const planned = await planAgentChange(t, select);
  if (!planned.ok) return planned;
  await writePlan(t.top, planned.plan);
  const filtered = planned.plan.filter((p) => p.filter).map((p) => [p.path, p.filter!] as const);
  return { ok: true, files: planned.plan.map((p) => p.path), strategy: "apply", ...(filtered.length ? { filtered: Object.fromEntries(filtered) } : {}) };
}

/**
 * What `apply` would write, file by file, without writing: the three-way merge of each file the
 * agent changed (only the selected hunks, when chosen) onto the user's file as it is now. Refused,
 * with every conflict and refused path, when any file cannot be merged. The editor's review of an
 * agent's change (src/host/agents) shows this plan, and writes what the person accepts of it.
 */
export async function planAgentChange(t: MergeTarget, select?: HunkSelection): Promise<MergePlan> {
  const tree = await worktreeTree(t.worktree, t.placed);
  const files = await changedFiles(t.worktree, t.baseCommit, tree);
  const filters = await filteredPaths(
    t.worktree,
    t.baseCommit,
    files.map((f) => f.path),
  );
  const plan: PlannedFile[] = [];
  const conflicts: Conflict[] = [];
  const refused: Conflict[] = [];
  const unknown = new Set(select ? [...select.keys()] : []);
  const tmp = mkdtempSync(nodePath.join(tmpdir(), "yoke-merge-"));
  const safe = createSafeFiles([t.top]);
  try {
    for (const f of files) {
      unknown.delete(f.path);
      const choice = select ? select.get(f.path) : "all";
      if (!choice) continue;
      const base = await blob(t.worktree, t.baseCommit, f.path);
      let agent = await blob(t.worktree, tree, f.path);
      const filter = filters.get(f.path);
      if (choice !== "all" && filter) throw new Error(`${f.path} is under your git filter "${filter}" (Yoke compares it only as a whole): take it whole (--hunks ${f.path}) or leave it out`);
      if (choice !== "all") {
        if (isBinary(base) || isBinary(agent)) throw new Error(`${f.path} is binary: take it whole (--hunks ${f.path}) or leave it out`);
        const hunks = fileHunks(base, agent);
        for (const n of choice) if (n < 1 || n > hunks.length) throw new Error(`${f.path} has ${hunks.length} hunk(s); there is no hunk ${n}`);
        const text = applyHunks(
          base === null ? null : base.toString("utf8"),
          hunks,
          hunks.map((h) => (choice.has(h.index) ? "accepted" : "rejected")),
        );
        agent = agent === null && choice.size === hunks.length ? null : Buffer.from(text, "utf8");
      }
      const userPath = nodePath.join(t.top, f.path);
      // Never through a link of the user's tree (an untracked `notes.sh -> .git/hooks/pre-commit` would
      // make this write a hook), and never a protected path: those are the user's to write by hand.
      const unsafe = unsafeDestination(t.top, f.path);
      if (unsafe) {
        refused.push({ path: f.path, detail: unsafe });
        continue;
      }
      // Read by descriptor, no link followed (the folder may be swapped for one after the check above).
      const user = await readUserFile(safe, userPath);
      if (user === undefined) {
        refused.push({ path: f.path, detail: "a folder on the way became a symbolic link while Yoke read it; Yoke does not read or write through one" });
        continue;
      }
      const mode = await modeOf(t.worktree, tree, f.path);
      const binary = isBinary(user) || isBinary(agent) || isBinary(base) ? { binary: true } : {};
      if (filter) {
        // The agent's file is as its worktree has it (no filter ran on it), the base as git stores it
        // (the filter's output: an LFS pointer, a stripped notebook, ciphertext): they cannot be compared
        // byte for byte. Whether the person changed the file since the base is git's to say, in their
        // own tree, with their filter (as their own git status does); then the agent's file is taken whole.
        if (same(user, agent)) continue;
        if (await unchangedSince(t.top, t.baseCommit, f.path, user, base)) plan.push({ path: f.path, user, content: agent, mode, filter, binary: true });
        else conflicts.push({ path: f.path, detail: `under your git filter "${filter}", and you changed it too: Yoke takes such a file only whole; copy the agent's version by hand if you want it` });
        continue;
      }
      if (same(user, agent)) {
        // The same bytes: only an executable bit the agent set (or cleared) is left to carry.
        const own = userMode(userPath);
        if (agent !== null && (mode === "100755" || mode === "100644") && own && own !== mode) plan.push({ path: f.path, user, content: agent, mode, modeOnly: true, ...binary });
        continue;
      }
      if (same(user, base)) {
        plan.push({ path: f.path, user, content: agent, mode, ...binary });
        continue;
      }
      // Both changed the file.
      if (user === null || agent === null || base === null || isBinary(user) || isBinary(agent) || isBinary(base)) {
        const what = user === null ? "you deleted it" : agent === null ? "the agent deleted it" : base === null ? "you and the agent both created it" : "a binary file you both changed";
        conflicts.push({ path: f.path, detail: `${what}, and the two versions differ` });
        continue;
      }
      const [pu, pb, pa] = ["user", "base", "agent"].map((n) => nodePath.join(tmp, n));
      writeFileSync(pu!, user);
      writeFileSync(pb!, base);
      writeFileSync(pa!, agent);
      const r = await git(tmp, ["merge-file", "-p", "-L", "yours", "-L", "base", "-L", "agent", pu!, pb!, pa!]);
      if (r.code === 0) plan.push({ path: f.path, user, content: Buffer.from(r.stdout, "utf8"), mode });
      else if (r.code > 0 && r.code < 128) conflicts.push({ path: f.path, detail: explain(f.path, base.toString("utf8"), user.toString("utf8"), agent.toString("utf8")) });
      else throw new Error(`git merge-file failed on ${f.path}: ${r.stderr.trim()}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (unknown.size) throw new Error(`the agent did not change ${[...unknown].join(", ")} (see yoke agents diff)`);
  if (refused.length) {
    return {
      ok: false,
      conflicts: [...refused, ...conflicts],
      reason: `not merged: ${refused.length} file(s) of the agent's change cannot be written by Yoke (a symbolic link in your tree, a protected path, a dot file of your home folder); nothing was written. Leave them out (--hunks for the other files) or copy them by hand.`,
    };
  }
  if (conflicts.length) {
    return {
      ok: false,
      conflicts,
      reason: `not merged: you changed the same lines as the agent in ${conflicts.length} file(s); nothing was written. Resolve by hand (yoke agents diff shows the agent's change), take other hunks only (--hunks), or send the agent a note.`,
    };
  }
  return { ok: true, plan };
}

/**
 * Writes a plan into the user's tree, byte-exact and with the agent's executable bit. Never through
 * a link: each destination is checked again right before its write, and the write itself goes
 * through the checked folder's descriptor (src/node/safe-open.ts) — a folder on the way swapped for
 * a link between that check and the write (a command of a session exchanging `d` with a link to
 * `.git/hooks` in a loop, red team 25) makes it fail instead of writing where the link points. The
 * editor's review writes the binary files and the mode changes it accepted through it.
 */
export async function writePlan(top: string, plan: readonly PlannedFile[]): Promise<void> {
  const safe = createSafeFiles([top]);
  for (const p of plan) {
    const dest = nodePath.join(top, p.path);
    const unsafe = unsafeDestination(top, p.path);
    if (unsafe) throw new Error(`${p.path}: ${unsafe}; the files before it were written`);
    try {
      if (p.content === null) {
        await safe.remove(dest);
        continue;
      }
      await safe.write(dest, p.content);
      await safe.chmod(dest, (now) => modeBits(now, p.mode));
    } catch (err) {
      if (isPathChanged(err)) throw new Error(`${p.path}: ${err.message}; Yoke does not write through a symbolic link; the files before it were written`, { cause: err });
      throw err;
    }
  }
}

/** A file's permission bits with the agent's executable bit: set (as git checks out 100755) or cleared, the other bits kept. */
function modeBits(now: number, mode: string | undefined): number {
  if (mode === "100755" && (now & 0o111) !== 0o111) return now | ((now & 0o444) >> 2);
  if (mode === "100644" && now & 0o111) return now & ~0o111;
  return now;
}

/** Sets the agent's executable bit on a file of the user's tree (the editor's review wrote its text; never through a link). */
export async function applyMode(top: string, path: string, mode: string | undefined): Promise<void> {
  if (mode !== "100755" && mode !== "100644") return;
  if (unsafeDestination(top, path)) return;
  await createSafeFiles([top]).chmod(nodePath.join(top, path), (now) => modeBits(now, mode));
}

/**
 * The agent's whole change as one commit on its base, made from the worktree's state as the review
 * shows it (worktreeTree: committed and uncommitted, placed paths left out); the agent's branch is
 * set to it, so the branch is that change.
 */
async function reviewedCommit(t: MergeTarget): Promise<string> {
  const tree = await worktreeTree(t.worktree, t.placed);
  const message = `yoke agent ${t.id}: ${t.task.split("\n")[0]!.slice(0, 72)}`;
  const commit = (await gitOk(t.top, ["commit-tree", tree, "-p", t.baseCommit, "-m", message], { env: await identityEnv(t.top) })).trim();
  await gitOk(t.top, ["update-ref", `refs/heads/${t.branch}`, commit]);
  return commit;
}

/** The user's git identity when set; else Yoke's, for the commits Yoke makes. */
async function identityEnv(cwd: string): Promise<Record<string, string>> {
  const name = (await git(cwd, ["config", "user.name"])).stdout.trim();
  const email = (await git(cwd, ["config", "user.email"])).stdout.trim();
  return {
    ...(name ? {} : { GIT_AUTHOR_NAME: "Yoke", GIT_COMMITTER_NAME: "Yoke" }),
    ...(email ? {} : { GIT_AUTHOR_EMAIL: "yoke@localhost", GIT_COMMITTER_EMAIL: "yoke@localhost" }),
  };
}

/** A merge, rebase, cherry-pick or revert the user has in progress in their repository (git's own state files). */
async function operationInProgress(top: string): Promise<string | undefined> {
  const gitDir = (await gitOk(top, ["rev-parse", "--absolute-git-dir"])).trim();
  const states: Array<[string, string]> = [
    ["MERGE_HEAD", "a merge"],
    ["rebase-merge", "a rebase"],
    ["rebase-apply", "a rebase or git am"],
    ["CHERRY_PICK_HEAD", "a cherry-pick"],
    ["REVERT_HEAD", "a revert"],
  ];
  return states.find(([f]) => existsSync(nodePath.join(gitDir, f)))?.[1];
}

/**
 * Merges the agent's branch into the user's current branch with git merge (the user's choice
 * "merge the branch", `--strategy merge`): a merge commit, or a fast-forward. Refused, with the
 * reason and nothing changed, when the user's repository is in the middle of another operation,
 * when a file the agent changed has uncommitted changes (or an untracked file) in the user's tree,
 * or when the branches conflict (`git merge-tree` shows it before anything is touched). Should git
 * merge itself still stop half-way, `git merge --abort` puts the user's tree back as it was.
 */
export async function mergeAgentBranch(t: MergeTarget): Promise<MergeResult> {
  const busy = await operationInProgress(t.top);
  if (busy) return { ok: false, conflicts: [], reason: `not merged: your repository is in the middle of ${busy}; finish or abort it first` };
  // What is merged is what the review showed: the worktree's state as a tree, committed here on the
  // agent's base. Never the branch as it stands: it is a ref in the user's .git, which commands of
  // any session in the repository may move (and the worktree's HEAD with it), so it may name a
  // commit nobody reviewed (red team 15: a `.husky/pre-commit` merged in).
  const commit = await reviewedCommit(t);
  const touched = (await gitOk(t.top, ["diff", "--name-only", "-z", `HEAD...${commit}`])).split("\0").filter(Boolean);
  // A protected path or .git, which only the user writes (as with --strategy apply): not merged.
  // (A link in the user's tree is git's to handle: git merge never writes through one.)
  const forbidden = touched.map((path) => ({ path, why: unsafeDestination(t.top, path) })).filter((p): p is { path: string; why: string } => !!p.why && !/symbolic link/.test(p.why));
  if (forbidden.length) {
    return {
      ok: false,
      conflicts: forbidden.map((p) => ({ path: p.path, detail: p.why })),
      reason:
        "not merged: the agent's change touches files only you write (protected paths); nothing was changed. Use --strategy apply, which merges the rest, and copy these by hand if you want them",
    };
  }
  // A file under a filter of the person's git (Git LFS, nbstripout, git-crypt) is in the reviewed tree
  // as the agent's worktree has it: Yoke runs no filter there (its program would run unconfined on the
  // host, in the folder the agent wrote: red team B, session 23). Committed, it would be the raw file
  // (a large binary instead of an LFS pointer, a plaintext git-crypt file): not merged.
  const filters = await filteredPaths(t.worktree, t.baseCommit, touched);
  if (filters.size) {
    return {
      ok: false,
      conflicts: [...filters].map(([path, filter]) => ({
        path,
        detail: `under your git filter "${filter}": Yoke does not run filters on an agent's files, so the commit would hold the file unfiltered`,
      })),
      reason:
        "not merged: the agent changed files that your git filters (Git LFS, nbstripout, git-crypt…); nothing was changed. Use --strategy apply: it writes them into your tree as the agent left them, and your own git add runs your filter on them",
    };
  }
  const dirty = new Set(
    (await gitOk(t.top, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]))
      .split("\0")
      .filter(Boolean)
      .map((l) => l.slice(3)),
  );
  const blocked = touched.filter((p) => dirty.has(p));
  if (blocked.length) {
    return {
      ok: false,
      conflicts: blocked.map((path) => ({ path, detail: "has uncommitted changes in your tree, which git merge would overwrite" })),
      reason: "not merged: commit or stash your changes to these files first, or use --strategy apply (a three-way merge that keeps them)",
    };
  }
  const probe = await git(t.top, ["merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", commit]);
  if (probe.code === 1) {
    const names = probe.stdout.split("\n").slice(1).filter(Boolean);
    return {
      ok: false,
      conflicts: [...new Set(names)].map((path) => ({ path, detail: "your branch (commits since the agent started) and the agent's branch change the same lines" })),
      reason: `not merged: the agent's branch conflicts with your branch; nothing was changed. Merge it by hand (git merge ${t.branch}), take part of it with the per-hunk review (--strategy apply), or send the agent a note`,
    };
  }
  // An older git without merge-tree --write-tree (before 2.38): git merge finds the conflict, and is aborted below.
  const run = await git(t.top, ["merge", "--no-edit", "--no-verify", "-m", `Merge ${t.branch} (yoke agent ${t.id})`, commit], { env: await identityEnv(t.top) });
  if (run.code !== 0) {
    const said = (run.stdout + "\n" + run.stderr).trim();
    const half = existsSync(nodePath.join((await gitOk(t.top, ["rev-parse", "--absolute-git-dir"])).trim(), "MERGE_HEAD"));
    if (half) await git(t.top, ["merge", "--abort"]);
    const names = [...said.matchAll(/CONFLICT \([^)]*\): .*? in (.+)$/gm)].map((m) => m[1]!.trim());
    return {
      ok: false,
      conflicts: names.map((path) => ({ path, detail: "your branch and the agent's branch change the same lines" })),
      reason: `not merged: git merge stopped${half ? " and was aborted, so your tree is as it was" : ", changing nothing"}: ${said.split("\n").filter(Boolean).slice(-3).join(" ")}`,
    };
  }
  return { ok: true, files: touched, strategy: "merge" };
}

/** Reads a blob for `yoke agents diff` hunk numbering. */
export { blob as readBlob };
