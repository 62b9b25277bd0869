/**
 * A fork: a new session that starts as a copy of another's log, from its end, and goes on by
 * itself. It is how a second opener continues a session another process is writing (the panel's
 * "Continue as a fork", `yoke fork SESSION`). The copy keeps the system prompt and every event
 * (so the model sees the same conversation and prompt caches hit); tool calls the original had
 * not finished are closed in the copy as not run here — they belong to the original, which may
 * still be running them. The files are shared: they are as they are now.
 *
 * From an earlier turn (`opts.turn`, 1-based as summarizeSession counts): the copy holds the
 * conversation in force up to the end of that turn (rewound spans and the rewinds themselves left
 * out: they are applied, not copied). Putting the files back as they were then is the
 * checkpoints' part (core/checkpoints), done by the caller in the new session, so it is undoable.
 */
import { SessionEvent } from "../events";
import type { SessionStore } from "../ports";
import { newSessionId, parseLog } from "./session-log";
import { unansweredToolCalls } from "./projection";
import { eventsInForce } from "./rewind";

export interface ForkResult {
  id: string;
  /** The source's last event copied. */
  seq: number;
}

export function forkSession(store: SessionStore, sourceId: string, now: () => Date = () => new Date(), opts: { turn?: number } = {}): ForkResult {
  if (!store.exists(sourceId)) throw new Error(`no session "${sourceId}" (see \`yoke sessions\`)`);
  const { events } = parseLog(store.read(sourceId));
  const start = events[0];
  if (!start || start.type !== "session_start") throw new Error(`session ${sourceId} has no session_start event: the log is damaged`);
  const id = newSessionId(now());
  let copied = events;
  if (opts.turn !== undefined) {
    const inForce = eventsInForce(events).filter((e) => e.type !== "rewind");
    const users = inForce.filter((e) => e.type === "user_message");
    if (!Number.isInteger(opts.turn) || opts.turn < 1 || opts.turn > users.length) throw new Error(`TURN must be a turn of the session, 1 to ${users.length} (got ${opts.turn})`);
    const end = opts.turn < users.length ? inForce.indexOf(users[opts.turn]!) : inForce.length;
    copied = inForce.slice(0, end);
  }
  const last = copied[copied.length - 1]!.seq;
  let seq = 0;
  const write = (e: SessionEvent) => store.append(id, JSON.stringify(SessionEvent.parse({ ...e, seq: seq++ })));
  write({ ...start, sessionId: id, forkedFrom: { sessionId: sourceId, seq: last } });
  for (const e of copied.slice(1)) write(e);
  const ts = now().toISOString();
  for (const call of unansweredToolCalls(copied)) {
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
