// The VS Code side of the change review (docs/review.md): the reviewer keeps the list, the
// decisions and the document listeners; where a proposal is placed is inline.ts and staged.ts, the
// writes it makes itself own-writes.ts. A proposal is shown in a real text document, with
// decorations and per-hunk CodeLens:
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
import { TypingWatch } from "../editor-typing";
import * as vscode from "vscode";
import type { ChangeReviewer, ChangeSetOutcome, ProposedChange, ProposedChangeSet, ReviewMode, ReviewOutcome } from "../../core/review";
import { SetReviews, STOPPED_MESSAGE } from "./set-review";
import { watchDocuments } from "./document-events";
import { applyHunks, computeHunks, normalizeEol, rebaseHunks, type Hunk, type HunkDecision } from "../../core/review-hunks";
import { userEditsDiff } from "../../core/review-outcome";
import { ToolError } from "../../core/tools/types";
import { readDisk } from "./checked-file";
import { docRange, lineSpan } from "./document-ranges";
import { AutoSaveMove, startInline, writeInline } from "./inline";
import { exists, OwnWrites } from "./own-writes";
import type { PlacementContext, ReviewerOptions } from "./placement";
import { ReviewEntry, type ReviewListItem } from "./review-entry";
import { SerialQueue } from "./serial-queue";
import { showProposal } from "./show-proposal";
import { closeProposal, startStaged, writeStaged } from "./staged";
import { notify, shownTitle } from "../shown";

export type { ReviewerOptions } from "./placement";

/** Auto-applied changes kept listed (for Revert). */
const MAX_APPLIED = 30;
export { STOPPED_MESSAGE };

/** `files.autoSave` would save this file by itself (any mode but "off"; language overrides count). */
export function autoSaves(uri: vscode.Uri, languageId?: string): boolean {
  const scope = languageId ? { uri, languageId } : uri;
  return vscode.workspace.getConfiguration("files", scope).get<string>("autoSave", "off") !== "off";
}

export class VscodeChangeReviewer implements ChangeReviewer, vscode.Disposable {
  private readonly entries = new Map<string, ReviewEntry>();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly queue = new SerialQueue((editId, err) => this.opts.log.error(`review ${editId}: ${(err as Error)?.stack ?? String(err)}`));
  private readonly disposables: vscode.Disposable[] = [];
  private readonly own: OwnWrites;
  private readonly placement: PlacementContext;
  private readonly autoSaveMove: AutoSaveMove;
  /** Whether the user is typing: a review opening then goes beside that editor and leaves it the focus. */
  readonly typing = new TypingWatch();
  /** Changes of several files under review as one (set-review.ts). */
  private readonly sets: SetReviews;
  /** editId -> called once the entry is listed (a change of several files places its files one after another). */
  private readonly listedHooks = new Map<string, () => void>();
  /** Fires whenever the list, a decision or a hunk position changes. */
  readonly onDidChangeEntries = this.emitter.event;

  constructor(private readonly opts: ReviewerOptions) {
    this.own = new OwnWrites(opts.log);
    this.placement = {
      opts,
      own: this.own,
      placeHunks: (change, doc) => this.placeHunks(change, doc),
      waitForUser: (signal, doc, make) => this.waitForUser(signal, doc, make),
      remember: (entry) => this.remember(entry),
      changed: () => this.emitter.fire(),
    };
    this.autoSaveMove = new AutoSaveMove(this.placement);
    this.sets = new SetReviews({
      log: opts.log,
      placement: this.placement,
      own: this.own,
      entries: this.entries,
      originals: opts.originals,
      listedHooks: this.listedHooks,
      toUri: (path) => opts.toUri(path),
      start: (change, mode, signal) => this.start(change, mode, signal),
      cancel: (editId, why) => this.cancel(editId, why),
      waitForUser: (signal, doc, make) => this.waitForUser(signal, doc, make),
      pendingForFile: (uri) => this.pendingForFile(uri),
      changed: () => this.emitter.fire(),
    });
    this.typing.ignoreWhile(() => this.own.editing);
    this.disposables.push(
      this.emitter,
      this.typing,
      ...watchDocuments({
        own: this.own,
        autoSaveMove: this.autoSaveMove,
        log: opts.log,
        queue: this.queue,
        pendingFor: (uri) => this.pendingFor(uri),
        changed: () => this.emitter.fire(),
        finish: (entry) => this.finish(entry),
        decide: (editId, which, decision) => this.decide(editId, which, decision),
      }),
    );
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.emitter.event(listener);
  }

  /** Pending and auto-applied changes, newest last, for the panel (the files of one change together, in the change's order). */
  list(): ReviewListItem[] {
    return this.sets.listItems(this.entries.values());
  }

  /** A change of several files under review, by its id. */
  isSet(id: string): boolean {
    return this.sets.groups.has(id);
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

  /** Reviews a change of several files as one (set-review.ts). */
  reviewSet(set: ProposedChangeSet, mode: ReviewMode, signal: AbortSignal): Promise<ChangeSetOutcome> {
    return this.sets.reviewSet(set, mode, signal);
  }

  private async start(change: ProposedChange, mode: ReviewMode, signal: AbortSignal): Promise<ReviewOutcome> {
    if (signal.aborted) return { status: "rejected", finalContent: change.before, message: STOPPED_MESSAGE };
    const uri = this.opts.toUri(change.path);
    if (this.pendingForFile(uri) || this.entries.get(change.editId)?.status === "pending") {
      throw new ToolError(`${change.relPath} already has a change waiting for the user's review. Wait for that review before changing the file again.`);
    }
    await this.own.noteChecked(change, uri);
    if (change.resumed) await this.checkOriginal(change, uri);
    // A resumed new file may exist already: the review before the reload created it (empty) to show the proposal.
    const existing = change.before !== null || (change.resumed && (await exists(uri))) ? await vscode.workspace.openTextDocument(uri) : undefined;
    if (mode === "ask" && autoSaves(uri, existing?.languageId)) return startStaged(this.placement, change, uri, existing, signal);
    return startInline(this.placement, change, uri, mode, existing, signal);
  }

  /** Lists the review, shows it, and resolves when the user (or Stop) has decided every hunk. */
  private waitForUser(signal: AbortSignal, doc: vscode.TextDocument | undefined, make: (settle: (o: ReviewOutcome) => void) => ReviewEntry): Promise<ReviewOutcome> {
    return new Promise<ReviewOutcome>((resolve) => {
      const entry = make(resolve);
      const group = this.sets.groupOf.get(entry.editId);
      if (group) {
        entry.group = group;
        entry.file = group.files.find((f) => f.editId === entry.editId);
        group.entries.push(entry);
      }
      this.remember(entry);
      this.listedHooks.get(entry.editId)?.();
      const onAbort = () => void this.cancel(entry.editId);
      signal.addEventListener("abort", onAbort, { once: true });
      entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      const typing = this.typing.typing();
      if (typing) this.opts.log.info(`review ${entry.editId}: the user typed ${this.typing.sinceTyped()} ms ago: shown without taking the focus`);
      if (doc) {
        showProposal(entry, doc, { typing, openDiff: (o) => this.openDiff(entry.editId, o) }).catch((err) =>
          this.opts.log.warn(`review of ${entry.change.relPath}: cannot show it: ${(err as Error).message}`),
        );
      }
      if (entry.group?.failed) void this.cancel(entry.editId, "the change could not be put up in full");
      else if (entry.done || entry.group) void this.queue.run(entry.editId, () => this.finish(entry));
    });
  }

  /** Accepts or rejects hunks (0-based) of a pending change; the review ends when all are decided. */
  decide(editId: string, which: number[] | "all", decision: HunkDecision, message?: string): Promise<void> {
    const group = this.sets.groups.get(editId);
    if (group) {
      // The whole change of several files: every file, every hunk still open.
      return Promise.all([...group.entries].map((e) => this.decide(e.editId, "all", decision, message))).then(() => undefined);
    }
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "pending") return;
      if (!entry.hunks.length && entry.file) {
        if (entry.fileDecision) return;
        entry.fileDecision = decision;
        if (message) entry.message = message;
        this.emitter.fire();
        return this.finish(entry);
      }
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
      await this.own.apply(edit);
      if (entry.change.before === null) await this.own.removeCreated(doc);
      else await this.own.save(doc);
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
    const title = shownTitle(`${entry.change.relPath} (original ↔ Yoke's change)`);
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

  private cancel(editId: string, why = STOPPED_MESSAGE): Promise<void> {
    return this.queue.run(editId, async () => {
      const entry = this.entries.get(editId);
      if (!entry || entry.status !== "pending") return;
      await this.restoreOriginal(
        entry,
        entry.hunks.flatMap((_, k) => (entry.decisions[k] === "rejected" ? [] : [k])),
      );
      entry.decisions.fill("rejected");
      if (!entry.hunks.length) entry.fileDecision = "rejected";
      entry.message = why;
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
      if (!(await this.own.apply(edit))) this.opts.log.warn(`review ${entry.editId}: could not restore hunk ${k + 1} of ${entry.change.relPath}`);
    }
  }

  /** Every hunk is decided: write the file (inline: save it; staged: write the decided text into it) and resolve the review. */
  private async finish(entry: ReviewEntry): Promise<void> {
    if (entry.status !== "pending" || !this.entries.has(entry.editId)) return;
    if (entry.group) return this.sets.finishGroup(entry.group);
    const doc = await vscode.workspace.openTextDocument(entry.docUri);
    const decisions = entry.decisions as HunkDecision[];
    const allRejected = decisions.every((d) => d === "rejected");
    let written: { finalContent: string | null; error?: string };
    try {
      written = entry.staged ? await writeStaged(this.placement, entry, doc, allRejected) : { finalContent: await writeInline(this.placement, entry, doc, allRejected) };
    } catch (err) {
      // The file is no longer the one that was checked: nothing was saved (the editor keeps the text unsaved).
      if (!(err instanceof ToolError)) throw err;
      written = { finalContent: entry.change.before, error: err.message };
    }
    const { finalContent } = written;
    const status = allRejected ? "rejected" : decisions.every((d) => d === "accepted") ? "accepted" : "partial";
    this.entries.delete(entry.editId);
    this.opts.originals.delete(entry.editId);
    this.own.forgetChecked(entry.uri);
    entry.cleanup?.();
    if (entry.staged) await closeProposal(this.placement, entry, !allRejected && !written.error);
    this.emitter.fire();
    if (written.error) {
      this.opts.log.warn(`review ${entry.editId}: ${written.error}`);
      void notify("warning", `Yoke: ${written.error}`);
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

  private remember(entry: ReviewEntry): void {
    this.entries.set(entry.editId, entry);
    const applied = [...this.entries.values()].filter((e) => e.status !== "pending");
    for (const old of applied.slice(0, Math.max(0, applied.length - MAX_APPLIED))) {
      this.entries.delete(old.editId);
      this.opts.originals.delete(old.editId);
    }
    this.emitter.fire();
  }
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
