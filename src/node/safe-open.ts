/**
 * File tools act on what was checked. The permission gate checks a canonical path (no symbolic
 * link below its workspace folder's root); a command running at the same time may swap a link
 * into that path between the check and the open. These functions open the path without ever
 * following a link below the folder root, so what is read or written is the checked file or nothing.
 *
 * Linux (and anything with /proc/self/fd): the last component is opened with O_NOFOLLOW, and the
 * descriptor's own path (readlink /proc/self/fd/N) must equal the folder's real root + the
 * canonical rest: a link in a middle component shows there as a different path. Writes go into
 * the parent folder's descriptor: `/proc/self/fd/<dirfd>/<name>` acts as openat/renameat/mkdirat
 * relative to that folder, so the name is never resolved from the top again.
 *
 * Elsewhere (macOS): every component is lstat-ed (none may be a link), the file is opened with
 * O_NOFOLLOW and its fstat dev/ino must equal the lstat of the path; the walk is repeated after the
 * open. A link swapped in and back out between two of these steps is not seen: best effort.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants as C, existsSync, fstatSync, lstatSync, openSync, readFileSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import { PathChangedError, type ByteRange, type CheckedRead, type FileStat } from "../core/ports";

type Handle = fsp.FileHandle;

const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const DIRECTORY = C.O_DIRECTORY ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;
const NOCTTY = C.O_NOCTTY ?? 0;

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

function fileStat(st: Stats): FileStat {
  return { type: st.isFile() ? "file" : st.isDirectory() ? "directory" : st.isSymbolicLink() ? "symlink" : "other", size: st.size, mtimeMs: st.mtimeMs };
}

function parentOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function nameOf(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

function join(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}

/** The file operations of the file tools, for paths under `roots` (absolute, POSIX, no trailing slash). */
export interface SafeFiles {
  read(path: string): Promise<CheckedRead>;
  /** Byte ranges of the file, opened and checked as `read` does (shorter past its end). */
  readRanges(path: string, ranges: readonly ByteRange[]): Promise<{ chunks: Uint8Array[]; stat: FileStat }>;
  /**
   * Writes `data` as the file `path` (renamed into place inside the checked folder). `mode`, when
   * given, decides the new file's permission bits from the old file's (undefined: there was none);
   * otherwise an old file keeps its bits and a new one gets 0o666 less the umask.
   */
  write(path: string, data: Uint8Array, mode?: (old: number | undefined) => number | undefined): Promise<FileStat>;
  /**
   * Makes `path` a symbolic link to `target` (made under a temporary name inside the checked folder,
   * then renamed over what is there: a file or a link, never a folder). The link is never followed.
   */
  symlink(path: string, target: string): Promise<void>;
  /**
   * Removes the file (or link) `path` by its name inside its checked folder: a link on the way is
   * never followed. False when nothing is there; a folder is an EISDIR error.
   */
  remove(path: string): Promise<boolean>;
  /** Removes the folder `path` when it is empty (by its name inside its checked parent); false when it is not empty, not a folder, or not there. */
  removeEmptyFolder(path: string): Promise<boolean>;
  /** Sets the permission bits of the file `path` (never through a link): `mode` from the current bits. False when it is not a regular file. */
  chmod(path: string, mode: (now: number) => number): Promise<boolean>;
  /** Where `path` must really be: its folder's real root + the rest as written. */
  expectedReal(path: string): Promise<string>;
  /** The existing folder `dir`, opened and checked like a file's folder (the caller closes it). */
  openDir(dir: string): Promise<fsp.FileHandle>;
  /** Descriptors can be used as `/proc/self/fd/N` paths here (openat emulation). */
  readonly viaProc: boolean;
}

/** A read's descriptor is not a regular file: the error the read gives (a folder: EISDIR, as fs's own; else a PathChangedError). */
function notAFile(path: string, st: Stats): Error | undefined {
  if (st.isDirectory()) {
    const e = new Error(`EISDIR: illegal operation on a directory, read '${path}'`) as NodeJS.ErrnoException;
    e.code = "EISDIR";
    return e;
  }
  if (!st.isFile()) return new PathChangedError(path, "it is not a regular file (a device, pipe or socket)");
  return undefined;
}

export interface SafeFilesOptions {
  useProc?: boolean;
  /**
   * Reads with synchronous system calls (same checks, same answers): for a process Yoke owns that
   * reads many small files and has nothing else to do meanwhile (`yoke lessons list` at a million
   * files: each asynchronous call is a trip through libuv's thread pool, ~7× the CPU of the call
   * itself). Never in the extension host. Only where descriptors show their path (/proc).
   */
  syncReads?: boolean;
}

/**
 * Safe opens for the folders `roots`. A root itself may be reached through links (the user chose
 * it); below it, nothing may be a link. A path under no root must have no link at all.
 */
export function createSafeFiles(roots: readonly string[], opts: SafeFilesOptions = {}): SafeFiles {
  const useProc = opts.useProc ?? PROC_FD;
  const sorted = [...roots].sort((a, b) => b.length - a.length);
  const realRoots = new Map<string, Promise<string>>();
  const realRootsNow = new Map<string, string>();

  function rootOf(path: string): string {
    return sorted.find((r) => path === r || path.startsWith(r === "/" ? "/" : `${r}/`)) ?? "/";
  }

  function realRoot(root: string): Promise<string> {
    let p = realRoots.get(root);
    if (!p) {
      p = fsp.realpath(root).then(
        (r) => r.replace(/\\/g, "/"),
        (e: unknown) => {
          realRoots.delete(root);
          throw e;
        },
      );
      realRoots.set(root, p);
    }
    return p;
  }

  async function expectedReal(path: string): Promise<string> {
    const root = rootOf(path);
    const real = await realRoot(root);
    if (path === root) return real;
    const rest = root === "/" ? path.slice(1) : path.slice(root.length + 1);
    return join(real, rest);
  }

  /** Throws when the descriptor is not the file at `path` (Linux: its /proc path; elsewhere: a link-free walk and dev/ino). */
  async function verify(fh: Handle, path: string, st: Stats): Promise<void> {
    if (useProc) {
      const [actual, want] = await Promise.all([fsp.readlink(`/proc/self/fd/${fh.fd}`), expectedReal(path)]);
      if (actual !== want) throw new PathChangedError(path, `a symbolic link on the way now leads to ${actual.replace(/ \(deleted\)$/, "")}`);
      return;
    }
    await walkNoLinks(path);
    const now = await fsp.lstat(path).catch(() => undefined);
    if (!now || now.dev !== st.dev || now.ino !== st.ino) throw new PathChangedError(path, "the file at this path was replaced while it was opened");
  }

  /** Fallback (no /proc): no component below the root may be a link. */
  async function walkNoLinks(path: string, folder = false): Promise<void> {
    const root = rootOf(path);
    let cur = root;
    const rest = path === root ? [] : (root === "/" ? path.slice(1) : path.slice(root.length + 1)).split("/");
    for (const part of rest) {
      cur = join(cur, part);
      const st = await fsp.lstat(cur).catch((e: unknown) => {
        if (code(e) === "ENOENT" || code(e) === "ENOTDIR") return undefined;
        throw e;
      });
      if (!st) return;
      if (st.isSymbolicLink()) throw new PathChangedError(path, cur === path && !folder ? "the file is now a symbolic link" : `a folder on the way (${cur}) is now a symbolic link`);
    }
  }

  /** Opens `path` with O_NOFOLLOW; a link at the name is a PathChangedError. */
  async function openNoFollow(path: string, flags: number, what: string): Promise<Handle> {
    if (!useProc) await walkNoLinks(path, (flags & DIRECTORY) !== 0);
    try {
      return await fsp.open(path, flags | NOFOLLOW);
    } catch (e) {
      if (code(e) === "ELOOP") throw new PathChangedError(path, `${what} is now a symbolic link`);
      if (code(e) === "ENOTDIR") {
        const st = await fsp.lstat(path).catch(() => undefined);
        if (st?.isSymbolicLink()) throw new PathChangedError(path, `${what} is now a symbolic link`);
        // A folder again by now: something swapped it (for a link) while it was opened.
        if (st?.isDirectory() && flags & DIRECTORY) throw new PathChangedError(path, `${what} was swapped for something else while it was opened`);
      }
      throw e;
    }
  }

  /** `path` opened without following links and checked: a regular file's handle and stat (the caller closes it). */
  async function openFile(path: string): Promise<{ fh: Handle; st: Stats }> {
    const fh = await openNoFollow(path, C.O_RDONLY | NONBLOCK | NOCTTY, "the file");
    try {
      const st = await fh.stat();
      await verify(fh, path, st);
      const bad = notAFile(path, st);
      if (bad) throw bad;
      return { fh, st };
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  async function read(path: string): Promise<CheckedRead> {
    const { fh, st } = await openFile(path);
    try {
      const data = new Uint8Array(await fh.readFile());
      return { data, stat: fileStat(st) };
    } finally {
      await fh.close();
    }
  }

  async function readRanges(path: string, ranges: readonly ByteRange[]): Promise<{ chunks: Uint8Array[]; stat: FileStat }> {
    const { fh, st } = await openFile(path);
    try {
      const chunks: Uint8Array[] = [];
      for (const r of ranges) {
        const want = Math.max(0, Math.min(r.length, st.size - r.offset));
        const buf = new Uint8Array(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await fh.read(buf, got, want - got, r.offset + got);
          if (bytesRead <= 0) break;
          got += bytesRead;
        }
        chunks.push(buf.subarray(0, got));
      }
      return { chunks, stat: fileStat(st) };
    } finally {
      await fh.close();
    }
  }

  /** `read` with synchronous calls (SafeFilesOptions.syncReads; /proc only): the same opens, checks and errors. */
  function readNow(path: string): CheckedRead {
    let fd: number;
    try {
      fd = openSync(path, C.O_RDONLY | NONBLOCK | NOCTTY | NOFOLLOW);
    } catch (e) {
      if (code(e) === "ELOOP") throw new PathChangedError(path, "the file is now a symbolic link");
      if (code(e) === "ENOTDIR" && lstatOrUndefined(path)?.isSymbolicLink()) throw new PathChangedError(path, "the file is now a symbolic link");
      throw e;
    }
    try {
      const st = fstatSync(fd);
      const root = rootOf(path);
      let real = realRootsNow.get(root);
      if (real === undefined) realRootsNow.set(root, (real = realpathSync.native(root).replace(/\\/g, "/")));
      const want = path === root ? real : join(real, root === "/" ? path.slice(1) : path.slice(root.length + 1));
      const actual = readlinkSync(`/proc/self/fd/${fd}`);
      if (actual !== want) throw new PathChangedError(path, `a symbolic link on the way now leads to ${actual.replace(/ \(deleted\)$/, "")}`);
      const bad = notAFile(path, st);
      if (bad) throw bad;
      return { data: new Uint8Array(readFileSync(fd)), stat: fileStat(st) };
    } finally {
      closeSync(fd);
    }
  }

  /** The folder `dir` opened and checked (created, folder by folder inside checked parents, when `create`). */
  async function openDir(dir: string, create: boolean): Promise<Handle> {
    const root = rootOf(dir);
    try {
      // The root may be a link the user chose; below it, no link is followed.
      const fh = dir === root ? await fsp.open(dir, C.O_RDONLY | DIRECTORY) : await openNoFollow(dir, C.O_RDONLY | DIRECTORY, "a folder on the way");
      try {
        const st = await fh.stat();
        await verify(fh, dir, st);
        return fh;
      } catch (e) {
        await fh.close();
        throw e;
      }
    } catch (e) {
      if (code(e) !== "ENOENT" || !create || dir === root || !useProc) {
        if (code(e) === "ENOENT" && create && dir !== root && !useProc) {
          await fsp.mkdir(dir, { recursive: true });
          return openDir(dir, false);
        }
        throw e;
      }
    }
    const parent = await openDir(parentOf(dir), true);
    try {
      const at = `/proc/self/fd/${parent.fd}/${nameOf(dir)}`;
      await fsp.mkdir(at).catch((e: unknown) => {
        if (code(e) !== "EEXIST") throw e;
      });
      try {
        return await fsp.open(at, C.O_RDONLY | DIRECTORY | NOFOLLOW);
      } catch (e) {
        if (code(e) === "ELOOP" || code(e) === "ENOTDIR") throw new PathChangedError(dir, "a folder on the way is now a symbolic link");
        throw e;
      }
    } finally {
      await parent.close();
    }
  }

  async function write(path: string, data: Uint8Array, modeOf?: (old: number | undefined) => number | undefined): Promise<FileStat> {
    const name = nameOf(path);
    const dirPath = parentOf(path);
    const dir = await openDir(dirPath, true);
    try {
      // Linux: every name below is resolved inside the checked folder's descriptor only.
      const at = (n: string) => (useProc ? `/proc/self/fd/${dir.fd}/${n}` : join(dirPath, n));
      const old = await fsp.lstat(at(name)).catch((e: unknown) => {
        if (code(e) === "ENOENT") return undefined;
        throw e;
      });
      if (old?.isSymbolicLink()) throw new PathChangedError(path, "the file is now a symbolic link");
      if (old?.isDirectory()) {
        const e = new Error(`EISDIR: illegal operation on a directory, open '${path}'`) as NodeJS.ErrnoException;
        e.code = "EISDIR";
        throw e;
      }
      if (old && !old.isFile()) throw new PathChangedError(path, "it is not a regular file (a device, pipe or socket)");
      const was = old ? old.mode & 0o7777 : undefined;
      const mode = modeOf ? (modeOf(was) ?? was) : was;
      const tmp = `.${name.slice(0, 100)}.${process.pid}.${randomBytes(4).toString("hex")}.yoke-tmp`;
      const fh = await fsp.open(at(tmp), C.O_WRONLY | C.O_CREAT | C.O_EXCL | NOFOLLOW, mode ?? 0o666);
      let st: Stats;
      try {
        try {
          await fh.writeFile(data);
          if (mode !== undefined) await fh.chmod(mode);
          await fh.sync();
          st = await fh.stat();
        } finally {
          await fh.close();
        }
        if (!useProc) await walkNoLinks(path);
        await fsp.rename(at(tmp), at(name));
      } catch (e) {
        await fsp.rm(at(tmp), { force: true }).catch(() => undefined);
        throw e;
      }
      return fileStat(st);
    } finally {
      await dir.close();
    }
  }

  async function symlink(path: string, target: string): Promise<void> {
    const name = nameOf(path);
    const dirPath = parentOf(path);
    const dir = await openDir(dirPath, true);
    try {
      const at = (n: string) => (useProc ? `/proc/self/fd/${dir.fd}/${n}` : join(dirPath, n));
      const old = await fsp.lstat(at(name)).catch((e: unknown) => {
        if (code(e) === "ENOENT") return undefined;
        throw e;
      });
      if (old?.isDirectory()) {
        const e = new Error(`EISDIR: illegal operation on a directory, symlink '${path}'`) as NodeJS.ErrnoException;
        e.code = "EISDIR";
        throw e;
      }
      const tmp = `.${name.slice(0, 100)}.${process.pid}.${randomBytes(4).toString("hex")}.yoke-tmp`;
      await fsp.symlink(target, at(tmp));
      try {
        if (!useProc) await walkNoLinks(path);
        await fsp.rename(at(tmp), at(name));
      } catch (e) {
        await fsp.rm(at(tmp), { force: true }).catch(() => undefined);
        throw e;
      }
    } finally {
      await dir.close();
    }
  }

  /** The folder of `path` opened and checked, and a function naming an entry inside it (Linux: by the descriptor). */
  async function inFolder<T>(path: string, act: (at: (name: string) => string, name: string) => Promise<T>): Promise<T | undefined> {
    const dirPath = parentOf(path);
    let dir: Handle;
    try {
      dir = await openDir(dirPath, false);
    } catch (e) {
      if (code(e) === "ENOENT") return undefined;
      throw e;
    }
    try {
      const at = (n: string) => (useProc ? `/proc/self/fd/${dir.fd}/${n}` : join(dirPath, n));
      if (!useProc) await walkNoLinks(dirPath, true);
      return await act(at, nameOf(path));
    } finally {
      await dir.close();
    }
  }

  async function remove(path: string): Promise<boolean> {
    const done = await inFolder(path, async (at, name) => {
      const st = await fsp.lstat(at(name)).catch((e: unknown) => {
        if (code(e) === "ENOENT") return undefined;
        throw e;
      });
      if (!st) return false;
      if (st.isDirectory()) {
        const e = new Error(`EISDIR: illegal operation on a directory, unlink '${path}'`) as NodeJS.ErrnoException;
        e.code = "EISDIR";
        throw e;
      }
      await fsp.unlink(at(name));
      return true;
    });
    return done ?? false;
  }

  async function removeEmptyFolder(path: string): Promise<boolean> {
    const done = await inFolder(path, async (at, name) => {
      const st = await fsp.lstat(at(name)).catch(() => undefined);
      if (!st?.isDirectory()) return false;
      try {
        await fsp.rmdir(at(name));
        return true;
      } catch (e) {
        if (code(e) === "ENOTEMPTY" || code(e) === "EEXIST" || code(e) === "ENOENT" || code(e) === "ENOTDIR") return false;
        throw e;
      }
    });
    return done ?? false;
  }

  async function chmod(path: string, modeOf: (now: number) => number): Promise<boolean> {
    const done = await inFolder(path, async (at, name) => {
      let fh: Handle;
      try {
        fh = await fsp.open(at(name), C.O_RDONLY | NOFOLLOW | NONBLOCK | NOCTTY);
      } catch (e) {
        if (code(e) === "ELOOP") throw new PathChangedError(path, "the file is now a symbolic link");
        if (code(e) === "ENOENT") return false;
        throw e;
      }
      try {
        const st = await fh.stat();
        if (!st.isFile()) return false;
        const now = st.mode & 0o7777;
        const want = modeOf(now);
        if (want !== now) await fh.chmod(want);
        return true;
      } finally {
        await fh.close();
      }
    });
    return done ?? false;
  }

  const readSyncly = async (path: string) => readNow(path);
  return { read: opts.syncReads && useProc ? readSyncly : read, readRanges, write, symlink, remove, removeEmptyFolder, chmod, expectedReal, openDir: (dir) => openDir(dir, false), viaProc: useProc };
}
