// The review writes through VS Code (a WorkspaceEdit, then the document's save), and VS Code
// opens the file by name, following links. For files on the extension host's disk (file: and
// vscode-remote: folders) the reviewer notes which
// file the permission gate checked (not a link, its folder where the canonical path says, its
// dev/ino) and makes sure it is still that file right before each save; disk reads go through
// the Node safe opens. A link swapped in between this check and VS Code's own write is not seen
// (VS Code has no descriptor API): the window is the save call itself. Other schemes are not
// checked here (a remote file system provider cannot be raced by the agent's sandboxed commands
// the same way; see docs/security.md).
import * as vscode from "vscode";
import { PathChangedError } from "../../core/ports";
import { localFileIdentity, type FileIdentity } from "../../node/local-files";
import { createSafeFiles } from "../../node/safe-open";
import { isLocalScheme, uriPathToFsPath } from "../workspace-fs";

export type { FileIdentity } from "../../node/local-files";

function folderRoot(uri: vscode.Uri): string {
  // Outside any folder (or where the API has no lookup): nothing on the whole path may be a link.
  const folder = typeof vscode.workspace.getWorkspaceFolder === "function" ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  return folder ? uriPathToFsPath(folder.uri.path) : "/";
}

/**
 * The file at `uri` as it is now: absent, or a regular file with its dev/ino. Throws
 * PathChangedError when the name is a link, or a folder on the way leads elsewhere.
 */
export async function identityOf(uri: vscode.Uri): Promise<FileIdentity> {
  if (!isLocalScheme(uri.scheme)) return { kind: "unchecked" };
  return localFileIdentity(uriPathToFsPath(uri.path), folderRoot(uri));
}

/** Throws PathChangedError unless `uri` is still the file `before` described (a new file may have appeared where none was). */
export async function assertSameFile(uri: vscode.Uri, before: FileIdentity): Promise<FileIdentity> {
  if (before.kind === "unchecked") return before;
  const now = await identityOf(uri);
  if (before.kind === "file" && (now.kind !== "file" || now.dev !== before.dev || now.ino !== before.ino)) {
    throw new PathChangedError(uriPathToFsPath(uri.path), now.kind === "absent" ? "the file was removed" : "another file was put in its place");
  }
  return now;
}

/** The file's bytes: local files through the safe opens (never through a link), others through VS Code. */
export async function readDisk(uri: vscode.Uri): Promise<Uint8Array> {
  if (!isLocalScheme(uri.scheme)) return vscode.workspace.fs.readFile(uri);
  const path = uriPathToFsPath(uri.path);
  return (await createSafeFiles([folderRoot(uri)]).read(path)).data;
}
