/**
 * Protected paths that did not exist when a command started cannot be mounted read-only without
 * creating them in the user's folder. Instead they are guarded: while the command runs, the
 * folders that would hold them are watched (inotify through fs.watch), and when it ends every
 * guard is checked again. Whatever appeared at a guarded path (a `.vscode` folder, a
 * `.git/hooks/pre-commit`, a symbolic link put in place of one) is moved to the session's
 * quarantine folder, a replaced symbolic link is put back, and the model is told.
 */
import {
  chmodSync,
  closeSync,
  constants as C,
  cpSync,
  existsSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  watch,
  type FSWatcher,
} from "node:fs";
import { dirname, join } from "node:path";
import type { QuarantinedPath } from "../../core/commands/types";
import { alteredObjectFiles } from "./git-objects";
import { rememberRepositories, scanNewRepositories, type WhileRunning } from "./new-repositories";
import { replaceLines, stripNewReplaceLines } from "./packed-refs";
import { gitConfigProblems, publishGitConfigCopy, restoreGitConfig } from "./git-config-guard";
import { falseShallowLines, stripShallowLines } from "./shallow";
import type { GuardedPath } from "./sandbox/types";
import { pathStamp } from "./path-stamp";
import { namedLaterFindings } from "./named-later";

function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Has the guarded path changed from what it was when the command started? */
export function guardTripped(g: GuardedPath): boolean {
  if (g.before.kind === "none") return lexists(g.path);
  if (g.before.kind === "objects") return alteredObjectFiles(g.path, g.before.files, g.before.since).length > 0;
  if (g.before.kind === "shallow") return falseShallowLines(g.path, g.before.lines).length > 0;
  if (g.before.kind === "packed-refs") {
    const before = g.before.replaceLines;
    return replaceLines(g.path).some((l) => !before.includes(l));
  }
  if (g.before.kind === "entries") return folderChanges(g).length > 0;
  if (g.before.kind === "git-config") return gitConfigProblems(g.path, g.before.file, g.before.snapshot).length > 0;
  // The command never writes the file itself (a read-only mount point): its copy is checked when it ends.
  if (g.before.kind === "git-config-copy") return false;
  if (g.before.kind === "references") return namedLaterFindings(g.before, g.path).length > 0;
  if (g.before.kind === "repositories") return scanNewRepositories(g.path, g.before.since, g.before.known, g.before.approved).findings.length > 0;
  if (g.before.kind === "stamp") {
    const now = pathStamp(g.path);
    return now !== "-" && now !== g.before.stamp;
  }
  try {
    const st = lstatSync(g.path);
    return !st.isSymbolicLink() || readlinkSync(g.path) !== g.before.target;
  } catch {
    // The link was removed: nothing was put there (yet); put it back.
    return true;
  }
}

function freeName(p: string): string {
  if (!lexists(p)) return p;
  for (let i = 2; ; i++) if (!lexists(`${p}.${i}`)) return `${p}.${i}`;
}

/** Of a folder guard: the entries that appeared and are not accepted, and the links that were changed or removed. */
function folderChanges(g: GuardedPath): Array<{ name: string; link?: string }> {
  if (g.before.kind !== "entries") return [];
  const before = g.before;
  let now: string[];
  try {
    now = readdirSync(g.path);
  } catch {
    return [];
  }
  const out: Array<{ name: string; link?: string }> = [];
  for (const name of now) {
    if (!before.names.includes(name) && !before.accept(name)) out.push({ name });
    // An accepted name that is now a link it was not (`~/.bash_history -> .bashrc`), a FIFO, a socket or a device (red team T).
    else if (before.plainOnly?.(name) && !before.links?.has(name) && !plainEntry(join(g.path, name))) out.push({ name });
  }
  for (const [name, target] of before.links ?? []) {
    let same: boolean;
    try {
      same = lstatSync(join(g.path, name)).isSymbolicLink() && readlinkSync(join(g.path, name)) === target;
    } catch {
      same = false;
    }
    if (!same) out.push({ name, link: target });
  }
  return out;
}

/** A regular file or a folder (not a link, FIFO, socket or device); gone counts as plain. */
function plainEntry(p: string): boolean {
  try {
    const st = lstatSync(p);
    return st.isFile() || st.isDirectory();
  } catch {
    return true;
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Linux's O_PATH (not in Node's constants): a descriptor naming an inode, opened without any permission on it. */
const O_PATH = 0o10000000;
const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");
const UNLOCK_DEPTH = 128;

/**
 * Gives back write (and search) permission, for its owner, to every folder from `p` down: a
 * command may have made what it created read-only (`chmod 555 .vscode`) so that it cannot be
 * moved. The command may still be running and swapping names (a folder replaced by a link to a
 * file of the user's between a look and a chmod), so nothing is changed by name: each folder is
 * opened without following a link (O_PATH|O_NOFOLLOW|O_DIRECTORY, relative to its parent's
 * descriptor through /proc/self/fd), and the chmod goes to that very inode. The mode given is
 * 0700, never bits taken from the command's folder (no setuid, setgid or sticky bit survives).
 * Only folders this process owns (or any, as root) are changed; nothing outside `p` is.
 */
export function unlockTree(p: string, seam?: UnlockSeam): void {
  if (!PROC_FD) return unlockByName(p, 0);
  let fd: number;
  try {
    fd = openSync(p, O_PATH | C.O_NOFOLLOW | C.O_DIRECTORY);
  } catch {
    return; // gone, a link, or not a folder: nothing to unlock
  }
  try {
    unlockAt(fd, 0, p, seam);
  } finally {
    closeSync(fd);
  }
}

/** For tests: called between looking at a folder and changing its mode (where a racing command would swap the name). */
export interface UnlockSeam {
  beforeChange?(path: string): void;
}

function mayChange(st: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || uid === 0 || st.uid === uid) && (st.mode & 0o700) !== 0o700;
}

function unlockAt(fd: number, depth: number, path: string, seam?: UnlockSeam): void {
  const self = `/proc/self/fd/${fd}`;
  try {
    const st = fstatSync(fd);
    seam?.beforeChange?.(path);
    // The magic link names the inode the descriptor holds: chmod acts on it, whatever is at the name now.
    if (mayChange(st)) chmodSync(self, 0o700);
  } catch {
    // not ours after all: the move reports it
  }
  if (depth >= UNLOCK_DEPTH) return;
  let names: string[];
  try {
    names = readdirSync(self);
  } catch {
    return;
  }
  for (const n of names) {
    let child: number;
    try {
      child = openSync(`${self}/${n}`, O_PATH | C.O_NOFOLLOW | C.O_DIRECTORY);
    } catch {
      continue; // a file or a link: nothing to unlock
    }
    try {
      unlockAt(child, depth + 1, join(path, n), seam);
    } finally {
      closeSync(child);
    }
  }
}

/** Without /proc/self/fd (macOS): by name, a folder that is not a link, mode 0700 only. */
function unlockByName(p: string, depth: number): void {
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  if (mayChange(st)) {
    try {
      chmodSync(p, 0o700);
    } catch {
      // not ours after all: the move reports it
    }
  }
  if (depth >= UNLOCK_DEPTH) return;
  let names: string[];
  try {
    names = readdirSync(p);
  } catch {
    return;
  }
  for (const n of names) unlockByName(join(p, n), depth + 1);
}

/**
 * What one command's quarantine keeps: a command that creates a protected path again and again
 * (a loop racing the watch) would otherwise fill the disk with copies. Past these, what appears
 * is removed from the workspace instead of kept, and said so.
 */
export const QUARANTINE_MAX_KEPT = 20;
export const QUARANTINE_MAX_BYTES = 64 * 1024 * 1024;
const SIZE_WALK_MAX = 10_000;
const kept = new WeakMap<Set<string>, { count: number; bytes: number }>();

/** Bytes under `p` (links not followed); Infinity past SIZE_WALK_MAX entries. */
function treeBytes(p: string): number {
  let total = 0;
  let seen = 0;
  const walk = (q: string) => {
    if (++seen > SIZE_WALK_MAX) throw new RangeError("too many entries");
    const st = lstatSync(q);
    total += st.isDirectory() ? 4096 : st.size;
    if (st.isDirectory()) for (const n of readdirSync(q)) walk(join(q, n));
  };
  try {
    walk(p);
  } catch (err) {
    if (err instanceof RangeError) return Infinity;
  }
  return total;
}

/** Removes `p` (made by the command) from the workspace, unlocking read-only folders first. */
function removeMade(p: string): void {
  try {
    rmSync(p, { recursive: true, force: true });
  } catch {
    unlockTree(p);
    rmSync(p, { recursive: true, force: true });
  }
  if (lexists(p)) throw new Error("it could not be removed from the workspace");
}

/** Moves `from` to `to` (same file system: a rename; else a copy that keeps symbolic links as they are, then a removal). */
function moveAside(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
    return;
  } catch (err) {
    if (errno(err) === "EACCES" || errno(err) === "EPERM") {
      // A folder the command made read-only (moving a folder to another parent writes its `..`).
      unlockTree(from);
      try {
        renameSync(from, to);
        return;
      } catch (again) {
        if (errno(again) !== "EXDEV") throw again;
      }
    } else if (errno(err) !== "EXDEV") throw err;
  }
  unlockTree(from);
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  rmSync(from, { recursive: true, force: true });
  // The copy is in quarantine; a removal that left something behind is a failure to report.
  if (lexists(from)) throw new Error(`it was copied to ${to}, but it could not be removed from the workspace`);
}

/**
 * Checks the guards of a command and quarantines what tripped. `dir` is this command's
 * quarantine folder. Returns what was moved (and restored).
 */
export function sweepGuards(guards: readonly GuardedPath[], dir: string, already: Set<string>, final = true, repositoriesNow = false): QuarantinedPath[] {
  const out: QuarantinedPath[] = [];
  for (const g of guards) {
    if (g.before.kind === "shallow") {
      if (!final) continue;
      // A link put in its place (git would read the file it names): moved out like any protected path.
      if (isLink(g.path)) {
        out.push(...sweepOne({ ...g, before: { kind: "none" } }, dir, already));
        continue;
      }
      try {
        const lines = falseShallowLines(g.path, g.before.lines);
        const keptAt = stripShallowLines(g.path, lines, dir);
        if (keptAt) out.push({ path: g.path, root: g.root, why: `${g.why} (${lines.join(", ")} taken out)`, movedTo: keptAt });
      } catch (err) {
        out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message });
      }
      continue;
    }
    if (g.before.kind === "packed-refs") {
      if (!final) continue;
      // A link put in its place (git would read the refs of the file it names): moved out like any protected path.
      if (isLink(g.path)) {
        out.push(...sweepOne({ ...g, before: { kind: "none" } }, dir, already));
        continue;
      }
      try {
        const hit = stripNewReplaceLines(g.path, g.before.replaceLines, dir);
        if (hit) out.push({ path: g.path, root: g.root, why: `${g.why} (the line${hit.removed.length > 1 ? "s" : ""} ${hit.removed.join(", ")} taken out)`, movedTo: hit.keptAt });
      } catch (err) {
        out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message });
      }
      continue;
    }
    if (g.before.kind === "git-config") {
      // While the command runs (the user's git, VS Code's among them, reads .git/config on the host) and when it ends.
      const problems = gitConfigProblems(g.path, g.before.file, g.before.snapshot);
      if (!problems.length) continue;
      try {
        const keptAt = restoreGitConfig(g.path, g.before.snapshot, dir);
        out.push({
          path: g.path,
          root: g.root,
          why: `${g.why}: it set ${problems.slice(0, 5).join(", ")}${problems.length > 5 ? ` and ${problems.length - 5} more` : ""}; the file was put back as it was`,
          movedTo: keptAt,
        });
      } catch (err) {
        out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message });
      }
      continue;
    }
    if (g.before.kind === "git-config-copy") {
      // When the command has ended, and only then: nothing of it runs any more, and the user's git
      // never read anything but the file as it was or as checked (git-config-guard.ts).
      if (!final) continue;
      try {
        const done = publishGitConfigCopy(g.path, g.before.snapshot, g.before.copy, dir);
        if (done.kind === "refused") out.push({ path: g.path, root: g.root, why: `${g.why}: ${done.why}; .git/config was left as it was`, ...(done.keptAt ? { movedTo: done.keptAt } : {}) });
      } catch (err) {
        out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message });
      }
      continue;
    }
    if (g.before.kind === "objects") {
      // When the command has ended (git writes objects under temporary names and renames them into place).
      if (!final) continue;
      for (const bad of alteredObjectFiles(g.path, g.before.files, g.before.since))
        out.push(...sweepOne({ ...g, path: join(g.path, bad.rel), why: `${g.why}: ${bad.why}`, before: { kind: "none" } }, dir, already));
      continue;
    }
    if (g.before.kind === "references") {
      // What a configuration came to name while the command runs (named-later.ts): on the repositories' schedule and when it ends.
      if (!final && !repositoriesNow) continue;
      for (const f of namedLaterFindings(g.before, g.path)) out.push(...sweepOne({ ...g, path: f.path, why: f.why, before: { kind: "none" } }, dir, already));
      continue;
    }
    if (g.before.kind === "repositories") {
      // When the command has ended, and on the running command's own schedule (`repositoriesNow`):
      // a walk of the whole folder, not on every change the watch reports.
      if (!final && !repositoriesNow) continue;
      // While it runs, a `.git` naming nothing is git's own work half done, looked at by the next walk and when it ends (WhileRunning).
      const scan = scanNewRepositories(g.path, g.before.since, g.before.known, g.before.approved, final ? undefined : WALK_RUNNING);
      for (const f of scan.findings) out.push(...sweepOne({ ...g, path: f.path, why: f.why, before: { kind: "none" } }, dir, already));
      if (!final) continue;
      const markers = new Map(scan.markers);
      for (const m of markers.keys()) if (!lexists(m)) markers.delete(m);
      rememberRepositories(g.path, markers);
      continue;
    }
    if (g.before.kind === "entries") {
      if (g.before.endOnly && !final) continue;
      for (const change of folderChanges(g))
        out.push(...sweepOne({ ...g, path: join(g.path, change.name), before: change.link === undefined ? { kind: "none" } : { kind: "symlink", target: change.link } }, dir, already));
      continue;
    }
    if (!guardTripped(g)) continue;
    // A changed file a nested repository's configuration runs: moved out like a protected path that appeared.
    if (g.before.kind === "stamp") {
      out.push(...sweepOne({ ...g, before: { kind: "none" } }, dir, already));
      continue;
    }
    out.push(...sweepOne({ ...g, before: g.before }, dir, already));
  }
  return out;
}

/** The walks while a command runs: what a `.git` names is looked at again by the next walk (the watch follows it sooner: repository-watch.ts). */
const WALK_RUNNING: WhileRunning = { follow: () => undefined };

type PathGuard = Omit<GuardedPath, "before"> & { before: { kind: "none" } | { kind: "symlink"; target: string } };

function sweepOne(g: PathGuard, dir: string, already: Set<string>): QuarantinedPath[] {
  const out: QuarantinedPath[] = [];
  {
    const rel = g.path.slice(g.root.length + 1) || ".";
    let movedTo: string | undefined;
    try {
      if (lexists(g.path)) {
        const budget = kept.get(already) ?? { count: 0, bytes: 0 };
        kept.set(already, budget);
        const bytes = budget.count < QUARANTINE_MAX_KEPT ? treeBytes(g.path) : Infinity;
        if (budget.count >= QUARANTINE_MAX_KEPT || budget.bytes + bytes > QUARANTINE_MAX_BYTES) {
          // Over this command's quarantine budget: removed, not kept (reported once per path).
          removeMade(g.path);
          if (g.before.kind === "symlink" && !lexists(g.path)) symlinkSync(g.before.target, g.path);
          const key = `${g.path}\0removed`;
          if (already.has(key)) return out;
          already.add(key);
          out.push({
            path: g.path,
            root: g.root,
            why: `${g.why} (removed, not kept: the command's quarantine already holds ${QUARANTINE_MAX_KEPT} entries or ${QUARANTINE_MAX_BYTES / 1024 / 1024} MB)`,
            ...(g.before.kind === "symlink" ? { restored: true } : {}),
          });
          return out;
        }
        movedTo = freeName(join(dir, rel));
        moveAside(g.path, movedTo);
        budget.count++;
        budget.bytes += bytes;
      }
      if (g.before.kind === "symlink" && !lexists(g.path)) symlinkSync(g.before.target, g.path);
    } catch (err) {
      // Never claim a move that did not happen: what is still in place is reported as such.
      const key = `${g.path}\0error`;
      if (already.has(key)) return out;
      already.add(key);
      out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message, ...(lexists(g.path) ? {} : { movedTo: movedTo! }) });
      return out;
    }
    const key = `${g.path}\0${movedTo ?? ""}`;
    if (already.has(key)) return out;
    already.add(key);
    out.push({ path: g.path, root: g.root, why: g.why, ...(movedTo ? { movedTo } : {}), ...(g.before.kind === "symlink" ? { restored: true } : {}) });
  }
  return out;
}

/**
 * Watches the folders holding the guarded paths while a command runs, and sweeps as soon as
 * something changes there. `onTrip` gets what was quarantined. Falls back to a 500 ms poll where
 * fs.watch is not available (some network file systems).
 */
export class GuardWatch {
  private readonly watchers: FSWatcher[] = [];
  private poll: ReturnType<typeof setInterval> | undefined;
  private pending = false;
  private closed = false;

  constructor(
    private readonly guards: readonly GuardedPath[],
    private readonly sweep: () => void,
  ) {
    // A folder guard watches the folder itself (only those checked while the command runs; the
    // objects and packed-refs guards are checked when it ends).
    const dirs = new Set(
      guards
        .filter(
          (g) =>
            g.before.kind !== "objects" &&
            g.before.kind !== "packed-refs" &&
            g.before.kind !== "shallow" &&
            g.before.kind !== "repositories" &&
            g.before.kind !== "references" &&
            (g.before.kind !== "entries" || !g.before.endOnly),
        )
        .map((g) => (g.before.kind === "entries" ? g.path : dirname(g.path))),
    );
    let failed = false;
    for (const d of dirs) {
      if (!existsSync(d)) continue;
      try {
        const w = watch(d, { persistent: false }, () => this.schedule());
        w.on("error", () => undefined);
        this.watchers.push(w);
      } catch {
        failed = true;
      }
    }
    if (failed && guards.length > 0) {
      this.poll = setInterval(() => this.schedule(), 500);
      this.poll.unref();
    }
  }

  private schedule(): void {
    if (this.pending || this.closed) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      if (!this.closed) this.sweep();
    });
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers) w.close();
    if (this.poll) clearInterval(this.poll);
  }
}
