/**
 * A sub-agent's typed result and the text its parent's model is told: the outcome, the distilled
 * answer (the child's final message), the files it read and changed — never its tool output.
 */
import type { SessionEvent, Usage } from "../events";
import { displayPath } from "../paths";
import type { WorkspaceFs } from "../ports";
import { cutLine, keepHeadAndTail, plural } from "../tools/output";
import type { ToolDefinition } from "../tools/types";

export interface SubagentResult {
  status: "completed" | "failed" | "cancelled";
  /** The child's final message (completed), or its last words (failed). */
  answer: string;
  /** Why it failed or was cancelled. */
  error?: string;
  childId: string;
  description: string;
  turns: number;
  toolCalls: number;
  filesRead: string[];
  filesChanged: string[];
  usage: Usage;
  costUsd?: number;
}

/** Most characters of the answer the parent's model gets. */
export const MAX_ANSWER_CHARS = 20_000;
const MAX_FILES_SHOWN = 30;

function fileList(files: readonly string[]): string {
  if (files.length === 0) return "none";
  const shown = files.slice(0, MAX_FILES_SHOWN).join(", ");
  return files.length > MAX_FILES_SHOWN ? `${shown} and ${files.length - MAX_FILES_SHOWN} more` : shown;
}

/** The text the parent's model is told. */
export function resultText(r: SubagentResult): string {
  const work = `${plural(r.turns, "turn")}, ${plural(r.toolCalls, "tool call")}`;
  const head =
    r.status === "completed"
      ? `Sub-agent "${r.description}" completed (${work}; session ${r.childId}).`
      : r.status === "cancelled"
        ? `Sub-agent "${r.description}" was cancelled (${work}; session ${r.childId}): ${r.error ?? "stopped"}.`
        : `Sub-agent "${r.description}" failed (${work}; session ${r.childId}): ${r.error ?? "it did not finish"}.`;
  const files = `Files read: ${fileList(r.filesRead)}\nFiles changed: ${fileList(r.filesChanged)}`;
  const answer = r.answer.trim();
  const label = r.status === "completed" ? "Its answer" : "What it had said before it stopped (may be incomplete)";
  const body = answer ? `${label}:\n<answer>\n${boundAnswer(answer)}\n</answer>` : r.status === "completed" ? "It gave no answer." : "It had said nothing yet.";
  const next = r.status === "completed" ? "" : "\nYou may start it again with a narrower prompt, or do the work yourself.";
  return `${head}\n${files}\n${body}${next}`;
}

function boundAnswer(text: string): string {
  if (text.length <= MAX_ANSWER_CHARS) return text;
  const lines = text.split("\n").map((l) => cutLine(l));
  return keepHeadAndTail(lines.join("\n"), 400, MAX_ANSWER_CHARS, " of the sub-agent's answer");
}

/**
 * What the child did, from its own log: turns, tool calls, files it read and changed (by its
 * tools' self-description: capabilities and path arguments), usage and cost (its sub-agents' too).
 */
export function childFacts(events: readonly SessionEvent[], tools: ReadonlyMap<string, ToolDefinition>, fs: WorkspaceFs) {
  const read = new Set<string>();
  const changed = new Set<string>();
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let cost: number | undefined;
  let turns = 0;
  let toolCalls = 0;
  const ok = new Set(events.flatMap((e) => (e.type === "tool_result" && !e.isError ? [e.callId] : [])));
  for (const e of events) {
    if (e.type === "assistant_message") {
      turns++;
      toolCalls += e.toolCalls.length;
    } else if (e.type === "tool_call") {
      const def = tools.get(e.name);
      if (!def || !ok.has(e.callId) || !e.input || typeof e.input !== "object") continue;
      // Files a call changes besides its path arguments (a patch's), as the model wrote them.
      if (def.capabilities.writes && def.touches) {
        try {
          for (const t of def.touches(e.input)) changed.add(t.path);
        } catch {
          // an input the tool cannot read changed nothing
        }
      }
      for (const arg of def.pathArgs ?? []) {
        const v = (e.input as Record<string, unknown>)[arg];
        if (typeof v !== "string" || !v) continue;
        const shown = displayPath(fs, v);
        if (def.capabilities.writes) changed.add(shown);
        else if (def.capabilities.reads) read.add(shown);
      }
    } else if (e.type === "review_proposed") changed.add(e.relPath);
    else if (e.type === "usage") {
      usage.inputTokens += e.usage.inputTokens;
      usage.outputTokens += e.usage.outputTokens;
      usage.cacheReadTokens += e.usage.cacheReadTokens;
      usage.cacheWriteTokens += e.usage.cacheWriteTokens;
      if (e.costUsd !== undefined) cost = (cost ?? 0) + e.costUsd;
    } else if (e.type === "subagent" && e.phase === "finished") {
      for (const f of e.filesRead ?? []) read.add(f);
      for (const f of e.filesChanged ?? []) changed.add(f);
      if (e.costUsd !== undefined) cost = (cost ?? 0) + e.costUsd;
    }
  }
  for (const f of changed) read.delete(f);
  return { turns, toolCalls, filesRead: [...read], filesChanged: [...changed], usage, costUsd: cost };
}

/** How the child's run ended: completed when its model finished on its own, else why not. */
export function childOutcome(events: readonly SessionEvent[], limit?: { maxTurns: number; source?: string }): { status: SubagentResult["status"]; answer: string; error?: string } {
  let last: Extract<SessionEvent, { type: "assistant_message" }> | undefined;
  let said = "";
  let status: Extract<SessionEvent, { type: "status" }> | undefined;
  let error: string | undefined;
  for (const e of events) {
    if (e.type === "assistant_message") {
      last = e;
      if (e.text.trim()) said = e.text;
    } else if (e.type === "status") status = e;
    else if (e.type === "error")
      // Its turn limit: said for the parent (the loop's own text tells a user to send a message).
      error =
        e.code === "max_turns" && limit
          ? `it reached its limit of ${limit.maxTurns} model turns (${limit.source ? `maxTurns in ${limit.source}` : "the subagents.maxTurns setting"}) before finishing`
          : e.message;
    else if (e.type === "user_message") error = undefined;
  }
  if (status?.state === "cancelled") return { status: "cancelled", answer: said, error: status.detail ?? "stopped" };
  if (status?.state === "done" && last && last.toolCalls.length === 0 && !status.detail) return { status: "completed", answer: last.text };
  const why = status?.state === "done" ? status.detail : (error ?? status?.detail);
  return { status: "failed", answer: said, error: why ?? `it ended in state ${status?.state ?? "unknown"}` };
}
