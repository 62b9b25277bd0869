/**
 * The editor's document events a change under review follows: typing in it (the hunks move with
 * it), closing it unsaved (the change is rejected), saving it (the user's save accepts what is
 * shown; an auto save of a file holding a proposal moves the review to a proposal document).
 */
import * as vscode from "vscode";
import type { HunkDecision } from "../../core/review-hunks";
import { activity } from "../../node/watchdog";
import type { AutoSaveMove } from "./inline";
import type { OwnWrites } from "./own-writes";
import type { ReviewEntry } from "./review-entry";
import type { SerialQueue } from "./serial-queue";
import { notify } from "../shown";

export interface DocumentEventsHost {
  own: OwnWrites;
  autoSaveMove: AutoSaveMove;
  log: { info(m: string): void };
  queue: SerialQueue;
  pendingFor(uri: vscode.Uri): ReviewEntry | undefined;
  changed(): void;
  finish(entry: ReviewEntry): Promise<void>;
  decide(editId: string, which: number[] | "all", decision: HunkDecision): Promise<void>;
}

/** Follows the documents under review; the listeners to dispose with the reviewer. */
export function watchDocuments(h: DocumentEventsHost): vscode.Disposable[] {
  /** Why a document under review is being saved (from onWillSave, read in onDidSave). */
  const saveReasons = new Map<string, vscode.TextDocumentSaveReason>();
  const onDocumentChange = (e: vscode.TextDocumentChangeEvent): void => {
    if (!e.contentChanges.length) return;
    const byUser = !h.own.editing;
    const entry = h.pendingFor(e.document.uri);
    if (!entry) return;
    entry.follow(e.contentChanges, byUser);
    h.changed();
  };

  const onDocumentClosed = (doc: vscode.TextDocument): void => {
    const entry = h.pendingFor(doc.uri);
    // A staged proposal stays pending when its editor closes (the panel and the file's CodeLens reopen it).
    if (!entry || entry.staged || h.own.editing) return;
    // The user closed the editor without saving: the proposal is gone, the disk holds the original.
    void h.queue.run(entry.editId, async () => {
      if (entry.status !== "pending") return;
      entry.decisions.fill("rejected");
      entry.message = "the user closed the file without keeping the change";
      await h.finish(entry);
    });
  };

  /**
   * Before a document under review is saved. The user's own save is noted (it accepts, once it is
   * done). An auto save of a file that holds a proposal (auto save was switched on during the
   * review) must not write it: the save writes the file without the proposal (the original lines
   * over every hunk not rejected), and the review goes on in a proposal document of its own.
   */
  const onWillSave = (e: vscode.TextDocumentWillSaveEvent): void => {
    const key = e.document.uri.toString();
    if (h.own.saving(key)) return;
    const entry = h.pendingFor(e.document.uri);
    if (!entry) return;
    saveReasons.set(key, e.reason);
    if (e.reason !== vscode.TextDocumentSaveReason.Manual && !entry.staged) e.waitUntil(Promise.resolve(h.autoSaveMove.moveOut(entry, e.document)));
  };

  const onDidSave = (doc: vscode.TextDocument): void => {
    const key = doc.uri.toString();
    if (h.own.saving(key)) return;
    // The user's own save: what it left is the file from now on.
    void h.own.renote(doc.uri);
    const reason = saveReasons.get(key);
    saveReasons.delete(key);
    if (h.autoSaveMove.afterSave(doc)) return;
    const entry = h.pendingFor(doc.uri);
    if (!entry) return;
    // An auto save of a staged proposal only keeps its text in memory; so does a save whose reason is unknown.
    if (entry.staged ? reason !== vscode.TextDocumentSaveReason.Manual : reason !== undefined && reason !== vscode.TextDocumentSaveReason.Manual) return;
    // The user saved what the review shows. (Inline, a save without onWillSave — "Save without
    // Formatting" skips it — wrote the proposal all the same: it is accepted too.)
    h.log.info(`review ${entry.editId}: ${entry.change.relPath} saved by the user: the hunks still open are accepted`);
    void notify("info", `Yoke: you saved ${entry.change.relPath}, so the change under review is accepted as shown.`);
    void h.decide(entry.editId, "all", "accepted");
  };
  return [
    vscode.workspace.onDidChangeTextDocument((e) => activity("review:document-change", () => onDocumentChange(e))),
    vscode.workspace.onDidCloseTextDocument((doc) => onDocumentClosed(doc)),
    vscode.workspace.onWillSaveTextDocument((e) => onWillSave(e)),
    vscode.workspace.onDidSaveTextDocument((doc) => onDidSave(doc)),
  ];
}
