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
// The seeding guard (userRepo, seedIndex) opens the user's index by descriptor.
import { closeSync, constants as fsConstants, fstatSync, openSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  CHECKPOINT_DEFAULTS,
  type CheckpointStore,
  type FileChange,
  type FolderSnapshot,
  type PreimageResult,
  type RestoreOptions,
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
  const gitBin = opts.git ?? "git";

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
  async function capture(repo: Repo, budgetMs: number, hints: readonly string[], index = repo.index): Promise<Captured> {
    const user = userRepo(repo.root);
    if (user && !existsSync(index) && existsSync(user.index)) {
      try {
        seedIndex(user.index, index);
        // Submodules are other repositories: never snapshotted as gitlinks (the walk lists them as skipped).
        const subs = submodulePaths(repo.root);
        if (subs.length) await run(repo, ["update-index", "-z", "--force-remove", "--stdin"], { input: subs.join("\0") + "\0", index });
        return await captureWith(repo, budgetMs, hints, index, true);
      } catch {
        // An index this git cannot use from another repository (a split index, a newer format):
        // start from an empty one (every file hashed once).
        rmSync(index, { force: true });
        rmSync(`${index}.lock`, { force: true });
      }
    }
    return captureWith(repo, budgetMs, hints, index, user !== undefined);
  }

  async function captureWith(repo: Repo, budgetMs: number, hints: readonly string[], index: string, inGit: boolean): Promise<Captured> {
    const budget = inGit ? Math.max(budgetMs, gitBudgetMs) : budgetMs;
    const deadline = Date.now() + Math.max(1, budget);
    const left = () => AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const skipped: SkippedPath[] = [];
    // One pass of git over the folder: the files in the index whose stat data says they changed
    // (or are gone) — only those are hashed, and always recorded — and the new files git does not
    // ignore. When the walk does not finish within the budget, the changed ones are still found.
    let modified: string[] = [];
    const untracked: string[] = [];
    let walked = true;
    try {
      for (const entry of split(await run(repo, ["ls-files", "-z", "-t", "--modified", "--others", "--exclude-standard"], { signal: left(), index }))) {
        if (entry.startsWith("? ")) untracked.push(entry.slice(2));
        else modified.push(entry.slice(2));
      }
    } catch (err) {
      if (!isAbort(err) && Date.now() < deadline) throw err;
      walked = false;
      modified = split(await run(repo, ["ls-files", "-z", "--modified"], { index }));
    }
    // The files the agent wrote since the last snapshot, unless git ignores them (an ignored file
    // in one snapshot and not the one before would read as "created since", and be deleted).
    const hinted = relPaths(repo, hints);
    const ignored = hinted.length ? new Set(split(await run(repo, ["check-ignore", "-z", "--stdin"], { input: hinted.join("\0") + "\0", index, okCodes: [1], literal: false }))) : new Set<string>();
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
    if (remove.length) await run(repo, ["update-index", "-z", "--force-remove", "--stdin"], { input: remove.join("\0") + "\0", index });
    const add = (paths: string[]) => run(repo, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], { input: paths.join("\0") + "\0", index });
    if (must.length) await add(must);
    // New files in growing chunks, while the budget lasts: each chunk is kept in the index.
    let recorded = 0;
    for (let chunk = CHUNK; recorded < more.length && Date.now() < deadline; chunk = Math.min(chunk * 2, 50_000)) {
      const part = more.slice(recorded, recorded + chunk);
      await add(part);
      recorded += part.length;
    }
    const tree = (await run(repo, ["write-tree"], { index })).toString().trim();
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

  async function planWith(root: string, commit: string, opts: RestoreOptions = {}): Promise<Planned> {
    const repo = open(root);
    const source = await effective(repo, commit);
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
        if (existsSync(repo.index)) copyWithTime(repo.index, scratch);
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
      const raw = split(await run(repo, ["diff-tree", "-r", "-z", "--raw", "--no-renames", nowTree, source]));
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

  return {
    shadowDir,
    async snapshot(req: SnapshotRequest): Promise<FolderSnapshot> {
      const started = Date.now();
      try {
        return await serial(req.root, async () => {
          const repo = open(req.root);
          const c = await capture(repo, req.budgetMs, req.hints ?? []);
          const parent = await headCommit(repo);
          const message = commitMessage({ partial: c.partial, skipped: c.skipped.map((s) => s.path), preimages: [], absent: [] });
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
        const c = await capture(repo, budgetMs, []);
        const done = new Set([...m.preimages, ...m.absent]);
        const raw = split(await run(repo, ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--diff-filter=A", base, c.tree]));
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
    async restore(root: string, commit: string, opts?: RestoreOptions): Promise<RestoreOutcome> {
      const p = await planWith(root, commit, opts);
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
        // From an index of only the files to write, as the checkpoint has them (no stat data: every
        // file is written, never judged up to date by a timestamp); the checkpoints' own index is
        // left as it is, and the cost is that of the files written, not of the tree.
        const tmp = join(repo.gitDir, `yoke-index-restore-${process.pid}-${scratchCount++}`);
        try {
          await run(repo, ["update-index", "-z", "--index-info"], { index: tmp, input: p.writeInfo.join("\0") + "\0" });
          await run(repo, ["checkout-index", "-f", "-z", "--stdin"], { index: tmp, input: writes.join("\0") + "\0" });
        } finally {
          rmSync(tmp, { force: true });
          rmSync(`${tmp}.lock`, { force: true });
        }
      }
      return { root, written: writes.length, deleted: deletes.length, kept: p.kept };
    },
  };
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
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
      if (!m) return undefined;
      gitDir = resolve(root, m[1]!);
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
function seedIndex(from: string, to: string): void {
  const fd = openSync(from, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${from} is not a regular file`);
    writeFileSync(to, readFileSync(fd));
    utimesSync(to, st.atime, st.mtime);
  } finally {
    closeSync(fd);
  }
}

/**
 * A copy of an index with the original's modification time: git judges racily clean entries
 * against the index file's mtime, and a fresh copy would make a file changed within the same
 * second look unchanged.
 */
function copyWithTime(from: string, to: string): void {
  copyFileSync(from, to);
  const st = statSync(from);
  utimesSync(to, st.atime, st.mtime);
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
