// What the editor commands read from VS Code: the selection as an excerpt, a document's problems,
// paths as the model names them. `vscode` enums are read when used, never at module load.
import * as vscode from "vscode";
import type { DiagnosticSeverity } from "../../core/verification/types";
import type { FileProblem, SelectionExcerpt } from "./prompts";
import { notify } from "../shown";

/** A path as the model and the tools name it: workspace-relative (`folder/…` in a multi-root workspace), else absolute. */
export function modelPath(uri: vscode.Uri): string {
  if (uri.scheme === "untitled") return `${uri.path} (an unsaved, untitled editor)`;
  const multiRoot = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  return vscode.workspace.getWorkspaceFolder(uri) ? vscode.workspace.asRelativePath(uri, multiRoot) : uri.scheme === "file" ? uri.fsPath : uri.toString();
}

/**
 * The primary selection of `editor` as an excerpt; undefined when nothing is selected (unless
 * `cursorLine`: then the cursor's line). A selection that ends at column 0 of a line does not
 * take that line in.
 */
export function selectionExcerpt(editor: vscode.TextEditor, opts: { cursorLine?: boolean } = {}): (SelectionExcerpt & { cursorOnly: boolean }) | undefined {
  const doc = editor.document;
  const sel = editor.selection;
  const cursorOnly = sel.isEmpty;
  if (cursorOnly && !opts.cursorLine) return undefined;
  const start = sel.start.line;
  const end = !cursorOnly && sel.end.line > start && sel.end.character === 0 ? sel.end.line - 1 : sel.end.line;
  const lines: string[] = [];
  for (let n = start; n <= end; n++) lines.push(doc.lineAt(n).text);
  const wholeLines = cursorOnly || (sel.start.character === 0 && (sel.end.line > end || sel.end.character >= doc.lineAt(end).text.length));
  const text = cursorOnly ? (lines[0] ?? "") : doc.getText(sel);
  return {
    path: modelPath(doc.uri),
    startLine: start + 1,
    endLine: end + 1,
    languageId: doc.languageId,
    text,
    lines,
    wholeLines,
    ...(doc.isDirty ? { unsaved: true } : {}),
    cursorOnly,
  };
}

export function severityName(s: vscode.DiagnosticSeverity): DiagnosticSeverity {
  const S = vscode.DiagnosticSeverity;
  return s === S.Error ? "error" : s === S.Warning ? "warning" : s === S.Information ? "info" : "hint";
}

/** The problems VS Code knows in `uri` now (vscode.languages.getDiagnostics), as the prompt lists them. */
export function fileProblems(uri: vscode.Uri): FileProblem[] {
  return vscode.languages.getDiagnostics(uri).map((d) => {
    const code = d.code === undefined ? undefined : typeof d.code === "object" ? String(d.code.value) : String(d.code);
    return {
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      severity: severityName(d.severity),
      message: d.message,
      ...(d.source ? { source: d.source } : {}),
      ...(code ? { code } : {}),
    };
  });
}

/**
 * The agent edits files on disk, inside the workspace. Resolves to false (and says why) when the
 * document cannot be edited that way; a document with unsaved changes is saved first if the user agrees.
 */
export async function readyForEdit(doc: vscode.TextDocument, what: string): Promise<boolean> {
  if (doc.isUntitled) {
    void notify("warning", `Yoke: save this editor to a file in the workspace first; ${what} edits files on disk.`);
    return false;
  }
  if (!vscode.workspace.getWorkspaceFolder(doc.uri)) {
    void notify("warning", `Yoke: ${modelPath(doc.uri)} is outside the workspace; ${what} edits files of the workspace only.`);
    return false;
  }
  if (!doc.isDirty) return true;
  const save = "Save and Continue";
  const pick = await notify("warning", `${modelPath(doc.uri)} has unsaved changes. Yoke edits the file on disk, so it must be saved first.`, { modal: true }, save);
  if (pick !== save) return false;
  if (!(await doc.save())) {
    void notify("error", `Yoke: ${modelPath(doc.uri)} could not be saved; nothing was sent.`);
    return false;
  }
  return true;
}

/** The lines of a document (without line breaks). */
export function documentLines(doc: vscode.TextDocument): string[] {
  const out: string[] = [];
  for (let n = 0; n < doc.lineCount; n++) out.push(doc.lineAt(n).text);
  // A final newline does not start a line of its own in the read_file view.
  if (out.length > 1 && out.at(-1) === "") out.pop();
  return out;
}
