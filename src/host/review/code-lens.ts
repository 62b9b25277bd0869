// CodeLens rows of a document with a pending change: "Accept File | Reject File | Open Diff" at the
// top and "Accept | Reject" above each undecided hunk. A file whose change is staged (kept in a
// proposal document of its own while auto save is on) gets one row pointing there.
import * as vscode from "vscode";
import type { ReviewEntry } from "./review-entry";

export const SHOW_PROPOSAL_COMMAND = "yoke.review.showProposal";

export class ReviewCodeLens implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    /** The change reviewed in this document. */
    private readonly entryFor: (uri: vscode.Uri) => ReviewEntry | undefined,
    /** The change of this file, wherever it is reviewed. */
    private readonly entryForFile: (uri: vscode.Uri) => ReviewEntry | undefined = () => undefined,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const entry = this.entryFor(doc.uri);
    if (!entry) {
      const staged = this.entryForFile(doc.uri);
      if (!staged?.staged) return [];
      const top = new vscode.Range(0, 0, 0, 0);
      return [
        new vscode.CodeLens(top, { title: "Yoke: a change to this file waits for your review in its own editor (auto save is on)", command: "" }),
        new vscode.CodeLens(top, { title: "Show Change", command: SHOW_PROPOSAL_COMMAND, arguments: [staged.editId] }),
      ];
    }
    const id = entry.editId;
    const top = new vscode.Range(0, 0, 0, 0);
    const left = entry.undecided.length;
    const lenses = [
      new vscode.CodeLens(top, { title: `Yoke: ${left} of ${entry.hunks.length} hunk${entry.hunks.length === 1 ? "" : "s"} to review`, command: "" }),
      new vscode.CodeLens(top, { title: "Accept File", command: "yoke.acceptFile", arguments: [id] }),
      new vscode.CodeLens(top, { title: "Reject File", command: "yoke.rejectFile", arguments: [id] }),
      new vscode.CodeLens(top, { title: "Open Diff", command: "yoke.openReviewDiff", arguments: [id] }),
    ];
    if (entry.group && entry.group.files.length > 1) {
      // One file of a change of several files (a patch, an agent's change): the whole change can be decided from here too.
      const n = entry.group.files.length;
      const label = entry.file?.op === "delete" ? "deletes this file" : entry.file?.op === "move" ? `moves this file to ${entry.file.relPath}` : "changes this file";
      lenses.push(
        new vscode.CodeLens(top, { title: `part of one change of ${n} files (it ${label}); nothing is written until every file is decided`, command: "" }),
        new vscode.CodeLens(top, { title: "Accept Change", command: "yoke.acceptFile", arguments: [entry.group.setId] }),
        new vscode.CodeLens(top, { title: "Reject Change", command: "yoke.rejectFile", arguments: [entry.group.setId] }),
      );
    }
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
