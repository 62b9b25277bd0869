// The inline placement: the proposal is written into the file's own document through a
// WorkspaceEdit (unsaved editors, undo and Remote-SSH work) and saved only when every hunk is
// decided; "auto" mode applies and saves at once. An auto save that still reaches an inline
// proposal (auto save was switched on during the review) takes the proposal out of the saved text
// and moves the review to a proposal document of its own (AutoSaveMove).
import * as vscode from "vscode";
import type { ProposedChange, ReviewMode, ReviewOutcome } from "../../core/review";
import { computeHunks, normalizeEol, proposalRanges, splitLines, type HunkDecision, type LineRange } from "../../core/review-hunks";
import { ToolError } from "../../core/tools/types";
import { lineSpan } from "./document-ranges";
import { adopt, type PlacementContext } from "./placement";
import { findProposal } from "./reattach";
import { ReviewEntry } from "./review-entry";
import { notify } from "../shown";

/** The proposal goes into the file's own document. */
export async function startInline(
  c: PlacementContext,
  change: ProposedChange,
  uri: vscode.Uri,
  mode: ReviewMode,
  existing: vscode.TextDocument | undefined,
  signal: AbortSignal,
): Promise<ReviewOutcome> {
  const { opts, own } = c;
  const doc = existing ?? (await own.createEmpty(change, uri));
  const createdFile = change.before === null;
  const all = computeHunks(change.before, change.after);
  const placed = change.resumed ? findProposal(change.before ?? "", change.after, all, doc.getText(), doc.isDirty) : null;
  let hunks = all;
  let ranges: LineRange[];
  if (placed) {
    opts.log.info(`review ${change.editId}: ${change.relPath} still holds the proposal; taking the review up again`);
    ranges = placed.ranges;
  } else {
    hunks = c.placeHunks(change, doc);
    if (!hunks.length) {
      if (change.before === null) await own.save(doc);
      return { status: "accepted", finalContent: doc.getText(), hunkDecisions: [], ...(mode === "auto" ? { auto: true } : {}) };
    }
    const write = new vscode.WorkspaceEdit();
    for (const h of hunks) write.replace(uri, lineSpan(doc, h.beforeStart, h.beforeStart + h.beforeLines.length), h.afterLines.join(""));
    if (!(await own.apply(write))) throw new ToolError(`VS Code refused to apply the change to ${change.relPath} (is the file read-only?).`);
    ranges = proposalRanges(hunks);
  }
  opts.originals.set(change.editId, change.before ?? "");

  if (mode === "auto") {
    const entry = new ReviewEntry(change, uri, mode, hunks, ranges, () => undefined);
    hunks.forEach((_, k) => (entry.decisions[k] = "accepted"));
    if (!(await own.save(doc))) throw new ToolError(`${change.relPath} could not be saved after the change was applied; it is open in the editor with unsaved changes.`);
    entry.writtenText = doc.getText();
    own.forgetChecked(uri);
    c.remember(entry);
    return { status: "accepted", finalContent: doc.getText(), hunkDecisions: entry.decisions as HunkDecision[], auto: true };
  }
  opts.log.info(`review ${change.editId}: ${change.relPath}, ${hunks.length} hunk(s), waiting for the user`);
  return c.waitForUser(signal, doc, (settle) => {
    const entry = new ReviewEntry(change, uri, mode, hunks, ranges, settle);
    entry.createdFile = createdFile;
    if (placed) adopt(entry, placed);
    return entry;
  });
}

/** Inline: the document holds the decided text; save it (or remove a rejected new file). Returns what the file holds. */
export async function writeInline(c: PlacementContext, entry: ReviewEntry, doc: vscode.TextDocument, allRejected: boolean): Promise<string | null> {
  const { own } = c;
  if (entry.createdFile && allRejected && doc.getText() === "") {
    await own.removeCreated(doc);
    return null;
  }
  if (allRejected && entry.change.before !== null && normalizeEol(doc.getText()) !== normalizeEol(entry.change.before)) {
    // Nothing of the agent's is left, but the editor holds the user's own unsaved edits: keep them unsaved.
    return own.diskText(entry.uri);
  }
  const saved = await own.save(doc);
  if (!saved) c.opts.log.warn(`review ${entry.editId}: ${entry.change.relPath} could not be saved; reporting the content on disk`);
  return saved ? doc.getText() : own.diskText(entry.uri);
}

/** An auto save reached an inline proposal: the proposal moves out of the saved text to a document of its own. */
export class AutoSaveMove {
  /** A file whose proposal an auto save took out -> the text that save must have written. */
  private readonly moved = new Map<string, string>();
  private noticeShown = false;

  constructor(private readonly c: PlacementContext) {}

  /** Synchronous (inside onWillSave): the edits that take the proposal out of the saved text; the review moves to a proposal document. */
  moveOut(entry: ReviewEntry, doc: vscode.TextDocument): vscode.TextEdit[] {
    const { opts } = this.c;
    const shown = doc.getText();
    const lines = splitLines(shown);
    const edits: vscode.TextEdit[] = [];
    const keep = entry.hunks.flatMap((_, k) => (entry.decisions[k] === "rejected" ? [] : [k])).sort((a, b) => entry.ranges[b]!.start - entry.ranges[a]!.start);
    for (const k of keep) {
      const r = entry.ranges[k]!;
      const original = entry.hunks[k]!.beforeLines;
      edits.push(vscode.TextEdit.replace(lineSpan(doc, r.start, r.end), original.join("")));
      lines.splice(r.start, r.end - r.start, ...original);
    }
    const base = lines.join("");
    const docUri = opts.proposals.uriFor(entry.editId, entry.uri);
    opts.proposals.set(docUri, shown);
    entry.docUri = docUri;
    entry.base = base;
    this.moved.set(doc.uri.toString(), base);
    opts.originals.set(entry.editId, base);
    opts.log.info(`review ${entry.editId}: auto save of ${entry.change.relPath}; the proposal is taken out of the saved text and moves to its own editor`);
    this.c.changed();
    void this.showMoved(entry, doc).catch((err: unknown) => opts.log.warn(`review ${entry.editId}: cannot show the moved proposal: ${(err as Error)?.message ?? String(err)}`));
    return edits;
  }

  /**
   * After a save of a file whose proposal was moved out: true when it was one (then handled here).
   * The pre-save edits may have been dropped (the document changed meanwhile): the proposal
   * reached the disk, and the file's own text is written back.
   */
  afterSave(doc: vscode.TextDocument): boolean {
    const key = doc.uri.toString();
    const expected = this.moved.get(key);
    if (expected === undefined) return false;
    this.moved.delete(key);
    if (normalizeEol(doc.getText()) !== normalizeEol(expected)) void this.cleanAfterMove(doc, expected);
    return true;
  }

  /** The moved proposal opens where the file was shown. */
  private async showMoved(entry: ReviewEntry, file: vscode.TextDocument): Promise<void> {
    const key = entry.uri.toString();
    const column = vscode.window.tabGroups.all.find((g) => g.activeTab?.input instanceof vscode.TabInputText && g.activeTab.input.uri.toString() === key)?.viewColumn;
    if (column) {
      const doc = await vscode.workspace.openTextDocument(entry.docUri);
      const focused = vscode.window.activeTextEditor?.document === file;
      await vscode.window.showTextDocument(doc, { viewColumn: column, preview: true, preserveFocus: !focused });
    }
    if (!this.noticeShown) {
      this.noticeShown = true;
      void notify("info", `Yoke: auto save is on, so the change to ${entry.change.relPath} that waits for your review moved to its own editor. The file keeps its own text until you accept.`);
    }
  }

  private async cleanAfterMove(doc: vscode.TextDocument, expected: string): Promise<void> {
    this.c.opts.log.warn(`${doc.uri.toString()}: an auto save wrote a proposal under review; writing the file's own text back`);
    await this.c.own.replaceText(doc, expected);
    await this.c.own.save(doc);
  }
}
