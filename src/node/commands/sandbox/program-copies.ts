/**
 * Copies of a program's file outside the command path: the same bytes under another path in the
 * system's program folders (Debian's git exec path holds a second `git`, `/usr/lib/git-core/git`,
 * not a link of `/usr/bin/git`: red team round 7 started it under `Bash(git:*)`). The sandbox masks
 * them with the program (plan.ts), so a deny rule on a program holds whichever copy a command starts.
 *
 * Found by size first, then by content: an index of the executable regular files of those folders
 * by size (a walk of ~70,000 entries on Debian: 0.5–1.7 s), kept in the user's cache folder and
 * made again when the package database or a searched folder changes, or after a day; candidates of
 * the same size are compared by SHA-256 (cached by path, inode, size and time). Not found: a copy
 * that is not executable (started through the dynamic loader), a copy in a folder not searched
 * here (the hidden homes are not visible to commands anyway), and a copy made after the index
 * (until it is made again). docs/security.md, invariant 9.
 */
import { createHash } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where system programs live besides the command path. */
export const COPY_ROOTS = ["/usr/lib", "/usr/libexec", "/usr/local/lib", "/usr/local/libexec", "/opt", "/usr/lib64", "/usr/lib32"];

/** Package databases: an install or upgrade changes one of them. */
const PACKAGE_DBS = ["/var/lib/dpkg/status", "/var/lib/rpm", "/var/lib/rpm/rpmdb.sqlite", "/lib/apk/db/installed", "/var/lib/pacman/local"];

/** Entries looked at per walk, at most (a bound, not an expectation: Debian's /usr/lib has ~70,000). */
const MAX_ENTRIES = 400_000;
const MAX_DEPTH = 24;
/** A day: past that the index is made again even when nothing it depends on changed. */
const INDEX_MS = 24 * 3600_000;
/** Files larger than this are not compared by content (no program of interest is). */
const MAX_COMPARE_BYTES = 512 * 1024 * 1024;

interface Entry {
  path: string;
  size: number;
}

interface Index {
  key: string;
  made: number;
  /** size → paths of the executable regular files of that size. */
  bySize: Map<number, string[]>;
  complete: boolean;
}

let memo: Index | undefined;
const hashCache = new Map<string, string>();

function cacheFile(): string {
  const base = process.env.XDG_CACHE_HOME && process.env.XDG_CACHE_HOME.startsWith("/") ? process.env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "yoke", "program-copies.json");
}

/** What the index depends on: the roots searched (each root's time), the package databases, this user. */
export function indexKey(roots: readonly string[] = COPY_ROOTS): string {
  const t = (p: string) => {
    try {
      const st = statSync(p);
      return `${st.ino}:${st.mtimeMs}`;
    } catch {
      return "-";
    }
  };
  return JSON.stringify([roots, roots.map(t), PACKAGE_DBS.map(t), process.getuid?.()]);
}

/** The executable regular files below the roots (symbolic links not followed), by size. */
export function walkExecutables(roots: readonly string[] = COPY_ROOTS, maxEntries = MAX_ENTRIES): { entries: Entry[]; complete: boolean } {
  const entries: Entry[] = [];
  let seen = 0;
  let complete = true;
  const seenDirs = new Set<string>();
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH) {
      complete = false;
      return;
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (++seen > maxEntries) {
        complete = false;
        return;
      }
      const p = join(dir, name);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        const id = `${st.dev}:${st.ino}`;
        if (seenDirs.has(id)) continue;
        seenDirs.add(id);
        walk(p, depth + 1);
      } else if (st.isFile() && (st.mode & 0o111) !== 0 && st.size > 0) entries.push({ path: p, size: st.size });
    }
  };
  for (const root of roots) {
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      continue;
    }
    // /lib → /usr/lib on merged-/usr systems: one walk.
    const st = statSync(real);
    const id = `${st.dev}:${st.ino}`;
    if (seenDirs.has(id)) continue;
    seenDirs.add(id);
    walk(real, 0);
  }
  return { entries, complete };
}

function toIndex(key: string, made: number, entries: Entry[], complete: boolean): Index {
  const bySize = new Map<number, string[]>();
  for (const e of entries) {
    const list = bySize.get(e.size);
    if (list) list.push(e.path);
    else bySize.set(e.size, [e.path]);
  }
  return { key, made, bySize, complete };
}

function readCached(key: string): Index | undefined {
  try {
    const file = cacheFile();
    const st = statSync(file);
    // The user's own file, not writable by others, fresh.
    if (st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0 || Date.now() - st.mtimeMs > INDEX_MS) return undefined;
    const c = JSON.parse(readFileSync(file, "utf8")) as { key?: string; made?: number; entries?: Entry[]; complete?: boolean };
    if (c.key !== key || !Array.isArray(c.entries) || typeof c.made !== "number") return undefined;
    return toIndex(key, c.made, c.entries, c.complete === true);
  } catch {
    return undefined;
  }
}

function store(key: string, made: number, entries: Entry[], complete: boolean): void {
  try {
    const file = cacheFile();
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, made, entries, complete }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // No cache: the next process walks again.
  }
}

/** The index of this machine's program folders, from memory, the cache file, or a walk. */
export function programIndex(roots: readonly string[] = COPY_ROOTS): Index {
  const key = indexKey(roots);
  if (memo && memo.key === key && Date.now() - memo.made < INDEX_MS) return memo;
  const cached = readCached(key);
  if (cached) return (memo = cached);
  const made = Date.now();
  const { entries, complete } = walkExecutables(roots);
  store(key, made, entries, complete);
  return (memo = toIndex(key, made, entries, complete));
}

/**
 * Makes the index off the event loop (the file-system calls in libuv's pool, a few folders at a
 * time), so that the first command with a program denial does not hold the extension host for the
 * walk; the runner calls it when it refreshes the permission view (session-runner.ts). The
 * synchronous path stays for a command wrapped before the walk is done.
 */
export async function warmProgramIndex(roots: readonly string[] = COPY_ROOTS, maxEntries = MAX_ENTRIES): Promise<void> {
  const key = indexKey(roots);
  if (memo && memo.key === key && Date.now() - memo.made < INDEX_MS) return;
  const cached = readCached(key);
  if (cached) {
    memo = cached;
    return;
  }
  const made = Date.now();
  const entries: Entry[] = [];
  let seen = 0;
  let complete = true;
  const seenDirs = new Set<string>();
  const queue: Array<[string, number]> = [];
  for (const root of roots) {
    try {
      const real = await realpath(root);
      const st = await stat(real);
      const id = `${st.dev}:${st.ino}`;
      if (seenDirs.has(id)) continue;
      seenDirs.add(id);
      queue.push([real, 0]);
    } catch {
      // not there
    }
  }
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [dir, depth] = next;
      if (depth > MAX_DEPTH) {
        complete = false;
        continue;
      }
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (++seen > maxEntries) {
          complete = false;
          queue.length = 0;
          return;
        }
        const p = join(dir, name);
        try {
          const st = await lstat(p);
          if (st.isDirectory()) {
            const id = `${st.dev}:${st.ino}`;
            if (!seenDirs.has(id)) {
              seenDirs.add(id);
              queue.push([p, depth + 1]);
            }
          } else if (st.isFile() && (st.mode & 0o111) !== 0 && st.size > 0) entries.push({ path: p, size: st.size });
        } catch {
          // gone meanwhile
        }
      }
    }
  };
  // Folders are taken from the queue by a few workers; one that finds it empty ends, so keep
  // starting rounds until the queue stays empty.
  while (queue.length > 0) await Promise.all(Array.from({ length: 4 }, worker));
  // A synchronous walk may have finished meanwhile (a command wrapped before this one was done).
  if (memo && memo.key === key) return;
  store(key, made, entries, complete);
  memo = toIndex(key, made, entries, complete);
}

/** SHA-256 of a file's bytes, cached while its inode, size and time are unchanged. */
function digest(path: string): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.size > MAX_COMPARE_BYTES) return undefined;
  const k = `${path}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  const have = hashCache.get(k);
  if (have) return have;
  const h = createHash("sha256");
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
    }
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const d = h.digest("hex");
  hashCache.set(k, d);
  return d;
}

/**
 * The real paths of the files below the program folders with the same bytes as `file` (itself
 * excluded). Each candidate is checked as it is now (size, then content), not as indexed.
 */
export function copiesOf(file: string, roots: readonly string[] = COPY_ROOTS): string[] {
  let size: number;
  let self: string;
  try {
    self = realpathSync(file);
    size = statSync(self).size;
  } catch {
    return [];
  }
  const candidates = programIndex(roots).bySize.get(size);
  if (!candidates?.length) return [];
  const want = digest(self);
  if (!want) return [];
  const out: string[] = [];
  for (const c of candidates) {
    let real: string;
    try {
      real = realpathSync(c);
      if (real === self || statSync(real).size !== size) continue;
    } catch {
      continue;
    }
    if (digest(real) === want) out.push(real);
  }
  return out;
}

/** Forgets the in-memory index (tests). */
export function resetProgramIndex(): void {
  memo = undefined;
  hashCache.clear();
}
