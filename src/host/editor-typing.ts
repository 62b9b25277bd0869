// Whether the user is typing in an editor. What Yoke opens by itself — a proposal to review, a
// file a language server must look at before an edit — must not take that editor away: it goes
// beside it, and the focus (and every keystroke) stays where the user is typing.
import * as vscode from "vscode";

/** The user typed in the active editor within this many ms. */
export const TYPING_MS = 3_000;

export class TypingWatch implements vscode.Disposable {
  private lastTypedAt = Number.NEGATIVE_INFINITY;
  private readonly ownEdits: Array<() => boolean> = [];
  private readonly sub: vscode.Disposable;

  constructor(private readonly now: () => number = Date.now) {
    this.sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (!e.contentChanges.length || this.ownEdits.some((busy) => busy())) return;
      if (vscode.window.activeTextEditor?.document === e.document) this.lastTypedAt = this.now();
    });
  }

  /** Document changes made while `busy()` is true are Yoke's own, not the user's typing. */
  ignoreWhile(busy: () => boolean): void {
    this.ownEdits.push(busy);
  }

  /** Milliseconds since the user last typed in the active editor (Infinity: not yet). */
  sinceTyped(): number {
    return this.now() - this.lastTypedAt;
  }

  typing(): boolean {
    return this.sinceTyped() < TYPING_MS;
  }

  /**
   * The column for a document Yoke shows by itself: beside the editor the user is typing in when
   * that editor shows another document; otherwise undefined (the caller's own choice).
   */
  besideTyping(uri: vscode.Uri): vscode.ViewColumn | undefined {
    const active = vscode.window.activeTextEditor;
    return this.typing() && active && active.document.uri.toString() !== uri.toString() ? vscode.ViewColumn.Beside : undefined;
  }

  dispose(): void {
    this.sub.dispose();
  }
}
