/**
 * Restores to a turn — files, conversation, or both — with a preview first, each one undoable:
 * the files are snapshotted before they change (a `checkpoint` event with reason "restore"), and
 * the `rewind` event names that snapshot. The conversation is never cut out of the log: the
 * rewind takes the later events out of force (session/rewind.ts).
 */
import type { NewEvent, SessionEvent } from "../events";
import type { WorkspaceFolder } from "../ports";
import { eventsInForce } from "../session/rewind";
import { checkpointAfterTurn, turnsOf } from "./turns";
import { CHECKPOINT_DEFAULTS, type CheckpointEvent, type CheckpointStore, type RestorePlan, type RewindEvent } from "./types";

export type RestoreWhat = "files" | "conversation" | "both";

export async function snapshotFolders(
  store: CheckpointStore,
  folders: readonly WorkspaceFolder[],
  o: { turn: number; reason: CheckpointEvent["reason"]; budgetMs?: number; hints?: readonly string[]; changed?: readonly string[] },
): Promise<Omit<CheckpointEvent, "seq" | "ts">> {
  const budgetMs = o.budgetMs ?? CHECKPOINT_DEFAULTS.budgetMs;
  const inside = (f: WorkspaceFolder, paths: readonly string[]) => paths.filter((h) => h === f.root || h.startsWith(`${f.root}/`));
  const snaps = await Promise.all(
    folders.map((f) => store.snapshot({ root: f.root, name: f.name, budgetMs, hints: inside(f, o.hints ?? []), ...(o.changed ? { changed: inside(f, o.changed) } : {}) })),
  );
  return { type: "checkpoint", turn: o.turn, reason: o.reason, folders: snaps };
}

export interface RestoreTarget {
  turn: number;
  /** The checkpoint with the files as they were after the turn; absent: the files are already so. */
  checkpoint?: CheckpointEvent;
  /** First event taken out of force by a conversation restore; absent: the turn is the last one. */
  fromSeq?: number;
}

export function restoreTarget(events: readonly SessionEvent[], turn: number): RestoreTarget {
  const turns = turnsOf(events);
  const checkpoint = checkpointAfterTurn(events, turn);
  return { turn, checkpoint, fromSeq: turn < turns.length ? turns[turn]!.seq : undefined };
}

/** What a files restore to `turn` would change, per folder (the preview). */
export async function previewRestore(store: CheckpointStore, events: readonly SessionEvent[], turn: number): Promise<{ target: RestoreTarget; plans: RestorePlan[]; problems: string[] }> {
  const target = restoreTarget(events, turn);
  const plans: RestorePlan[] = [];
  const problems: string[] = [];
  for (const f of target.checkpoint?.folders ?? []) {
    if (!f.commit) problems.push(`${f.name}: no snapshot was taken then (${f.error ?? "unknown error"}); its files are left as they are`);
    else {
      const plan = await store.plan(f.root, f.commit);
      plans.push(plan);
      const problem = partialProblem(f, plan);
      if (problem) problems.push(problem);
    }
  }
  return { target, plans, problems };
}

/** What the preview says of a plan from a partial snapshot (undefined: the snapshot was complete). */
function partialProblem(f: CheckpointEvent["folders"][number], plan: RestorePlan): string | undefined {
  if (!plan.partial) return undefined;
  return (
    `${f.name}: the snapshot then was partial (${f.fallback ?? "its time budget ran out"}). It puts back the ${plan.changes.length} file(s) listed (every file a tool wrote is among them); ` +
    `${plan.kept.length} file(s) it did not know are left as they are`
  );
}

export interface RestoreContext {
  store: CheckpointStore;
  events: () => readonly SessionEvent[];
  append: (e: NewEvent) => SessionEvent;
  folders: readonly WorkspaceFolder[];
  budgetMs?: number;
  /**
   * Told each folder's plan before its files change, planned against the snapshot just taken
   * before the restore (the undo point): a preview without a second look at the whole folder
   * (at a million files, a look costs about a `git status`). `problem`: what a partial snapshot
   * cannot put back, as `previewRestore` says it.
   */
  preview?: (plan: RestorePlan, problem: string | undefined) => void;
}

export interface RestoreResult {
  rewind: RewindEvent;
  /** Human lines: what was written, deleted, kept. */
  lines: string[];
}

/** Restores the files of `checkpoint` after snapshotting the files now (the undo point). */
async function restoreFiles(ctx: RestoreContext, checkpoint: CheckpointEvent, turnNow: number, reason: CheckpointEvent["reason"]) {
  const undo = ctx.append(await snapshotFolders(ctx.store, ctx.folders, { turn: turnNow, reason, budgetMs: Math.max(ctx.budgetMs ?? 0, 60_000) }));
  const failed = (undo as CheckpointEvent).folders.filter((f) => !f.commit);
  if (failed.length) throw new Error(`the files were not restored: the snapshot before the restore failed for ${failed.map((f) => `${f.name} (${f.error})`).join(", ")}, so it could not be undone`);
  const changed: NonNullable<RewindEvent["changed"]> = [];
  const lines: string[] = [];
  for (const f of checkpoint.folders) {
    if (!f.commit) {
      lines.push(`${f.name}: left as it is (no snapshot then: ${f.error ?? "unknown"})`);
      continue;
    }
    // The undo point just taken is the files now: no second walk of the folder.
    const now = (undo as CheckpointEvent).folders.find((u) => u.root === f.root)?.commit;
    if (ctx.preview) {
      const plan = await ctx.store.plan(f.root, f.commit, now ? { now } : undefined);
      ctx.preview(plan, partialProblem(f, plan));
    }
    const r = await ctx.store.restore(f.root, f.commit, now ? { now } : undefined);
    changed.push({ root: f.root, written: r.written, deleted: r.deleted, ...(r.kept.length ? { kept: r.kept.slice(0, 50) } : {}) });
    lines.push(
      `${f.name}: ${r.written} file(s) written back, ${r.deleted} deleted${r.kept.length ? `, ${r.kept.length} left as they are (${f.partial ? "unknown to the partial snapshot then, or skipped" : "skipped then"})` : ""}`,
    );
  }
  return { undoSeq: undo.seq, changed, lines };
}

export async function restoreTo(ctx: RestoreContext, turn: number, what: RestoreWhat): Promise<RestoreResult> {
  const events = ctx.events();
  const target = restoreTarget(events, turn);
  const turnNow = turnsOf(events).length;
  const lines: string[] = [];
  let files: Awaited<ReturnType<typeof restoreFiles>> | undefined;
  if (what !== "conversation") {
    if (target.checkpoint) files = await restoreFiles(ctx, target.checkpoint, turnNow, "restore");
    else lines.push("files: no change was checkpointed after that turn, so they are as the agent left them then");
  }
  const conversation = what !== "files" && target.fromSeq !== undefined;
  if (what !== "files" && !conversation) lines.push(`conversation: turn ${turn} is the last turn, nothing to rewind`);
  const rewind = ctx.append({
    type: "rewind",
    turn,
    conversation,
    files: files !== undefined,
    ...(conversation ? { fromSeq: target.fromSeq } : {}),
    ...(files ? { checkpointSeq: target.checkpoint!.seq, undoSeq: files.undoSeq, changed: files.changed } : {}),
  }) as RewindEvent;
  if (files) lines.push(...files.lines);
  if (conversation) lines.push(`conversation: turns ${turn + 1}–${turnNow} rewound (still in the log; an undo brings them back)`);
  return { rewind, lines };
}

/**
 * A fork's files: the new session's files put back from a checkpoint of the session it was
 * forked from (`checkpoint`), recorded in the new session (the snapshot before it is its undo).
 */
export async function restoreForFork(ctx: RestoreContext, checkpoint: CheckpointEvent, turn: number): Promise<RestoreResult> {
  const files = await restoreFiles(ctx, checkpoint, turn, "fork");
  const rewind = ctx.append({ type: "rewind", turn, conversation: false, files: true, undoSeq: files.undoSeq, changed: files.changed }) as RewindEvent;
  return { rewind, lines: files.lines };
}

/** The last restore in force that can be undone. */
export function lastRestore(events: readonly SessionEvent[]): RewindEvent | undefined {
  const inForce = eventsInForce(events);
  const undone = new Set(inForce.flatMap((e) => (e.type === "rewind" && e.undoes !== undefined ? [e.undoes] : [])));
  for (let i = inForce.length - 1; i >= 0; i--) {
    const e = inForce[i]!;
    if (e.type === "rewind" && e.undoes === undefined && !undone.has(e.seq) && (e.files || e.conversation)) return e;
  }
  return undefined;
}

/** Undoes the last restore: files back as they were before it, its rewound turns back in force. */
export async function undoRestore(ctx: RestoreContext): Promise<RestoreResult> {
  const events = ctx.events();
  const last = lastRestore(events);
  if (!last) throw new Error("there is no restore to undo in this session");
  const lines: string[] = [];
  let files: Awaited<ReturnType<typeof restoreFiles>> | undefined;
  if (last.files && last.undoSeq !== undefined) {
    const undo = events.find((e): e is CheckpointEvent => e.seq === last.undoSeq && e.type === "checkpoint");
    if (!undo) throw new Error(`the snapshot taken before the restore (event ${last.undoSeq}) is not in the log`);
    files = await restoreFiles(ctx, undo, turnsOf(events).length, "restore");
  }
  const rewind = ctx.append({
    type: "rewind",
    turn: last.turn,
    conversation: false,
    files: files !== undefined,
    undoes: last.seq,
    ...(files ? { checkpointSeq: last.undoSeq, undoSeq: files.undoSeq, changed: files.changed } : {}),
  }) as RewindEvent;
  if (files) lines.push(...files.lines);
  if (last.conversation) lines.push("conversation: the rewound turns are back");
  return { rewind, lines };
}
