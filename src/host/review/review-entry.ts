// One change under review (or applied in auto mode): its hunks, where each hunk sits in the
// document now, and what the user decided. The document is the file itself ("inline"), or — when
// `files.autoSave` would write the proposal — a yoke-proposal: document of its own ("staged").
import type * as vscode from "vscode";
import type { FileOp, ProposedChange, ProposedFile, ReviewMode, ReviewOutcome } from "../../core/review";
import { adjustRange, countChanges, lineEditOf, type Hunk, type HunkDecision, type LineRange } from "../../core/review-hunks";

/** A row of the pending-changes list the panel shows. */
export interface ReviewListItem {
  editId: string;
  relPath: string;
  added: number;
  removed: number;
  /** pending: waiting for the user; applied: auto-applied, revertable; reverted: undone by the user. */
  status: "pending" | "applied" | "reverted";
  /** Hunks still undecided (pending changes only). */
  undecided: number;
  hunks: number;
  /** One file of a change of several files (a patch) reviewed as one: the change's id, shared by its files. */
  setId?: string;
  /** What the change does to the file (changes of several files only). */
  op?: FileOp;
  /** A move's source (relPath is the destination). */
  from?: string;
}

/** The entries of a change of several files (ProposedChangeSet), decided together and written all or nothing. */
export interface EntryGroup {
  setId: string;
  files: ProposedFile[];
  entries: ReviewEntry[];
  /** The writes have started (or the change is being taken back). */
  finishing: boolean;
  /** The change could not be put up in full: what is listed is taken back, nothing is written. */
  failed?: string;
}

export class ReviewEntry {
  readonly decisions: Array<HunkDecision | undefined>;
  status: ReviewListItem["status"];
  /** The document text right after an auto-applied change was saved (what Revert expects to find). */
  writtenText: string | undefined;
  /** The user typed inside a hunk before deciding it. */
  readonly touched = new Set<number>();
  /** What the user said when rejecting (or why the review ended without them). */
  message: string | undefined;
  /** Detaches the abort listener once the review has ended. */
  cleanup: (() => void) | undefined;
  /**
   * Where the proposal is shown, edited and decided: the file's own document, or its
   * yoke-proposal: document (staged). Changes from inline to staged if auto save strikes.
   */
  docUri: vscode.Uri;
  /** Staged: the file's text the proposal was laid on (the review's "original" side). */
  base: string | undefined;
  /** The review created the (empty) file to show a new file's proposal in it. */
  createdFile = false;
  /** A file of a change of several files: what the change does to it, and its group. */
  file: ProposedFile | undefined;
  group: EntryGroup | undefined;
  /** The decision of a file with no hunks (a pure rename, an empty file added or deleted). */
  fileDecision: HunkDecision | undefined;

  constructor(
    readonly change: ProposedChange,
    /** The file changed. */
    readonly uri: vscode.Uri,
    readonly mode: ReviewMode,
    readonly hunks: Hunk[],
    public ranges: LineRange[],
    readonly settle: (outcome: ReviewOutcome) => void,
    docUri?: vscode.Uri,
  ) {
    this.decisions = hunks.map(() => undefined);
    this.status = mode === "ask" ? "pending" : "applied";
    this.docUri = docUri ?? uri;
  }

  get editId(): string {
    return this.change.editId;
  }

  /** The proposal is kept out of the file until the review ends. */
  get staged(): boolean {
    return this.docUri.toString() !== this.uri.toString();
  }

  get undecided(): number[] {
    return this.hunks.flatMap((_, k) => (this.decisions[k] ? [] : [k]));
  }

  get done(): boolean {
    return this.hunks.length ? this.decisions.every(Boolean) : this.file ? this.fileDecision !== undefined : true;
  }

  /** The decisions the file is written by (a file with no hunks: its one decision). */
  get decided(): HunkDecision[] {
    return this.hunks.length ? (this.decisions as HunkDecision[]) : this.fileDecision ? [this.fileDecision] : [];
  }

  item(): ReviewListItem {
    const { added, removed } = countChanges(this.hunks);
    const set = this.file && this.group ? { setId: this.group.setId, op: this.file.op, ...(this.file.from ? { from: this.file.from.relPath } : {}) } : {};
    const relPath = this.file?.relPath ?? this.change.relPath;
    return { editId: this.editId, relPath, added, removed, status: this.status, undecided: this.undecided.length, hunks: this.hunks.length, ...set };
  }

  /** Follows every hunk through a change of the document (the user's typing or our own edits). */
  follow(changes: readonly vscode.TextDocumentContentChangeEvent[], byUser: boolean): void {
    for (const c of changes) {
      const edit = lineEditOf({ startLine: c.range.start.line, startChar: c.range.start.character, endLine: c.range.end.line, endChar: c.range.end.character, text: c.text.replace(/\r\n/g, "\n") });
      this.ranges = this.ranges.map((r, k) => {
        const { range, touched } = adjustRange(r, edit);
        if (touched && byUser && !this.decisions[k]) this.touched.add(k);
        return range;
      });
    }
  }

  /** The undecided hunk at (or nearest to) a 0-based line, if any. */
  hunkAt(line: number): number | undefined {
    let best: number | undefined;
    let bestDist = Infinity;
    for (const k of this.undecided) {
      const r = this.ranges[k]!;
      const dist = line < r.start ? r.start - line : line >= Math.max(r.end, r.start + 1) ? line - Math.max(r.end - 1, r.start) : 0;
      if (dist < bestDist) {
        best = k;
        bestDist = dist;
      }
    }
    return best;
  }
}
