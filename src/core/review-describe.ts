// The change review's events (review.ts, tools/commit-change.ts), for a person.
import type { EventNote } from "./event-note";
import type { EventOf } from "./events";

export function describe(e: EventOf<"review_proposed" | "review_decision">): EventNote | undefined {
  if (e.type === "review_proposed") return e.mode === "ask" ? { level: "info", text: `Proposed a change to ${e.relPath}: review it in the editor.` } : undefined;
  return { level: e.status === "accepted" ? "info" : "warning", text: decisionText(e), ...(e.status === "accepted" && e.by === "mode" ? { routine: true as const } : {}) };
}

function decisionText(e: EventOf<"review_decision">): string {
  const who = e.by === "mode" ? "by the permission mode" : "by you";
  switch (e.status) {
    case "accepted":
      return `Change to ${e.path} accepted ${who}${e.userEdited ? " (with your edits)" : ""}.`;
    case "partial":
      return `Change to ${e.path} partly accepted ${who}${e.hunks ? `: ${e.hunks.accepted} hunk(s) applied, ${e.hunks.rejected} rejected` : ""}.`;
    case "rejected":
      return `Change to ${e.path} rejected ${who}${e.message ? `: ${e.message}` : ""}.`;
    default:
      return `Change to ${e.path} could not be reviewed${e.message ? `: ${e.message}` : ""}.`;
  }
}
