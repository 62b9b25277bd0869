/**
 * Closes most of the new-repository window (issue 18; docs/security.md "A repository a command
 * creates"): the walk that finds repositories a command created runs at least 1 s apart, and in
 * between a host program that runs git there (VS Code's git extension opens a new `.git` within
 * about a second) could run what its configuration or hooks name, and one an earlier command
 * created was guarded by nothing else in the next. This watch (inotify through fs.watch) looks at
 * the git folder and `hooks/` of every repository the session knows below a writable folder, and at
 * the folders of each writable folder — the first WATCH_MAX_FOLDERS of them,
 * breadth first, and every folder created while the command runs — and as soon as a `.git`, a
 * `HEAD` or a `commondir` appears in one, it checks that repository alone (checkRepositoryAt, the
 * walk's own rules) and watches its git folder and `hooks/` — for a `.git` file, the folder it
 * names (or, not made yet, the nearest folder above it: follow) — so a configuration or hook written
 * a moment later is checked as it lands. What it finds goes to quarantine at once. Past the cap
 * (deep, large trees), in folders fs.watch cannot watch, and for a change it does not report, the
 * 1 s walk and the check when the command ends remain.
 */
import { lstatSync, readdirSync, readFileSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, join } from "node:path";
import { checkRepositoryAt, type RepositoryFinding } from "./new-repositories";

/** Folders watched per writable folder when the command starts, breadth first (each costs an inotify watch and a directory read). */
export const WATCH_MAX_FOLDERS = 512;
/** Folders set up per turn of the event loop. */
const SETUP_CHUNK = 32;
/** Folders not descended into when the command starts: the workspace's own git folder and package trees (a folder the command creates there is still watched when its parent is). */
const SKIP = new Set([".git", "node_modules"]);
/** Folders watched in all per command (those the command creates included). */
const WATCH_MAX_TOTAL = 8192;
/** Yoke's share of the user's inotify watches (`max_user_watches`), for every command of this process together. */
export const WATCH_SHARE = 8;

/**
 * How many inotify watches this process's repository watches may hold together: an eighth of
 * /proc/sys/fs/inotify/max_user_watches (the kernel's limit for all of the user's programs — VS
 * Code's own file watcher, language servers — whose old default was 8,192). Past it the 1 s walk and
 * the check when the command ends remain (sbx18: one command could take 8,192 watches, all of the
 * old default). Read each time a command starts (the limit can change).
 */
export function inotifyWatchBudget(file = "/proc/sys/fs/inotify/max_user_watches"): number {
  try {
    const n = Number(readFileSync(file, "utf8").trim());
    if (Number.isInteger(n) && n > 0) return Math.floor(n / WATCH_SHARE);
  } catch {
    // Not Linux, or /proc not readable: fs.watch is not inotify there, or nothing tells the limit.
  }
  return WATCH_MAX_TOTAL;
}

/** Watches held by every RepositoryWatch of this process. */
let held = 0;
/** Folders climbed at most from a git folder not made yet to the nearest one that exists. */
const FOLLOW_MAX_UP = 64;
/** Repositories per command whose `.git` file's folder is followed. */
export const FOLLOW_MAX_HOLDERS = 256;
/** Names that make a folder a repository (a `.git`) or a bare layout. */
const MARKERS = new Set([".git", "HEAD", "commondir"]);

export interface RepositoryWatchTarget {
  root: string;
  since: number;
  known: ReadonlyMap<string, number>;
  approved: readonly string[];
}

export class RepositoryWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  /** Git folders `.git` files name (or the nearest folder above one not made yet), and the repositories to check again when they change. */
  private readonly followers = new Map<string, FSWatcher>();
  private readonly followed = new Map<string, Map<string, RepositoryWatchTarget>>();
  private readonly followedHolders = new Set<string>();
  private readonly pending = new Map<string, RepositoryWatchTarget>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** The process's share of inotify watches, when this command started. */
  private readonly budget = inotifyWatchBudget();

  constructor(
    private readonly targets: readonly RepositoryWatchTarget[],
    private readonly onFindings: (t: RepositoryWatchTarget, findings: RepositoryFinding[]) => void,
  ) {
    // Set up a few folders per turn of the event loop: the command starts at once, the host thread
    // is not held (about 0.3 ms per folder on a loaded 2-core machine).
    const work: Array<() => void> = [];
    for (const t of targets) {
      // Repositories the session knows below it (an earlier command's included): their git folder and
      // hooks are watched first, so a hook or configuration written there is checked as it lands.
      // (Not read-only mounts: a mount point inside a folder makes `rm -rf` of that folder fail.)
      for (const marker of t.known.keys()) {
        if (basename(marker) !== ".git" || dirname(marker) === t.root) continue;
        work.push(() => {
          if (this.add(marker, t)) this.add(join(marker, "hooks"), t);
        });
      }
      const queue = [t.root];
      let n = 0;
      const step = () => {
        for (let i = 0; i < SETUP_CHUNK && queue.length && n < WATCH_MAX_FOLDERS; i++) {
          const dir = queue.shift()!;
          if (!this.add(dir, t)) continue;
          n++;
          for (const e of entries(dir)) if (e.dir && !SKIP.has(e.name)) queue.push(join(dir, e.name));
        }
        if (queue.length && n < WATCH_MAX_FOLDERS) work.push(step);
      };
      work.push(step);
    }
    const run = () => {
      if (this.closed) return;
      const next = work.shift();
      if (!next) return;
      next();
      this.setup = setImmediate(run);
    };
    run();
  }

  private setup: ReturnType<typeof setImmediate> | undefined;

  /** Watches `dir` for `t`; false when it cannot. */
  private add(dir: string, t: RepositoryWatchTarget): boolean {
    if (this.closed || this.watchers.has(dir) || this.full()) return this.watchers.has(dir);
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => this.event(dir, name ? String(name) : undefined, t));
      w.on("error", () => undefined);
      this.watchers.set(dir, w);
      held++;
      return true;
    } catch {
      return false;
    }
  }

  private event(dir: string, name: string | undefined, t: RepositoryWatchTarget): void {
    if (this.closed) return;
    // Inside a git folder we watch (`x/.git`, `x/.git/hooks`): that repository changed.
    const inGit = basename(dir) === ".git" ? dirname(dir) : basename(dir) === "hooks" && basename(dirname(dir)) === ".git" ? dirname(dirname(dir)) : undefined;
    if (inGit) {
      // `hooks/` made after the watch on `.git` was set (git init copies its templates after making .git).
      if (basename(dir) === ".git" && (name === "hooks" || name === undefined)) this.add(join(dir, "hooks"), t);
      return this.schedule(inGit, t);
    }
    if (!name) return this.schedule(dir, t);
    const p = join(dir, name);
    if (name === ".git") {
      this.add(p, t);
      this.add(join(p, "hooks"), t);
      return this.schedule(dir, t);
    }
    if (MARKERS.has(name)) return this.schedule(dir, t);
    // Past the cap nothing more is watched: nor walked (a prepared tree moved into place is not read on the host thread).
    if (this.full()) return;
    // A folder the command creates: watched too (a repository is usually made in a new folder: `git init x`, `git clone u x`).
    // One lstat, not a read of the parent: reading it on every event cost O(n²) on the host thread
    // (red18g: 2,000 folders made in one folder held the event loop 6.1 s).
    if (isDir(p)) {
      this.add(p, t);
      // What it already holds by the time the watch is on (`mkdir -p a/b && git init a/b`).
      for (const e of entries(p)) if (e.dir) this.event(p, e.name, t);
      if (entries(p).some((e) => e.name === ".git" || e.name === "HEAD")) this.schedule(p, t);
    }
  }

  private schedule(holder: string, t: RepositoryWatchTarget): void {
    if (holder === t.root) return;
    this.pending.set(holder, t);
    this.timer ??= setTimeout(() => this.flush(), 10);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [holder, t] of batch) {
      const findings = checkRepositoryAt(t.root, holder, t.since, t.known, t.approved, { follow: (gitDir) => this.follow(gitDir, holder, t) });
      if (findings.length) this.onFindings(t, findings);
    }
  }

  /**
   * The git folder a `.git` file at `holder` names (WhileRunning, new-repositories.ts): watched with
   * its `hooks/`, and when it does not exist yet (git clone --separate-git-dir writes the `.git` file
   * first), the nearest folder above it that does: any change there checks `holder` again.
   */
  private follow(gitDir: string, holder: string, t: RepositoryWatchTarget): void {
    // Bounded: each change in a followed folder checks its repositories again (a command making
    // thousands of `.git` files naming nothing would otherwise cost the host thread a check of each
    // on every change). Past the bound, the walks and the check when the command ends remain.
    if (!this.followedHolders.has(holder) && this.followedHolders.size >= FOLLOW_MAX_HOLDERS) return;
    let dir = gitDir;
    // A folder not made yet: the nearest one above it inside the writable folder (outside it the
    // command cannot make it; the walks and the end check look at it there).
    if (!isDir(dir)) {
      if (!dir.startsWith(t.root + "/")) return;
      for (let i = 0; i < FOLLOW_MAX_UP && !isDir(dir) && dir.startsWith(t.root + "/"); i++) dir = dirname(dir);
    }
    if (!isDir(dir) || dirname(dir) === dir) return;
    this.followedHolders.add(holder);
    const dirs = dir === gitDir && isDir(join(dir, "hooks")) ? [dir, join(dir, "hooks")] : [dir];
    for (const d of dirs) {
      let holders = this.followed.get(d);
      if (!holders) {
        if (this.closed || this.full()) return;
        const mine = new Map<string, RepositoryWatchTarget>();
        try {
          const w = watch(d, { persistent: false }, () => {
            if (this.closed) return;
            for (const [h, ht] of mine) this.schedule(h, ht);
          });
          w.on("error", () => undefined);
          this.followers.set(d, w);
          held++;
        } catch {
          continue;
        }
        holders = mine;
        this.followed.set(d, holders);
      }
      holders.set(holder, t);
    }
  }

  /** No more watches: this command's cap, or the process's share of the user's inotify watches. */
  private full(): boolean {
    return this.watchers.size + this.followers.size >= WATCH_MAX_TOTAL || held >= this.budget;
  }

  /** How many repositories' `.git`-named folders it follows now. */
  get following(): number {
    return this.followedHolders.size;
  }

  /** How many folders it watches now. */
  get watching(): number {
    return this.watchers.size;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.setup) clearImmediate(this.setup);
    for (const w of [...this.watchers.values(), ...this.followers.values()]) w.close();
    held -= this.watchers.size + this.followers.size;
    this.watchers.clear();
    this.followers.clear();
    this.followed.clear();
    this.followedHolders.clear();
  }
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function entries(dir: string): Array<{ name: string; dir: boolean }> {
  try {
    return readdirSync(dir, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}
