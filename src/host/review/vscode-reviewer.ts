// The VS Code side of the change review. A proposal is written into the real document through a
// WorkspaceEdit (so unsaved editors, undo and Remote-SSH work), shown with decorations and
// per-hunk CodeLens, and saved only when every hunk is decided. Rejecting a hunk writes its
// original lines back over the hunk's current range. The left side of the diff editor is the
// original text from memory (yoke-original:). "auto" mode applies and saves at once, and keeps
// the change listed with a Revert that refuses when the file changed since.
import * as vscode from "vscode";
import type { ChangeReviewer, ProposedChange, ReviewMode, ReviewOutcome } from "../../core/review";
import { applyHunks, computeHunks, normalizeEol, proposalRanges, rebaseHunks, type Hunk, type HunkDecision } from "../../core/review-hunks";
import { userEditsDiff } from "../../core/review-outcome";
import { ToolError } from "../../core/tools/types";
import { firstMissingFolder, holdsNoFiles } from "./created-folders";
import { docRange, lineSpan } from "./document-ranges";
import { OriginalContentProvider } from "./original-content";
import { ReviewEntry, type ReviewListItem } from "./review-entry";
import { SerialQueue } from "./serial-queue";
import { showProposal } from "./show-proposal";

/** The user typed within this many ms: a review opening now must not take the focus. */
const TYPING_MS = 3_000;
/** Auto-applied changes kept listed (for Revert). */
const MAX_APPLIED = 30;
export const STOPPED_MESSAGE = "the agent was stopped";

export interface ReviewerOptions {
  /** The URI of a workspace file given its absolute path (the workspace folder's scheme: remote-safe). */
  toUri(path: string): vscode.Uri;
  log: vscode.LogOutputChannel;
  originals: OriginalContentProvider;
}

export class VscodeChangeReviewer implements ChangeReviewer, vscode.Disposable {
  private readonly entries = new Map<string, ReviewEntry>();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly queue = new SerialQueue((editId, err) => this.opts.log.error(`review ${editId}: ${(err as Error)?.stack ?? String(err)}`));
  /** New file URI -> the outermost folder created for it (removed again if the file is). */
  private readonly createdDirs = new Map<string, vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  private ownEdits = 0;
  private lastTypedAt = 0;
  /** Fires whenever the list, a decision or a hunk position changes. */
  readonly onDidChangeEntries = this.emitter.event;

  constructor(private readonly opts: ReviewerOptions) {
    this.disposables.push(
      this.emitter,
      vscode.workspace.onDidChangeTextDocument((e) => this.onDocumentChange(e)),
      vscode.workspace.onDidCloseTextDocument((doc) => this.onDocumentClosed(doc)),
    );
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  /** Pending and auto-applied changes, newest last, for the panel. */
  list(): ReviewListItem[] {
    return [...this.entries.values()].map((e) => e.item());
  }

  get(editId: string): ReviewEntry | undefined {
    return this.entries.get(editId);
  }

  /** The change waiting for review in a document, if any. */
  pendingFor(uri: vscode.Uri): ReviewEntry | undefined {
    const key = uri.toString();
    return [...this.entries.values()].find((e) => e.status === "pending" && e.uri.toString() === key);
  }

  pending(): ReviewEntry[] {
    return [...this.entries.values()].filter((e) => e.status === "pending");
  }

  /** Reviews a change; a refusal (the file changed, is being reviewed, cannot be written) comes back as `error`. */
  async review(change: ProposedChange, mode: ReviewMode, signal: AbortSignal): Promise<ReviewOutcome> {
    try {
      return await this.start(change, mode, signal);
    } catch (err) {
      if (err instanceof ToolError) return { status: "rejected", finalContent: change.before, error: err.message };
      throw err;
    }
  }

  private async start(change: ProposedChange, mode: ReviewMode, signal: AbortSignal): Promise<ReviewOutcome> {
    if (signal.aborted) return { status: "rejected", finalContent: change.before, message: STOPPED_MESSAGE };
    const uri = this.opts.toUri(change.path);
    if (this.pendingFor(uri)) {
      throw new ToolError(`${change.relPath} already has a change waiting for the user's review. Wait for that review before changing the file again.`);
    }
    const doc = await this.prepare(change, uri);
    const hunks = this.placeHunks(change, doc);
    if (!hunks.length) {
      if (change.before === null) await doc.save();
      return { status: "accepted", finalContent: doc.getText(), hunkDecisions: [], ...(mode === "auto" ? { auto: true } : {}) };
    }
    const write = new vscode.WorkspaceEdit();
    for (const h of hunks) write.replace(uri, lineSpan(doc, h.beforeStart, h.beforeStart + h.beforeLines.length), h.afterLines.join(""));
    if (!(await this.applyOwn(write))) throw new ToolError(`VS Code refused to apply the change to ${change.relPath} (is the file read-only?).`);
    this.opts.originals.set(change.editId, change.before ?? "");

    if (mode === "auto") {
      const entry = new ReviewEntry(change, uri, mode, hunks, proposalRanges(hunks), () => undefined);
      hunks.forEach((_, k) => (entry.decisions[k] = "accepted"));
      if (!(await doc.save())) throw new ToolError(`${change.relPath} could not be saved after the change was applied; it is open in the editor with unsaved changes.`);
      entry.writtenText = doc.getText();
      this.remember(entry);
      return { status: "accepted", finalContent: doc.getText(), hunkDecisions: entry.decisions as HunkDecision[], auto: true };
    }

    this.opts.log.info(`review ${change.editId}: ${change.relPath}, ${hunks.length} hunk(s), waiting for the user`);
    return new Promise<ReviewOutcome>((resolve) => {
      const entry = new ReviewEntry(change, uri, mode, hunks, proposalRanges(hunks), resolve);
      this.remember(entry);
      const onAbort = () => void this.cancel(entry.editId);
      signal.addEventListener("abort", onAbort, { once: true });
      entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      const typing = Date.now() - this.lastTypedAt < TYPING_MS;
      showProposal(entry, doc, { typing, openDiff: (o) => this.openDiff(entry.editId, o) }).catch((err) =>
        this.opts.log.warn(`review of ${change.relPath}: cannot show it: ${(err as Error).message}`),
      );
    });
  }

  /** Accepts or rejects hunks (0-based) of a pending change; the review ends when all are decided. */
  decide(editId: string, which: number[] | "all", decision: HunkDecision, message?: string): Promise<void> {
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "pending") return;
      const targets = (which === "all" ? entry.undecided : which).filter((k) => k >= 0 && k < entry.hunks.length && !entry.decisions[k]);
      if (!targets.length) return;
      this.opts.log.info(`review ${editId}: hunk(s) ${targets.map((k) => k + 1).join(", ")} ${decision}`);
      if (decision === "rejected") await this.restoreOriginal(entry, targets);
      for (const k of targets) entry.decisions[k] = decision;
      if (message) entry.message = message;
      this.emitter.fire();
      if (entry.done) await this.finish(entry);
    });
  }

  /** Undoes an auto-applied change; returns why it cannot, or undefined when reverted. */
  revert(editId: string): Promise<string | undefined> {
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "applied") return "There is no applied change with that id.";
      const rel = entry.change.relPath;
      let doc: vscode.TextDocument | undefined;
      try {
        doc = await vscode.workspace.openTextDocument(entry.uri);
      } catch {
        doc = undefined;
      }
      if (!doc || normalizeEol(doc.getText()) !== normalizeEol(entry.writtenText ?? "")) {
        return `${rel} changed after the agent's edit, so it was not reverted (that would lose the later changes). Use Undo in the editor, or edit it by hand.`;
      }
      const edit = new vscode.WorkspaceEdit();
      edit.replace(entry.uri, docRange(doc), entry.change.before ?? "");
      await this.applyOwn(edit);
      if (entry.change.before === null) await this.removeCreated(doc);
      else await doc.save();
      entry.status = "reverted";
      this.emitter.fire();
      return undefined;
    });
  }

  /** Opens original ↔ current document in a diff editor. */
  async openDiff(editId: string, options: vscode.TextDocumentShowOptions = { preview: true }): Promise<void> {
    const entry = this.entries.get(editId);
    if (!entry) return;
    const left = this.opts.originals.uriFor(editId, entry.uri);
    const title = `${entry.change.relPath} (original ↔ Yoke's change)`;
    await vscode.commands.executeCommand("vscode.diff", left, entry.uri, title, options);
  }

  /** Stops every pending review (the session ends): proposals are taken back. */
  cancelAll(): Promise<void> {
    return Promise.all(this.pending().map((e) => this.cancel(e.editId))).then(() => undefined);
  }

  dispose(): void {
    void this.cancelAll();
    for (const d of this.disposables) d.dispose();
  }

  private cancel(editId: string): Promise<void> {
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "pending") return;
      await this.restoreOriginal(entry, entry.hunks.flatMap((_, k) => (entry.decisions[k] === "rejected" ? [] : [k])));
      entry.decisions.fill("rejected");
      entry.message = STOPPED_MESSAGE;
      await this.finish(entry);
    });
  }

  /** Opens the document, or creates the file for a new one. */
  private async prepare(change: ProposedChange, uri: vscode.Uri): Promise<vscode.TextDocument> {
    if (change.before === null) {
      const exists = await vscode.workspace.fs.stat(uri).then(() => true, () => false);
      if (exists) throw new ToolError(`${change.relPath} now exists (it was created after you checked). Read it, then edit it.`);
      const createdDir = await firstMissingFolder(uri);
      const create = new vscode.WorkspaceEdit();
      create.createFile(uri, { ignoreIfExists: false });
      if (createdDir) this.createdDirs.set(uri.toString(), createdDir);
      if (!(await this.applyOwn(create))) throw new ToolError(`VS Code could not create ${change.relPath}.`);
      return vscode.workspace.openTextDocument(uri);
    }
    return vscode.workspace.openTextDocument(uri);
  }

  /**
   * The change's hunks in the document's coordinates. An editor with unsaved changes elsewhere in
   * the file keeps them (the hunks move around them); changes that touch a hunk refuse the edit.
   */
  private placeHunks(change: ProposedChange, doc: vscode.TextDocument): Hunk[] {
    const hunks = computeHunks(change.before, change.after);
    if (change.before === null || normalizeEol(doc.getText()) === normalizeEol(change.before)) return hunks;
    const rebased = doc.isDirty ? rebaseHunks(change.before, doc.getText(), hunks) : null;
    if (rebased) return rebased;
    throw new ToolError(
      doc.isDirty
        ? `${change.relPath} has unsaved changes in the editor that touch the lines you changed, so your change was not applied. Ask the user to save or revert the file, then read it again.`
        : `${change.relPath} changed after you read it, so your change was not applied. Read it again and redo the edit.`,
    );
  }

  /** Writes the original lines back over the hunks' current ranges, last hunk first. */
  private async restoreOriginal(entry: ReviewEntry, hunks: number[]): Promise<void> {
    const order = [...hunks].sort((a, b) => entry.ranges[b]!.start - entry.ranges[a]!.start);
    const doc = await vscode.workspace.openTextDocument(entry.uri);
    for (const k of order) {
      const r = entry.ranges[k]!;
      const edit = new vscode.WorkspaceEdit();
      edit.replace(entry.uri, lineSpan(doc, r.start, r.end), entry.hunks[k]!.beforeLines.join(""));
      if (!(await this.applyOwn(edit))) this.opts.log.warn(`review ${entry.editId}: could not restore hunk ${k + 1} of ${entry.change.relPath}`);
    }
  }

  /** Every hunk is decided: save (or remove a rejected new file) and resolve the review. */
  private async finish(entry: ReviewEntry): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(entry.uri);
    const decisions = entry.decisions as HunkDecision[];
    const allRejected = decisions.every((d) => d === "rejected");
    let finalContent: string | null;
    if (entry.change.before === null && allRejected && doc.getText() === "") {
      await this.removeCreated(doc);
      finalContent = null;
    } else if (allRejected && entry.change.before !== null && normalizeEol(doc.getText()) !== normalizeEol(entry.change.before)) {
      // Nothing of the agent's is left, but the editor holds the user's own unsaved edits: keep them unsaved.
      finalContent = new TextDecoder().decode(await vscode.workspace.fs.readFile(entry.uri));
    } else {
      const saved = await doc.save();
      finalContent = saved ? doc.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(entry.uri));
      if (!saved) this.opts.log.warn(`review ${entry.editId}: ${entry.change.relPath} could not be saved; reporting the content on disk`);
    }
    // As describeOutcome sees it: unsaved edits the editor held before the review count as the user's.
    const expected = applyHunks(entry.change.before, computeHunks(entry.change.before, entry.change.after), decisions);
    const userEdited = finalContent !== null && userEditsDiff(expected, finalContent, entry.change.relPath) !== null;
    const status = allRejected ? "rejected" : decisions.every((d) => d === "accepted") ? "accepted" : "partial";
    this.opts.log.info(`review ${entry.editId}: ${status}${entry.message ? ` (${entry.message})` : ""}${userEdited ? ", edited by the user" : ""}`);
    this.entries.delete(entry.editId);
    this.opts.originals.delete(entry.editId);
    entry.cleanup?.();
    this.emitter.fire();
    entry.settle({
      status,
      finalContent,
      hunkDecisions: decisions,
      hunks: { accepted: decisions.filter((d) => d === "accepted").length, rejected: decisions.filter((d) => d === "rejected").length },
      ...(userEdited ? { userEdited } : {}),
      ...(entry.message ? { message: entry.message } : {}),
    });
  }

  /** Removes a file this review created (only when it is empty: nothing of the user's is lost). */
  private async removeCreated(doc: vscode.TextDocument): Promise<void> {
    if (doc.getText() !== "") return;
    await doc.save();
    const del = new vscode.WorkspaceEdit();
    del.deleteFile(doc.uri, { ignoreIfNotExists: true });
    await this.applyOwn(del);
    const dir = this.createdDirs.get(doc.uri.toString());
    this.createdDirs.delete(doc.uri.toString());
    if (dir && (await holdsNoFiles(dir))) await vscode.workspace.fs.delete(dir, { recursive: true, useTrash: false }).then(undefined, () => undefined);
  }

  private remember(entry: ReviewEntry): void {
    this.entries.set(entry.editId, entry);
    const applied = [...this.entries.values()].filter((e) => e.status !== "pending");
    for (const old of applied.slice(0, Math.max(0, applied.length - MAX_APPLIED))) {
      this.entries.delete(old.editId);
      this.opts.originals.delete(old.editId);
    }
    this.emitter.fire();
  }

  private async applyOwn(edit: vscode.WorkspaceEdit): Promise<boolean> {
    this.ownEdits++;
    try {
      return await vscode.workspace.applyEdit(edit);
    } finally {
      this.ownEdits--;
    }
  }

  private onDocumentChange(e: vscode.TextDocumentChangeEvent): void {
    if (!e.contentChanges.length) return;
    const byUser = this.ownEdits === 0;
    if (byUser && vscode.window.activeTextEditor?.document === e.document) this.lastTypedAt = Date.now();
    const entry = this.pendingFor(e.document.uri);
    if (!entry) return;
    entry.follow(e.contentChanges, byUser);
    this.emitter.fire();
  }

  private onDocumentClosed(doc: vscode.TextDocument): void {
    const entry = this.pendingFor(doc.uri);
    if (!entry || this.ownEdits) return;
    // The user closed the editor without saving: the proposal is gone, the disk holds the original.
    void this.queue.run(entry.editId, async () => {
      if (entry.status !== "pending") return;
      entry.decisions.fill("rejected");
      entry.message = "the user closed the file without keeping the change";
      await this.finish(entry);
    });
  }
}
