/**
 * A fork: a new session that starts as a copy of another's log, from its end, and goes on by
 * itself. It is how a second opener continues a session another process is writing (the panel's
 * "Continue as a fork", `yoke fork SESSION`). The copy keeps the system prompt and every event
 * (so the model sees the same conversation and prompt caches hit); tool calls the original had
 * not finished are closed in the copy as not run here — they belong to the original, which may
 * still be running them. The files are shared: they are as they are now.
 */
import { SessionEvent } from "../events";
import type { SessionStore } from "../ports";
import { newSessionId, parseLog } from "./session-log";
import { unansweredToolCalls } from "./projection";

export interface ForkResult {
  id: string;
  /** The source's last event copied. */
  seq: number;
}

export function forkSession(store: SessionStore, sourceId: string, now: () => Date = () => new Date()): ForkResult {
  if (!store.exists(sourceId)) throw new Error(`no session "${sourceId}" (see \`yoke sessions\`)`);
  const { events } = parseLog(store.read(sourceId));
  const start = events[0];
  if (!start || start.type !== "session_start") throw new Error(`session ${sourceId} has no session_start event: the log is damaged`);
  const id = newSessionId(now());
  const last = events[events.length - 1]!.seq;
  let seq = 0;
  const write = (e: SessionEvent) => store.append(id, JSON.stringify(SessionEvent.parse({ ...e, seq: seq++ })));
  write({ ...start, sessionId: id, forkedFrom: { sessionId: sourceId, seq: last } });
  for (const e of events.slice(1)) write(e);
  const ts = now().toISOString();
  for (const call of unansweredToolCalls(events)) {
    write({
      type: "tool_result",
      seq: 0,
      ts,
      callId: call.id,
      name: call.name,
      output: `Not run in this session: it was forked from session ${sourceId} before this call finished there. Call it again if it is still needed.`,
      isError: true,
      durationMs: 0,
    });
  }
  write({ type: "status", seq: 0, ts, state: "idle", detail: `forked from ${sourceId}` });
  store.sync(id);
  return { id, seq: last };
}
