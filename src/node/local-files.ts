// Files on this machine's disk that the host's workspace abstraction cannot answer for: a path's
// real path (vscode.workspace.fs has none) and a file's identity (dev/ino) for the review's
// check-before-save (src/host/review/checked-file.ts). The extension runs on the workspace's
// machine (extensionKind workspace), so for file: and vscode-remote: folders these are local paths.
import * as fsp from "node:fs/promises";
import { PathChangedError } from "../core/ports";
import { createSafeFiles } from "./safe-open";

export type FileIdentity = { kind: "absent" } | { kind: "file"; dev: number; ino: number } | { kind: "unchecked" };

/** The real path (links resolved); throws like fs.realpath (ENOENT, ENOTDIR, …). */
export function realPathOnDisk(path: string): Promise<string> {
  return fsp.realpath(path);
}

function parentOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

/**
 * The file at `path` (under `root`, where nothing may be a link) as it is now: absent, or a
 * regular file with its dev/ino. Throws PathChangedError when the name is a link, or a folder on
 * the way leads elsewhere.
 */
export async function localFileIdentity(path: string, root: string): Promise<FileIdentity> {
  const safe = createSafeFiles([root]);
  const parent = parentOf(path);
  const [realParent, want] = await Promise.all([fsp.realpath(parent).catch(() => undefined), safe.expectedReal(parent)]);
  if (realParent !== undefined && realParent !== want) throw new PathChangedError(path, `a symbolic link on the way now leads to ${realParent}`);
  const st = await fsp.lstat(path).catch((e: { code?: string }) => {
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return undefined;
    throw e;
  });
  if (!st) return { kind: "absent" };
  if (st.isSymbolicLink()) throw new PathChangedError(path, "the file is now a symbolic link");
  if (!st.isFile()) throw new PathChangedError(path, "it is not a regular file");
  return { kind: "file", dev: st.dev, ino: st.ino };
}
