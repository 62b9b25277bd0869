// Proposals kept out of the real file: when `files.autoSave` would write whatever the editor holds,
// a change under review lives in a document of its own, yoke-proposal:/<path>?<editId>, served
// from memory. It is a real, editable text document (decorations, CodeLens, typing, undo), and
// saving it — by auto save or by hand — only stores its text here; nothing reaches the disk until
// the review ends and the reviewer writes the decided text into the file.
import * as vscode from "vscode";

export const PROPOSAL_SCHEME = "yoke-proposal";

interface Entry {
  data: Uint8Array;
  ctime: number;
  mtime: number;
}

export class ProposalFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly files = new Map<string, Entry>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  /** The proposal document of a change to `file`. */
  uriFor(editId: string, file: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: file.path, query: encodeURIComponent(editId) });
  }

  /** Puts (or replaces) a proposal's text; an editor showing it reloads. */
  set(uri: vscode.Uri, text: string): void {
    const key = uri.toString();
    const now = Date.now();
    const existed = this.files.has(key);
    this.files.set(key, { data: new TextEncoder().encode(text), ctime: this.files.get(key)?.ctime ?? now, mtime: now });
    this.changed.fire([{ type: existed ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }

  has(uri: vscode.Uri): boolean {
    return this.files.has(uri.toString());
  }

  /** The stored text (what the editor last saved here, or what `set` put). */
  text(uri: vscode.Uri): string | undefined {
    const e = this.files.get(uri.toString());
    return e ? new TextDecoder().decode(e.data) : undefined;
  }

  drop(uri: vscode.Uri): void {
    if (this.files.delete(uri.toString())) this.changed.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const e = this.entry(uri);
    return { type: vscode.FileType.File, ctime: e.ctime, mtime: e.mtime, size: e.data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.entry(uri).data;
  }

  /** A save of the proposal document (auto save or the user's): kept in memory, never on disk. */
  writeFile(uri: vscode.Uri, content: Uint8Array, options: { create: boolean; overwrite: boolean }): void {
    const key = uri.toString();
    const old = this.files.get(key);
    if (!old && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
    const now = Date.now();
    this.files.set(key, { data: content, ctime: old?.ctime ?? now, mtime: now });
    this.changed.fire([{ type: old ? vscode.FileChangeType.Changed : vscode.FileChangeType.Created, uri }]);
  }

  delete(uri: vscode.Uri): void {
    this.entry(uri);
    this.drop(uri);
  }

  rename(oldUri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(oldUri);
  }

  dispose(): void {
    this.changed.dispose();
    this.files.clear();
  }

  private entry(uri: vscode.Uri): Entry {
    const e = this.files.get(uri.toString());
    if (!e) throw vscode.FileSystemError.FileNotFound(uri);
    return e;
  }
}
