// WorkspaceFs over vscode.workspace.fs, so the core reads and writes through VS Code's file system
// providers: this is what makes Remote-SSH, WSL and dev containers work.
import * as vscode from "vscode";
import { PathChangedError, type CheckedRead, type Disposable, type FileStat, type FileType, type WorkspaceFs } from "../core/ports";
import { realPathOnDisk } from "../node/local-files";
import { createSafeFiles } from "../node/safe-open";

const CODES: Record<string, string> = {
  FileNotFound: "ENOENT",
  FileExists: "EEXIST",
  FileNotADirectory: "ENOTDIR",
  FileIsADirectory: "EISDIR",
  NoPermissions: "EACCES",
  Unavailable: "EAGAIN",
};

/** Re-throws a vscode.FileSystemError as an Error with a Node-style `code`, as the Node port does. */
function nodeStyle(err: unknown, op: string, path: string): Error {
  if (err instanceof vscode.FileSystemError) {
    const code = CODES[err.code] ?? "EIO";
    const e = new Error(`${code}: ${err.message || err.code}, ${op} '${path}'`) as Error & { code: string };
    e.code = code;
    return e;
  }
  return err instanceof Error ? err : new Error(String(err));
}

function typeOf(t: vscode.FileType): FileType {
  if (t & vscode.FileType.SymbolicLink) return "symlink";
  if (t & vscode.FileType.Directory) return "directory";
  if (t & vscode.FileType.File) return "file";
  return "other";
}

/**
 * Files of this scheme are on the extension host's own disk: `file:`, and `vscode-remote:` (the
 * extension runs on the remote machine, extensionKind "workspace"), so Node can open them.
 */
export function isLocalScheme(scheme: string): boolean {
  return scheme === "file" || scheme === "vscode-remote";
}

/** "/c:/x" (a URI path with a drive letter) -> "c:/x"; POSIX paths unchanged. */
export function uriPathToFsPath(uriPath: string): string {
  const p = /^\/[a-zA-Z]:/.test(uriPath) ? uriPath.slice(1) : uriPath;
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

/**
 * The workspace file system over VS Code's providers. With several folders (a multi-root
 * workspace) each path goes to the folder holding it, in that folder's scheme and authority.
 */
export function createVscodeWorkspaceFs(first: vscode.Uri, all: ReadonlyArray<{ uri: vscode.Uri; name: string }> = []): WorkspaceFs {
  const fs = vscode.workspace.fs;
  const root = uriPathToFsPath(first.path);
  const folders = all.map((f) => ({ uri: f.uri, name: f.name, root: uriPathToFsPath(f.uri.path) }));
  const folderFor = (path: string) => folders.find((f) => path === f.root || path.startsWith(f.root.endsWith("/") ? f.root : `${f.root}/`))?.uri ?? first;
  const toUri = (path: string) => folderFor(path).with({ path: path.startsWith("/") ? path : `/${path}` });
  const fromUri = (uri: vscode.Uri) => uriPathToFsPath(uri.path);

  async function stat(path: string): Promise<FileStat | undefined> {
    try {
      const s = await fs.stat(toUri(path));
      return { type: typeOf(s.type), size: s.size, mtimeMs: s.mtime };
    } catch (err) {
      if (err instanceof vscode.FileSystemError && err.code === "FileNotFound") return undefined;
      throw nodeStyle(err, "stat", path);
    }
  }

  // File tools' reads and writes of local (file:) folders go through the Node safe opens: the
  // extension host runs where the files are (extensionKind "workspace", also over Remote-SSH).
  const localRoots = [first, ...folders.map((f) => f.uri)].filter((u) => isLocalScheme(u.scheme)).map((u) => uriPathToFsPath(u.path));
  const safe = createSafeFiles(localRoots);
  const isLocal = (path: string) => isLocalScheme(toUri(path).scheme);

  /**
   * Other schemes (a virtual file system provider): no descriptors, so the best
   * available — no component below the folder root may be a link when looked at just before the
   * operation. A link swapped in between this walk and the provider's own open is not seen.
   */
  async function noLinkOnTheWay(path: string): Promise<void> {
    const base = uriPathToFsPath(folderFor(path).path);
    const rest = path === base ? [] : path.slice(base.length + 1).split("/");
    let cur = base;
    for (const part of rest) {
      cur = `${cur}/${part}`;
      const s = await stat(cur);
      if (!s) return;
      if (s.type === "symlink") throw new PathChangedError(path, `${cur} is now a symbolic link`);
    }
  }

  async function readFile(path: string): Promise<Uint8Array> {
    try {
      return await fs.readFile(toUri(path));
    } catch (err) {
      throw nodeStyle(err, "open", path);
    }
  }

  async function writeFile(path: string, data: Uint8Array): Promise<void> {
    const target = toUri(path);
    const parent = vscode.Uri.joinPath(target, "..");
    const tmp = vscode.Uri.joinPath(parent, `.${target.path.split("/").pop()}.yoke-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}.tmp`);
    try {
      await fs.createDirectory(parent);
      await fs.writeFile(tmp, data);
      await fs.rename(tmp, target, { overwrite: true });
    } catch (err) {
      await fs.delete(tmp, { useTrash: false }).then(undefined, () => undefined);
      throw nodeStyle(err, "write", path);
    }
  }

  return {
    root,
    ...(folders.length > 1 ? { folders: folders.map(({ name, root: r }) => ({ name, root: r })) } : {}),
    readFile,
    writeFile,
    async readChecked(path): Promise<CheckedRead> {
      if (isLocal(path)) return safe.read(path);
      await noLinkOnTheWay(path);
      const data = await readFile(path);
      const st = await stat(path);
      if (!st) throw nodeStyle(vscode.FileSystemError.FileNotFound(toUri(path)), "open", path);
      return { data, stat: st };
    },
    async readCheckedBytes(path, ranges) {
      if (isLocal(path)) return safe.readRanges(path, ranges);
      // Another file system: the whole file, checked as readChecked checks it, cut to the ranges.
      const { data, stat: st } = await this.readChecked(path);
      return { chunks: ranges.map((r) => data.subarray(Math.min(r.offset, data.length), Math.min(r.offset + r.length, data.length))), stat: st };
    },
    async writeChecked(path, data): Promise<FileStat> {
      if (isLocal(path)) return safe.write(path, data);
      await noLinkOnTheWay(path);
      await writeFile(path, data);
      const st = await stat(path);
      return st ?? { type: "file", size: data.length, mtimeMs: Date.now() };
    },
    stat,
    async readDir(path) {
      try {
        const entries = await fs.readDirectory(toUri(path));
        return entries.map(([name, t]) => [name, typeOf(t)] as [string, FileType]);
      } catch (err) {
        throw nodeStyle(err, "scandir", path);
      }
    },
    async realPath(path) {
      // vscode.workspace.fs has no realpath. The extension runs on the workspace's machine
      // (extensionKind workspace), so Node can resolve the local path of a file: URI or a remote one.
      const uri = toUri(path);
      try {
        const real = await realPathOnDisk(uri.fsPath);
        return uriPathToFsPath(vscode.Uri.file(real).path);
      } catch (err) {
        if ((err as { code?: string }).code === "ENOENT" || (err as { code?: string }).code === "ENOTDIR") return undefined;
        // Not reachable through Node: accept the path only if nothing on the way is a symlink.
        const parts = path.split("/");
        for (let i = 2; i <= parts.length; i++) {
          const s = await stat(parts.slice(0, i).join("/"));
          if (!s) return undefined;
          if (s.type === "symlink") throw nodeStyle(err, "realpath", path);
        }
        return path;
      }
    },
    async delete(path) {
      try {
        await fs.delete(toUri(path), { recursive: true, useTrash: false });
      } catch (err) {
        throw nodeStyle(err, "unlink", path);
      }
    },
    watch(path, onChange): Disposable {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(toUri(path), "**/*"));
      const fire = (uri: vscode.Uri) => onChange(fromUri(uri));
      const subs = [watcher.onDidChange(fire), watcher.onDidCreate(fire), watcher.onDidDelete(fire)];
      return {
        dispose() {
          for (const s of subs) s.dispose();
          watcher.dispose();
        },
      };
    },
  };
}
