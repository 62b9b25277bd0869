/**
 * `yoke fork SESSION [TURN] [--session-dir DIR] [--cwd DIR] [--json]`: a new session that copies
 * SESSION's conversation and goes on by itself (`yoke resume NEW` continues it). This is how to
 * continue a session another process is writing. Without TURN (or with the last turn) it forks
 * from the end, the files as they are now. From an earlier turn it copies the conversation up to
 * the end of that turn and puts the files back as they were then (from the checkpoint after it),
 * recorded in the new session so `yoke checkpoints restore NEW --undo` undoes it.
 */
import { resolve } from "node:path";
import { shellQuote } from "../../core/commands/shell-quote";
import { forkSession } from "../../core/session/fork";
import { checkpointAfterTurn, restoreForFork } from "../../core/checkpoints";
import { SessionLog } from "../../core/session/session-log";
import { nodeCheckpointStore } from "../../node/checkpoints";
import { summarizeSession } from "../../core/session/projection";
import { parseLog } from "../../core/session/session-log";
import { createFileSessionStore } from "../../node/session-store";
import { parse, printJson, UsageError } from "../args";
import { cliSessionDir } from "../session-setup";
import { warn } from "../printable";

export async function forkCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { "session-dir": { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" } });
  const [id, turnText, ...extra] = positionals;
  if (!id) throw new UsageError("a session id is required: yoke fork SESSION (see `yoke sessions`)");
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}": yoke fork SESSION [TURN]`);
  const dir = values["session-dir"] ? resolve(values["session-dir"]) : cliSessionDir(resolve(values.cwd ?? "."));
  const store = createFileSessionStore(dir, { owner: "yoke fork" });
  if (!store.exists(id)) throw new UsageError(`no session "${id}" in ${dir} (see \`yoke sessions --session-dir ${shellQuote(dir)}\`)`);
  const turns = summarizeSession(parseLog(store.read(id)).events, id).turns;
  let turn: number | undefined;
  if (turnText !== undefined) {
    turn = Number(turnText);
    if (!/^\d+$/.test(turnText) || turn < 1 || turn > turns) throw new UsageError(`TURN must be a turn of the session, 1 to ${turns} (got "${turnText}")`);
  }
  try {
    const fork = forkSession(store, id, undefined, turn !== undefined && turn < turns ? { turn } : {});
    const restored: string[] = [];
    if (turn !== undefined && turn < turns) {
      // The files as they were after that turn, put back in the new session (undoable there).
      const source = parseLog(store.read(id)).events;
      const checkpoint = checkpointAfterTurn(source, turn);
      const { log } = SessionLog.open(store, fork.id);
      if (checkpoint) {
        const folders = checkpoint.folders.map((f) => ({ name: f.name, root: f.root }));
        const r = await restoreForFork({ store: nodeCheckpointStore(dir), events: () => log.events, append: (e) => log.append(e), folders }, checkpoint, turn).catch((err: unknown) => {
          throw new Error(`forked as ${fork.id}, but its files could not be put back as they were after turn ${turn}: ${err instanceof Error ? err.message : String(err)}`);
        });
        restored.push(...r.lines);
      } else restored.push(`files: no change was checkpointed after turn ${turn}, so they are as the agent left them then`);
      log.sync();
    }
    if (values.json) {
      printJson({ sessionId: fork.id, forkedFrom: id, seq: fork.seq, sessionDir: dir, ...(turn !== undefined ? { turn } : {}), ...(restored.length ? { files: restored } : {}) });
    } else {
      const dirFlag = values["session-dir"] ? ` --session-dir ${shellQuote(dir)}` : "";
      process.stdout.write(`${fork.id}\n`);
      for (const l of restored) warn(`yoke: ${l}\n`);
      warn(`yoke: forked ${id} (${turn ?? turns} turn${(turn ?? turns) === 1 ? "" : "s"}) as ${fork.id}; continue it with: yoke resume ${fork.id}${dirFlag} "…"\n`);
    }
    return 0;
  } finally {
    store.dispose();
  }
}
