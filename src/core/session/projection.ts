/** Projections of the event log: what the model sees, and a summary for session lists. */
import type { LoopState, SessionEvent } from "../events";
import type { ModelMessage } from "../providers/types";
import { eventsInForce } from "./rewind";

/** Text of the result recorded for a tool call whose result never reached the log. */
export const NOT_RUN_TEXT = "This tool call did not run: the session was interrupted before it started. Call it again if it is still needed.";

/**
 * The conversation the model sees. Every tool call of an assistant message gets exactly one
 * result, in call order, so providers never see a dangling call. Context an extension appended
 * is a user-role message at the place it was logged.
 */
export function projectConversation(events: readonly SessionEvent[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let pending: Array<{ id: string; name: string }> = [];
  const results = new Map<string, ModelMessage>();
  const flush = () => {
    for (const call of pending) {
      messages.push(results.get(call.id) ?? { role: "tool", callId: call.id, name: call.name, content: NOT_RUN_TEXT, isError: true });
    }
    pending = [];
    results.clear();
  };
  for (const e of eventsInForce(events)) {
    switch (e.type) {
      case "user_message":
        flush();
        messages.push({ role: "user", text: e.context ? `${e.text}\n\n<context source="hooks">\n${e.context}\n</context>` : e.text });
        break;
      case "context":
        flush();
        messages.push({ role: "user", text: `<context source="${e.source}">\n${e.text}\n</context>` });
        break;
      case "assistant_message":
        flush();
        messages.push({ role: "assistant", text: e.text, toolCalls: e.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.input })) });
        pending = e.toolCalls.map((c) => ({ id: c.id, name: c.name }));
        break;
      case "tool_result":
        if (pending.some((c) => c.id === e.callId)) {
          results.set(e.callId, { role: "tool", callId: e.callId, name: e.name, content: e.output, isError: e.isError });
        }
        break;
      default:
        break;
    }
  }
  flush();
  return messages;
}

/** Tool calls of the last assistant message that have no result in the log. */
export function unansweredToolCalls(events: readonly SessionEvent[]): Array<{ id: string; name: string; started: boolean }> {
  let lastAssistant = -1;
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type === "assistant_message") {
      lastAssistant = i;
      break;
    }
  }
  if (lastAssistant < 0) return [];
  const msg = events[lastAssistant] as Extract<SessionEvent, { type: "assistant_message" }>;
  const after = events.slice(lastAssistant + 1);
  return msg.toolCalls
    .filter((c) => !after.some((e) => e.type === "tool_result" && e.callId === c.id))
    .map((c) => ({ id: c.id, name: c.name, started: after.some((e) => e.type === "tool_call" && e.callId === c.id) }));
}

export interface SessionSummary {
  id: string;
  title: string;
  /** "interrupted": the log ends mid-turn (the process died or was killed). */
  status: LoopState | "interrupted";
  createdAt: string;
  updatedAt: string;
  model: string;
  provider: string;
  label?: string;
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number };
  costUsd?: number;
  /** Number of user messages. */
  turns: number;
  /** The session this one was forked from. */
  forkedFrom?: string;
}

const ACTIVE: ReadonlySet<string> = new Set(["thinking", "waiting_tool", "waiting_user"]);

export function summarizeSession(events: readonly SessionEvent[], id = ""): SessionSummary {
  const start = events.find((e) => e.type === "session_start");
  const firstUser = events.find((e) => e.type === "user_message");
  let status: SessionSummary["status"] = "idle";
  const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
  let cost: number | undefined;
  let turns = 0;
  for (const e of eventsInForce(events)) {
    if (e.type === "status") status = e.state;
    else if (e.type === "user_message") turns++;
    else if (e.type === "usage") {
      usage.inputTokens += e.usage.inputTokens;
      usage.outputTokens += e.usage.outputTokens;
      usage.cacheReadTokens += e.usage.cacheReadTokens;
      if (e.costUsd !== undefined) cost = (cost ?? 0) + e.costUsd;
    }
  }
  if (ACTIVE.has(status)) status = "interrupted";
  const title = firstUser?.text.replace(/\s+/g, " ").trim() ?? "(no messages yet)";
  return {
    id: start?.sessionId ?? id,
    title: title.length > 80 ? title.slice(0, 79) + "…" : title,
    status,
    createdAt: events[0]?.ts ?? "",
    updatedAt: events[events.length - 1]?.ts ?? "",
    model: start?.model ?? "",
    provider: start?.provider ?? "",
    label: start?.label,
    usage,
    costUsd: cost,
    turns,
    ...(start?.type === "session_start" && start.forkedFrom ? { forkedFrom: start.forkedFrom.sessionId } : {}),
  };
}
