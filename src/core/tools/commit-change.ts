/**
 * Writes a file change a tool computed: directly when the host has no review, else through the
 * host's change review ("ask": the user decides per hunk; "auto": applied at once, revertable).
 */
import type { ChangeReviewer, ProposedChange, ReviewOutcome } from "../review";
import { describeOutcome } from "../review-outcome";
import type { ToolContext } from "./types";

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
}

export async function commitChange(ctx: ToolContext, c: ChangeToCommit): Promise<CommitResult> {
  const reviewer: ChangeReviewer | undefined = ctx.reviewer;
  if (!reviewer) {
    await ctx.fs.writeFile(c.abs, c.bytes);
    return { outcome: null, exact: true };
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
  const outcome = await reviewer.review(change, ctx.reviewMode ?? "auto", ctx.signal);
  const exact = outcome.status === "accepted" && outcome.finalContent !== null && sameText(stripBom(outcome.finalContent), change.after);
  return { outcome, reviewText: describeOutcome(change, outcome), exact };
}

function sameText(a: string, b: string): boolean {
  return a.replace(/\r\n/g, "\n") === b.replace(/\r\n/g, "\n");
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
