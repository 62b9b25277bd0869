/**
 * Protected paths that did not exist when a command started cannot be mounted read-only without
 * creating them in the user's folder. Instead they are guarded: while the command runs, the
 * folders that would hold them are watched (inotify through fs.watch), and when it ends every
 * guard is checked again. Whatever appeared at a guarded path (a `.vscode` folder, a
 * `.git/hooks/pre-commit`, a symbolic link put in place of one) is moved to the session's
 * quarantine folder, a replaced symbolic link is put back, and the model is told.
 */
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, watch, type FSWatcher } from "node:fs";
import { dirname, join } from "node:path";
import type { QuarantinedPath } from "../../core/commands/types";
import type { GuardedPath } from "./sandbox/types";

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
  if (g.before.kind === "entries") return folderChanges(g).length > 0;
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
  for (const name of now) if (!before.names.includes(name) && !before.accept(name)) out.push({ name });
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

const errno = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * Gives back write (and search) permission, for its owner, to every folder from `p` down: a
 * command may have made what it created read-only (`chmod 555 .vscode`) so that it cannot be
 * moved. Only folders this process owns are changed; nothing outside `p` is.
 */
function unlockTree(p: string): void {
  const uid = process.getuid?.();
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  if ((uid === undefined || uid === 0 || st.uid === uid) && (st.mode & 0o700) !== 0o700) {
    try {
      chmodSync(p, (st.mode & 0o7777) | 0o700);
    } catch {
      // not ours after all: the move reports it
    }
  }
  let names: string[];
  try {
    names = readdirSync(p);
  } catch {
    return;
  }
  for (const n of names) unlockTree(join(p, n));
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
export function sweepGuards(guards: readonly GuardedPath[], dir: string, already: Set<string>, final = true): QuarantinedPath[] {
  const out: QuarantinedPath[] = [];
  for (const g of guards) {
    if (g.before.kind === "entries") {
      if (g.before.endOnly && !final) continue;
      for (const change of folderChanges(g))
        out.push(...sweepOne({ ...g, path: join(g.path, change.name), before: change.link === undefined ? { kind: "none" } : { kind: "symlink", target: change.link } }, dir, already));
      continue;
    }
    if (!guardTripped(g)) continue;
    out.push(...sweepOne({ ...g, before: g.before }, dir, already));
  }
  return out;
}

type PathGuard = Omit<GuardedPath, "before"> & { before: { kind: "none" } | { kind: "symlink"; target: string } };

function sweepOne(g: PathGuard, dir: string, already: Set<string>): QuarantinedPath[] {
  const out: QuarantinedPath[] = [];
  {
    const rel = g.path.slice(g.root.length + 1) || ".";
    let movedTo: string | undefined;
    try {
      if (lexists(g.path)) {
        movedTo = freeName(join(dir, rel));
        moveAside(g.path, movedTo);
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
    // A folder guard watches the folder itself (only those checked while the command runs).
    const dirs = new Set(guards.filter((g) => g.before.kind !== "entries" || !g.before.endOnly).map((g) => (g.before.kind === "entries" ? g.path : dirname(g.path))));
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
