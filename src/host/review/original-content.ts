// The left side of a review diff: the file as it was before the agent's change, served from memory
// under the `yoke-original` scheme (yoke-original:/<path>?<editId>).
import * as vscode from "vscode";

export const ORIGINAL_SCHEME = "yoke-original";

export class OriginalContentProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  set(editId: string, text: string): void {
    this.texts.set(editId, text);
  }

  delete(editId: string): void {
    this.texts.delete(editId);
  }

  uriFor(editId: string, file: vscode.Uri): vscode.Uri {
    return vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: file.path, query: encodeURIComponent(editId) });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(decodeURIComponent(uri.query)) ?? "";
  }
}
