/**
 * A background agent's result for a panel session that has ended (a New Session, another session
 * opened, the window closing): kept beside the session's log, `<session-dir>/<id>.handback/`, one
 * file per result (the notes inbox's format, src/node/background/inbox.ts: written whole and
 * renamed in), until the session is opened again; then it is taken — a rename only one process
 * wins — and delivered once, as a turn of its own. A window reload or a closed window loses nothing.
 */
import * as nodePath from "node:path";
import { AgentInbox } from "./inbox";

export function handBackInbox(sessionDir: string, sessionId: string): AgentInbox {
  return new AgentInbox(nodePath.join(sessionDir, `${sessionId}.handback`));
}
