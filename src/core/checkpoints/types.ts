/**
 * Checkpoints (issue 12): the port a host implements (src/node/checkpoint-store.ts: a shadow git
 * repository per workspace folder, in Yoke's storage) and the shapes the core records.
 */
import type { EventOf } from "../events";

export type CheckpointEvent = EventOf<"checkpoint">;
export type RewindEvent = EventOf<"rewind">;
export type FolderSnapshot = CheckpointEvent["folders"][number];
export type SkippedPath = FolderSnapshot["skipped"][number];

/** Defaults; a host may pass others. */
export const CHECKPOINT_DEFAULTS = {
  /**
   * Outside a git repository, a snapshot that takes longer is partial (the user is told, and the
   * pre-image of every file a tool writes is still recorded). In a git repository the snapshot
   * costs what `git add -A` into a copy of the index costs and gets at least `gitBudgetMs`.
   */
  budgetMs: 2000,
  gitBudgetMs: 120_000,
  /** Larger files are left out and listed. */
  maxFileBytes: 10 * 1024 * 1024,
  /** An untracked top-level folder with more new files than this is left out and listed. */
  maxFolderFiles: 20_000,
} as const;

export interface SnapshotRequest {
  /** Absolute root of one workspace folder (POSIX separators). */
  root: string;
  name: string;
  budgetMs: number;
  /** Paths (absolute) the agent wrote since the last snapshot: recorded even when the budget runs out. */
  hints?: readonly string[];
  /**
   * What is known about what changed: since the store last brought this folder's private index up
   * to date in this process (a `refresh`, or a snapshot), only these files (absolute) can have
   * changed. The snapshot then looks at them only (none: the tree of that look is reused), at a
   * cost that does not grow with the folder. The store ignores it (and looks at the whole folder)
   * when it holds no such up-to-date index. Absent: the whole folder is looked at.
   */
  changed?: readonly string[];
}

/** What a `refresh` did. */
export interface RefreshResult {
  /** The whole folder was looked at and the index is up to date (false: a later `changed` snapshot looks at the whole folder). */
  complete: boolean;
  durationMs: number;
  error?: string;
}

export interface FileChange {
  /** Relative to the folder, POSIX. */
  path: string;
  /** What a restore does to the file: write it back as it was, or delete it (it did not exist then). */
  action: "write" | "delete";
}

export interface RestorePlan {
  root: string;
  changes: FileChange[];
  /** Files the restore leaves as they are (skipped then, or unknown to a partial snapshot). */
  kept: string[];
  /** Unified diff from the files now to the checkpoint (bounded), for the preview. */
  diff: string;
  /** The diff was cut at the bound. */
  diffTruncated: boolean;
  /**
   * The checkpoint was partial: it holds the files it recorded and the pre-image of every file a
   * tool wrote after it; the other files now in the folder it did not know are in `kept` (left as they are).
   */
  partial?: boolean;
}

export interface RestoreOptions {
  /** A snapshot commit of the files as they are now (the undo point just taken): no second capture. */
  now?: string;
}

/** What `preimage`/`complete` added to a turn's checkpoint. */
export interface PreimageResult {
  /** Files (relative) whose content before the write was added to the checkpoint. */
  recorded: string[];
  /** Files (relative) that did not exist before the write: a restore deletes them. */
  absent: string[];
  /** The checkpoint is still partial after this (only `complete` can change that). */
  partial: boolean;
}

export interface RestoreOutcome {
  root: string;
  written: number;
  deleted: number;
  kept: string[];
}

/** Snapshots and restores of workspace folders, without touching the user's repository state. */
export interface CheckpointStore {
  snapshot(req: SnapshotRequest): Promise<FolderSnapshot>;
  /**
   * Brings the folder's private index up to date with the files as they are now (a whole-folder
   * look, the cost of one `git status`) without recording a checkpoint, so that the next snapshot
   * told what changed since (`changed`) costs only that. Taken when a turn ends, off the path of
   * any tool call; `signal` stops it (the session ends).
   */
  refresh?(root: string, opts?: { signal?: AbortSignal }): Promise<RefreshResult>;
  /** What restoring `commit` into the folder would change, from the files as they are now. */
  plan(root: string, commit: string, opts?: RestoreOptions): Promise<RestorePlan>;
  /** Puts the folder's files back as they were in `commit` (take an undo snapshot first). */
  restore(root: string, commit: string, opts?: RestoreOptions): Promise<RestoreOutcome>;
  /**
   * Records, in the checkpoint `commit`, the pre-image of files (absolute) a tool is about to
   * write: their content now when the checkpoint does not hold them (partial, skipped, ignored),
   * or that they do not exist yet. Restores of `commit` use what it added.
   */
  preimage?(root: string, commit: string, paths: readonly string[]): Promise<PreimageResult>;
  /**
   * Before a command in a turn whose checkpoint is partial: walks the folder again (within
   * `budgetMs`) and adds to `commit` every file it did not hold, as it is now (before the command).
   */
  complete?(root: string, commit: string, budgetMs: number): Promise<PreimageResult>;
  /** One file (relative to the folder, POSIX) as it was in `commit`; `undefined` when it was not there (for a diff view). */
  readFile(root: string, commit: string, path: string): Promise<Uint8Array | undefined>;
}
