/**
 * The model of a change of several files under review (review.ts: ProposedChangeSet): each file's
 * hunks, the decision of the whole change from the files' decisions, and what the model is told —
 * per file what was accepted, rejected or edited by the user, and what was written.
 */
import type { ChangeSetOutcome, ProposedChangeSet, ProposedFile, ReviewOutcome } from "./review";
import { computeHunks, type Hunk, type HunkDecision } from "./review-hunks";
import { describeOutcome } from "./review-outcome";

/** The hunks a file of the change is decided by (a delete: one hunk removing every line; a move: source → destination text). */
export function fileHunks(file: Pick<ProposedFile, "before" | "after">): Hunk[] {
  return computeHunks(file.before, file.after);
}

/** How a file of the change is named: `A new.ts`, `M a.ts`, `D old.ts`, `R a.ts → b.ts`. */
export function fileLabel(file: ProposedFile): string {
  switch (file.op) {
    case "add":
      return `A ${file.relPath}`;
    case "delete":
      return `D ${file.relPath}`;
    case "move":
      return `R ${file.from?.relPath ?? "?"} → ${file.relPath}`;
    default:
      return `M ${file.relPath}`;
  }
}

/**
 * A file with nothing to show (a pure rename, an empty file added or deleted) is not decided on its
 * own: it follows the rest of the change — made when any hunk of the change is accepted, not made
 * when every hunk is rejected. Only when no file of the change has a hunk is it decided by itself.
 */
export function followingDecision(decisionsOfOthers: ReadonlyArray<readonly HunkDecision[]>): HunkDecision | undefined {
  const all = decisionsOfOthers.flat();
  if (!all.length) return undefined;
  return all.includes("accepted") ? "accepted" : "rejected";
}

/** The status of one file from its hunk decisions. */
export function statusOf(decisions: readonly HunkDecision[]): ReviewOutcome["status"] {
  if (decisions.every((d) => d === "accepted")) return "accepted";
  if (decisions.every((d) => d === "rejected")) return "rejected";
  return "partial";
}

/** Every file holds exactly what was proposed (deleted files are gone, moved ones moved). */
export function setAcceptedExactly(set: ProposedChangeSet, outcome: ChangeSetOutcome): boolean {
  if (outcome.error) return false;
  return set.files.every((f, k) => {
    const o = outcome.files[k];
    if (!o || o.status !== "accepted" || o.error || o.userEdited) return false;
    return f.op === "delete" ? o.finalContent === null : o.finalContent !== null && norm(o.finalContent) === norm(f.after);
  });
}

/** Nothing of the change was written. */
export function setNothingWritten(outcome: ChangeSetOutcome): boolean {
  return outcome.error !== undefined || outcome.files.every((o) => o.error !== undefined || (o.status === "rejected" && !o.userEdited));
}

/**
 * What the model is told after the review of a change of several files. A rejected change must
 * never read as a success: the first line says how much of the change was written.
 */
export function describeSetOutcome(set: ProposedChangeSet, outcome: ChangeSetOutcome): string {
  const n = set.files.length;
  if (outcome.error) return `The patch (${n} file${n === 1 ? "" : "s"}) was not applied: ${outcome.error} No file was changed.`;
  const statuses = outcome.files.map((o) => o.status);
  const reason = outcome.files.find((o) => o.message)?.message;
  if (statuses.every((s) => s === "rejected") && !outcome.files.some((o) => o.userEdited)) {
    return `The user rejected the whole patch (${n} file${n === 1 ? "" : "s"}); no file was changed.${reason ? ` Reason: ${reason}` : ""}\n${set.files.map((f) => `- ${fileLabel(f)}: rejected`).join("\n")}`;
  }
  const counts = (["accepted", "partial", "rejected"] as const).map((s) => [s, statuses.filter((x) => x === s).length] as const).filter(([, c]) => c > 0);
  const words = { accepted: "accepted", partial: "partly accepted", rejected: "rejected" };
  const head = `The user reviewed the patch (${n} file${n === 1 ? "" : "s"}) as one change: ${counts.map(([s, c]) => `${c} ${words[s]}`).join(", ")}. Per file:`;
  const parts = set.files.map((f, k) => `- ${fileLabel(f)}: ${describeFile(f, outcome.files[k]!)}`);
  return [head, ...parts, ...(reason ? [`The user's note: ${reason}`] : [])].join("\n");
}

function describeFile(f: ProposedFile, o: ReviewOutcome): string {
  if (f.op === "delete") {
    if (o.status === "rejected") return `rejected; ${f.relPath} was not deleted.`;
    return o.finalContent === null ? "accepted; the file was deleted." : `accepted, but the file still exists (the user kept it).`;
  }
  if (f.op === "move" && o.status === "rejected") return `rejected; ${f.from?.relPath} was not moved or changed.`;
  const moved = f.op === "move" ? ` ${f.from?.relPath} was moved to ${f.relPath}.` : "";
  // The single-file account (accepted / partly accepted with the regions as they now read / the user's edits), without its subject line.
  const { message: _note, ...decided } = o;
  const text = describeOutcome(f, decided);
  const [first, ...rest] = text.split("\n");
  const verdict =
    o.status === "accepted"
      ? `accepted${o.userEdited ? " with the user's edits" : ""}${f.op === "add" ? " (created)" : ""}.`
      : o.status === "partial"
        ? `partly accepted: ${first!.replace(/^The user partly accepted the change to [^:]*: /, "").replace(/\.$/, "")}.`
        : `rejected${o.userEdited ? " (the user edited the file by hand)" : ""}.`;
  return [verdict + moved, ...rest.map((l) => `    ${l}`)].join("\n");
}

function norm(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n/g, "\n");
}
