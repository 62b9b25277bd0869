/**
 * A background agent's result for a panel session that has ended (a New Session, another session
 * opened, the window closing): kept beside the session's log, `<session-dir>/<id>.handback/`, one
 * file per result (the notes inbox's format, src/node/background/inbox.ts: written whole and
 * renamed in), until the session is opened again — in a window, or with `yoke resume`; then it is
 * taken — a rename only one process wins — and delivered once, as a turn of its own. A window
 * reload or a closed window loses nothing.
 */
import * as nodePath from "node:path";
import type { NewEvent } from "../../core/events";
import { AgentInbox } from "./inbox";

export function handBackInbox(sessionDir: string, sessionId: string): AgentInbox {
  return new AgentInbox(nodePath.join(sessionDir, `${sessionId}.handback`));
}

/**
 * Takes the results kept for `session` into its log, as one `context` event (what a finished
 * background agent hands back while its session is open); the caller then runs the session so the
 * model answers it. Put back when the log refuses the event. Returns how many were taken.
 */
export function takeHandBacks(sessionDir: string, session: { readonly id: string; appendFromHost(e: NewEvent): unknown }): number {
  const inbox = handBackInbox(sessionDir, session.id);
  const texts = inbox.take();
  if (!texts.length) return 0;
  try {
    session.appendFromHost({ type: "context", source: "subagents", text: texts.join("\n\n") });
  } catch (err) {
    for (const t of texts) inbox.post(t);
    throw err;
  }
  return texts.length;
}
