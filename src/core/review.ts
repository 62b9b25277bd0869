/**
 * Review of proposed file changes. An edit the agent proposes becomes a pending change; the host
 * shows it (diff editor, inline decorations, per-hunk Accept/Reject) and answers with what was
 * actually written. Hosts without a review UI (the CLI) apply changes directly.
 */
import type { Disposable } from "./disposable";

export interface ProposedChange {
  /** Unique per change, e.g. `${callId}:0`. */
  editId: string;
  callId: string;
  /** Absolute path (inside the workspace). */
  path: string;
  /** Workspace-relative path, for display. */
  relPath: string;
  /** Content before the change; null when the file does not exist yet. */
  before: string | null;
  /** Content the agent proposes. */
  after: string;
  /** The tool that proposed it (edit_file, write_file). */
  tool: string;
  /**
   * The review was pending when the session was interrupted (a window reload) and is put up
   * again with the same editId: the editor may still hold the proposal (hot exit), in which case
   * the host takes it up instead of applying it a second time.
   */
  resumed?: boolean;
}

export type ReviewMode =
  /** Wait for the user to accept or reject (all, per file, per hunk). */
  | "ask"
  /** Apply at once, keep the change listed and revertable. */
  | "auto";

export interface ReviewOutcome {
  status: "accepted" | "rejected" | "partial";
  /** The file's content after the review: what is on disk (or in the editor) now. null = file absent. */
  finalContent: string | null;
  /** Hunks accepted and rejected, for the message to the model. */
  hunks?: { accepted: number; rejected: number };
  /** The user changed the proposal by hand before accepting. */
  userEdited?: boolean;
  /** What the user said when rejecting, if anything. */
  message?: string;
  /** Per hunk (in the order of computeHunks in review-hunks.ts), what the user decided. */
  hunkDecisions?: Array<"accepted" | "rejected">;
  /** Applied without asking ("auto" mode); still listed and revertable. */
  auto?: boolean;
  /**
   * Set when the change could not be put up for review or applied (not a user decision); nothing
   * was written. Model-facing text. Hosts return it instead of throwing, so callers need no
   * error classes from the host's bundle.
   */
  error?: string;
}

/** What a change of several files (a patch) does to one of them. */
export type FileOp = "update" | "add" | "delete" | "move";

/**
 * One file of a change of several files. `before`/`after` are the text shown and decided: a
 * delete proposes "" (one hunk removing every line); a move's `before` is the source's text and
 * `path`/`relPath` are the destination, `from` the source.
 */
export interface ProposedFile extends ProposedChange {
  op: FileOp;
  from?: { path: string; relPath: string };
}

/**
 * A change of several files (apply_patch), reviewed as one: every file with its hunks is listed
 * together, each hunk and file can be accepted or rejected, and the files are written only once
 * every one is decided, all or nothing (a failed write puts back the files already written).
 */
export interface ProposedChangeSet {
  /** Unique per change: the tool call's id. */
  setId: string;
  callId: string;
  tool: string;
  files: ProposedFile[];
}

export interface ChangeSetOutcome {
  /**
   * Per file, in the order of `files`. A delete accepted: finalContent null (the file is gone);
   * a move accepted (in whole or part): the destination's content, the source is gone.
   */
  files: ReviewOutcome[];
  /** Nothing was written (the change could not be put up, or a write failed and the rest was put back). Model-facing. */
  error?: string;
}

export interface ChangeReviewer {
  review(change: ProposedChange, mode: ReviewMode, signal: AbortSignal): Promise<ReviewOutcome>;
  /**
   * Reviews a change of several files as one ("ask" mode). Reviewers without it get each text
   * change put up in turn (commitChanges in tools/commit-change.ts).
   */
  reviewSet?(set: ProposedChangeSet, mode: ReviewMode, signal: AbortSignal): Promise<ChangeSetOutcome>;
  /** Pending and auto-applied changes, for the panel. */
  onDidChange?(listener: () => void): Disposable;
}
