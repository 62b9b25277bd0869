/**
 * `yoke sessions [--session-dir DIR] [--cwd DIR] [--json]`: the sessions of a workspace folder,
 * newest first, with their status — those started in the panel too (one store per folder). A
 * session another process is writing right now says who.
 */
import { resolve } from "node:path";
import { summarizeSession } from "../../core/session/projection";
import { parseLog } from "../../core/session/session-log";
import { createFileSessionStore, describeHolder } from "../../node/session-store";
import { parse, printJson } from "../args";
import { cliSessionDir } from "../session-setup";

export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, { "session-dir": { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" } }, false);
  const dir = values["session-dir"] ? resolve(values["session-dir"]) : cliSessionDir(resolve(values.cwd ?? "."));
  const store = createFileSessionStore(dir, { readOnly: true });
  const sessions = store.list().map((id) => {
    const holder = store.holder(id);
    return { ...summarizeSession(parseLog(store.read(id)).events, id), inUseBy: holder ?? null };
  });
  if (values.json) {
    printJson({ sessionDir: dir, sessions });
    return 0;
  }
  if (sessions.length === 0) {
    process.stdout.write(`no sessions in ${dir}\n`);
    return 0;
  }
  for (const s of sessions) {
    const notes = [s.forkedFrom ? `fork of ${s.forkedFrom}` : "", s.inUseBy ? `in use by ${describeHolder(s.inUseBy)}` : ""].filter(Boolean);
    const status = s.inUseBy ? "running" : s.status;
    process.stdout.write(`${s.id}  ${status.padEnd(11)}  ${s.updatedAt.slice(0, 19).replace("T", " ")}  ${s.title}${notes.length ? `  (${notes.join("; ")})` : ""}\n`);
  }
  return 0;
}
