/**
 * `yoke checkpoints list SESSION [--json]` and
 * `yoke checkpoints restore SESSION TURN [--files|--conversation|--both] [--dry-run] [--undo]`:
 * the session's checkpoints, and a restore to the state after a turn (0: before the first) with
 * its preview printed first. Every restore snapshots the files before it changes them, so
 * `--undo` puts back what the last restore changed.
 */
import { resolve } from "node:path";
import { shellQuote } from "../../core/commands/shell-quote";
import { checkpointsOf, lastRestore, previewRestore, restoreTo, turnsOf, undoRestore, type RestoreContext, type RestorePlan, type RestoreWhat } from "../../core/checkpoints";
import type { WorkspaceFolder } from "../../core/ports";
import { SessionLog } from "../../core/session/session-log";
import { parseLog } from "../../core/session/session-log";
import type { SessionEvent } from "../../core/events";
import { nodeCheckpointStore } from "../../node/checkpoints";
import { createFileSessionStore, describeHolder, type FileSessionStore } from "../../node/session-store";
import { parse, printJson, UsageError } from "../args";
import { cliSessionDir } from "../session-setup";
import { say, warn } from "../printable";

const USAGE = "yoke checkpoints list SESSION [--json] | yoke checkpoints restore SESSION TURN [--files|--conversation|--both]";

export async function checkpointsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return listCommand(rest);
  if (sub === "restore") return restoreCommand(rest);
  throw new UsageError(sub ? `unknown subcommand "${sub}": ${USAGE}` : `a subcommand is required: ${USAGE}`);
}

function openStore(values: { "session-dir"?: string; cwd?: string }, id: string | undefined, owner: string): { store: FileSessionStore; dir: string; id: string } {
  if (!id) throw new UsageError(`a session id is required (see \`yoke sessions\`): ${USAGE}`);
  const dir = values["session-dir"] ? resolve(values["session-dir"]) : cliSessionDir(resolve(values.cwd ?? "."));
  const store = createFileSessionStore(dir, { owner });
  if (!store.exists(id)) {
    store.dispose();
    throw new UsageError(`no session "${id}" in ${dir} (see \`yoke sessions --session-dir ${shellQuote(dir)}\`)`);
  }
  return { store, dir, id };
}

async function listCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { "session-dir": { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}": yoke checkpoints list SESSION [--json]`);
  const { store, id } = openStore(values, positionals[0], "yoke checkpoints");
  try {
    const events = parseLog(store.read(id)).events;
    const turns = turnsOf(events);
    const checkpoints = checkpointsOf(events);
    const last = lastRestore(events);
    if (values.json) {
      printJson({
        sessionId: id,
        turns: turns.length,
        checkpoints: checkpoints.map((c) => ({ seq: c.seq, ts: c.ts, turn: c.turn, reason: c.reason, folders: c.folders })),
        ...(last ? { lastRestore: { seq: last.seq, turn: last.turn, files: last.files, conversation: last.conversation } } : {}),
      });
      return 0;
    }
    if (checkpoints.length === 0) say(`session ${id}: ${turns.length} turn(s), no checkpoints (no turn changed files yet)\n`);
    for (const c of checkpoints) {
      const when = c.reason === "turn" ? `before turn ${c.turn} changed files` : c.reason === "fork" ? "before the fork changed the files" : `before a restore (turn ${c.turn})`;
      say(`#${c.seq}  ${c.ts}  ${when}\n`);
      for (const f of c.folders) {
        const state = f.commit ? f.commit.slice(0, 12) : `failed: ${f.error}`;
        say(`    ${f.name}: ${state}${f.partial ? " (partial: " + f.fallback + ")" : ""}, ${f.durationMs} ms\n`);
        for (const s of f.skipped) say(`      skipped ${s.path} (${s.reason}${s.detail ? `, ${s.detail}` : ""})\n`);
      }
    }
    if (last) say(`last restore: to turn ${last.turn} (#${last.seq}); undo it with: yoke checkpoints restore ${id} --undo\n`);
    return 0;
  } finally {
    store.dispose();
  }
}

function foldersOf(events: readonly SessionEvent[]): WorkspaceFolder[] {
  const c = checkpointsOf(events).at(-1) ?? events.find((e): e is Extract<SessionEvent, { type: "checkpoint" }> => e.type === "checkpoint");
  if (c) return c.folders.map((f) => ({ name: f.name, root: f.root }));
  const start = events[0];
  const cwd = start?.type === "session_start" ? start.cwd : ".";
  return [{ name: cwd.split("/").pop() || cwd, root: cwd }];
}

async function restoreCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    "session-dir": { type: "string" },
    cwd: { type: "string" },
    json: { type: "boolean" },
    files: { type: "boolean" },
    conversation: { type: "boolean" },
    both: { type: "boolean" },
    "dry-run": { type: "boolean" },
    undo: { type: "boolean" },
  });
  const picked = (["files", "conversation", "both"] as const).filter((k) => values[k]);
  if (picked.length > 1) throw new UsageError(`choose one of --files, --conversation, --both (got ${picked.map((p) => `--${p}`).join(" ")})`);
  const what: RestoreWhat = picked[0] ?? "both";
  const [idArg, turnText, ...extra] = positionals;
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}": yoke checkpoints restore SESSION TURN [--files|--conversation|--both]`);
  if (!values.undo && turnText === undefined) throw new UsageError("a TURN is required: yoke checkpoints restore SESSION TURN (0: before the first turn; see `yoke checkpoints list SESSION`)");
  const { store, id, dir } = openStore(values, idArg, "yoke checkpoints");
  try {
    const events = () => log.events;
    const lock = store.lock(id);
    if (!lock.ok) throw new Error(`session ${id} is in use by ${describeHolder(lock.holder)}; restore it there, or when it is done`);
    const { log } = SessionLog.open(store, id);
    const ctx: RestoreContext = { store: nodeCheckpointStore(dir), events, append: (e) => log.append(e), folders: foldersOf(log.events) };
    if (values.undo) {
      if (turnText !== undefined) throw new UsageError("--undo takes no TURN: it undoes the last restore");
      const r = await undoRestore(ctx);
      log.sync();
      report(values.json, r.rewind, r.lines);
      return 0;
    }
    const turns = turnsOf(log.events).length;
    const turn = Number(turnText);
    if (!/^\d+$/.test(turnText!) || turn > turns) throw new UsageError(`TURN must be a turn of the session, 0 to ${turns} (got "${turnText}")`);
    const printPlan = (plan: RestorePlan) => {
      warn(`${plan.root}: ${plan.changes.length} file(s) to restore${plan.kept.length ? `, ${plan.kept.length} left as they are` : ""}\n`);
      for (const c of plan.changes) warn(`  ${c.action === "delete" ? "delete " : "restore"} ${c.path}\n`);
      if (plan.diff) warn(plan.diff + (plan.diffTruncated ? "\n… (diff cut)\n" : ""));
    };
    if (what !== "conversation" && values["dry-run"]) {
      const preview = await previewRestore(ctx.store, log.events, turn);
      for (const p of preview.problems) warn(`yoke checkpoints: ${p}\n`);
      for (const plan of preview.plans) printPlan(plan);
      if (values.json) printJson({ sessionId: id, turn, dryRun: true, plans: preview.plans, problems: preview.problems });
      return 0;
    } else if (what !== "conversation") {
      // A real restore prints the same preview, planned against the snapshot it takes first (its
      // undo point): one look at the folder, not a look for the preview and another for the snapshot.
      ctx.preview = (plan, problem) => {
        if (problem) warn(`yoke checkpoints: ${problem}\n`);
        printPlan(plan);
      };
    } else if (values["dry-run"]) {
      warn(`would rewind the conversation to the end of turn ${turn}\n`);
      return 0;
    }
    const r = await restoreTo(ctx, turn, what);
    log.sync();
    report(values.json, r.rewind, r.lines);
    if (!values.json) warn(`undo it with: yoke checkpoints restore ${id} --undo\n`);
    return 0;
  } finally {
    store.dispose();
  }
}

function report(json: boolean | undefined, rewind: SessionEvent, lines: string[]): void {
  if (json) printJson({ rewind, lines });
  else for (const l of lines) say(`${l}\n`);
}
