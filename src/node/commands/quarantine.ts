/**
 * Protected paths that did not exist when a command started cannot be mounted read-only without
 * creating them in the user's folder. Instead they are guarded: while the command runs, the
 * folders that would hold them are watched (inotify through fs.watch), and when it ends every
 * guard is checked again. Whatever appeared at a guarded path (a `.vscode` folder, a
 * `.git/hooks/pre-commit`, a symbolic link put in place of one) is moved to the session's
 * quarantine folder, a replaced symbolic link is put back, and the model is told.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, watch, type FSWatcher } from "node:fs";
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

/** Moves `from` to `to` (same file system: a rename; else a copy that keeps symbolic links as they are, then a removal). */
function moveAside(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
  }
  cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  rmSync(from, { recursive: true, force: true });
}

/**
 * Checks the guards of a command and quarantines what tripped. `dir` is this command's
 * quarantine folder. Returns what was moved (and restored).
 */
export function sweepGuards(guards: readonly GuardedPath[], dir: string, already: Set<string>): QuarantinedPath[] {
  const out: QuarantinedPath[] = [];
  for (const g of guards) {
    if (!guardTripped(g)) continue;
    const rel = g.path.slice(g.root.length + 1) || ".";
    let movedTo: string | undefined;
    try {
      if (lexists(g.path)) {
        movedTo = freeName(join(dir, rel));
        moveAside(g.path, movedTo);
      }
      if (g.before.kind === "symlink" && !lexists(g.path)) symlinkSync(g.before.target, g.path);
    } catch (err) {
      out.push({ path: g.path, root: g.root, why: g.why, error: (err as Error).message });
      continue;
    }
    const key = `${g.path}\0${movedTo ?? ""}`;
    if (already.has(key)) continue;
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
    const dirs = new Set(guards.map((g) => dirname(g.path)));
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
