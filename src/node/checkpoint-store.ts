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
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  openSync,
  writeSync,
  lstatSync,
  statSync,
  utimesSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { copyFile, open as openFile, writeFile } from "node:fs/promises";
import type * as Zlib from "node:zlib";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  CHECKPOINT_DEFAULTS,
  type CheckpointStore,
  type FileChange,
  type FolderSnapshot,
  type PreimageResult,
  type RefreshResult,
  type RestoreOptions,
  type RestoreOutcome,
  type RestorePlan,
  type SkippedPath,
  type SnapshotRequest,
} from "../core/checkpoints/types";
import { hostProgram } from "./host-programs";
import { createSafeFiles, type SafeFiles } from "./safe-open";
import { PathChangedError } from "../core/ports";
import { parseGitfile } from "../core/gitfile";

// node:zlib is loaded on first use (not by every process that loads this module: `yoke run` before
// its first request; docs/benchmarks.md, "Session 20: start20").
// eslint-disable-next-line @typescript-eslint/no-require-imports
const deflateSync = (...args: Parameters<typeof Zlib.deflateSync>): Buffer => (require("node:zlib") as typeof Zlib).deflateSync(...args);

export interface GitCheckpointStoreOptions {
  /** Where the shadow repositories live (the session folder's `checkpoints/`). */
  storageDir: string;
  maxFileBytes?: number;
  maxFolderFiles?: number;
  /** The least budget of a snapshot in a git repository (its cost is that of `git add -A`). */
  gitBudgetMs?: number;
  /** The git executable (default `git` on PATH). */
  git?: string;
  /** Bound of the preview diff, in characters. */
  maxDiffChars?: number;
}

/** What a snapshot commit says about itself (its message), so a restore needs nothing else. */
interface CommitMeta {
  partial: boolean;
  skipped: string[];
  /** Files added after the snapshot, as they were before a tool (or a command) changed them. */
  preimages: string[];
  /** Files a tool created after the snapshot (they did not exist then): a restore deletes them. */
  absent: string[];
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
  const gitBudgetMs = opts.gitBudgetMs ?? CHECKPOINT_DEFAULTS.gitBudgetMs;
  const gitBin = opts.git ?? hostProgram("git");

  const shadowDir = (root: string) => join(opts.storageDir, `${basename(root).replace(/[^\w.-]/g, "_") || "root"}-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.git`);

  interface Repo {
    root: string;
    gitDir: string;
    index: string;
  }

  function env(repo: Repo, index = repo.index, literal = true): NodeJS.ProcessEnv {
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
      // Paths are paths, never patterns (check-ignore takes paths but refuses the flag).
      GIT_LITERAL_PATHSPECS: literal ? "1" : "0",
      GIT_NO_REPLACE_OBJECTS: "1",
      GIT_AUTHOR_NAME: "Yoke",
      GIT_AUTHOR_EMAIL: "checkpoints@yoke.invalid",
      GIT_COMMITTER_NAME: "Yoke",
      GIT_COMMITTER_EMAIL: "checkpoints@yoke.invalid",
      LC_ALL: "C",
    };
  }

  /** Runs git on the shadow repository; `head`: only the first output is wanted (git is stopped then). */
  function run(repo: Repo, args: string[], o: { input?: string | Buffer; signal?: AbortSignal; index?: string; okCodes?: number[]; head?: boolean; literal?: boolean } = {}): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(gitBin, [...SAFE_CONFIG, ...args], { cwd: repo.gitDir, env: env(repo, o.index, o.literal !== false), stdio: ["pipe", "pipe", "pipe"], signal: o.signal });
      const out: Buffer[] = [];
      let err = "";
      child.stdout.on("data", (d: Buffer) => {
        out.push(d);
        if (o.head) {
          resolve(Buffer.concat(out));
          child.kill("SIGKILL");
        }
      });
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

  /**
   * `git diff-tree` of two trees. git 2.39's diff-tree reads the index it is given although a
   * diff of two trees never uses it — 2.4 s for the 107 MB private index at a million files, twice
   * per CLI restore — so it is given a path where no index is (nothing creates it).
   */
  const diffTrees = (repo: Repo, args: string[]) => run(repo, ["diff-tree", ...args], { index: join(repo.gitDir, "yoke-no-index") });

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
    // The user's own excludes of this folder's repository (read as a file, never as a repository),
    // and its objects, reachable read-only: the first index is a copy of the user's, whose entries
    // name them (git never writes into an alternate).
    const user = userRepo(root);
    let exclude = "";
    if (user) {
      try {
        exclude = readFileSync(join(user.common, "info", "exclude"), "utf8");
      } catch {
        /* no excludes */
      }
      mkdirSync(join(gitDir, "objects", "info"), { recursive: true });
      writeFileSync(join(gitDir, "objects", "info", "alternates"), `${user.objects}\n`);
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

  const isAbort = (err: unknown) => err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");

  /** The folder-relative POSIX paths of absolute ones inside the folder. */
  const relPaths = (repo: Repo, paths: readonly string[]) => [
    ...new Set(paths.map((h) => relative(repo.root, h).split(sep).join("/")).filter((r) => r && !r.startsWith("../") && r !== ".." && !r.startsWith("/"))),
  ];

  /** A file or symlink at `path` (relative), not a folder; false when there is nothing. */
  const isFileNow = (repo: Repo, path: string) => {
    try {
      const st = lstatSync(join(repo.root, path));
      return st.isFile() || st.isSymbolicLink();
    } catch {
      return false;
    }
  };

  interface Captured {
    tree: string;
    skipped: SkippedPath[];
    partial: boolean;
    fallback?: string;
  }

  /**
   * Brings the index up to the folder as it is now and writes its tree. In a git repository the
   * first index is a copy of the user's (its stat data lets git skip every unchanged file, its
   * objects are reachable read-only through `objects/info/alternates`), so the cost is that of
   * `git add -A` into a copy of the index. Later ones stat the tracked files against this index
   * and hash only what changed. Outside git, the walk for new files and their hashing stop at the
   * budget: such a snapshot is partial, and says so.
   */
  async function capture(repo: Repo, budgetMs: number, hints: readonly string[], index = repo.index, o: { scope?: string[]; signal?: AbortSignal } = {}): Promise<Captured> {
    const user = userRepo(repo.root);
    if (user && !existsSync(index) && existsSync(user.index)) {
      try {
        await seedIndex(user.index, index);
        // Submodules are other repositories: never snapshotted as gitlinks (the walk lists them as skipped).
        const subs = submodulePaths(repo.root);
        if (subs.length) await run(repo, ["update-index", "-z", "--force-remove", "--stdin"], { input: subs.join("\0") + "\0", index, signal: o.signal });
        return await captureWith(repo, budgetMs, hints, index, true, { signal: o.signal });
      } catch (err) {
        if (o.signal?.aborted) throw err;
        // An index this git cannot use from another repository (a split index, a newer format):
        // start from an empty one (every file hashed once).
        rmSync(index, { force: true });
        rmSync(`${index}.lock`, { force: true });
      }
    }
    return captureWith(repo, budgetMs, hints, index, user !== undefined, o);
  }

  /**
   * `scope`: only these paths (relative) are looked at — what is known to have changed since the
   * index was last brought up to date; the rest of the index is taken as it is.
   */
  async function captureWith(repo: Repo, budgetMs: number, hints: readonly string[], index: string, inGit: boolean, o: { scope?: string[]; signal?: AbortSignal } = {}): Promise<Captured> {
    const budget = inGit ? Math.max(budgetMs, gitBudgetMs) : budgetMs;
    const deadline = Date.now() + Math.max(1, budget);
    const ext = o.signal;
    const left = () => (ext ? AbortSignal.any([ext, AbortSignal.timeout(Math.max(1, deadline - Date.now()))]) : AbortSignal.timeout(Math.max(1, deadline - Date.now())));
    const spec = o.scope ? ["--", ...o.scope] : [];
    const skipped: SkippedPath[] = [];
    // One pass of git over the folder: the files in the index whose stat data says they changed
    // (or are gone) — only those are hashed, and always recorded — and the new files git does not
    // ignore. When the walk does not finish within the budget, the changed ones are still found.
    let modified: string[] = [];
    const untracked: string[] = [];
    let walked = true;
    try {
      for (const entry of split(await run(repo, ["ls-files", "-z", "-t", "--modified", "--others", "--exclude-standard", ...spec], { signal: left(), index }))) {
        if (entry.startsWith("? ")) untracked.push(entry.slice(2));
        else modified.push(entry.slice(2));
      }
    } catch (err) {
      if (ext?.aborted || (!isAbort(err) && Date.now() < deadline)) throw err;
      walked = false;
      modified = split(await run(repo, ["ls-files", "-z", "--modified", ...spec], { index }));
    }
    // The files the agent wrote since the last snapshot, unless git ignores them (an ignored file
    // in one snapshot and not the one before would read as "created since", and be deleted).
    const hinted = relPaths(repo, hints);
    const ignored = hinted.length
      ? new Set(split(await run(repo, ["check-ignore", "-z", "--stdin"], { input: hinted.join("\0") + "\0", index, okCodes: [1], literal: false, signal: ext })))
      : new Set<string>();
    const mustSet = new Set([...modified, ...hinted.filter((h) => !ignored.has(h))]);
    const must: string[] = [];
    const found: string[] = [];
    const remove: string[] = [];
    const perTop = new Map<string, number>();
    const topOf = (p: string) => {
      const slash = p.indexOf("/");
      return slash > 0 ? p.slice(0, slash) : "";
    };
    for (const path of new Set([...mustSet, ...untracked])) {
      if (path.endsWith("/")) {
        const isSub = existsSync(join(repo.root, path, ".git")) && !lstatSync(join(repo.root, path, ".git")).isDirectory();
        skipped.push({ path: path.slice(0, -1), reason: "nested-repository", detail: isSub ? "a submodule or linked worktree (its own repository)" : "its own git repository" });
        continue;
      }
      const list = mustSet.has(path) ? must : found;
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
      const top = topOf(path);
      if (top && list === found) perTop.set(top, (perTop.get(top) ?? 0) + 1);
    }
    // A huge folder of new files (a dependency tree nobody ignored) is left out, and said so
    // (a file in it a tool writes still has its pre-image recorded).
    const drop = new Set<string>();
    for (const [top, count] of perTop) {
      if (count <= maxFolderFiles) continue;
      const tracked = (await run(repo, ["ls-files", "-z", "--", top], { index, head: true })).length > 0;
      if (tracked) continue;
      skipped.push({ path: top, reason: "large-folder", detail: `${count} new files` });
      drop.add(top);
    }
    // One filter pass (a splice per dropped entry was quadratic: 457 s at a million files).
    const more = drop.size ? found.filter((p) => !drop.has(topOf(p))) : found;
    if (remove.length) await run(repo, ["update-index", "-z", "--force-remove", "--stdin"], { input: remove.join("\0") + "\0", index, signal: ext });
    const add = (paths: string[]) => run(repo, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], { input: paths.join("\0") + "\0", index, signal: ext });
    if (must.length) await add(must);
    // New files in growing chunks, while the budget lasts: each chunk is kept in the index.
    let recorded = 0;
    for (let chunk = CHUNK; recorded < more.length && Date.now() < deadline; chunk = Math.min(chunk * 2, 50_000)) {
      const part = more.slice(recorded, recorded + chunk);
      await add(part);
      recorded += part.length;
    }
    const tree = (await run(repo, ["write-tree"], { index, signal: ext })).toString().trim();
    const partial = !walked || recorded < more.length;
    const fallback = !partial
      ? undefined
      : `the snapshot ran out of its ${budget} ms budget: it holds the files already checkpointed` +
        (hinted.length ? `, ${hinted.length} file(s) the agent wrote` : "") +
        (walked ? ` and ${recorded} of ${more.length} new file(s)` : ", not the folder's other new files (the walk did not finish)") +
        ". Yoke still records every file a tool writes before the write, and walks the folder again before a command; " +
        "a restore to it leaves the files it does not know as they are";
    return { tree, skipped, partial, fallback };
  }

  /**
   * Per folder, what the private index held after this process last brought it up to the whole
   * folder (a complete capture): its tree and skipped paths, and the index file's identity then
   * (another process that changed the index — a restore from the CLI — makes it stale).
   */
  // `edited`: the tree was changed past the index (editTree), so a look limited to paths would miss those edits.
  const fresh = new Map<string, { tree: string; skipped: SkippedPath[]; index: string; edited?: boolean }>();
  // The index file's identity, and the generation a restore (from any process) bumps: files a
  // restore writes are not in the index, and the index may not change when it restores.
  const generation = (repo: Repo) => join(repo.gitDir, "yoke-generation");
  const indexId = (repo: Repo) => {
    try {
      const st = statSync(repo.index);
      let gen = "";
      try {
        gen = readFileSync(generation(repo), "utf8");
      } catch {
        /* never restored */
      }
      return `${st.ino}:${st.size}:${st.mtimeMs}:${gen}`;
    } catch {
      return "";
    }
  };
  /** The capture just made into the private index, kept when it looked at the whole folder. */
  function keep(repo: Repo, c: Captured, scoped: boolean, base?: { skipped: SkippedPath[] }): Captured {
    if (c.partial) {
      fresh.delete(repo.root);
      return c;
    }
    // A scoped look keeps the skipped paths of the last whole look (it saw only what changed).
    const skipped = scoped && base ? [...base.skipped.filter((k) => !c.skipped.some((n) => n.path === k.path)), ...c.skipped] : c.skipped;
    fresh.set(repo.root, { tree: c.tree, skipped, index: indexId(repo) });
    return { ...c, skipped };
  }
  /** The up-to-date index of `repo`, when this process holds one the index file still matches. */
  function freshOf(repo: Repo) {
    const f = fresh.get(repo.root);
    if (f && f.index === indexId(repo) && f.index !== "") return f;
    fresh.delete(repo.root);
    return undefined;
  }

  const heads = new Map<string, string>();
  async function headCommit(repo: Repo): Promise<string | undefined> {
    const out = await run(repo, ["rev-parse", "--verify", "--quiet", "refs/heads/checkpoints"], { okCodes: [1] });
    return out.toString().trim() || undefined;
  }

  async function meta(repo: Repo, commit: string): Promise<CommitMeta> {
    const body = (await run(repo, ["cat-file", "commit", commit])).toString();
    const json = body.slice(body.indexOf("\n\n") + 2).split("\n\n")[1];
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : []);
    try {
      const m = JSON.parse(json ?? "{}") as Partial<CommitMeta>;
      return { partial: m.partial === true, skipped: strings(m.skipped), preimages: strings(m.preimages), absent: strings(m.absent) };
    } catch {
      return { partial: true, skipped: [], preimages: [], absent: [] };
    }
  }

  const commitMessage = (m: CommitMeta) => `yoke checkpoint\n\n${JSON.stringify(m)}\n`;

  function checkCommit(commit: string): void {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) throw new Error(`"${commit}" is not a checkpoint commit`);
  }

  /** What a checkpoint's pre-images were added to: `refs/yoke/pre/<commit>` when there are any. */
  const preRef = (commit: string) => `refs/yoke/pre/${commit}`;
  async function effective(repo: Repo, commit: string): Promise<string> {
    checkCommit(commit);
    const out = await run(repo, ["rev-parse", "--verify", "--quiet", `${preRef(commit)}^{commit}`], { okCodes: [1] });
    return out.toString().trim() || commit;
  }

  /** One change of a checkpoint at a time per folder (tool calls may run side by side). */
  const queues = new Map<string, Promise<unknown>>();
  function serial<T>(root: string, fn: () => Promise<T>): Promise<T> {
    const prev = queues.get(root) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    queues.set(
      root,
      next.catch(() => undefined),
    );
    return next;
  }

  let scratchCount = 0;
  /**
   * Adds files to a checkpoint: a new commit on top of its effective one (the tree plus `info`
   * entries and the `record` files as they are now), with its metadata extended, under its ref.
   */
  async function amend(repo: Repo, commit: string, base: string, m: CommitMeta, o: { info?: string[]; record?: string[]; absent?: string[]; partial: boolean }): Promise<void> {
    const added = [...(o.info ?? []).map((l) => l.slice(l.indexOf("\t") + 1)), ...(o.record ?? [])];
    let tree = `${base}^{tree}`;
    if (added.length) {
      const tmp = join(repo.gitDir, `yoke-index-amend-${process.pid}-${scratchCount++}`);
      try {
        await run(repo, ["read-tree", base], { index: tmp });
        if (o.info?.length) await run(repo, ["update-index", "-z", "--index-info"], { index: tmp, input: o.info.join("\0") + "\0" });
        if (o.record?.length) await run(repo, ["update-index", "-z", "--add", "--replace", "--stdin"], { index: tmp, input: o.record.join("\0") + "\0" });
        tree = (await run(repo, ["write-tree"], { index: tmp })).toString().trim();
      } finally {
        rmSync(tmp, { force: true });
        rmSync(`${tmp}.lock`, { force: true });
      }
    }
    const next: CommitMeta = { partial: o.partial, skipped: m.skipped, preimages: [...m.preimages, ...added], absent: [...m.absent, ...(o.absent ?? [])] };
    const c = (await run(repo, ["commit-tree", tree, "-p", base], { input: commitMessage(next) })).toString().trim();
    await run(repo, ["update-ref", preRef(commit), c]);
  }

  interface Planned extends RestorePlan {
    source: string;
    /** The files to write back as `--index-info` lines (mode, blob, path): an index of only these. */
    writeInfo: string[];
  }

  /** The plan, with git's "unable to read OBJECT" said as what it means for a restore. */
  async function planWith(root: string, commit: string, opts: RestoreOptions = {}, reuse = false): Promise<Planned> {
    try {
      return await planRaw(root, commit, opts, reuse);
    } catch (err) {
      const m = err instanceof GitError ? /unable to read ([0-9a-f]{40,64})/.exec(err.message) : null;
      if (!m) throw err;
      throw new GitError(
        `Nothing was restored: the saved content of a file (object ${m[1]!.slice(0, 12)}) is missing from the repository's .git/objects — ` +
          "something removed or quarantined it after the checkpoint; check the repository with `git fsck`.",
      );
    }
  }

  /**
   * The last plan made against a given snapshot (`now`), taken once by the restore that follows
   * it: a real restore prints its preview from the plan, then restores the same plan — without
   * this, every git call of the plan (a `diff-tree` of two whole trees among them) ran twice.
   */
  let planned: { key: string; plan: Planned } | undefined;
  const plannedKey = (root: string, source: string, now: string) => `${root}\0${source}\0${now}`;

  async function planRaw(root: string, commit: string, opts: RestoreOptions = {}, reuse = false): Promise<Planned> {
    const repo = open(root);
    const source = await effective(repo, commit);
    if (opts.now) {
      const key = plannedKey(root, source, opts.now);
      const last = planned;
      planned = undefined;
      if (reuse && last?.key === key) return last.plan;
      const p = await planFrom(repo, root, source, opts);
      if (!reuse) planned = { key, plan: p };
      return p;
    }
    return planFrom(repo, root, source, opts);
  }

  async function planFrom(repo: Repo, root: string, source: string, opts: RestoreOptions): Promise<Planned> {
    const target = await meta(repo, source);
    let nowTree: string;
    let nowSkipped: string[];
    const scratch = join(repo.gitDir, `yoke-index-plan-${process.pid}-${scratchCount++}`);
    try {
      if (opts.now) {
        checkCommit(opts.now);
        nowTree = opts.now;
        nowSkipped = (await meta(repo, opts.now)).skipped;
      } else {
        // The files now, in a scratch copy of the index (the checkpoints' own index is left as it is).
        if (existsSync(repo.index)) await copyWithTime(repo.index, scratch);
        const now = await capture(repo, 60_000, [], scratch);
        nowTree = now.tree;
        nowSkipped = now.skipped.map((s) => s.path);
      }
      const pre = new Set(target.preimages);
      const keptPrefixes = new Set([...nowSkipped, ...target.skipped]);
      const isKept = (p: string) => {
        if (pre.has(p)) return false;
        if (keptPrefixes.has(p)) return true;
        for (let i = p.indexOf("/"); i > 0; i = p.indexOf("/", i + 1)) if (keptPrefixes.has(p.slice(0, i))) return true;
        return false;
      };
      const absent = new Set(target.absent);
      const changes: FileChange[] = [];
      const kept: string[] = [];
      const raw = split(await diffTrees(repo, ["-r", "-z", "--raw", "--no-renames", nowTree, source]));
      const inNow = new Set<string>();
      const writeInfo: string[] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const [oldMode, newMode, , newSha, code] = raw[i]!.slice(1).split(" ");
        const path = raw[i + 1]!;
        inNow.add(path);
        if (oldMode === "160000" || newMode === "160000" || isKept(path)) kept.push(path);
        else if (code === "D") {
          // Not in the checkpoint: deleted, unless the checkpoint could not know the file.
          if (target.partial && !absent.has(path)) kept.push(path);
          else changes.push({ path, action: "delete" });
        } else {
          changes.push({ path, action: "write" });
          writeInfo.push(`${newMode} ${newSha}\t${path}`);
        }
      }
      // Files a tool created after the checkpoint that no snapshot holds (ignored ones): deleted too.
      for (const path of absent) if (!inNow.has(path) && isFileNow(repo, path)) changes.push({ path, action: "delete" });
      let diff = "";
      for (let i = 0; i < changes.length && diff.length <= maxDiffChars; i += 500) {
        const batch = changes.slice(i, i + 500).map((c) => c.path);
        diff += (await run(repo, ["diff", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv", nowTree, source, "--", ...batch])).toString();
      }
      const diffTruncated = diff.length > maxDiffChars;
      if (diffTruncated) diff = diff.slice(0, maxDiffChars);
      return {
        root,
        source,
        writeInfo,
        changes,
        kept: [...new Set([...kept, ...nowSkipped])],
        diff: changes.length ? diff : "",
        diffTruncated,
        ...(target.partial ? { partial: true } : {}),
      };
    } finally {
      rmSync(scratch, { force: true });
      rmSync(`${scratch}.lock`, { force: true });
    }
  }

  async function plan(root: string, commit: string, opts?: RestoreOptions): Promise<RestorePlan> {
    const { source: _source, writeInfo: _info, ...p } = await planWith(root, commit, opts);
    return p;
  }

  /**
   * A snapshot's capture: with `changed` and an up-to-date index, only the files that changed are
   * looked at (none: the tree of the last look, no git call); else the whole folder.
   */
  async function snapshotCapture(repo: Repo, req: SnapshotRequest): Promise<Captured> {
    const base = req.changed ? freshOf(repo) : undefined;
    if (!base) return keep(repo, await capture(repo, req.budgetMs, req.hints ?? []), false);
    const scope = relPaths(repo, [...req.changed!, ...(req.hints ?? [])]);
    if (!scope.length) return { tree: base.tree, skipped: base.skipped, partial: false };
    // A few files: their new blobs and the trees above them are written onto the refreshed tree,
    // without reading or writing the index (100 MB at a million files).
    const edited = scope.length <= 500 ? await editTree(repo, base.tree, base.skipped, scope) : undefined;
    if (edited) {
      fresh.set(repo.root, { ...base, tree: edited.tree, skipped: edited.skipped, edited: true });
      return { tree: edited.tree, skipped: edited.skipped, partial: false };
    }
    // Many paths, or a tree edited past the index: one look at the whole folder.
    if (scope.length > 2000 || base.edited) return keep(repo, await capture(repo, req.budgetMs, req.hints ?? []), false);
    return keep(repo, await captureWith(repo, req.budgetMs, req.hints ?? [], repo.index, userRepo(repo.root) !== undefined, { scope }), true, base);
  }

  /**
   * `tree` with the files at `paths` (relative) as they are now: blobs by `hash-object -w`, the
   * trees above them read with one `cat-file --batch` and written as loose objects. Undefined when
   * a path is not a plain case (a folder, a symlink, a submodule, inside a skipped path, a
   * SHA-256 repository): the caller looks with git instead.
   */
  async function editTree(repo: Repo, tree: string, skipped: SkippedPath[], paths: string[]): Promise<{ tree: string; skipped: SkippedPath[] } | undefined> {
    if (tree.length !== 40 || paths.some((p) => p.includes("\n"))) return undefined;
    if (paths.some((p) => skipped.some((k) => p === k.path || p.startsWith(`${k.path}/`)))) return undefined;
    const now = new Map<string, { mode: string; size: number } | null>();
    for (const p of paths) {
      let st;
      try {
        st = lstatSync(join(repo.root, p));
      } catch {
        now.set(p, null);
        continue;
      }
      if (!st.isFile()) return undefined;
      now.set(p, { mode: st.mode & 0o100 ? "100755" : "100644", size: st.size });
    }
    const inTree = new Map<string, string>();
    for (const line of split(await run(repo, ["ls-tree", "-z", "--full-tree", tree, "--", ...paths]))) {
      const mode = line.slice(0, line.indexOf(" "));
      inTree.set(line.slice(line.indexOf("\t") + 1), mode);
    }
    if ([...inTree.values()].some((m) => m !== "100644" && m !== "100755" && m !== "120000")) return undefined;
    // New files git ignores stay out (as a look would leave them); tracked ones are never ignored.
    const fresh = paths.filter((p) => now.get(p) && !inTree.has(p));
    const ignored = fresh.length
      ? new Set(split(await run(repo, ["check-ignore", "--no-index", "-z", "--stdin"], { input: fresh.join("\0") + "\0", okCodes: [1], literal: false })))
      : new Set<string>();
    const newSkipped: SkippedPath[] = [];
    const edits = new Map<string, { mode: string; sha: string } | null>();
    const toHash: string[] = [];
    for (const p of paths) {
      const n = now.get(p);
      if (!n) {
        if (inTree.has(p)) edits.set(p, null);
      } else if (n.size > maxFileBytes) {
        newSkipped.push({ path: p, reason: "large-file", detail: `${(n.size / 1048576).toFixed(1)} MiB` });
        if (inTree.has(p)) edits.set(p, null);
      } else if (!ignored.has(p)) toHash.push(p);
    }
    if (toHash.length) {
      const shas = (await run(repo, ["hash-object", "-w", "--no-filters", "--stdin-paths"], { input: toHash.map((p) => join(repo.root, p)).join("\n") + "\n" })).toString().trim().split("\n");
      if (shas.length !== toHash.length) return undefined;
      toHash.forEach((p, i) => edits.set(p, { mode: now.get(p)!.mode, sha: shas[i]! }));
    }
    // Every folder above an edit, read as it is in the tree (missing: a new folder).
    const dirs = new Set<string>([""]);
    for (const p of edits.keys()) for (let i = p.indexOf("/"); i > 0; i = p.indexOf("/", i + 1)) dirs.add(p.slice(0, i));
    const order = [...dirs];
    const raw = await run(repo, ["cat-file", "--batch"], { input: order.map((d) => (d ? `${tree}:${d}` : tree)).join("\n") + "\n" });
    const entries = new Map<string, Map<string, { mode: string; sha: string }>>();
    let at = 0;
    for (const d of order) {
      const nl = raw.indexOf(10, at);
      const head = raw.subarray(at, nl).toString();
      at = nl + 1;
      const m = /^[0-9a-f]{40} (\w+) (\d+)$/.exec(head);
      const map = new Map<string, { mode: string; sha: string }>();
      if (m) {
        const size = Number(m[2]);
        if (m[1] !== "tree") return undefined; // a file where a folder is needed
        const body = raw.subarray(at, at + size);
        at += size + 1;
        for (let i = 0; i < body.length;) {
          const sp = body.indexOf(32, i);
          const nul = body.indexOf(0, sp);
          map.set(body.subarray(sp + 1, nul).toString(), { mode: body.subarray(i, sp).toString(), sha: body.subarray(nul + 1, nul + 21).toString("hex") });
          i = nul + 21;
        }
      } else if (!head.endsWith(" missing")) return undefined;
      entries.set(d, map);
    }
    const parentOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
    const nameOf = (p: string) => p.slice(p.lastIndexOf("/") + 1);
    for (const [p, e] of edits) {
      const map = entries.get(parentOf(p))!;
      if (e) map.set(nameOf(p), e);
      else map.delete(nameOf(p));
    }
    // Deepest first: each folder written (or dropped when empty) into its parent.
    let root = tree;
    const depth = (d: string) => (d ? d.split("/").length : 0);
    for (const d of order.sort((a, b) => depth(b) - depth(a))) {
      const map = entries.get(d)!;
      const sha = map.size ? writeTree(repo, map) : undefined;
      if (d === "") {
        root = sha ?? writeTree(repo, map);
        continue;
      }
      const parent = entries.get(parentOf(d))!;
      if (sha) parent.set(nameOf(d), { mode: "40000", sha });
      else parent.delete(nameOf(d));
    }
    const changedPaths = new Set(paths);
    return { tree: root, skipped: [...skipped.filter((k) => !changedPaths.has(k.path)), ...newSkipped] };
  }

  /** Writes an object (SHA-1) as a loose object, unless it is there: its name. */
  function writeObject(repo: Repo, object: Buffer): string {
    const sha = createHash("sha1").update(object).digest("hex");
    const file = join(repo.gitDir, "objects", sha.slice(0, 2), sha.slice(2));
    if (!existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.tmp-${process.pid}-${scratchCount++}`;
      writeFileSync(tmp, deflateSync(object));
      renameSync(tmp, file);
    }
    return sha;
  }

  /**
   * The snapshot's commit (`git commit-tree`'s format: tree, parent, author, committer, message)
   * written in process; undefined when the repository is not a SHA-1 one (git writes it then).
   */
  function writeCommit(repo: Repo, tree: string, parent: string | undefined, message: string): string | undefined {
    if (!/^[0-9a-f]{40}$/.test(tree) || (parent !== undefined && !/^[0-9a-f]{40}$/.test(parent))) return undefined;
    const who = `Yoke <checkpoints@yoke.invalid> ${Math.floor(Date.now() / 1000)} +0000`;
    const body = Buffer.from(`tree ${tree}\n${parent ? `parent ${parent}\n` : ""}author ${who}\ncommitter ${who}\n\n${message}`);
    return writeObject(repo, Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]));
  }

  /**
   * `refs/heads/checkpoints` moved from `old` (none: no head yet) to `commit` in process, under
   * git's own lock file (`….lock`, created exclusively: a git process updating it meanwhile waits
   * for it, or it for git). Throws when the head is not `old` (another process moved it); false
   * when this is not the plain case (the lock is held, packed refs, a symbolic ref): git does it.
   */
  function moveHead(repo: Repo, commit: string, old: string | undefined): boolean {
    if (existsSync(join(repo.gitDir, "packed-refs"))) return false;
    const file = join(repo.gitDir, "refs", "heads", "checkpoints");
    const lock = `${file}.lock`;
    let fd: number;
    try {
      fd = openSync(lock, "wx", 0o644);
    } catch {
      return false;
    }
    let done = false;
    try {
      let now: string | undefined;
      try {
        now = readFileSync(file, "utf8").trim();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") return false;
      }
      if (now !== undefined && !/^[0-9a-f]{40,64}$/.test(now)) return false;
      if (now !== old) throw new GitError(`the checkpoints head moved (another process): ${now ?? "none"}, not ${old ?? "none"}`);
      writeSync(fd, `${commit}\n`);
      closeSync(fd);
      fd = -1;
      renameSync(lock, file);
      done = true;
      return true;
    } finally {
      if (fd >= 0) closeSync(fd);
      if (!done) rmSync(lock, { force: true });
    }
  }

  /** Writes a tree object (git's entry order: a folder's name sorts as if it ended in "/") as a loose object. */
  function writeTree(repo: Repo, map: Map<string, { mode: string; sha: string }>): string {
    const key = (name: string, mode: string) => Buffer.from(mode === "40000" ? `${name}/` : name);
    const sorted = [...map].sort(([a, x], [b, y]) => Buffer.compare(key(a, x.mode), key(b, y.mode)));
    const body = Buffer.concat(sorted.flatMap(([name, e]) => [Buffer.from(`${e.mode} ${name}\0`), Buffer.from(e.sha, "hex")]));
    return writeObject(repo, Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]));
  }

  return {
    shadowDir,
    async refresh(root: string, o: { signal?: AbortSignal } = {}): Promise<RefreshResult> {
      const started = Date.now();
      try {
        return await serial(root, async () => {
          const repo = open(root);
          // Off the path of any call: the budget of a look at a git repository, in or out of one.
          const c = keep(repo, await capture(repo, gitBudgetMs, [], repo.index, { signal: o.signal }), false);
          return { complete: !c.partial, durationMs: Date.now() - started };
        });
      } catch (err) {
        fresh.delete(root);
        return { complete: false, durationMs: Date.now() - started, error: err instanceof Error ? err.message : String(err) };
      }
    },
    async snapshot(req: SnapshotRequest): Promise<FolderSnapshot> {
      const started = Date.now();
      try {
        return await serial(req.root, async () => {
          const repo = open(req.root);
          const c = await snapshotCapture(repo, req);
          const message = commitMessage({ partial: c.partial, skipped: c.skipped.map((s) => s.path), preimages: [], absent: [] });
          const chain = async (parent: string | undefined) => {
            // In process when it can be (a later checkpoint whose tree is known costs no git process;
            // each costs 100–500 ms to start on a loaded machine), else by git.
            const made = writeCommit(repo, c.tree, parent, message) ?? (await run(repo, ["commit-tree", c.tree, ...(parent ? ["-p", parent] : [])], { input: message })).toString().trim();
            // With the old value: a head another process moved since is never overwritten.
            if (!moveHead(repo, made, parent)) await run(repo, ["update-ref", "refs/heads/checkpoints", made, ...(parent ? [parent] : [])]);
            return made;
          };
          // The head this process last wrote saves a git call; when another process moved it, read it.
          const known = heads.get(repo.gitDir);
          const commit = await chain(known ?? (await headCommit(repo))).catch(async (err: unknown) => {
            if (!known) throw err;
            return chain(await headCommit(repo));
          });
          heads.set(repo.gitDir, commit);
          return {
            name: req.name,
            root: req.root,
            commit,
            skipped: c.skipped,
            ...(c.partial ? { partial: true, fallback: c.fallback } : {}),
            durationMs: Date.now() - started,
          };
        });
      } catch (err) {
        return { name: req.name, root: req.root, skipped: [], error: err instanceof Error ? err.message : String(err), durationMs: Date.now() - started };
      }
    },
    plan,
    async preimage(root: string, commit: string, paths: readonly string[]): Promise<PreimageResult> {
      checkCommit(commit);
      return serial(root, async () => {
        const repo = open(root);
        const base = await effective(repo, commit);
        const m = await meta(repo, base);
        const done = new Set([...m.preimages, ...m.absent]);
        const rels = relPaths(repo, paths).filter((p) => !done.has(p));
        if (!rels.length) return { recorded: [], absent: [], partial: m.partial };
        const inTree = new Set(split(await run(repo, ["ls-tree", "-z", "--name-only", base, "--", ...rels])));
        const absent: string[] = [];
        let record: string[] = [];
        for (const p of rels) {
          if (inTree.has(p)) continue; // the checkpoint holds it as it was
          if (isFileNow(repo, p)) record.push(p);
          else if (!existsSync(join(repo.root, p))) absent.push(p);
        }
        if (!m.partial && record.length) {
          // A complete checkpoint without a file that exists: one it leaves out (skipped, ignored)
          // needs its pre-image; any other was created after it (a restore deletes it).
          const isSkipped = (p: string) => m.skipped.some((k) => p === k || p.startsWith(`${k}/`));
          const ignored = new Set(split(await run(repo, ["check-ignore", "-z", "--stdin"], { input: record.join("\0") + "\0", okCodes: [1], literal: false })));
          record = record.filter((p) => isSkipped(p) || ignored.has(p));
        }
        if (record.length || absent.length) await amend(repo, commit, base, m, { record, absent, partial: m.partial });
        return { recorded: record, absent, partial: m.partial };
      });
    },
    async complete(root: string, commit: string, budgetMs: number): Promise<PreimageResult> {
      checkCommit(commit);
      return serial(root, async () => {
        const repo = open(root);
        const base = await effective(repo, commit);
        const m = await meta(repo, base);
        if (!m.partial) return { recorded: [], absent: [], partial: false };
        const c = keep(repo, await capture(repo, budgetMs, []), false);
        const done = new Set([...m.preimages, ...m.absent]);
        const raw = split(await diffTrees(repo, ["-r", "-z", "--raw", "--no-renames", "--diff-filter=A", base, c.tree]));
        const info: string[] = [];
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const [, mode, , sha] = raw[i]!.slice(1).split(" ");
          const path = raw[i + 1]!;
          if (mode !== "160000" && !done.has(path)) info.push(`${mode} ${sha}\t${path}`);
        }
        if (info.length || !c.partial) await amend(repo, commit, base, m, { info, partial: c.partial });
        return { recorded: info.map((l) => l.slice(l.indexOf("\t") + 1)), absent: [], partial: c.partial };
      });
    },
    async readFile(root: string, commit: string, path: string): Promise<Uint8Array | undefined> {
      checkCommit(commit);
      if (!path || path.startsWith("/") || path.split("/").some((p) => p === ".." || p === "." || p === "") || path.includes("\0")) throw new Error(`"${path}" is not a path inside the folder`);
      const repo = open(root);
      const source = await effective(repo, commit);
      // `ls-tree` first: a path that was not in the checkpoint (or is a folder) is no error, just absent.
      const entry = (await run(repo, ["ls-tree", "-z", source, "--", path])).toString().split("\0")[0] ?? "";
      const m = /^\d+ blob ([0-9a-f]+)\t/.exec(entry);
      if (!m) return undefined;
      return run(repo, ["cat-file", "blob", m[1]!]);
    },
    restore(root: string, commit: string, opts?: RestoreOptions): Promise<RestoreOutcome> {
      // In the folder's queue: a refresh never looks at files a restore is writing.
      return serial(root, () => restoreNow(root, commit, opts));
    },
  };

  /**
   * Each of `shas` as one `git cat-file --batch` gives it: missing (no header), or its type, its
   * content and whether that content hashes to its name as a blob.
   */
  async function batchObjects(repo: Repo, shas: readonly string[]): Promise<Array<{ missing: true } | { missing: false; body: Buffer; intactBlob: boolean }>> {
    const buf = await run(repo, ["cat-file", "--batch"], { input: shas.join("\n") + "\n" });
    const out: Array<{ missing: true } | { missing: false; body: Buffer; intactBlob: boolean }> = [];
    let at = 0;
    for (const sha of shas) {
      const nl = buf.indexOf(10, at);
      const m = /^(\S+) (\S+) (\d+)$/.exec(buf.subarray(at, nl < 0 ? buf.length : nl).toString("utf8"));
      if (!m) {
        out.push({ missing: true });
        at = nl < 0 ? buf.length : nl + 1;
        continue;
      }
      const size = Number(m[3]);
      const body = buf.subarray(nl + 1, nl + 1 + size);
      at = nl + 1 + size + 1;
      const hash = createHash(sha.length === 64 ? "sha256" : "sha1")
        .update(`${m[2]} ${size}\0`)
        .update(body)
        .digest("hex");
      out.push({ missing: false, body, intactBlob: hash === sha && m[2] === "blob" });
    }
    return out;
  }

  /** The content of each blob of `group` whose object is there and hashes to its name (read with one `git cat-file --batch`). */
  async function verifiedBlobs(repo: Repo, group: ReadonlyArray<{ sha: string }>): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const objects = await batchObjects(
      repo,
      group.map((e) => e.sha),
    );
    group.forEach((e, k) => {
      const o = objects[k]!;
      if (!o.missing && o.intactBlob) out.set(e.sha, Buffer.from(o.body));
    });
    return out;
  }

  /**
   * The entries (`MODE SHA\tPATH`, as update-index --index-info takes them) whose object is missing or
   * whose content does not hash to its name, read with `git cat-file --batch` in bounded groups.
   */
  async function alteredObjects(repo: Repo, info: readonly string[]): Promise<Array<{ path: string; why: string }>> {
    const entries = info
      .map((line) => /^(\d+) ([0-9a-f]{40}|[0-9a-f]{64})\t(.*)$/s.exec(line))
      .filter((m): m is RegExpExecArray => !!m && m[1] !== "160000")
      .map((m) => ({ sha: m[2]!, path: m[3]! }));
    const out: Array<{ path: string; why: string }> = [];
    for (let i = 0; i < entries.length; i += 256) {
      const group = entries.slice(i, i + 256);
      const objects = await batchObjects(
        repo,
        group.map((e) => e.sha),
      );
      group.forEach((e, k) => {
        const o = objects[k]!;
        if (o.missing) out.push({ path: e.path, why: `its object ${e.sha.slice(0, 12)} is missing` });
        else if (!o.intactBlob) out.push({ path: e.path, why: `the object ${e.sha.slice(0, 12)} of ${e.path} now holds other content` });
      });
    }
    return out;
  }

  async function restoreNow(root: string, commit: string, opts?: RestoreOptions): Promise<RestoreOutcome> {
    const p = await planWith(root, commit, opts, true);
    const repo = open(root);
    // Before anything changes: every blob the restore writes must still be the content its name is the
    // hash of. Blobs of files unchanged since the user's last `git add` live in the repository's own
    // .git/objects (read through alternates), which commands may write; git never checks a hash
    // when it reads, so a rewritten object would be written as the "restored" file.
    const altered = await alteredObjects(repo, p.writeInfo);
    if (altered.length)
      throw new GitError(
        `Nothing was restored: the saved content of ${altered
          .slice(0, 5)
          .map((a) => a.path)
          .join(", ")}${altered.length > 5 ? ` and ${altered.length - 5} more` : ""} no longer matches its hash — ${altered[0]!.why}. ` +
          "Something rewrote the repository's object files after the checkpoint; check the files with `git fsck` before trusting them.",
      );
    // The files change now: no process may take its index for the folder as it is (bumped again when done).
    const bump = () => writeFileSync(generation(repo), `${process.pid}-${Date.now()}-${Math.random()}`);
    fresh.delete(root);
    bump();
    const deletes = p.changes.filter((c) => c.action === "delete").map((c) => c.path);
    // Deleted first, so a file that became a folder (or back) can be written again. Each file, and
    // each folder the deletes empty, is removed by its name inside its checked folder's descriptor
    // (src/node/safe-open.ts): a folder on the way that is — or is swapped for, after any check —
    // a symbolic link is never followed (a command exchanging `d` with a link to `.git` in a loop
    // made the restore delete `.git/config`, red team 25).
    const safe = createSafeFiles([root]);
    for (const path of deletes) {
      try {
        if (await safe.remove(join(root, path))) await removeEmptyParents(safe, root, dirname(path));
      } catch {
        continue; // a link on the way, a folder where the file was: left as it is
      }
    }
    // Written the same way (session 18, door18b): each file renamed into place inside its checked
    // folder's descriptor, never through a link. git checkout-index checks a path's folders and then
    // opens the file by name, so a command exchanging `d` with a link to `.git` in a loop made a
    // restore of `d/hooks/pre-commit` write an executable `.git/hooks/pre-commit` on the host (21st
    // try, plain git; door18b-restore-write-race.test.ts through the CLI). The content is the blob's,
    // read with `git cat-file --batch` and hashed again right before it is written.
    const notWritten: string[] = [];
    let written = 0;
    try {
      const entries = p.writeInfo.map((line) => /^(\d+) ([0-9a-f]{40}|[0-9a-f]{64})\t(.*)$/s.exec(line)).filter((m): m is RegExpExecArray => !!m);
      for (let i = 0; i < entries.length; i += 64) {
        const group = entries.slice(i, i + 64).map((m) => ({ mode: m[1]!, sha: m[2]!, path: m[3]! }));
        const blobs = await verifiedBlobs(repo, group);
        for (const e of group) {
          const data = blobs.get(e.sha);
          const abs = join(root, e.path);
          try {
            if (!data) throw new Error("its saved content no longer matches its hash");
            if (e.mode === "120000") await safe.symlink(abs, data.toString("utf8"));
            else {
              const mode =
                e.mode === "100755" ? (old: number | undefined) => (old ?? 0o644) | (((old ?? 0o644) & 0o444) >> 2) : (old: number | undefined) => (old === undefined ? undefined : old & ~0o111);
              // A link where the file was (the file tools refuse to write through one): the link itself is removed, by its name in the checked folder.
              await safe.write(abs, data, mode).catch(async (err: unknown) => {
                if (!(err instanceof PathChangedError) || !(await safe.remove(abs))) throw err;
                await safe.write(abs, data, mode);
              });
            }
            written++;
          } catch {
            notWritten.push(e.path); // a link on the way, a folder where the file was: left as it is
          }
        }
      }
    } finally {
      bump();
    }
    return { root, written, deleted: deletes.length, kept: [...p.kept, ...notWritten] };
  }
}

/**
 * The folder's own git repository (a `.git` folder, or the `.git` file of a worktree), read as files only.
 *
 * Seeding guard: the workspace's content may be a hostile repository's (a tarball, a copied
 * folder), so a `.git` file or a `commondir` that names a folder inside the workspace itself (other
 * than its own `.git` folder) is not a repository of the user's and is not used; nor is an index
 * that is not a regular file (a FIFO would block the copy forever, a device would fill the disk),
 * objects that are not a folder, or excludes that are not a regular file.
 */
function userRepo(root: string): { objects: string; index: string; common: string } | undefined {
  const dotGit = join(root, ".git");
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return undefined;
  }
  const ownGit = join(realRoot, ".git");
  /** A folder the workspace holds (not its own .git folder): the attacker's, not a repository of the user's. */
  const planted = (p: string) => {
    let real: string;
    try {
      real = realpathSync(p);
    } catch {
      return true;
    }
    const inside = (a: string, b: string) => a === b || a.startsWith(b + sep);
    return inside(real, realRoot) && !inside(real, ownGit);
  };
  let gitDir: string;
  try {
    const st = lstatSync(dotGit);
    if (st.isDirectory()) gitDir = dotGit;
    else if (st.isFile()) {
      const path = parseGitfile(readFileSync(dotGit));
      if (path === undefined) return undefined;
      gitDir = resolve(root, path);
      if (planted(gitDir)) return undefined;
    } else return undefined;
  } catch {
    return undefined;
  }
  let common = gitDir;
  try {
    common = resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim());
    if (planted(common) && !(gitDir === dotGit && realpathSync(common) === ownGit)) return undefined;
  } catch {
    /* not a linked worktree */
  }
  const objects = join(common, "objects");
  const isKind = (p: string, kind: "file" | "dir") => {
    try {
      const st = lstatSync(p);
      return kind === "file" ? st.isFile() : st.isDirectory();
    } catch {
      return false;
    }
  };
  if (!isKind(objects, "dir")) return undefined;
  const index = join(gitDir, "index");
  // An index that is there but not a regular file is not used; one that is absent is (nothing is copied).
  if (existsSync(index) && !isKind(index, "file")) return undefined;
  const exclude = join(common, "info", "exclude");
  if (existsSync(exclude) && !isKind(exclude, "file")) return undefined;
  return { objects, index, common };
}

/** The paths `.gitmodules` names (read as a file). */
function submodulePaths(root: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(root, ".gitmodules"), "utf8");
  } catch {
    return [];
  }
  return [...text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)].map((m) => m[1]!.replace(/^"(.*)"$/, "$1"));
}

/**
 * The seeding copy of the user's index, through one descriptor opened without following a link and
 * without blocking (a FIFO or device swapped in by a running command after the look is refused, not
 * waited on), checked to be a regular file; the copy keeps the original's modification time.
 */
/**
 * Seeds a private index from the user's: opened without following a link or blocking (a planted
 * FIFO or link fails here), and only a regular file is copied, with its modification time.
 */
async function seedIndex(from: string, to: string): Promise<void> {
  const handle = await openFile(from, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new Error(`${from} is not a regular file`);
    // Asynchronous: a million-file index is ~100 MB, and the extension host's event loop must not wait for it.
    await writeFile(to, await handle.readFile());
    utimesSync(to, st.atime, st.mtime);
  } finally {
    await handle.close();
  }
}

/**
 * A copy of an index with the original's modification time: git judges racily clean entries
 * against the index file's mtime, and a fresh copy would make a file changed within the same
 * second look unchanged.
 */
async function copyWithTime(from: string, to: string): Promise<void> {
  // Asynchronous: a million-file index is ~100 MB, and the extension host's event loop must not wait for it.
  // Its time from before the copy: an index rewritten meanwhile only makes more entries look racy (checked by content).
  const st = statSync(from);
  await copyFile(from, to);
  utimesSync(to, st.atime, st.mtime);
}

/** Removes folders a restore emptied, up to (not including) the root, each inside its checked parent's descriptor. */
async function removeEmptyParents(safe: SafeFiles, root: string, rel: string): Promise<void> {
  let dir = rel;
  while (dir && dir !== ".") {
    try {
      if (!(await safe.removeEmptyFolder(join(root, dir)))) return;
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}
