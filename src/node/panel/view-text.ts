// The texts of the panel's view model: cut to size, one-line summaries, tool arguments, who
// decided a call, a restore's line, and search snippets. Pure: no vscode.
import type { SessionEvent } from "../../core/events";
import type { UsageView, ViewItem } from "../../protocol/messages";

const INPUT_LIMIT = 4_000;
export const OUTPUT_LIMIT = 8_000;
const SUMMARY_LIMIT = 100;

/** Cuts text to `limit` characters, saying how much was left out. */
export function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`;
}

export function oneLine(text: string, limit = SUMMARY_LIMIT): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/**
 * A card's one-line summary: the tool's own (recorded with the call), else the first string
 * argument of an unknown tool — the panel never switches on tool names.
 */
export function cardSummary(summary: string | undefined, input: unknown): string {
  if (summary) return oneLine(summary);
  if (typeof input === "string") return oneLine(input);
  if (input && typeof input === "object") {
    const first = Object.values(input).find((v) => typeof v === "string");
    if (typeof first === "string") return oneLine(first);
  }
  return "";
}

export function formatInput(input: unknown): string {
  if (typeof input === "string") return bound(input, INPUT_LIMIT);
  try {
    return bound(JSON.stringify(input, null, 2) ?? "", INPUT_LIMIT);
  } catch {
    return "(arguments could not be shown)";
  }
}

type DecisionEvent = Extract<SessionEvent, { type: "permission_decision" }>;

/** Who decided a tool call, for its card: "allowed by rule Bash(npm test:*)", "denied by hook: no rm", "asked you". */
export function describeDecision(e: Pick<DecisionEvent, "decision" | "by" | "rule" | "message">): string {
  const verb = e.decision === "allow" ? "allowed" : "denied";
  switch (e.by) {
    case "rule":
      return e.message === "sent to review" ? `sent to review (rule ${e.rule ?? "?"})` : `${verb} by rule ${e.rule ?? "(unnamed)"}`;
    case "hook":
      return e.decision === "deny" ? `denied by hook: ${e.message ?? "(no message)"}` : "allowed by hook";
    case "user":
      return e.decision === "allow" ? "asked you: allowed" : `asked you: denied${e.message ? ` (${e.message})` : ""}`;
    case "restricted":
      return "denied: Restricted Mode";
    default:
      return e.message === "sent to review" ? "sent to review" : `${verb} by the permission mode`;
  }
}

export function emptyUsage(): UsageView {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
}

type RewindEvent = Extract<SessionEvent, { type: "rewind" }>;

/** The transcript's line for a restore (checkpoints). */
export function rewindText(e: RewindEvent, undone?: RewindEvent): string {
  const written = (e.changed ?? []).reduce((n, c) => n + c.written, 0);
  const deleted = (e.changed ?? []).reduce((n, c) => n + c.deleted, 0);
  const counts = e.files ? ` (${written} file${written === 1 ? "" : "s"} written back, ${deleted} deleted)` : "";
  if (e.undoes !== undefined) {
    const parts = [e.files ? `the files are back as they were before it${counts}` : "", undone?.conversation ? `the turns after turn ${undone.turn} are back in the conversation` : ""].filter(Boolean);
    return `Undid the restore to the end of turn ${e.turn}${parts.length ? `: ${parts.join("; ")}` : ""}.`;
  }
  if (e.files && e.checkpointSeq === undefined) return `Forked from turn ${e.turn}: the files are as they were after that turn${counts}.`;
  const what = e.files && e.conversation ? "the files and the conversation" : e.files ? "the files" : "the conversation";
  return `Restored ${what} to the end of turn ${e.turn}${counts}.${e.conversation ? " The later turns are out of the conversation (still in the log: Undo restore brings them back)." : ""}`;
}

const SNIPPET = 120;

/** The first string of `item` (other than its id and kind) containing `needle`, as a snippet around the hit. */
export function findIn(item: ViewItem, needle: string): string | undefined {
  let found: string | undefined;
  const walk = (v: unknown, key: string): void => {
    if (found !== undefined) return;
    if (typeof v === "string") {
      if (key === "id" || key === "kind") return;
      const at = v.toLowerCase().indexOf(needle);
      if (at >= 0) found = snippet(v, at, needle.length);
    } else if (Array.isArray(v)) for (const x of v) walk(x, "");
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(item, "");
  return found;
}

function snippet(text: string, at: number, len: number): string {
  const from = Math.max(0, at - Math.floor((SNIPPET - len) / 2));
  const cut = text
    .slice(from, from + SNIPPET)
    .replace(/\s+/g, " ")
    .trim();
  return `${from > 0 ? "…" : ""}${cut}${from + SNIPPET < text.length ? "…" : ""}`;
}
