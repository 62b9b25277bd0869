/**
 * Writes a file change a tool computed: directly when the host has no review, else through the
 * host's change review ("ask": the user decides per hunk; "auto": applied at once, revertable).
 * A review is recorded in the log (the proposal when it is put up, the decision when it is made),
 * so a window reload can bring a pending review back and the log tells what became of it.
 */
import { applyPatch, createPatch, structuredPatch } from "diff";
import { hashlineReady, textHash } from "../edit/hashline";
import type { EventOf, SessionEvent } from "../events";
import { resolveWorkspacePath } from "../paths";
import type { ChangeReviewer, FileOp, ProposedChange, ProposedChangeSet, ReviewMode, ReviewOutcome } from "../review";
import { describeOutcome } from "../review-outcome";
import { describeSetOutcome, setAcceptedExactly, setNothingWritten } from "../review-set";
import { decodeText, readChecked, readStamp, statFollow, writeChecked } from "./file-access";
import type { ToolContext, ToolOutput } from "./types";

export interface ChangeToCommit {
  abs: string;
  rel: string;
  tool: string;
  /** Text before (without BOM); null when the file does not exist. */
  before: string | null;
  /** Text proposed (without BOM). */
  after: string;
  /** The exact bytes to write when there is no review (BOM and line endings applied). */
  bytes: Uint8Array;
}

export interface CommitResult {
  /** null when written directly (no reviewer). */
  outcome: ReviewOutcome | null;
  /** What the model is told about the review; absent when written directly. */
  reviewText?: string;
  /** The file now holds exactly the proposal. */
  exact: boolean;
  /** Nothing of the change landed: the review failed, or the user rejected all of it. */
  failed: boolean;
}

const MAX_REGION_LINES = 60;

export async function commitChange(ctx: ToolContext, c: ChangeToCommit): Promise<CommitResult> {
  const reviewer: ChangeReviewer | undefined = ctx.reviewer;
  if (!reviewer) {
    await writeChecked(ctx, c.tool, c.abs, c.rel, c.bytes);
    return { outcome: null, exact: true, failed: false };
  }
  const change: ProposedChange = {
    editId: `${ctx.callId}:${c.rel}`,
    callId: ctx.callId,
    path: c.abs,
    relPath: c.rel,
    // Editors hold text without the byte order mark (the file's encoding keeps it).
    before: c.before === null ? null : stripBom(c.before),
    after: stripBom(c.after),
    tool: c.tool,
  };
  const mode = ctx.reviewMode ?? "auto";
  await hashlineReady();
  ctx.record({
    type: "review_proposed",
    editId: change.editId,
    callId: change.callId,
    path: change.path,
    relPath: change.relPath,
    tool: change.tool,
    mode,
    created: change.before === null,
    beforeHash: textHash(change.before ?? ""),
    diff: createPatch(change.relPath, change.before ?? "", change.after, "", ""),
  });
  return review(ctx, reviewer, change, mode);
}

async function review(ctx: ToolContext, reviewer: ChangeReviewer, change: ProposedChange, mode: ReviewMode): Promise<CommitResult> {
  const outcome = await reviewer.review(change, mode, ctx.signal);
  const exact = outcome.status === "accepted" && outcome.finalContent !== null && sameText(stripBom(outcome.finalContent), change.after);
  const failed = outcome.error !== undefined || outcome.status === "rejected";
  ctx.record(decisionEvent(change, outcome));
  return { outcome, reviewText: describeOutcome(change, outcome), exact, failed };
}

function decisionEvent(change: ProposedChange, o: ReviewOutcome): Omit<EventOf<"review_decision">, "seq" | "ts"> {
  return {
    type: "review_decision",
    editId: change.editId,
    path: change.relPath,
    status: o.error !== undefined ? "failed" : o.status,
    by: o.auto ? "mode" : "user",
    ...(o.hunks ? { hunks: o.hunks } : {}),
    ...(o.userEdited ? { userEdited: true } : {}),
    ...(o.message || o.error ? { message: o.error ?? o.message } : {}),
    ...(o.finalContent !== null && o.error === undefined ? { region: changedRegion(change.before ?? "", o.finalContent) } : {}),
  };
}

/** The lines the change touched, as the file now reads (bounded). */
function changedRegion(before: string, final: string): string {
  const patch = structuredPatch("a", "b", before, stripBom(final), "", "", { context: 0 });
  const lines: string[] = [];
  for (const h of patch.hunks) {
    const added = h.lines.filter((l) => l.startsWith("+")).map((l) => l.slice(1));
    lines.push(`@@ line ${h.newStart}${added.length ? "" : " (lines removed)"}`, ...added);
  }
  if (lines.length > MAX_REGION_LINES) return [...lines.slice(0, MAX_REGION_LINES), `… (${lines.length - MAX_REGION_LINES} more lines)`].join("\n");
  return lines.join("\n");
}

/** The proposal of this call still waiting for a decision in the log, if any. */
export function pendingProposal(callId: string, events: readonly SessionEvent[]): EventOf<"review_proposed"> | undefined {
  const proposed = events.filter((e): e is EventOf<"review_proposed"> => e.type === "review_proposed" && e.callId === callId);
  return proposed.find((p) => !events.some((e) => e.type === "review_decision" && e.editId === p.editId));
}

/**
 * Continues a change whose review was pending when the session was interrupted (a window
 * reload): the proposal is rebuilt from the log — only if the file still holds the content it
 * was made from — and put up for review again; the user's decision is the tool's result.
 */
export async function resumeReview(ctx: ToolContext, events: readonly SessionEvent[]): Promise<ToolOutput | undefined> {
  const p = pendingProposal(ctx.callId, events);
  if (!p || !ctx.reviewer) return undefined;
  await hashlineReady();
  const { abs, rel } = await resolveWorkspacePath(ctx.fs, p.path);
  const st = await statFollow(ctx.fs, abs);
  const decoded = st ? decodeText((await readChecked(ctx, p.tool, abs, rel)).data) : undefined;
  // A review of a new file may have left it on disk, empty (the editor created it to show the proposal).
  const before = decoded && !decoded.binary ? (p.created && decoded.text === "" ? null : decoded.text) : st ? undefined : null;
  if (before === undefined || textHash(before ?? "") !== p.beforeHash) {
    return {
      text: `The change to ${rel} was waiting for review when the window reloaded, and the file has changed since, so it was not applied. Read the file again and redo the change if it is still needed.`,
      isError: true,
    };
  }
  const after = applyPatch(before ?? "", p.diff);
  if (after === false) return { text: `The pending change to ${rel} could not be rebuilt after the reload; it was not applied. Redo it if it is still needed.`, isError: true };
  const change: ProposedChange = { editId: p.editId, callId: p.callId, path: abs, relPath: rel, before, after, tool: p.tool, resumed: true };
  const committed = await review(ctx, ctx.reviewer, change, "ask");
  const now = await statFollow(ctx.fs, abs);
  if (now) ctx.readState.set(abs, readStamp(now));
  const reread = committed.outcome?.status === "rejected" ? "" : `\n\nCall read_file on ${rel} for fresh anchors before editing it again.`;
  return { text: committed.reviewText + reread, isError: committed.failed };
}

function sameText(a: string, b: string): boolean {
  return a.replace(/\r\n/g, "\n") === b.replace(/\r\n/g, "\n");
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * One file of a change that touches several (a patch): a text change, a creation, a deletion
 * (`after` null), or a move (`from`: the source, deleted once the destination is written).
 */
export interface FileChangeToCommit {
  op: FileOp;
  /** The file written (a move's destination) or deleted. */
  abs: string;
  rel: string;
  /** Text before (without BOM; a move: the source's); null when the file does not exist. */
  before: string | null;
  /** Text proposed (without BOM); null: the file is deleted. */
  after: string | null;
  /** The bytes to write (absent for a deletion). */
  bytes?: Uint8Array;
  /** The file's bytes before, to put back if a later file of the change fails (absent: it did not exist). */
  previous?: Uint8Array;
  /** A move's source: its bytes, put back if a later file fails. */
  from?: { abs: string; rel: string; previous: Uint8Array };
}

export interface FilesCommitResult {
  /** Per file, in order: its review outcome (null when written directly or deleted without review). */
  outcomes: Array<{ rel: string; outcome: ReviewOutcome | null; reviewText?: string; exact: boolean }>;
  /** What the model is told about a review of the whole change as one (reviewers with reviewSet). */
  setText?: string;
  /** Every file now holds exactly the proposal. */
  exact: boolean;
  /** Nothing of the change landed. */
  failed: boolean;
}

/**
 * Commits a change of several files. Without a reviewer it is all or nothing: the files are
 * written (and deleted) in order, and if one fails, the ones already done are put back as they
 * were before the error is thrown. A reviewer that reviews a change of several files as one
 * (`reviewSet`, the panel's) gets one proposal with every file — it writes them all or none once
 * everything is decided. Other reviewers (and "auto" mode) get each text change in turn
 * (commitChange); a deletion is then made only once every reviewed file was accepted exactly, and
 * if a write fails, the files written before it are put back (all or nothing).
 */
export async function commitChanges(ctx: ToolContext, tool: string, files: readonly FileChangeToCommit[]): Promise<FilesCommitResult> {
  if (!ctx.reviewer) {
    await writeAllOrNothing(ctx, tool, files);
    return { outcomes: files.map((f) => ({ rel: f.rel, outcome: null, exact: true })), exact: true, failed: false };
  }
  const mode = ctx.reviewMode ?? "auto";
  if (ctx.reviewer.reviewSet && mode === "ask") return reviewAsOne(ctx, ctx.reviewer, tool, files);
  const outcomes: FilesCommitResult["outcomes"] = [];
  const texts = files.filter((f) => f.after !== null);
  const landedFiles: FileChangeToCommit[] = [];
  for (const f of texts) {
    const c = await commitChange(ctx, { abs: f.abs, rel: f.rel, tool, before: f.op === "move" ? null : f.before, after: f.after!, bytes: f.bytes! });
    outcomes.push({ rel: f.rel, outcome: c.outcome, ...(c.reviewText ? { reviewText: c.reviewText } : {}), exact: c.exact });
    if (c.outcome?.error !== undefined) {
      // A write failed: a patch applies all or nothing, so what landed before it is put back
      // (whatever the reviewer or the mode had decided), and the rest is not proposed.
      const put = await putBack(ctx, landedFiles);
      for (const o of outcomes.slice(0, -1))
        if (put.has(o.rel))
          Object.assign(o, { exact: false, reviewText: `${o.rel}: put back as it was, because ${f.rel} could not be written (${c.outcome.error}), and a patch applies all or nothing.` });
      // The files not yet proposed, and every deletion (made only after all the writes): untouched.
      const at = files.indexOf(f);
      for (const rest of files.filter((x, i) => i > at || x.after === null))
        outcomes.push({ rel: rest.rel, outcome: null, exact: false, reviewText: `${rest.rel}: not changed, because ${f.rel} could not be written.` });
      return { outcomes, exact: false, failed: true };
    }
    if (c.outcome === null || c.outcome.status !== "rejected") landedFiles.push(f);
  }
  const allExact = outcomes.every((o) => o.exact);
  const deletions = [...files.filter((x) => x.after === null), ...files.flatMap((x) => (x.from ? [{ abs: x.from.abs, rel: x.from.rel }] : []))];
  for (const f of deletions) {
    if (allExact) await ctx.fs.delete(f.abs);
    outcomes.push({ rel: f.rel, outcome: null, exact: allExact, ...(allExact ? {} : { reviewText: `${f.rel} was not deleted, because the rest of the change was not accepted as proposed.` }) });
  }
  const landed = outcomes.some((o) => (o.outcome === null ? o.exact : o.outcome.status !== "rejected" && o.outcome.error === undefined));
  return { outcomes, exact: outcomes.every((o) => o.exact), failed: !landed };
}

/** Puts the files of a change back as they were before it (an added file is removed); returns the paths put back. */
async function putBack(ctx: ToolContext, files: readonly FileChangeToCommit[]): Promise<Set<string>> {
  const done = new Set<string>();
  for (const f of [...files].reverse()) {
    try {
      if (f.previous) await ctx.fs.writeFile(f.abs, f.previous);
      else await ctx.fs.delete(f.abs);
      done.add(f.rel);
    } catch {
      // left as the reviewer wrote it; the model is told the rest
    }
  }
  return done;
}

/** Writes (and deletes) every file in order; if one fails, the ones already done are put back and the error is thrown. */
async function writeAllOrNothing(ctx: ToolContext, tool: string, files: readonly FileChangeToCommit[]): Promise<void> {
  const undo: Array<{ abs: string; previous?: Uint8Array }> = [];
  try {
    for (const f of files) {
      if (f.after === null) {
        undo.push({ abs: f.abs, ...(f.previous ? { previous: f.previous } : {}) });
        await ctx.fs.delete(f.abs);
        continue;
      }
      undo.push({ abs: f.abs, ...(f.previous ? { previous: f.previous } : {}) });
      await writeChecked(ctx, tool, f.abs, f.rel, f.bytes!);
      if (f.from) {
        undo.push({ abs: f.from.abs, previous: f.from.previous });
        await ctx.fs.delete(f.from.abs);
      }
    }
  } catch (err) {
    for (const u of undo.reverse()) {
      if (u.previous) await ctx.fs.writeFile(u.abs, u.previous).catch(() => undefined);
      else await ctx.fs.delete(u.abs).catch(() => undefined);
    }
    throw err;
  }
}

/** The whole change as one proposal (ProposedChangeSet): one review, one account to the model, per file in the log. */
async function reviewAsOne(ctx: ToolContext, reviewer: ChangeReviewer, tool: string, files: readonly FileChangeToCommit[]): Promise<FilesCommitResult> {
  await hashlineReady();
  const set: ProposedChangeSet = {
    setId: ctx.callId,
    callId: ctx.callId,
    tool,
    files: files.map((f) => ({
      editId: `${ctx.callId}:${f.rel}`,
      callId: ctx.callId,
      path: f.abs,
      relPath: f.rel,
      before: f.before === null ? null : stripBom(f.before),
      after: f.after === null ? "" : stripBom(f.after),
      tool,
      op: f.op,
      ...(f.from ? { from: { path: f.from.abs, relPath: f.from.rel } } : {}),
    })),
  };
  for (const f of set.files) {
    ctx.record({
      type: "review_proposed",
      editId: f.editId,
      callId: f.callId,
      path: f.path,
      relPath: f.relPath,
      tool,
      mode: "ask",
      created: f.before === null,
      beforeHash: textHash(f.before ?? ""),
      diff: createPatch(f.relPath, f.before ?? "", f.after, "", ""),
    });
  }
  const outcome = await reviewer.reviewSet!(set, "ask", ctx.signal);
  const outcomes: FilesCommitResult["outcomes"] = set.files.map((f, k) => {
    const o: ReviewOutcome = outcome.error ? { status: "rejected", finalContent: f.before, error: outcome.error } : outcome.files[k]!;
    ctx.record(decisionEvent(f, f.op === "delete" && o.finalContent === null ? { ...o, finalContent: "" } : o));
    const exact = !o.error && o.status === "accepted" && !o.userEdited && (f.op === "delete" ? o.finalContent === null : o.finalContent !== null && sameText(stripBom(o.finalContent), f.after));
    return { rel: f.relPath, outcome: o, exact };
  });
  return { outcomes, setText: describeSetOutcome(set, outcome), exact: setAcceptedExactly(set, outcome), failed: setNothingWritten(outcome) };
}
