/** WorkspaceFs over node:fs, with atomic writes. */
import { randomBytes } from "node:crypto";
import { lstat, lstatSync, readdir, readdirSync, readFile, readFileSync, realpath, realpathSync, watch as fsWatch, type FSWatcher } from "node:fs";
import * as fsp from "node:fs/promises";
import * as nodePath from "node:path";
import { promisify } from "node:util";
import type { Disposable, FileStat, FileType, WorkspaceFs } from "../core/ports";
import { createSafeFiles } from "./safe-open";

/** POSIX separators, no trailing slash (except the file-system root). */
export function toPosix(p: string): string {
  const s = p.replace(/\\/g, "/");
  return s.length > 1 && s.endsWith("/") && !/^[A-Za-z]:\/$/.test(s) ? s.slice(0, -1) : s;
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function typeOf(d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileType {
  if (d.isSymbolicLink()) return "symlink";
  if (d.isFile()) return "file";
  if (d.isDirectory()) return "directory";
  return "other";
}

// A session's reads before its first request (guidance, settings) are stat, readDir, readFile and
// realPath: node:fs's callback forms, promisified, give the same answers without loading
// node:fs/promises and the readline internals it brings (2-6 ms of CPU at start-up; esbuild.mjs
// loads node:fs/promises on its first use). Writes and deletes use node:fs/promises.
const lstatAsync = promisify(lstat);
const readdirAsync = promisify(readdir);
const readFileAsync = promisify(readFile);
const realpathAsync = promisify(realpath.native);

/** Writes `data` to a temp file beside `target`, fsyncs it, keeps the old mode, then renames over. */
async function atomicWrite(target: string, data: Uint8Array): Promise<void> {
  let dest = target;
  const st = await fsp.lstat(target).catch(() => undefined);
  if (st?.isSymbolicLink()) dest = await fsp.realpath(target);
  const mode = st && !st.isSymbolicLink() ? st.mode & 0o7777 : st ? (await fsp.stat(dest)).mode & 0o7777 : undefined;
  const dir = nodePath.dirname(dest);
  await fsp.mkdir(dir, { recursive: true });
  const tmp = nodePath.join(dir, `.${nodePath.basename(dest)}.${process.pid}.${randomBytes(4).toString("hex")}.yoke-tmp`);
  const handle = await fsp.open(tmp, "wx", mode ?? 0o666);
  try {
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(tmp, dest);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}

/**
 * The workspace file system for `root`; with `folders`, a multi-root workspace whose first folder
 * is `root` (names default to the folders' base names). `syncReads`: stat, realPath, readDir,
 * readFile and readChecked make synchronous system calls (the same answers; SafeFilesOptions
 * says when: a CLI command reading many small files, never the extension host).
 */
export function createNodeWorkspaceFs(root: string, more: { folders?: ReadonlyArray<{ root: string; name?: string }>; syncReads?: boolean } = {}): WorkspaceFs {
  const rootPosix = toPosix(nodePath.resolve(root));
  const folders = more.folders?.map((f) => {
    const r = toPosix(nodePath.resolve(f.root));
    return { root: r, name: f.name ?? nodePath.basename(r) };
  });
  const safe = createSafeFiles([rootPosix, ...(folders?.map((f) => f.root) ?? [])], { syncReads: more.syncReads });
  const now = more.syncReads === true;
  return {
    root: rootPosix,
    ...(folders && folders.length > 1 ? { folders } : {}),
    async readFile(path) {
      return new Uint8Array(now ? readFileSync(path) : await readFileAsync(path));
    },
    writeFile: atomicWrite,
    readChecked: (path) => safe.read(path),
    readCheckedBytes: (path, ranges) => safe.readRanges(path, ranges),
    writeChecked: (path, data) => safe.write(path, data),
    async stat(path): Promise<FileStat | undefined> {
      try {
        const st = now ? lstatSync(path, { throwIfNoEntry: false }) : await lstatAsync(path);
        if (!st) return undefined;
        return { type: typeOf(st), size: st.size, mtimeMs: st.mtimeMs };
      } catch (e) {
        if (isMissing(e)) return undefined;
        throw e;
      }
    },
    async readDir(path) {
      const entries = now ? readdirSync(path, { withFileTypes: true }) : await readdirAsync(path, { withFileTypes: true });
      return entries.map((d) => [d.name, typeOf(d)] as [string, FileType]);
    },
    async realPath(path) {
      try {
        return toPosix(now ? realpathSync.native(path) : await realpathAsync(path));
      } catch (e) {
        if (isMissing(e) || (e as NodeJS.ErrnoException).code === "ELOOP") return undefined;
        throw e;
      }
    },
    async delete(path) {
      await fsp.rm(path, { recursive: true });
    },
    watch(path, onChange, options): Disposable {
      let watcher: FSWatcher;
      const handler = (_event: string, name: string | Buffer | null) => {
        onChange(name ? toPosix(nodePath.join(path, name.toString())) : toPosix(path));
      };
      try {
        // Not persistent: a watch never keeps the process (`yoke run`) alive.
        if (options?.recursive === false) watcher = fsWatch(path, { persistent: false }, handler);
        else {
          try {
            watcher = fsWatch(path, { recursive: true, persistent: false }, handler);
          } catch {
            watcher = fsWatch(path, { persistent: false }, handler);
          }
        }
      } catch {
        return { dispose() {} };
      }
      watcher.on("error", () => watcher.close());
      return { dispose: () => watcher.close() };
    },
  };
}
