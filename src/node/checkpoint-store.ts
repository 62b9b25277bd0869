/**
 * The git-backed checkpoint store (issue 12): one shadow repository per workspace folder in
 * Yoke's storage (`<storage>/<key>.git`), driven with `--git-dir`/`GIT_WORK_TREE` and a private
 * index, so the user's repository — index, stash, HEAD, branches, refs, hooks — is never read as
 * a repository nor written, and folders without git are covered the same way.
 *
 * git runs host-side on files the agent may have written, so nothing in the workspace may
 * configure it: no system or global config, never the workspace's `.git/config`, hooks and
 * fsmonitor off, and `$GIT_DIR/info/attributes` (which outranks every `.gitattributes`) turns off
 * filters, eol conversion and ident. The folder's `.gitignore` files are honoured (git reads them
 * from the work tree), and so is the user's `.git/info/exclude`, copied into the shadow's own.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, lstatSync, statSync, utimesSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import {
  CHECKPOINT_DEFAULTS,
  type CheckpointStore,
  type FileChange,
  type FolderSnapshot,
  type RestoreOutcome,
  type RestorePlan,
  type SkippedPath,
  type SnapshotRequest,
} from "../core/checkpoints/types";

export interface GitCheckpointStoreOptions {
  /** Where the shadow repositories live (the session folder's `checkpoints/`). */
  storageDir: string;
  maxFileBytes?: number;
  maxFolderFiles?: number;
  /** The git executable (default `git` on PATH). */
  git?: string;
  /** Bound of the preview diff, in characters. */
  maxDiffChars?: number;
}

/** What a snapshot commit says about itself (its message), so a restore needs nothing else. */
interface CommitMeta {
  partial: boolean;
  skipped: string[];
}

const ATTRIBUTES = "* -text -filter -ident !diff !merge !working-tree-encoding\n";
/** Config given on every call: git's own defaults where a planted config could change behaviour. */
const SAFE_CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.attributesFile=/dev/null",
  "core.excludesFile=/dev/null",
  "core.quotePath=false",
  "core.splitIndex=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "commit.gpgSign=false",
  "diff.external=",
  "submodule.recurse=false",
  "protocol.allow=never",
].flatMap((c) => ["-c", c]);

class GitError extends Error {}

/** New files hashed per git call while the budget lasts. */
const CHUNK = 500;

export function createGitCheckpointStore(opts: GitCheckpointStoreOptions): CheckpointStore & { shadowDir(root: string): string } {
  const maxFileBytes = opts.maxFileBytes ?? CHECKPOINT_DEFAULTS.maxFileBytes;
  const maxFolderFiles = opts.maxFolderFiles ?? CHECKPOINT_DEFAULTS.maxFolderFiles;
  const maxDiffChars = opts.maxDiffChars ?? 200_000;
  const gitBin = opts.git ?? "git";

  const shadowDir = (root: string) => join(opts.storageDir, `${basename(root).replace(/[^\w.-]/g, "_") || "root"}-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.git`);

  interface Repo {
    root: string;
    gitDir: string;
    index: string;
  }

  function env(repo: Repo, index = repo.index): NodeJS.ProcessEnv {
    const out: NodeJS.ProcessEnv = {};
    // Nothing of a git environment the host was started in (GIT_DIR from a hook, GIT_CONFIG_*) leaks in.
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_") && v !== undefined) out[k] = v;
    return {
      ...out,
      GIT_DIR: repo.gitDir,
      GIT_WORK_TREE: repo.root,
      GIT_INDEX_FILE: index,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_ATTR_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_NO_REPLACE_OBJECTS: "1",
      GIT_AUTHOR_NAME: "Yoke",
      GIT_AUTHOR_EMAIL: "checkpoints@yoke.invalid",
      GIT_COMMITTER_NAME: "Yoke",
      GIT_COMMITTER_EMAIL: "checkpoints@yoke.invalid",
      LC_ALL: "C",
    };
  }

  function run(repo: Repo, args: string[], o: { input?: string | Buffer; signal?: AbortSignal; index?: string; okCodes?: number[] } = {}): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(gitBin, [...SAFE_CONFIG, ...args], { cwd: repo.gitDir, env: env(repo, o.index), stdio: ["pipe", "pipe", "pipe"], signal: o.signal });
      const out: Buffer[] = [];
      let err = "";
      child.stdout.on("data", (d: Buffer) => out.push(d));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("error", (e) => reject(e));
      child.on("close", (code) => {
        if (code === 0 || o.okCodes?.includes(code ?? -1)) resolve(Buffer.concat(out));
        else reject(new GitError(`git ${args[0]} failed (${code}): ${err.trim().slice(0, 500)}`));
      });
      child.stdin.on("error", () => {});
      child.stdin.end(o.input ?? "");
    });
  }

  function open(root: string): Repo {
    const gitDir = shadowDir(root);
    const repo = { root, gitDir, index: join(gitDir, "yoke-index") };
    if (!existsSync(join(gitDir, "HEAD"))) {
      mkdirSync(gitDir, { recursive: true });
      // A bare repository by hand (no templates, no sample hooks): HEAD, objects, refs, config.
      mkdirSync(join(gitDir, "objects"), { recursive: true });
      mkdirSync(join(gitDir, "refs", "heads"), { recursive: true });
      writeFileSync(join(gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = true\n");
      writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/checkpoints\n");
    }
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(join(gitDir, "info", "attributes"), ATTRIBUTES);
    // The user's own excludes of this folder's repository (read as a file, never as a repository).
    let exclude = "";
    try {
      if (lstatSync(join(root, ".git")).isDirectory()) exclude = readFileSync(join(root, ".git", "info", "exclude"), "utf8");
    } catch {
      /* no repository, or no excludes */
    }
    writeFileSync(join(gitDir, "info", "exclude"), exclude);
    // A killed git leaves its lock behind: the index is ours alone, so a lock is stale.
    rmSync(`${repo.index}.lock`, { force: true });
    return repo;
  }

  const split = (b: Buffer) =>
    b
      .toString("utf8")
      .split("\0")
      .filter((s) => s.length > 0);

  interface Captured {
    tree: string;
    skipped: SkippedPath[];
    partial: boolean;
    fallback?: string;
  }

  /**
   * Brings the index up to the folder as it is now and writes its tree, within the budget: the
   * changes to files already checkpointed and the files the agent wrote are always recorded; the
   * walk for new files and their hashing stop at the budget (the rest is picked up next time).
   */
  async function capture(repo: Repo, budgetMs: number, hints: readonly string[], index = repo.index): Promise<Captured> {
    const deadline = Date.now() + Math.max(1, budgetMs);
    const left = () => AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const skipped: SkippedPath[] = [];
    const hinted = hints.map((h) => relative(repo.root, h).split(sep).join("/")).filter((r) => r && !r.startsWith("../") && r !== "..");
    // Changes to files already checkpointed: a stat against the index, no walk; always recorded.
    const modified = split(await run(repo, ["ls-files", "-z", "--modified"], { index }));
    let untracked: string[] = [];
    let walked = true;
    try {
      untracked = split(await run(repo, ["ls-files", "-z", "--others", "--exclude-standard"], { signal: left(), index }));
    } catch (err) {
      if (!(err instanceof Error && err.name === "AbortError") && Date.now() < deadline) throw err;
      walked = false;
    }
    const must: string[] = [];
    const more: string[] = [];
    const remove: string[] = [];
    const perTop = new Map<string, string[]>();
    const mustSet = new Set([...modified, ...hinted]);
    for (const path of new Set([...modified, ...hinted, ...untracked])) {
      if (path.endsWith("/")) {
        const isSub = existsSync(join(repo.root, path, ".git")) && !lstatSync(join(repo.root, path, ".git")).isDirectory();
        skipped.push({ path: path.slice(0, -1), reason: "nested-repository", detail: isSub ? "a submodule or linked worktree (its own repository)" : "its own git repository" });
        continue;
      }
      const list = mustSet.has(path) ? must : more;
      let st;
      try {
        st = lstatSync(join(repo.root, path));
      } catch {
        list.push(path); // gone: --remove takes it out
        continue;
      }
      if (st.isFile() && st.size > maxFileBytes) {
        skipped.push({ path, reason: "large-file", detail: `${(st.size / 1048576).toFixed(1)} MiB` });
        remove.push(path);
        continue;
      }
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      list.push(path);
      const slash = path.indexOf("/");
      if (slash > 0 && list === more) {
        const top = path.slice(0, slash);
        const l = perTop.get(top) ?? [];
        l.push(path);
        perTop.set(top, l);
      }
    }
    // A huge folder of new files (a dependency tree nobody ignored) is left out, and said so.
    let tracked: Set<string> | undefined;
    for (const [top, list] of perTop) {
      if (list.length <= maxFolderFiles) continue;
      tracked ??= new Set(split(await run(repo, ["ls-files", "-z", "--", ...perTop.keys()], { index })).map((t) => t.split("/")[0]!));
      if (tracked.has(top)) continue;
      skipped.push({ path: top, reason: "large-folder", detail: `${list.length} new files` });
      const drop = new Set(list);
      for (let i = more.length - 1; i >= 0; i--) if (drop.has(more[i]!)) more.splice(i, 1);
    }
    if (remove.length) await run(repo, ["update-index", "-z", "--force-remove", "--stdin"], { input: remove.join("\0") + "\0", index });
    const add = (paths: string[]) => run(repo, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], { input: paths.join("\0") + "\0", index });
    if (must.length) await add(must);
    // New files in chunks, while the budget lasts: each chunk is kept in the index.
    let recorded = 0;
    for (let i = 0; i < more.length && Date.now() < deadline; i += CHUNK) {
      const chunk = more.slice(i, i + CHUNK);
      await add(chunk);
      recorded += chunk.length;
    }
    const tree = (await run(repo, ["write-tree"], { index })).toString().trim();
    const partial = !walked || recorded < more.length;
    const fallback = !partial
      ? undefined
      : `the snapshot ran out of its ${budgetMs} ms budget, so it recorded what changed since the last snapshot: ` +
        `the files already checkpointed, ${hinted.length} file(s) the agent wrote` +
        (walked ? ` and ${recorded} of ${more.length} new file(s)` : ", not the folder's other new files") +
        "; the rest come with the next snapshot, and a restore to this one leaves files it does not know alone";
    return { tree, skipped, partial, fallback };
  }

  async function headCommit(repo: Repo): Promise<string | undefined> {
    const out = await run(repo, ["rev-parse", "--verify", "--quiet", "refs/heads/checkpoints"], { okCodes: [1] });
    return out.toString().trim() || undefined;
  }

  async function meta(repo: Repo, commit: string): Promise<CommitMeta> {
    const body = (await run(repo, ["cat-file", "commit", commit])).toString();
    const json = body.slice(body.indexOf("\n\n") + 2).split("\n\n")[1];
    try {
      const m = JSON.parse(json ?? "{}") as Partial<CommitMeta>;
      return { partial: m.partial === true, skipped: Array.isArray(m.skipped) ? m.skipped.filter((s) => typeof s === "string") : [] };
    } catch {
      return { partial: true, skipped: [] };
    }
  }

  function checkCommit(commit: string): void {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`"${commit}" is not a checkpoint commit`);
  }

  async function plan(root: string, commit: string): Promise<RestorePlan> {
    checkCommit(commit);
    const repo = open(root);
    const target = await meta(repo, commit);
    // The files now, in a scratch copy of the index (the checkpoints' own index is left as it is).
    const scratch = join(repo.gitDir, "yoke-index-plan");
    rmSync(scratch, { force: true });
    if (existsSync(repo.index)) {
      // With the original's time: git judges racily clean entries against the index file's mtime,
      // and a fresh copy would make a file changed within the same second look unchanged.
      copyFileSync(repo.index, scratch);
      const st = statSync(repo.index);
      utimesSync(scratch, st.atime, st.mtime);
    }
    try {
      const now = await capture(repo, 60_000, [], scratch);
      const keptNow = new Set([...now.skipped.map((s) => s.path), ...target.skipped]);
      const isKept = (p: string) => [...keptNow].some((k) => p === k || p.startsWith(`${k}/`));
      const changes: FileChange[] = [];
      const kept: string[] = [];
      const status = split(await run(repo, ["diff-tree", "-r", "-z", "--no-renames", "--name-status", now.tree, commit]));
      for (let i = 0; i + 1 < status.length; i += 2) {
        const [code, path] = [status[i]!, status[i + 1]!];
        if (isKept(path)) kept.push(path);
        else if (code === "D") {
          // Not in the checkpoint: deleted, unless the checkpoint could not know the file.
          if (target.partial) kept.push(path);
          else changes.push({ path, action: "delete" });
        } else changes.push({ path, action: "write" });
      }
      let diff = (await run(repo, ["diff", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", now.tree, commit, "--", ...changes.map((c) => c.path)])).toString();
      const diffTruncated = diff.length > maxDiffChars;
      if (diffTruncated) diff = diff.slice(0, maxDiffChars);
      return { root, changes, kept: [...new Set([...kept, ...now.skipped.map((s) => s.path)])], diff: changes.length ? diff : "", diffTruncated };
    } finally {
      rmSync(scratch, { force: true });
    }
  }

  return {
    shadowDir,
    async snapshot(req: SnapshotRequest): Promise<FolderSnapshot> {
      const started = Date.now();
      try {
        const repo = open(req.root);
        const c = await capture(repo, req.budgetMs, req.hints ?? []);
        const parent = await headCommit(repo);
        const message = `yoke checkpoint\n\n${JSON.stringify({ partial: c.partial, skipped: c.skipped.map((s) => s.path) } satisfies CommitMeta)}\n`;
        const commit = (await run(repo, ["commit-tree", c.tree, ...(parent ? ["-p", parent] : [])], { input: message })).toString().trim();
        await run(repo, ["update-ref", "refs/heads/checkpoints", commit, ...(parent ? [parent] : [])]);
        return {
          name: req.name,
          root: req.root,
          commit,
          skipped: c.skipped,
          ...(c.partial ? { partial: true, fallback: c.fallback } : {}),
          durationMs: Date.now() - started,
        };
      } catch (err) {
        return { name: req.name, root: req.root, skipped: [], error: err instanceof Error ? err.message : String(err), durationMs: Date.now() - started };
      }
    },
    plan,
    async readFile(root: string, commit: string, path: string): Promise<Uint8Array | undefined> {
      checkCommit(commit);
      if (!path || path.startsWith("/") || path.split("/").some((p) => p === ".." || p === "." || p === "") || path.includes("\0")) throw new Error(`"${path}" is not a path inside the folder`);
      const repo = open(root);
      // `ls-tree` first: a path that was not in the checkpoint (or is a folder) is no error, just absent.
      const entry = (await run(repo, ["ls-tree", "-z", commit, "--", path])).toString().split("\0")[0] ?? "";
      const m = /^\d+ blob ([0-9a-f]+)\t/.exec(entry);
      if (!m) return undefined;
      return run(repo, ["cat-file", "blob", m[1]!]);
    },
    async restore(root: string, commit: string): Promise<RestoreOutcome> {
      const p = await plan(root, commit);
      const repo = open(root);
      const writes = p.changes.filter((c) => c.action === "write").map((c) => c.path);
      const deletes = p.changes.filter((c) => c.action === "delete").map((c) => c.path);
      const realRoot = realpathSync(root);
      // Deleted first, so a file that became a folder (or back) can be written again.
      for (const path of deletes) {
        const abs = join(root, path);
        // Never through a symlinked folder: the parent must be the real folder inside the root.
        const parent = dirname(abs);
        let realParent: string;
        try {
          realParent = realpathSync(parent);
        } catch {
          continue;
        }
        if (realParent !== join(realRoot, dirname(path))) continue;
        try {
          const st = lstatSync(abs);
          if (st.isFile() || st.isSymbolicLink()) unlinkSync(abs);
        } catch {
          continue;
        }
        removeEmptyParents(realRoot, dirname(path));
      }
      if (writes.length) {
        // From an index of the checkpoint alone (no stat data: every file is written, never
        // judged up to date by a timestamp), so the checkpoints' own index is left as it is.
        const tmp = join(repo.gitDir, "yoke-index-restore");
        rmSync(tmp, { force: true });
        try {
          await run(repo, ["read-tree", commit], { index: tmp });
          await run(repo, ["checkout-index", "-f", "-z", "--stdin"], { index: tmp, input: writes.join("\0") + "\0" });
        } finally {
          rmSync(tmp, { force: true });
        }
      }
      return { root, written: writes.length, deleted: deletes.length, kept: p.kept };
    },
  };
}

/** Removes folders a restore emptied, up to (not including) the root. */
function removeEmptyParents(realRoot: string, rel: string): void {
  let dir = rel;
  while (dir && dir !== ".") {
    const abs = join(realRoot, dir);
    try {
      if (readdirSync(abs).length > 0) return;
      rmdirSync(abs);
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}
