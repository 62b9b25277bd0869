// The review's own writes to documents and files, shared by both placements (inline, staged):
// edits and saves it makes itself (so its listeners tell them from the user's), the file the
// permission gate checked (verified before each save: VS Code's save follows links), files and
// folders it created for a new file's proposal, and the file's text on disk.
import * as vscode from "vscode";
import type { ProposedChange } from "../../core/review";
import { computeHunks } from "../../core/review-hunks";
import { isPathChanged } from "../../core/ports";
import { pathChangedText } from "../../core/tools/file-access";
import { ToolError } from "../../core/tools/types";
import { assertSameFile, identityOf, readDisk, type FileIdentity } from "./checked-file";
import { firstMissingFolder, holdsNoFiles } from "./created-folders";
import { lineSpan } from "./document-ranges";

export class OwnWrites {
  private ownEdits = 0;
  /** Documents the reviewer itself is saving (their saves decide nothing). */
  private readonly ownSaves = new Map<string, number>();
  /** New file URI -> the outermost folder created for it (removed again if the file is). */
  private readonly createdDirs = new Map<string, vscode.Uri>();
  /** File URI -> the file the permission gate checked (local files), verified before each save of ours. */
  private readonly checkedFiles = new Map<string, { identity: FileIdentity; tool: string; rel: string }>();

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** An edit of ours is being applied (a document change now is not the user's). */
  get editing(): boolean {
    return this.ownEdits > 0;
  }

  /** A save of ours is under way for this document. */
  saving(key: string): boolean {
    return this.ownSaves.has(key);
  }

  async apply(edit: vscode.WorkspaceEdit): Promise<boolean> {
    this.ownEdits++;
    try {
      return await vscode.workspace.applyEdit(edit);
    } finally {
      this.ownEdits--;
    }
  }

  async save(doc: vscode.TextDocument): Promise<boolean> {
    await this.verifyChecked(doc);
    const key = doc.uri.toString();
    this.ownSaves.set(key, (this.ownSaves.get(key) ?? 0) + 1);
    try {
      const saved = await doc.save();
      await this.renote(doc.uri);
      return saved;
    } finally {
      const n = (this.ownSaves.get(key) ?? 1) - 1;
      if (n > 0) this.ownSaves.set(key, n);
      else this.ownSaves.delete(key);
    }
  }

  /** Puts `text` into a document with the smallest edits (the cursor and undo history of the rest stay). */
  async replaceText(doc: vscode.TextDocument, text: string): Promise<void> {
    const now = doc.getText();
    if (now === text) return;
    const edit = new vscode.WorkspaceEdit();
    for (const h of computeHunks(now, text)) edit.replace(doc.uri, lineSpan(doc, h.beforeStart, h.beforeStart + h.beforeLines.length), h.afterLines.join(""));
    if (!(await this.apply(edit))) this.log.warn(`could not write ${doc.uri.toString()}`);
  }

  /** Creates the (empty) file a new file's proposal is shown in. */
  async createEmpty(change: ProposedChange, uri: vscode.Uri): Promise<vscode.TextDocument> {
    if (await exists(uri)) throw new ToolError(`${change.relPath} now exists (it was created after you checked). Read it, then edit it.`);
    const createdDir = await firstMissingFolder(uri);
    const create = new vscode.WorkspaceEdit();
    create.createFile(uri, { ignoreIfExists: false });
    if (createdDir) this.createdDirs.set(uri.toString(), createdDir);
    if (!(await this.apply(create))) throw new ToolError(`VS Code could not create ${change.relPath}.`);
    // The file VS Code just created is the one later saves must find.
    await this.noteChecked(change, uri);
    return vscode.workspace.openTextDocument(uri);
  }

  /** Removes a file this review created (only when it is empty: nothing of the user's is lost). */
  async removeCreated(doc: vscode.TextDocument): Promise<void> {
    if (doc.getText() !== "") return;
    await this.save(doc);
    const del = new vscode.WorkspaceEdit();
    del.deleteFile(doc.uri, { ignoreIfNotExists: true });
    await this.apply(del);
    const dir = this.createdDirs.get(doc.uri.toString());
    this.createdDirs.delete(doc.uri.toString());
    if (dir && (await holdsNoFiles(dir))) await vscode.workspace.fs.delete(dir, { recursive: true, useTrash: false }).then(undefined, () => undefined);
  }

  /**
   * Notes which file `uri` is now (local files): the one the core read and the gate checked, or
   * none. A link there now, or a folder on the way that leads elsewhere, refuses the change.
   */
  async noteChecked(change: ProposedChange, uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    try {
      this.checkedFiles.set(key, { identity: await identityOf(uri), tool: change.tool, rel: change.relPath });
    } catch (err) {
      if (isPathChanged(err)) throw new ToolError(pathChangedText(change.tool, change.relPath, err.detail, "written"));
      throw err;
    }
  }

  /** The review of this file ended: its noted identity is dropped. */
  forgetChecked(uri: vscode.Uri): void {
    this.checkedFiles.delete(uri.toString());
  }

  /** Before a save of ours: the file must still be the one noted (VS Code's save follows links). */
  private async verifyChecked(doc: vscode.TextDocument): Promise<void> {
    const noted = this.checkedFiles.get(doc.uri.toString());
    if (!noted) return;
    try {
      noted.identity = await assertSameFile(doc.uri, noted.identity);
    } catch (err) {
      if (isPathChanged(err)) throw new ToolError(pathChangedText(noted.tool, noted.rel, err.detail, "written"));
      throw err;
    }
  }

  /** The file as a save left it (a save may write a new file in its place). */
  async renote(uri: vscode.Uri): Promise<void> {
    const noted = this.checkedFiles.get(uri.toString());
    if (noted) noted.identity = await identityOf(uri).catch(() => noted.identity);
  }

  /** The file's text on disk (local files through the safe opens); null when it cannot be read. */
  async diskText(uri: vscode.Uri): Promise<string | null> {
    return readDisk(uri).then(
      (bytes) => new TextDecoder().decode(bytes),
      () => null,
    );
  }
}

export async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}
