/**
 * A change of several files reviewed as one (core/review.ts: ProposedChangeSet), the reviewer's
 * side: each file is placed as a single change would be (VscodeChangeReviewer.start), listed
 * together, and written all or none once every file is decided (change-set.ts: writeSet).
 */
import * as vscode from "vscode";
import type { ChangeSetOutcome, ProposedChange, ProposedChangeSet, ProposedFile, ReviewMode, ReviewOutcome } from "../../core/review";
import { fileHunks, followingDecision } from "../../core/review-set";
import { ToolError } from "../../core/tools/types";
import { fileOutcome, writeSet } from "./change-set";
import { exists, type OwnWrites } from "./own-writes";
import type { PlacementContext } from "./placement";
import { ReviewEntry, type EntryGroup, type ReviewListItem } from "./review-entry";
import { closeProposal } from "./staged";
import { notify } from "../shown";

/** What a review stopped by the agent's stop tells the model. */
export const STOPPED_MESSAGE = "the agent was stopped";

/** What the set review uses of the reviewer. */
export interface SetReviewHost {
  log: { info(m: string): void; warn(m: string): void };
  placement: PlacementContext;
  own: OwnWrites;
  entries: Map<string, ReviewEntry>;
  originals: { delete(editId: string): unknown };
  listedHooks: Map<string, () => void>;
  toUri(path: string): vscode.Uri;
  start(change: ProposedChange, mode: ReviewMode, signal: AbortSignal): Promise<ReviewOutcome>;
  cancel(editId: string, why?: string): Promise<void>;
  waitForUser(signal: AbortSignal, doc: vscode.TextDocument | undefined, make: (settle: (o: ReviewOutcome) => void) => ReviewEntry): Promise<ReviewOutcome>;
  pendingForFile(uri: vscode.Uri): ReviewEntry | undefined;
  changed(): void;
}

export class SetReviews {
  /** Changes of several files under review as one, by setId; and each file's editId -> its group (while it is being placed). */
  readonly groups = new Map<string, EntryGroup>();
  readonly groupOf = new Map<string, EntryGroup>();

  constructor(private readonly host: SetReviewHost) {}

  /** The entries for the panel, newest last, the files of one change together in the change's order. */
  listItems(entries: Iterable<ReviewEntry>): ReviewListItem[] {
    const out: ReviewListItem[] = [];
    const shown = new Set<string>();
    for (const e of entries) {
      if (!e.group) {
        out.push(e.item());
        continue;
      }
      if (shown.has(e.group.setId)) continue;
      shown.add(e.group.setId);
      const order = e.group.files.map((f) => f.editId);
      out.push(...[...e.group.entries].sort((a, b) => order.indexOf(a.editId) - order.indexOf(b.editId)).map((x) => x.item()));
    }
    return out;
  }

  /**
   * Reviews a change of several files as one: each file is placed as a single change would be (its
   * hunks decided in its editor, inline or staged) and listed together; nothing is written until
   * every file is decided, then all files are written, or none (writeSet).
   */
  async reviewSet(set: ProposedChangeSet, mode: ReviewMode, signal: AbortSignal): Promise<ChangeSetOutcome> {
    if (mode === "auto") return { files: [], error: 'a change of several files is reviewed in "ask" mode only' };
    const group: EntryGroup = { setId: set.setId, files: set.files, entries: [], finishing: false };
    this.groups.set(set.setId, group);
    const outcomes: Array<Promise<ReviewOutcome>> = [];
    try {
      for (const f of set.files) {
        this.groupOf.set(f.editId, group);
        const listed = new Promise<void>((resolve) => this.host.listedHooks.set(f.editId, resolve));
        const outcome = this.startFile(f, group, signal).catch((err: unknown): ReviewOutcome => {
          if (err instanceof ToolError) return { status: "rejected", finalContent: f.before, error: err.message };
          throw err;
        });
        outcomes.push(outcome);
        const first = await Promise.race([listed.then(() => undefined), outcome]);
        if (first && !group.failed) {
          // Not listed: the file could not be put up (or had nothing to show outside a group). The rest is taken back.
          group.failed = first.error ?? `${f.relPath} could not be put up for review`;
          this.host.log.warn(`review ${set.setId}: ${group.failed}; taking back the ${group.entries.length} file(s) already shown`);
          await Promise.all(group.entries.map((e) => this.host.cancel(e.editId, "the change could not be put up in full")));
          break;
        }
      }
      const files = await Promise.all(outcomes);
      const error = group.failed ?? files.find((o) => o.error)?.error;
      return error ? { files, error } : { files };
    } finally {
      this.groups.delete(set.setId);
      for (const f of set.files) {
        this.groupOf.delete(f.editId);
        this.host.listedHooks.delete(f.editId);
      }
    }
  }

  /** One file of a change of several files: placed like a single change; a file with no hunks is listed without an editor. */
  private async startFile(f: ProposedFile, group: EntryGroup, signal: AbortSignal): Promise<ReviewOutcome> {
    if (signal.aborted) return { status: "rejected", finalContent: f.before, message: STOPPED_MESSAGE };
    // A move is reviewed in the source's document; the destination is written when it is accepted.
    const shown: ProposedChange = f.from ? { ...f, path: f.from.path, relPath: f.from.relPath } : f;
    if (f.from && (await exists(this.host.toUri(f.path)))) throw new ToolError(`${f.relPath} exists now (it was created after the patch was checked).`);
    if (fileHunks(f).length) return this.host.start(shown, "ask", signal);
    const uri = this.host.toUri(shown.path);
    if (this.host.pendingForFile(uri)) throw new ToolError(`${shown.relPath} already has a change waiting for the user's review. Wait for that review before changing the file again.`);
    return this.host.waitForUser(signal, undefined, (settle) => new ReviewEntry(shown, uri, "ask", [], [], settle));
  }

  /**
   * A file of a change of several files was decided: once every file is (files with nothing to
   * show follow the rest), all are written or none, and each file's review resolves.
   */
  async finishGroup(group: EntryGroup): Promise<void> {
    if (group.finishing) return;
    const expected = group.failed ? group.entries.length : group.files.length;
    if (group.entries.length < expected) return;
    const shown = group.entries.filter((e) => e.hunks.length);
    if (!shown.every((e) => e.done)) return;
    const follow = followingDecision(shown.map((e) => e.decided));
    if (follow) for (const e of group.entries) if (!e.hunks.length && !e.fileDecision) e.fileDecision = follow;
    if (!group.entries.every((e) => e.done)) return;
    group.finishing = true;
    const entries = group.files.flatMap((f) => group.entries.filter((e) => e.editId === f.editId));
    const result = await writeSet(this.host.placement, entries);
    if (result.error) void notify("warning", `Yoke: ${result.error}`);
    for (const e of entries) {
      this.host.entries.delete(e.editId);
      this.host.originals.delete(e.editId);
      this.host.own.forgetChecked(e.uri);
      e.cleanup?.();
      const allRejected = e.decided.every((d) => d === "rejected");
      if (e.staged) await closeProposal(this.host.placement, e, !allRejected && !result.error);
    }
    this.host.changed();
    const note = entries.find((e) => e.message)?.message;
    this.host.log.info(`review ${group.setId}: ${entries.map((e) => `${e.change.relPath} ${e.decided.join("/") || "-"}`).join(", ")}${result.error ? ` — not written: ${result.error}` : ""}`);
    for (const [k, e] of entries.entries()) {
      if (result.error || group.failed) e.settle({ status: "rejected", finalContent: e.change.before, error: result.error ?? group.failed!, hunkDecisions: e.decided });
      else e.settle(fileOutcome(e, result.written[k]!.finalContent, note));
    }
  }
}
