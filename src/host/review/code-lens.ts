// CodeLens rows of a file with a pending change: "Accept File | Reject File | Open Diff" at the top
// and "Accept | Reject" above each undecided hunk.
import * as vscode from "vscode";
import type { ReviewEntry } from "./review-entry";

export class ReviewCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly entryFor: (uri: vscode.Uri) => ReviewEntry | undefined) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const entry = this.entryFor(doc.uri);
    if (!entry) return [];
    const id = entry.editId;
    const top = new vscode.Range(0, 0, 0, 0);
    const left = entry.undecided.length;
    const lenses = [
      new vscode.CodeLens(top, { title: `Yoke: ${left} of ${entry.hunks.length} hunk${entry.hunks.length === 1 ? "" : "s"} to review`, command: "" }),
      new vscode.CodeLens(top, { title: "Accept File", command: "yoke.acceptFile", arguments: [id] }),
      new vscode.CodeLens(top, { title: "Reject File", command: "yoke.rejectFile", arguments: [id] }),
      new vscode.CodeLens(top, { title: "Open Diff", command: "yoke.openReviewDiff", arguments: [id] }),
    ];
    const last = doc.lineCount - 1;
    for (const k of entry.undecided) {
      const line = Math.min(entry.ranges[k]!.start, last);
      const at = new vscode.Range(line, 0, line, 0);
      const h = entry.hunks[k]!;
      lenses.push(
        new vscode.CodeLens(at, { title: "Accept", command: "yoke.acceptHunk", arguments: [id, k], tooltip: `Keep hunk ${k + 1}` }),
        new vscode.CodeLens(at, { title: "Reject", command: "yoke.rejectHunk", arguments: [id, k], tooltip: `Restore the original lines of hunk ${k + 1}` }),
        new vscode.CodeLens(at, { title: `hunk ${k + 1}: +${h.afterLines.length} −${h.beforeLines.length}`, command: "" }),
      );
    }
    return lenses;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
