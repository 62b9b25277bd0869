// Where and how a proposal is shown. It never takes the focus from an editor the user is typing
// in: then it opens beside that editor with the focus kept (yoke.review.focus "background", the
// default, never takes it at all). yoke.review.view "diff" opens the diff editor instead.
import * as vscode from "vscode";
import { reviewSettings } from "../settings";
import type { ReviewEntry } from "./review-entry";

export interface ShowOptions {
  /** The user typed in the active editor moments ago. */
  typing: boolean;
  openDiff(options: vscode.TextDocumentShowOptions): Promise<void>;
}

export async function showProposal(entry: ReviewEntry, doc: vscode.TextDocument, opts: ShowOptions): Promise<void> {
  const cfg = reviewSettings();
  const preserveFocus = cfg.focus !== "foreground" || opts.typing;
  const key = entry.docUri.toString();
  // A plain editor already showing the proposal's document (a diff editor does not count: it shows
  // no CodeLens); a staged proposal opens where the file itself is shown.
  const showing = (uri: vscode.Uri) => vscode.window.tabGroups.all.find((g) => g.activeTab?.input instanceof vscode.TabInputText && g.activeTab.input.uri.toString() === uri.toString())?.viewColumn;
  const visible = showing(entry.docUri) ?? (entry.staged ? showing(entry.uri) : undefined);
  const active = vscode.window.activeTextEditor;
  const column = opts.typing && active && active.document.uri.toString() !== key ? vscode.ViewColumn.Beside : (visible ?? vscode.ViewColumn.Active);
  if (cfg.view === "diff") {
    await opts.openDiff({ preview: true, preserveFocus, viewColumn: column });
    return;
  }
  if (visible && opts.typing && showing(entry.docUri)) return;
  const editor = await vscode.window.showTextDocument(doc, { preview: true, preserveFocus, viewColumn: column });
  const line = entry.ranges[0]?.start ?? 0;
  editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
