/**
 * What the new-repository walk (new-repositories.ts) needs of each folder, kept between walks so a
 * walk after a command reads again only the folders whose entries may have changed, and `lstat`s
 * the others. A folder's entries change only with its change time: creating, removing or renaming
 * an entry sets the folder's ctime (and mtime) to now, and no process can set a ctime back (utimes
 * sets it to now too). So a folder whose device, inode, ctime and mtime are the ones it had when it
 * was read holds the entries it held then — except within the clock's granularity: a change in the
 * same tick as the `lstat` taken before the read can leave the ctime equal. A folder changed less
 * than `RACY_NS` before it was read is therefore read again next time (git's "racily clean" rule).
 *
 * This replaces the walk's folder-count bound (200,000 folders; the gate's own walk 20,000): past
 * it, what a command planted was left in place (R45-05). Every walk now reaches every folder, and
 * the cost that made a bound look needed is mostly gone after the first walk (docs/benchmarks.md).
 */
import { lstatSync, readdirSync, type BigIntStats } from "node:fs";

/** What the walk reads of a folder's entries. */
export interface FolderEntries {
  /** Sub-folder names (entry types do not follow links: a link is never walked). `.git` is not among them. */
  dirs: string[];
  /** The folder's `.git`: a folder, something else (a `gitdir:` file, a link, …), or none. */
  git: "dir" | "other" | undefined;
  head: boolean;
  objects: boolean;
  refs: boolean;
  commondir: boolean;
  /** The package managers' configuration files it holds (PACKAGE_MANAGER_CONFIGS), for the files they name (session 24, nested24). */
  pm: string[];
}

/**
 * The package managers' configurations that name programs and files they run (`.npmrc`'s script-shell and
 * node-options, `.yarnrc.yml`'s yarnPath, `pnpm-workspace.yaml`'s pnpmfile…): npm reads the one of the folder it
 * takes for the project (the nearest with a package.json), yarn and pnpm the ones up from where they run — in a
 * monorepo, a sub-project's own (`web/.npmrc` for `npm test` in `web/`). Noted by the walk so the gate and the
 * sandbox read nested ones too (core/protected-references.ts); pnpm's hook files and corepack's settings, which run
 * or choose programs themselves, are noted too: one a command writes below the top is moved out (new-repositories.ts).
 */
export const PACKAGE_MANAGER_CONFIGS: ReadonlySet<string> = new Set([".npmrc", ".yarnrc", ".yarnrc.yml", "pnpm-workspace.yaml", ".pnpmfile.cjs", ".pnpmfile.mjs", ".corepack.env"]);

interface FolderState extends FolderEntries {
  dev: bigint;
  ino: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
  /** Read at least `RACY_NS` after its last change: the stat alone tells whether it changed since. */
  settled: boolean;
}

/** A folder changed this close (ns) to its read is read again at the next walk. */
const RACY_NS = 2_000_000_000n;

/**
 * The folder states of one walk, read from the last walk of the same root: a walk starts a new
 * generation (`begin`), looks folders up (`entries`), and its end (`end`) keeps only the folders it
 * met, so the cache holds what is there now (memory: about the walk's folder count).
 */
export class FolderStates {
  private last = new Map<string, FolderState>();
  private next = new Map<string, FolderState>();
  /** Folders read (not only `lstat`ed) in the current walk: for tests and the bench. */
  reads = 0;

  /** `racyNs`: RACY_NS but in the unit tests of the cache itself. */
  constructor(private readonly racyNs = RACY_NS) {}

  begin(): void {
    this.next = new Map();
    this.reads = 0;
  }

  end(): void {
    this.last = this.next;
    this.next = new Map();
    this.walked = true;
  }

  /** A walk has ended: `configFolders` tells what it met. */
  walked = false;

  /**
   * The folders the last walk met that hold a package manager's configuration (PACKAGE_MANAGER_CONFIGS), but `except`,
   * and not inside a git folder or `node_modules` (no package manager takes a dependency's folder for the project).
   */
  configFolders(except?: string): string[] {
    const out: string[] = [];
    for (const [dir, st] of this.last) if (st.pm.length && dir !== except && !/\/(\.git|node_modules)\//.test(`${dir}/`)) out.push(dir);
    return out.sort();
  }

  /** The entries of `dir`, or undefined when it cannot be read (or is gone, or is no folder). */
  entries(dir: string): FolderEntries | undefined {
    let st: BigIntStats;
    try {
      st = lstatSync(dir, { bigint: true });
    } catch {
      return undefined;
    }
    if (!st.isDirectory()) return undefined;
    const old = this.last.get(dir);
    if (old && old.settled && old.dev === st.dev && old.ino === st.ino && old.ctimeNs === st.ctimeNs && old.mtimeNs === st.mtimeNs) {
      this.next.set(dir, old);
      return old;
    }
    // Now, before the read: a change after this instant has a later ctime (or, in the same tick, is within RACY_NS).
    const now = BigInt(Date.now()) * 1_000_000n;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    this.reads++;
    const state: FolderState = {
      dirs: [],
      git: undefined,
      head: false,
      objects: false,
      refs: false,
      commondir: false,
      pm: [],
      dev: st.dev,
      ino: st.ino,
      ctimeNs: st.ctimeNs,
      mtimeNs: st.mtimeNs,
      settled: st.ctimeNs + this.racyNs < now,
    };
    for (const e of names) {
      if (e.name === ".git") state.git = e.isDirectory() ? "dir" : "other";
      else {
        if (e.name === "HEAD") state.head = true;
        else if (e.name === "objects") state.objects = true;
        else if (e.name === "refs") state.refs = true;
        else if (e.name === "commondir") state.commondir = true;
        else if (PACKAGE_MANAGER_CONFIGS.has(e.name) && !e.isDirectory()) state.pm.push(e.name);
        if (e.isDirectory()) state.dirs.push(e.name);
      }
    }
    this.next.set(dir, state);
    return state;
  }
}

/** The cache of each walked root, shared by the command sandbox's walks and the permission gate's (git-runs-from.ts). */
const byRoot = new Map<string, FolderStates>();

export function folderStates(root: string): FolderStates {
  let s = byRoot.get(root);
  if (!s) byRoot.set(root, (s = new FolderStates()));
  return s;
}

/** The sub-folders of `dir` through `states` (none when unreadable). */
export function subfolderNames(states: FolderStates, dir: string): string[] {
  const e = states.entries(dir);
  if (!e) return [];
  return e.git === "dir" ? [...e.dirs, ".git"] : e.dirs;
}
