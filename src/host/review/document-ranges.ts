// Line ranges of a document as VS Code ranges. Line `n` of review-hunks' splitLines is line `n`
// of the document; a range ending at or past the last line ends at the end of the document.
import * as vscode from "vscode";

/** The start of line `line`, or the end of the document when `line` is past its last line. */
export function lineStart(doc: vscode.TextDocument, line: number): vscode.Position {
  if (line < doc.lineCount) return new vscode.Position(Math.max(0, line), 0);
  return doc.lineAt(doc.lineCount - 1).range.end;
}

/** Lines [start, end) including the terminator of the last one. */
export function lineSpan(doc: vscode.TextDocument, start: number, end: number): vscode.Range {
  return new vscode.Range(lineStart(doc, start), lineStart(doc, end));
}

export function docRange(doc: vscode.TextDocument): vscode.Range {
  return new vscode.Range(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
}
