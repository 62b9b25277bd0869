/** `yoke sessions [--session-dir DIR] [--cwd DIR] [--json]`: sessions with their status, newest first. */
import { resolve } from "node:path";
import { summarizeSession } from "../../core/session/projection";
import { parseLog } from "../../core/session/session-log";
import { createFileSessionStore } from "../../node/session-store";
import { parse, printJson } from "../args";
import { defaultSessionDir } from "../session-setup";

export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { "session-dir": { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" } }, false);
  const dir = resolve(values["session-dir"] ?? defaultSessionDir(resolve(values.cwd ?? ".")));
  const store = createFileSessionStore(dir);
  const sessions = store.list().map((id) => summarizeSession(parseLog(store.read(id)).events, id));
  if (values.json) {
    printJson({ sessionDir: dir, sessions });
    return 0;
  }
  if (sessions.length === 0) {
    process.stdout.write(`no sessions in ${dir}\n`);
    return 0;
  }
  for (const s of sessions) {
    process.stdout.write(`${s.id}  ${s.status.padEnd(11)}  ${s.updatedAt.slice(0, 19).replace("T", " ")}  ${s.title}\n`);
  }
  return 0;
}
