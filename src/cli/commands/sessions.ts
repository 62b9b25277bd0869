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
import { say } from "../printable";

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
    say(`no sessions in ${dir}\n`);
    return 0;
  }
  // Sub-agents' sessions are listed under the session that started them (indented), not on their own.
  const ids = new Set(sessions.map((s) => s.id));
  const children = new Map<string, typeof sessions>();
  for (const s of sessions) if (s.parentId && ids.has(s.parentId)) children.set(s.parentId, [...(children.get(s.parentId) ?? []), s]);
  const printed = new Set<string>();
  const print = (s: (typeof sessions)[number], depth: number) => {
    if (printed.has(s.id)) return;
    printed.add(s.id);
    const notes = [s.forkedFrom ? `fork of ${s.forkedFrom}` : "", s.parentId ? `sub-agent of ${s.parentId}` : "", s.inUseBy ? `in use by ${describeHolder(s.inUseBy)}` : ""].filter(Boolean);
    const status = s.inUseBy ? "running" : s.status;
    const pad = depth ? `${"  ".repeat(depth - 1)}└ ` : "";
    say(`${pad}${s.id}  ${status.padEnd(11)}  ${s.updatedAt.slice(0, 19).replace("T", " ")}  ${s.title}${notes.length ? `  (${notes.join("; ")})` : ""}\n`);
    for (const c of [...(children.get(s.id) ?? [])].reverse()) print(c, depth + 1);
  };
  for (const s of sessions) if (!(s.parentId && ids.has(s.parentId))) print(s, 0);
  for (const s of sessions) print(s, 0); // a damaged log whose parent links loop
  return 0;
}
