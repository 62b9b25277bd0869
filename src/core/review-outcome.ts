/**
 * What the model is told after a review: accepted, rejected (with the user's reason), or partly
 * accepted with the text of each changed region as it now reads, plus a diff of any edits the
 * user made by hand. Exact wording matters: a rejected change must never read as a success.
 */
import { structuredPatch } from "diff";
import type { ProposedChange, ReviewOutcome } from "./review";
import { applyHunks, computeHunks, normalizeEol, splitLines, type Hunk, type HunkDecision } from "./review-hunks";

const MAX_REGION_LINES = 40;
const MAX_DIFF_LINES = 120;

/** The model-facing text for a review outcome. */
export function describeOutcome(change: ProposedChange, outcome: ReviewOutcome): string {
  if (outcome.error) return outcome.error;
  const rel = change.relPath;
  const hunks = computeHunks(change.before, change.after);
  const decisions: HunkDecision[] = outcome.hunkDecisions ?? hunks.map(() => (outcome.status === "rejected" ? "rejected" : "accepted"));
  const expected = applyHunks(change.before, hunks, decisions);
  const edits = outcome.finalContent === null ? null : userEditsDiff(expected, outcome.finalContent, rel);
  const parts: string[] = [];
  if (outcome.status === "rejected") {
    const result = edits ? "." : change.before === null ? "; the file was not created." : "; the file is unchanged.";
    parts.push(`The user rejected the change to ${rel}${result}${outcome.message ? ` Reason: ${outcome.message}` : ""}`);
    if (edits) parts.push(`The user edited the file by hand:\n${edits}`);
    return parts.join("\n");
  }
  if (outcome.status === "accepted") {
    parts.push(outcome.auto ? `The change to ${rel} was applied.` : `The user accepted the change to ${rel}.`);
  } else {
    parts.push(`The user partly accepted the change to ${rel}: ${decisionList(decisions)}.`);
    parts.push(`${edits ? "With these decisions the changed regions read" : "The changed regions now read"}:\n${regions(expected, hunks, decisions)}`);
  }
  if (edits) parts.push(`The user edited the proposal before accepting:\n${edits}`);
  return parts.join("\n");
}

/** "hunks 1, 3 applied, hunk 2 rejected". */
export function decisionList(decisions: readonly HunkDecision[]): string {
  const group = (d: HunkDecision, verb: string) => {
    const ids = decisions.flatMap((x, k) => (x === d ? [k + 1] : []));
    return ids.length ? `${ids.length === 1 ? "hunk" : "hunks"} ${ids.join(", ")} ${verb}` : "";
  };
  return [group("accepted", "applied"), group("rejected", "rejected")].filter(Boolean).join(", ");
}

/**
 * A unified diff from what the decisions alone would give to what the file holds (line endings
 * ignored: the editor may normalise them); null when they are the same.
 */
export function userEditsDiff(expected: string, actual: string, relPath: string): string | null {
  const a = normalizeEol(expected);
  const b = normalizeEol(actual);
  if (a === b) return null;
  const patch = structuredPatch(relPath, relPath, a, b, "", "", { context: 2 });
  const out = [`--- ${relPath} (as proposed)`, `+++ ${relPath} (as saved)`];
  let left = 0;
  for (const h of patch.hunks) {
    for (const line of [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]) {
      if (out.length < MAX_DIFF_LINES + 2) out.push(line);
      else left++;
    }
  }
  if (left) out.push(`... (${left} more diff lines not shown)`);
  return out.join("\n");
}

/** Each hunk's region in the file that the decisions give, with 1-based line numbers. */
function regions(expected: string, hunks: readonly Hunk[], decisions: readonly HunkDecision[]): string {
  const lines = splitLines(expected).map((l) => l.replace(/\r?\n$/, ""));
  const out: string[] = [];
  let shift = 0;
  hunks.forEach((h, k) => {
    const applied = decisions[k] === "accepted";
    const start = h.beforeStart + shift;
    const count = applied ? h.afterLines.length : h.beforeLines.length;
    if (applied) shift += h.afterLines.length - h.beforeLines.length;
    const label = `hunk ${h.index} (${applied ? "applied" : "rejected, as before"})`;
    if (count === 0) {
      out.push(`${label}: no lines here now (${start === 0 ? "start of file" : `after line ${start}`})`);
      return;
    }
    out.push(`${label}, lines ${start + 1}-${start + count}:`);
    const shown = lines.slice(start, start + Math.min(count, MAX_REGION_LINES));
    out.push(...shown);
    if (count > MAX_REGION_LINES) out.push(`... (${count - MAX_REGION_LINES} more lines)`);
  });
  return out.join("\n");
}
