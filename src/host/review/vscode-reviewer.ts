// The VS Code side of the change review (docs/review.md). A proposal is shown in a real text
// document, with decorations and per-hunk CodeLens:
// - "inline": written into the file's own document through a WorkspaceEdit (unsaved editors,
//   undo and Remote-SSH work) and saved only when every hunk is decided;
// - "staged", when `files.autoSave` is on for the file (auto save would write whatever the editor
//   holds): kept in a yoke-proposal: document of its own; the file is written only when the
//   review ends. An auto save that still reaches an inline proposal (the setting was switched on
//   during the review) takes the proposal out of the saved text and moves the review to staged.
// A save the user makes of the document under review accepts what it shows. Rejecting a hunk
// writes its original lines back over the hunk's current range. The left side of the diff editor
// is the original text from memory (yoke-original:). "auto" mode applies and saves at once, and
// keeps the change listed with a Revert that refuses when the file changed since. A review taken
// up again after a window reload (change.resumed) re-attaches to the document VS Code restored.
import { activity } from "../../node/watchdog";
import * as vscode from "vscode";
import type { ChangeReviewer, ProposedChange, ReviewMode, ReviewOutcome } from "../../core/review";
import { applyHunks, computeHunks, normalizeEol, proposalRanges, rebaseHunks, splitLines, type Hunk, type HunkDecision, type LineRange } from "../../core/review-hunks";
import { userEditsDiff } from "../../core/review-outcome";
import { ToolError } from "../../core/tools/types";
import { isPathChanged } from "../../core/ports";
import { pathChangedText } from "../../core/tools/file-access";
import { assertSameFile, identityOf, readDisk, type FileIdentity } from "./checked-file";
import { firstMissingFolder, holdsNoFiles } from "./created-folders";
import { docRange, lineSpan } from "./document-ranges";
import { OriginalContentProvider } from "./original-content";
import type { ProposalFileSystem } from "./proposal-fs";
import { findProposal, type Placement } from "./reattach";
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
  /** Where staged proposals live (registered for the yoke-proposal scheme). */
  proposals: ProposalFileSystem;
}

/** `files.autoSave` would save this file by itself (any mode but "off"; language overrides count). */
export function autoSaves(uri: vscode.Uri, languageId?: string): boolean {
  const scope = languageId ? { uri, languageId } : uri;
  return vscode.workspace.getConfiguration("files", scope).get<string>("autoSave", "off") !== "off";
}

export class VscodeChangeReviewer implements ChangeReviewer, vscode.Disposable {
  private readonly entries = new Map<string, ReviewEntry>();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly queue = new SerialQueue((editId, err) => this.opts.log.error(`review ${editId}: ${(err as Error)?.stack ?? String(err)}`));
  /** New file URI -> the outermost folder created for it (removed again if the file is). */
  private readonly createdDirs = new Map<string, vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  private ownEdits = 0;
  /** Documents the reviewer itself is saving (their saves decide nothing). */
  private readonly ownSaves = new Map<string, number>();
  /** Why a document under review is being saved (from onWillSave, read in onDidSave). */
  private readonly saveReasons = new Map<string, vscode.TextDocumentSaveReason>();
  /** A file whose proposal an auto save took out -> the text that save must have written. */
  private readonly moved = new Map<string, string>();
  private movedNoticeShown = false;
  /** File URI -> the file the permission gate checked (local files), verified before each save of ours. */
  private readonly checkedFiles = new Map<string, { identity: FileIdentity; tool: string; rel: string }>();
  private lastTypedAt = 0;
  /** Fires whenever the list, a decision or a hunk position changes. */
  readonly onDidChangeEntries = this.emitter.event;

  constructor(private readonly opts: ReviewerOptions) {
    this.disposables.push(
      this.emitter,
      vscode.workspace.onDidChangeTextDocument((e) => activity("review:document-change", () => this.onDocumentChange(e))),
      vscode.workspace.onDidCloseTextDocument((doc) => this.onDocumentClosed(doc)),
      vscode.workspace.onWillSaveTextDocument((e) => this.onWillSave(e)),
      vscode.workspace.onDidSaveTextDocument((doc) => this.onDidSave(doc)),
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

  /** The change waiting for review in this document (the file's own, or its proposal document). */
  pendingFor(uri: vscode.Uri): ReviewEntry | undefined {
    const key = uri.toString();
    return [...this.entries.values()].find((e) => e.status === "pending" && e.docUri.toString() === key);
  }

  /** The change waiting for review of this file, wherever it is shown. */
  pendingForFile(uri: vscode.Uri): ReviewEntry | undefined {
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
    if (this.pendingForFile(uri) || this.entries.get(change.editId)?.status === "pending") {
      throw new ToolError(`${change.relPath} already has a change waiting for the user's review. Wait for that review before changing the file again.`);
    }
    await this.noteChecked(change, uri);
    if (change.resumed) await this.checkOriginal(change, uri);
    // A resumed new file may exist already: the review before the reload created it (empty) to show the proposal.
    const existing = change.before !== null || (change.resumed && (await exists(uri))) ? await vscode.workspace.openTextDocument(uri) : undefined;
    if (mode === "ask" && autoSaves(uri, existing?.languageId)) return this.startStaged(change, uri, existing, signal);
    return this.startInline(change, uri, mode, existing, signal);
  }

  /** The proposal goes into the file's own document. */
  private async startInline(change: ProposedChange, uri: vscode.Uri, mode: ReviewMode, existing: vscode.TextDocument | undefined, signal: AbortSignal): Promise<ReviewOutcome> {
    const doc = existing ?? (await this.createEmpty(change, uri));
    const createdFile = change.before === null;
    const all = computeHunks(change.before, change.after);
    const placed = change.resumed ? findProposal(change.before ?? "", change.after, all, doc.getText(), doc.isDirty) : null;
    let hunks = all;
    let ranges: LineRange[];
    if (placed) {
      this.opts.log.info(`review ${change.editId}: ${change.relPath} still holds the proposal; taking the review up again`);
      ranges = placed.ranges;
    } else {
      hunks = this.placeHunks(change, doc);
      if (!hunks.length) {
        if (change.before === null) await this.saveOwn(doc);
        return { status: "accepted", finalContent: doc.getText(), hunkDecisions: [], ...(mode === "auto" ? { auto: true } : {}) };
      }
      const write = new vscode.WorkspaceEdit();
      for (const h of hunks) write.replace(uri, lineSpan(doc, h.beforeStart, h.beforeStart + h.beforeLines.length), h.afterLines.join(""));
      if (!(await this.applyOwn(write))) throw new ToolError(`VS Code refused to apply the change to ${change.relPath} (is the file read-only?).`);
      ranges = proposalRanges(hunks);
    }
    this.opts.originals.set(change.editId, change.before ?? "");

    if (mode === "auto") {
      const entry = new ReviewEntry(change, uri, mode, hunks, ranges, () => undefined);
      hunks.forEach((_, k) => (entry.decisions[k] = "accepted"));
      if (!(await this.saveOwn(doc))) throw new ToolError(`${change.relPath} could not be saved after the change was applied; it is open in the editor with unsaved changes.`);
      entry.writtenText = doc.getText();
      this.checkedFiles.delete(uri.toString());
      this.remember(entry);
      return { status: "accepted", finalContent: doc.getText(), hunkDecisions: entry.decisions as HunkDecision[], auto: true };
    }
    this.opts.log.info(`review ${change.editId}: ${change.relPath}, ${hunks.length} hunk(s), waiting for the user`);
    return this.waitForUser(signal, doc, (settle) => {
      const entry = new ReviewEntry(change, uri, mode, hunks, ranges, settle);
      entry.createdFile = createdFile;
      if (placed) adopt(entry, placed);
      return entry;
    });
  }

  /**
   * Auto save is on for the file: the proposal goes into a yoke-proposal: document of its own and
   * the file keeps its text (with any unsaved edits of the user) until the review ends.
   */
  private async startStaged(change: ProposedChange, uri: vscode.Uri, real: vscode.TextDocument | undefined, signal: AbortSignal): Promise<ReviewOutcome> {
    const base = real?.getText() ?? "";
    let hunks: Hunk[];
    let proposal: string;
    if (change.before === null) {
      if (base !== "" || (!real && (await exists(uri)))) throw new ToolError(`${change.relPath} now exists (it was created after you checked). Read it, then edit it.`);
      hunks = computeHunks(null, change.after);
      proposal = change.after;
    } else {
      hunks = this.placeHunks(change, real!);
      proposal =
        normalizeEol(base) === normalizeEol(change.before)
          ? change.after
          : applyHunks(
              base,
              hunks,
              hunks.map(() => "accepted"),
            );
    }
    if (!hunks.length) return { status: "accepted", finalContent: base, hunkDecisions: [] };
    const docUri = this.opts.proposals.uriFor(change.editId, uri);
    this.opts.proposals.set(docUri, proposal);
    const doc = await vscode.workspace.openTextDocument(docUri);
    // After a reload VS Code may have restored the proposal's editor, possibly with the user's unsaved typing.
    const placed = change.resumed ? findProposal(base, proposal, hunks, doc.getText(), doc.isDirty) : null;
    if (!placed && normalizeEol(doc.getText()) !== normalizeEol(proposal)) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(docUri, docRange(doc), proposal);
      await this.applyOwn(edit);
      await this.saveOwn(doc);
    }
    this.opts.originals.set(change.editId, base);
    this.opts.log.info(`review ${change.editId}: ${change.relPath}, ${hunks.length} hunk(s), waiting for the user (kept out of the file: auto save is on)`);
    return this.waitForUser(signal, doc, (settle) => {
      const entry = new ReviewEntry(change, uri, "ask", hunks, placed?.ranges ?? proposalRanges(hunks), settle, docUri);
      entry.base = base;
      entry.createdFile = change.before === null && real !== undefined;
      if (placed) adopt(entry, placed);
      return entry;
    });
  }

  /** Lists the review, shows it, and resolves when the user (or Stop) has decided every hunk. */
  private waitForUser(signal: AbortSignal, doc: vscode.TextDocument, make: (settle: (o: ReviewOutcome) => void) => ReviewEntry): Promise<ReviewOutcome> {
    return new Promise<ReviewOutcome>((resolve) => {
      const entry = make(resolve);
      this.remember(entry);
      const onAbort = () => void this.cancel(entry.editId);
      signal.addEventListener("abort", onAbort, { once: true });
      entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      const typing = Date.now() - this.lastTypedAt < TYPING_MS;
      showProposal(entry, doc, { typing, openDiff: (o) => this.openDiff(entry.editId, o) }).catch((err) =>
        this.opts.log.warn(`review of ${entry.change.relPath}: cannot show it: ${(err as Error).message}`),
      );
      if (entry.done) void this.queue.run(entry.editId, () => this.finish(entry));
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
      else await this.saveOwn(doc);
      entry.status = "reverted";
      this.emitter.fire();
      return undefined;
    });
  }

  /** Opens original ↔ proposal in a diff editor. */
  async openDiff(editId: string, options: vscode.TextDocumentShowOptions = { preview: true }): Promise<void> {
    const entry = this.entries.get(editId);
    if (!entry) return;
    const left = this.opts.originals.uriFor(editId, entry.uri);
    const title = `${entry.change.relPath} (original ↔ Yoke's change)`;
    await vscode.commands.executeCommand("vscode.diff", left, entry.docUri, title, options);
  }

  /** Shows the document a pending change is reviewed in (a staged proposal's own editor). */
  async show(editId: string): Promise<void> {
    const entry = this.entries.get(editId);
    if (!entry || entry.status !== "pending") return;
    const doc = await vscode.workspace.openTextDocument(entry.docUri);
    await showProposal(entry, doc, { typing: false, openDiff: (o) => this.openDiff(editId, o) });
  }

  /** Stops every pending review (the session ends): proposals are taken back. */
  cancelAll(): Promise<void> {
    return Promise.all(this.pending().map((e) => this.cancel(e.editId))).then(() => undefined);
  }

  /**
   * The extension host goes away (a window reload or close): pending reviews stay as they are. The
   * log still has them, and the next window takes them up again (and re-attaches to the editor).
   */
  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private cancel(editId: string): Promise<void> {
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "pending") return;
      await this.restoreOriginal(
        entry,
        entry.hunks.flatMap((_, k) => (entry.decisions[k] === "rejected" ? [] : [k])),
      );
      entry.decisions.fill("rejected");
      entry.message = STOPPED_MESSAGE;
      await this.finish(entry);
    });
  }

  /** A resumed review shows the original as it is on disk, so that must still be the content the proposal was made from. */
  private async checkOriginal(change: ProposedChange, uri: vscode.Uri): Promise<void> {
    const disk = await readDisk(uri).then(
      (bytes) => stripBom(new TextDecoder().decode(bytes)),
      () => null,
    );
    const same = change.before === null ? disk === null || disk === "" : disk !== null && normalizeEol(disk) === normalizeEol(change.before);
    if (!same)
      throw new ToolError(`${change.relPath} changed on disk while its review was interrupted, so your change was not applied. Read the file again and redo the change if it is still needed.`);
  }

  /** Creates the (empty) file a new file's proposal is shown in. */
  private async createEmpty(change: ProposedChange, uri: vscode.Uri): Promise<vscode.TextDocument> {
    if (await exists(uri)) throw new ToolError(`${change.relPath} now exists (it was created after you checked). Read it, then edit it.`);
    const createdDir = await firstMissingFolder(uri);
    const create = new vscode.WorkspaceEdit();
    create.createFile(uri, { ignoreIfExists: false });
    if (createdDir) this.createdDirs.set(uri.toString(), createdDir);
    if (!(await this.applyOwn(create))) throw new ToolError(`VS Code could not create ${change.relPath}.`);
    // The file VS Code just created is the one later saves must find.
    await this.noteChecked(change, uri);
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
    const doc = await vscode.workspace.openTextDocument(entry.docUri);
    for (const k of order) {
      const r = entry.ranges[k]!;
      const edit = new vscode.WorkspaceEdit();
      edit.replace(entry.docUri, lineSpan(doc, r.start, r.end), entry.hunks[k]!.beforeLines.join(""));
      if (!(await this.applyOwn(edit))) this.opts.log.warn(`review ${entry.editId}: could not restore hunk ${k + 1} of ${entry.change.relPath}`);
    }
  }

  /** Every hunk is decided: write the file (inline: save it; staged: write the decided text into it) and resolve the review. */
  private async finish(entry: ReviewEntry): Promise<void> {
    if (entry.status !== "pending" || !this.entries.has(entry.editId)) return;
    const doc = await vscode.workspace.openTextDocument(entry.docUri);
    const decisions = entry.decisions as HunkDecision[];
    const allRejected = decisions.every((d) => d === "rejected");
    let written: { finalContent: string | null; error?: string };
    try {
      written = entry.staged ? await this.writeStaged(entry, doc, allRejected) : { finalContent: await this.writeInline(entry, doc, allRejected) };
    } catch (err) {
      // The file is no longer the one that was checked: nothing was saved (the editor keeps the text unsaved).
      if (!(err instanceof ToolError)) throw err;
      written = { finalContent: entry.change.before, error: err.message };
    }
    const { finalContent } = written;
    const status = allRejected ? "rejected" : decisions.every((d) => d === "accepted") ? "accepted" : "partial";
    this.entries.delete(entry.editId);
    this.opts.originals.delete(entry.editId);
    this.checkedFiles.delete(entry.uri.toString());
    entry.cleanup?.();
    if (entry.staged) await this.closeProposal(entry, !allRejected && !written.error);
    this.emitter.fire();
    if (written.error) {
      this.opts.log.warn(`review ${entry.editId}: ${written.error}`);
      void vscode.window.showWarningMessage(`Yoke: ${written.error}`);
      entry.settle({ status: "rejected", finalContent, error: written.error });
      return;
    }
    // As describeOutcome sees it: unsaved edits the editor held before the review count as the user's.
    const expected = applyHunks(entry.change.before, computeHunks(entry.change.before, entry.change.after), decisions);
    const userEdited = finalContent !== null && userEditsDiff(expected, finalContent, entry.change.relPath) !== null;
    this.opts.log.info(`review ${entry.editId}: ${status}${entry.message ? ` (${entry.message})` : ""}${userEdited ? ", edited by the user" : ""}`);
    entry.settle({
      status,
      finalContent,
      hunkDecisions: decisions,
      hunks: { accepted: decisions.filter((d) => d === "accepted").length, rejected: decisions.filter((d) => d === "rejected").length },
      ...(userEdited ? { userEdited } : {}),
      ...(entry.message ? { message: entry.message } : {}),
    });
  }

  /** Inline: the document holds the decided text; save it (or remove a rejected new file). Returns what the file holds. */
  private async writeInline(entry: ReviewEntry, doc: vscode.TextDocument, allRejected: boolean): Promise<string | null> {
    if (entry.createdFile && allRejected && doc.getText() === "") {
      await this.removeCreated(doc);
      return null;
    }
    if (allRejected && entry.change.before !== null && normalizeEol(doc.getText()) !== normalizeEol(entry.change.before)) {
      // Nothing of the agent's is left, but the editor holds the user's own unsaved edits: keep them unsaved.
      return this.diskText(entry.uri);
    }
    const saved = await this.saveOwn(doc);
    if (!saved) this.opts.log.warn(`review ${entry.editId}: ${entry.change.relPath} could not be saved; reporting the content on disk`);
    return saved ? doc.getText() : this.diskText(entry.uri);
  }

  /**
   * Staged: the proposal document holds the decided text. It is written into the file, over
   * whatever the user changed in the file meanwhile (where that does not touch the change).
   */
  private async writeStaged(entry: ReviewEntry, doc: vscode.TextDocument, allRejected: boolean): Promise<{ finalContent: string | null; error?: string }> {
    const rel = entry.change.relPath;
    const decided = doc.getText();
    const base = entry.base ?? "";
    let real = await openIfExists(entry.uri);
    if (allRejected) {
      if (entry.createdFile && real && real.getText() === "") await this.removeCreated(real);
      else if (real && normalizeEol(decided) !== normalizeEol(base)) {
        // The user typed in the proposal outside its hunks: their text goes to the file's editor (not saved by Yoke).
        const carried = carryOnto(base, decided, real.getText());
        if (carried !== null) await this.replaceText(real, carried);
      }
      return { finalContent: await this.diskText(entry.uri) };
    }
    const current = real?.getText();
    const target = current === undefined ? (entry.change.before === null ? decided : null) : carryOnto(base, decided, current);
    if (target === null) {
      return {
        finalContent: await this.diskText(entry.uri),
        error: `${rel} was changed outside the review${current === undefined ? " (it was deleted)" : ", in the lines the change touches,"} while the change waited for the user, so the change was not written. Read the file again and redo the change if it is still needed.`,
      };
    }
    if (!real) {
      real = await this.createEmpty(entry.change, entry.uri).catch((err: unknown) => {
        if (err instanceof ToolError) return undefined;
        throw err;
      });
      if (!real) return { finalContent: await this.diskText(entry.uri), error: `${rel} could not be created (it exists now, or VS Code refused), so the change was not written.` };
    }
    await this.replaceText(real, target);
    const saved = await this.saveOwn(real);
    if (!saved) this.opts.log.warn(`review ${entry.editId}: ${rel} could not be saved; reporting the content on disk`);
    return { finalContent: saved ? real.getText() : await this.diskText(entry.uri) };
  }

  /** Puts `text` into a document with the smallest edits (the cursor and undo history of the rest stay). */
  private async replaceText(doc: vscode.TextDocument, text: string): Promise<void> {
    const now = doc.getText();
    if (now === text) return;
    const edit = new vscode.WorkspaceEdit();
    for (const h of computeHunks(now, text)) edit.replace(doc.uri, lineSpan(doc, h.beforeStart, h.beforeStart + h.beforeLines.length), h.afterLines.join(""));
    if (!(await this.applyOwn(edit))) this.opts.log.warn(`could not write ${doc.uri.toString()}`);
  }

  /** Closes a staged proposal's editors (and diff editors) and forgets it; shows the file where the proposal was, if it was written. */
  private async closeProposal(entry: ReviewEntry, showFile: boolean): Promise<void> {
    const key = entry.docUri.toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (doc?.isDirty) await this.saveOwn(doc); // no "save changes?" prompt on close
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => tabShows(t, key));
    const shownIn = tabs.find((t) => t.isActive && t.input instanceof vscode.TabInputText)?.group;
    const focused = vscode.window.activeTextEditor?.document.uri.toString() === key;
    if (tabs.length) await Promise.resolve(vscode.window.tabGroups.close(tabs, true)).catch(() => false);
    this.opts.proposals.drop(entry.docUri);
    if (showFile && shownIn) {
      await vscode.workspace.openTextDocument(entry.uri).then(
        (file) => vscode.window.showTextDocument(file, { viewColumn: shownIn.viewColumn, preview: true, preserveFocus: !focused }),
        () => undefined,
      );
    }
  }

  /** Removes a file this review created (only when it is empty: nothing of the user's is lost). */
  private async removeCreated(doc: vscode.TextDocument): Promise<void> {
    if (doc.getText() !== "") return;
    await this.saveOwn(doc);
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

  /**
   * Notes which file `uri` is now (local files): the one the core read and the gate checked, or
   * none. A link there now, or a folder on the way that leads elsewhere, refuses the change.
   */
  private async noteChecked(change: ProposedChange, uri: vscode.Uri): Promise<void> {
    const key = uri.toString();
    try {
      this.checkedFiles.set(key, { identity: await identityOf(uri), tool: change.tool, rel: change.relPath });
    } catch (err) {
      if (isPathChanged(err)) throw new ToolError(pathChangedText(change.tool, change.relPath, err.detail, "written"));
      throw err;
    }
  }

  /** Before a save of ours: the file must still be the one noted (VS Code's save follows links). */
  private async verifyChecked(doc: vscode.TextDocument): Promise<void> {
    const noted = this.checkedFiles.get(doc.uri.toString());
    if (!noted) return;
    try {
      noted.identity = await assertSameFile(doc.uri, noted.identity);
    } catch (err) {
      if (isPathChanged(err)) throw new ToolError(pathChangedText(noted.tool, noted.rel, err.detail, "written"));
      throw err;
    }
  }

  private async saveOwn(doc: vscode.TextDocument): Promise<boolean> {
    await this.verifyChecked(doc);
    const key = doc.uri.toString();
    this.ownSaves.set(key, (this.ownSaves.get(key) ?? 0) + 1);
    try {
      const saved = await doc.save();
      await this.renote(doc.uri);
      return saved;
    } finally {
      const n = (this.ownSaves.get(key) ?? 1) - 1;
      if (n > 0) this.ownSaves.set(key, n);
      else this.ownSaves.delete(key);
    }
  }

  private async diskText(uri: vscode.Uri): Promise<string | null> {
    return readDisk(uri).then(
      (bytes) => new TextDecoder().decode(bytes),
      () => null,
    );
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
    // A staged proposal stays pending when its editor closes (the panel and the file's CodeLens reopen it).
    if (!entry || entry.staged || this.ownEdits) return;
    // The user closed the editor without saving: the proposal is gone, the disk holds the original.
    void this.queue.run(entry.editId, async () => {
      if (entry.status !== "pending") return;
      entry.decisions.fill("rejected");
      entry.message = "the user closed the file without keeping the change";
      await this.finish(entry);
    });
  }

  /**
   * Before a document under review is saved. The user's own save is noted (it accepts, once it is
   * done). An auto save of a file that holds a proposal (auto save was switched on during the
   * review) must not write it: the save writes the file without the proposal (the original lines
   * over every hunk not rejected), and the review goes on in a proposal document of its own.
   */
  private onWillSave(e: vscode.TextDocumentWillSaveEvent): void {
    const key = e.document.uri.toString();
    if (this.ownSaves.has(key)) return;
    const entry = this.pendingFor(e.document.uri);
    if (!entry) return;
    this.saveReasons.set(key, e.reason);
    if (e.reason !== vscode.TextDocumentSaveReason.Manual && !entry.staged) e.waitUntil(Promise.resolve(this.moveOut(entry, e.document)));
  }

  /** The file as a save left it (a save may write a new file in its place). */
  private async renote(uri: vscode.Uri): Promise<void> {
    const noted = this.checkedFiles.get(uri.toString());
    if (noted) noted.identity = await identityOf(uri).catch(() => noted.identity);
  }

  private onDidSave(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    if (this.ownSaves.has(key)) return;
    // The user's own save: what it left is the file from now on.
    void this.renote(doc.uri);
    const reason = this.saveReasons.get(key);
    this.saveReasons.delete(key);
    const expected = this.moved.get(key);
    if (expected !== undefined) {
      this.moved.delete(key);
      if (normalizeEol(doc.getText()) !== normalizeEol(expected)) void this.cleanAfterMove(doc, expected);
      return;
    }
    const entry = this.pendingFor(doc.uri);
    if (!entry) return;
    // An auto save of a staged proposal only keeps its text in memory; so does a save whose reason is unknown.
    if (entry.staged ? reason !== vscode.TextDocumentSaveReason.Manual : reason !== undefined && reason !== vscode.TextDocumentSaveReason.Manual) return;
    // The user saved what the review shows. (Inline, a save without onWillSave — "Save without
    // Formatting" skips it — wrote the proposal all the same: it is accepted too.)
    this.opts.log.info(`review ${entry.editId}: ${entry.change.relPath} saved by the user: the hunks still open are accepted`);
    void vscode.window.showInformationMessage(`Yoke: you saved ${entry.change.relPath}, so the change under review is accepted as shown.`);
    void this.decide(entry.editId, "all", "accepted");
  }

  /** Synchronous (inside onWillSave): the edits that take the proposal out of the saved text; the review moves to a proposal document. */
  private moveOut(entry: ReviewEntry, doc: vscode.TextDocument): vscode.TextEdit[] {
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
    const docUri = this.opts.proposals.uriFor(entry.editId, entry.uri);
    this.opts.proposals.set(docUri, shown);
    entry.docUri = docUri;
    entry.base = base;
    this.moved.set(doc.uri.toString(), base);
    this.opts.originals.set(entry.editId, base);
    this.opts.log.info(`review ${entry.editId}: auto save of ${entry.change.relPath}; the proposal is taken out of the saved text and moves to its own editor`);
    this.emitter.fire();
    void this.showMoved(entry, doc).catch((err: unknown) => this.opts.log.warn(`review ${entry.editId}: cannot show the moved proposal: ${(err as Error)?.message ?? String(err)}`));
    return edits;
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
    if (!this.movedNoticeShown) {
      this.movedNoticeShown = true;
      void vscode.window.showInformationMessage(
        `Yoke: auto save is on, so the change to ${entry.change.relPath} that waits for your review moved to its own editor. The file keeps its own text until you accept.`,
      );
    }
  }

  /** The pre-save edits were dropped (the document changed meanwhile): the proposal reached the disk; write the file's own text back. */
  private async cleanAfterMove(doc: vscode.TextDocument, expected: string): Promise<void> {
    this.opts.log.warn(`${doc.uri.toString()}: an auto save wrote a proposal under review; writing the file's own text back`);
    await this.replaceText(doc, expected);
    await this.saveOwn(doc);
  }
}

/** Takes over what a restored document shows: hunks already rejected, hunks the user typed in. */
function adopt(entry: ReviewEntry, placed: Placement): void {
  placed.decisions.forEach((d, k) => (entry.decisions[k] = d));
  for (const k of placed.touched) entry.touched.add(k);
}

/**
 * The changes from `base` to `decided` applied to `current` (the file, which the user may have
 * changed meanwhile); null when those changes of the user's touch lines the decision changes.
 */
function carryOnto(base: string, decided: string, current: string): string | null {
  if (normalizeEol(current) === normalizeEol(base)) return decided;
  const delta = computeHunks(base, decided);
  const moved = rebaseHunks(base, current, delta);
  return moved
    ? applyHunks(
        current,
        moved,
        moved.map(() => "accepted"),
      )
    : null;
}

function tabShows(tab: vscode.Tab, key: string): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return input.uri.toString() === key;
  if (input instanceof vscode.TabInputTextDiff) return input.modified.toString() === key;
  return false;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

async function openIfExists(uri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  if (!(await exists(uri))) return undefined;
  return vscode.workspace.openTextDocument(uri);
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
