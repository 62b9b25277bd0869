/**
 * Repositories a command creates below a writable folder. git takes any folder holding a `.git`
 * entry (a folder, or a file naming one) or a bare layout (`HEAD` beside `objects/` and `refs/`)
 * for a repository, and runs its configuration (`core.fsmonitor`, hooks, aliases) at the next git
 * command there — the user's own, VS Code's git extension (which opens repositories one folder down
 * by default), a shell prompt that shows the branch. The workspace's own `.git` is guarded as an
 * allow-list (plan.ts); a new one anywhere below is found here when the command ends, by change
 * time (ctime: set by every create, write, rename and link, and by no process settable back), and
 * quarantined like any protected path.
 */
import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";

/** Folders read at most per sweep: a walk past this stops (and says so). */
export const REPOSITORIES_WALK_MAX = 200_000;
const MAX_DEPTH = 64;

export interface NewRepository {
  /** Relative to the walked folder: the `.git` entry, or a bare layout's `HEAD`. */
  rel: string;
  why: string;
}

/** The `.git` entries and bare layouts' `HEAD` files below `root` (its own `.git` excepted) whose inode changed at or after `since`. */
export function newRepositories(root: string, since: number, max = REPOSITORIES_WALK_MAX): { found: NewRepository[]; truncated: boolean } {
  const found: NewRepository[] = [];
  const stack: Array<{ rel: string; depth: number }> = [{ rel: "", depth: 0 }];
  let read = 0;
  const changed = (rel: string) => {
    try {
      return lstatSync(join(root, rel)).ctimeMs >= since;
    } catch {
      return false;
    }
  };
  while (stack.length) {
    const { rel, depth } = stack.pop()!;
    if (++read > max) return { found, truncated: true };
    let entries: Dirent[];
    try {
      entries = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch {
      continue;
    }
    const names = new Set(entries.map((e) => e.name));
    for (const e of entries) {
      const at = rel ? `${rel}/${e.name}` : e.name;
      if (e.name === ".git") {
        // The folder's own repository is guarded by the allow-list; never walked into.
        if (rel && changed(at)) found.push({ rel: at, why: "a new repository (.git): git would run its configuration (core.fsmonitor, hooks) at the next git command in that folder" });
        continue;
      }
      if (e.name === "HEAD" && rel && names.has("objects") && names.has("refs") && changed(at)) {
        found.push({ rel: at, why: "a new bare repository layout (HEAD, objects/, refs/): git would take the folder for a repository and run its configuration" });
        continue;
      }
      if (e.isDirectory() && depth < MAX_DEPTH) stack.push({ rel: at, depth: depth + 1 });
    }
  }
  return { found, truncated: false };
}
