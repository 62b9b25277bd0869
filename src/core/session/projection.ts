/** Projections of the event log: what the model sees, and a summary for session lists. */
import { stubText, summaryText } from "../compaction/render";
import type { EventOf, LoopState, SessionEvent } from "../events";
import type { ModelMessage } from "../providers/types";
import { eventsInForce } from "./rewind";

/** Text of the result recorded for a tool call whose result never reached the log. */
export const NOT_RUN_TEXT = "This tool call did not run: the session was interrupted before it started. Call it again if it is still needed.";

/**
 * The conversation the model sees: a pure function of the log, so a resumed session sends the
 * same bytes. Every tool call of an assistant message gets exactly one result, in call order,
 * so providers never see a dangling call. Context an extension appended is a user-role message
 * at the place it was logged.
 *
 * After a `compaction` event the conversation is: the summary, every persisted context event
 * (guidance in force) and the user's constraint messages from before the kept part, verbatim,
 * the open todo list, then the events from `firstKeptSeq` on — with the compaction's stubs in
 * place of large old tool results. The log itself is never rewritten.
 */
export function projectConversation(all: readonly SessionEvent[]): ModelMessage[] {
  // A conversation restore (rewind) comes first: a compaction inside a rewound span is not in force.
  const events = eventsInForce(all);
  const compaction = lastCompaction(events);
  if (!compaction) return projectEvents(events);
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  // A compaction that only stubbed tool results (nothing summarised yet) has no head.
  const head: ModelMessage[] = compaction.summary ? [{ role: "user", text: contextText("compaction", summaryText(compaction)) }] : [];
  for (const seq of compaction.persistedSeqs) {
    const e = bySeq.get(seq);
    if (e?.type === "context") head.push(contextMessage(e));
  }
  for (const seq of compaction.keptUserSeqs) {
    const e = bySeq.get(seq);
    if (e?.type === "user_message") head.push(userMessage(e));
  }
  const todos = compaction.todosSeq === undefined ? undefined : bySeq.get(compaction.todosSeq);
  if (todos?.type === "todos" && todos.todos.some((t) => t.status !== "completed")) {
    const mark = { pending: "[ ]", in_progress: "[>]", completed: "[x]" } as const;
    head.push({
      role: "user",
      text: contextText("todos", `The todo list as it stood (send the whole list with todo_write to change it):\n${todos.todos.map((t, i) => `${mark[t.status]} ${i + 1}. ${t.content}`).join("\n")}`),
    });
  }
  const stubs = new Map(compaction.stubs.map((s) => [s.seq, s.ref]));
  const tail = events.filter((e) => e.seq >= compaction.firstKeptSeq && e.type !== "compaction");
  return [...head, ...projectEvents(tail, stubs)];
}

/** The compaction in force: the last one of the log. */
export function lastCompaction(events: readonly SessionEvent[]): EventOf<"compaction"> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "compaction") return e;
  }
  return undefined;
}

const contextText = (source: string, text: string) => `<context source="${source}">\n${text}\n</context>`;
const contextMessage = (e: EventOf<"context">): ModelMessage => ({ role: "user", text: contextText(e.source, e.text) });
const userMessage = (e: EventOf<"user_message">): ModelMessage => ({
  role: "user",
  text: e.context ? `${e.text}\n\n${contextText("hooks", e.context)}` : e.text,
  ...(e.images?.length ? { images: e.images } : {}),
});

function projectEvents(events: readonly SessionEvent[], stubs?: ReadonlyMap<number, string>): ModelMessage[] {
  const messages: ModelMessage[] = [];
  let pending: Array<{ id: string; name: string; summary?: string }> = [];
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
        messages.push(userMessage(e));
        break;
      case "context":
        flush();
        messages.push(contextMessage(e));
        break;
      case "assistant_message":
        flush();
        messages.push({ role: "assistant", text: e.text, toolCalls: e.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.input })) });
        pending = e.toolCalls.map((c) => ({ id: c.id, name: c.name, summary: c.summary }));
        break;
      case "tool_result": {
        const call = pending.find((c) => c.id === e.callId);
        if (call) {
          const ref = stubs?.get(e.seq);
          // A stubbed result (compaction) drops its images with its text.
          results.set(e.callId, {
            role: "tool",
            callId: e.callId,
            name: e.name,
            content: ref ? stubText(e, ref, call.summary) : e.output,
            isError: e.isError,
            ...(!ref && e.images?.length ? { images: e.images } : {}),
          });
        }
        break;
      }
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
  /** The session whose sub-agent this one is. */
  parentId?: string;
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
    } else if (e.type === "subagent" && e.phase === "finished") {
      // A sub-agent's cost counts in its parent's (its tokens are its own session's).
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
    ...(start?.type === "session_start" && start.parentId ? { parentId: start.parentId } : {}),
  };
}
