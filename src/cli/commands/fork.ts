/**
 * `yoke fork SESSION [TURN] [--session-dir DIR] [--cwd DIR] [--json]`: a new session that copies
 * SESSION's conversation and goes on by itself (`yoke resume NEW` continues it). This is how to
 * continue a session another process is writing. It forks from the end: the files are as they are
 * now. Forking from an earlier turn needs the files as they were then (checkpoints, issue 12), so
 * TURN may only name the last turn for now.
 */
import { resolve } from "node:path";
import { shellQuote } from "../../core/commands/shell-quote";
import { forkSession } from "../../core/session/fork";
import { summarizeSession } from "../../core/session/projection";
import { parseLog } from "../../core/session/session-log";
import { createFileSessionStore } from "../../node/session-store";
import { parse, printJson, UsageError } from "../args";
import { cliSessionDir } from "../session-setup";

export async function forkCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { "session-dir": { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" } });
  const [id, turnText, ...extra] = positionals;
  if (!id) throw new UsageError("a session id is required: yoke fork SESSION (see `yoke sessions`)");
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}": yoke fork SESSION [TURN]`);
  const dir = values["session-dir"] ? resolve(values["session-dir"]) : cliSessionDir(resolve(values.cwd ?? "."));
  const store = createFileSessionStore(dir, { owner: "yoke fork" });
  if (!store.exists(id)) throw new UsageError(`no session "${id}" in ${dir} (see \`yoke sessions --session-dir ${shellQuote(dir)}\`)`);
  const turns = summarizeSession(parseLog(store.read(id)).events, id).turns;
  if (turnText !== undefined) {
    const turn = Number(turnText);
    if (!Number.isInteger(turn) || turn < 1 || turn > turns) throw new UsageError(`TURN must be a turn of the session, 1 to ${turns} (got "${turnText}")`);
    if (turn !== turns) {
      process.stderr.write(
        `yoke fork: forking from turn ${turn} of ${turns} needs the files as they were then, and Yoke keeps no checkpoints yet. ` +
          `Fork from the end (yoke fork ${id}) to continue with the files as they are now.\n`,
      );
      return 1;
    }
  }
  try {
    const fork = forkSession(store, id);
    if (values.json) {
      printJson({ sessionId: fork.id, forkedFrom: id, seq: fork.seq, sessionDir: dir });
    } else {
      const dirFlag = values["session-dir"] ? ` --session-dir ${shellQuote(dir)}` : "";
      process.stdout.write(`${fork.id}\n`);
      process.stderr.write(`yoke: forked ${id} (${turns} turn${turns === 1 ? "" : "s"}) as ${fork.id}; continue it with: yoke resume ${fork.id}${dirFlag} "…"\n`);
    }
    return 0;
  } finally {
    store.dispose();
  }
}
