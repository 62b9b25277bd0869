/**
 * The checkpoints extension: before the first call of a turn that may change files — an edit or
 * a command (a tool that writes or runs) — every workspace folder is snapshotted once and a
 * `checkpoint` event records it (a partial or failed snapshot is told to the user by that event,
 * before the call goes on). Then, before every call of the turn:
 * - a tool that writes files (its path arguments): the pre-image of each file is added to the
 *   turn's checkpoint when the checkpoint does not hold it (partial, skipped, ignored) — or that
 *   it did not exist — so a restore to before the turn always undoes every tool-made change;
 * - a command, when the turn's checkpoint is partial: the folder is walked again (within the
 *   budget) and every file the checkpoint did not hold is added as it is before the command.
 * It never stops a call: a failure is reported (an `extension` event) and the call goes on.
 *
 * Later snapshots cost what changed, not the tree: when a turn ends, the store brings each folder's
 * private index up to date in the background (`refresh`: the files as the turn left them). From
 * then on, what could change is known — the paths the agent's tools write; a command (it may write
 * anywhere, and a background one keeps running) makes it unknown — so the next turn's snapshot is
 * told what changed (`changed`) and looks at those files only; when nothing did, it is the tree of
 * that look. Edits made by someone else after the turn ended are after it: the next snapshot (the
 * files after that turn) does not hold them, and the undo point of a restore (a whole look) does.
 */
import type { Extension } from "../extensions/types";
import type { WorkspaceFolder } from "../ports";
import { eventsInForce } from "../session/rewind";
import { resolveTouches } from "../tools/touches";
import { snapshotFolders } from "./restore";
import { CHECKPOINT_DEFAULTS, type CheckpointEvent, type CheckpointStore } from "./types";

export interface CheckpointsExtensionOptions {
  store: CheckpointStore;
  budgetMs?: number;
}

export function workspaceFolders(fs: { root: string; folders?: readonly WorkspaceFolder[] }): WorkspaceFolder[] {
  return fs.folders?.length ? [...fs.folders] : [{ name: fs.root.split("/").pop() || fs.root, root: fs.root }];
}

type CheckpointInfo = Pick<CheckpointEvent, "folders">;

export function checkpointsExtension(opts: CheckpointsExtensionOptions): Extension {
  return {
    name: "checkpoints",
    setup(api) {
      const budgetMs = opts.budgetMs ?? CHECKPOINT_DEFAULTS.budgetMs;
      // Paths the agent's edits named since the last snapshot: recorded by the next one.
      let hints: string[] = [];
      // Partial checkpoints (their commits) a walk before a command has since completed.
      const completed = new Set<string>();
      // The snapshot being taken for a turn: calls running side by side share it (one checkpoint a turn).
      let taking: { turn: number; done: Promise<CheckpointInfo> } | undefined;
      // Since the refresh when the last turn ended: is what changed known (no command ran), and what.
      let known = false;
      let changed: string[] = [];
      let snapshotted = false;
      let refreshing: AbortController | undefined;
      const commandsRunning = () => api.session.services.commands?.list().some((c) => c.result === undefined) ?? false;
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          // In Restricted Mode nothing is written or run, so there is nothing to take back.
          if (!api.session.trusted || (!tool.capabilities.writes && !tool.capabilities.runs)) return;
          const events = eventsInForce(api.session.events());
          let turn = 0;
          let current: CheckpointInfo | undefined;
          for (const e of events) {
            if (e.type === "user_message") {
              turn++;
              current = undefined;
            } else if (e.type === "checkpoint" && e.reason === "turn") current = e;
          }
          const paths = [...pathsOf(tool.pathArgs, args), ...(await resolveTouches(tool, args, api.session.services.fs)).flatMap((t) => ("abs" in t ? [t.abs] : []))];
          const noteChange = () => {
            if (tool.capabilities.runs) known = false;
            else changed.push(...paths);
          };
          if (turn === 0) {
            hints.push(...paths);
            noteChange();
            return;
          }
          if (!current && taking?.turn === turn) current = await taking.done;
          if (!current) {
            // Told what changed only when all of it is known (and no command is still running).
            const scope = known && !commandsRunning() ? { changed } : {};
            const done = snapshotFolders(opts.store, workspaceFolders(api.session.services.fs), { turn, reason: "turn", budgetMs, hints, ...scope }).then((event) => {
              api.record(event);
              return event;
            });
            hints = [];
            known = false;
            changed = [];
            snapshotted = true;
            taking = { turn, done };
            current = await done;
          }
          hints.push(...paths);
          noteChange();
          const problems: string[] = [];
          for (const f of current.folders) {
            if (!f.commit) continue;
            try {
              if (tool.capabilities.writes && paths.length && opts.store.preimage) {
                const mine = paths.filter((p) => p === f.root || p.startsWith(`${f.root}/`));
                if (mine.length) await opts.store.preimage(f.root, f.commit, mine);
              }
              // A command may write anywhere in the folder (the sandbox lets it write the workspace).
              if (tool.capabilities.runs && f.partial && opts.store.complete && !completed.has(`${f.commit}`)) {
                const r = await opts.store.complete(f.root, f.commit, budgetMs);
                if (!r.partial) completed.add(`${f.commit}`);
              }
            } catch (err) {
              problems.push(`${f.name}: ${err instanceof Error ? err.message : String(err)}`);
            }
          }
          if (problems.length) throw new Error(`the checkpoint could not record the files before this call (${problems.join("; ")})`);
        },
        // After the policies: a call they refuse needs no snapshot, but it costs nothing to take one.
        { priority: -100 },
      );
      // When the agent is done with a turn, the files as it left them are looked at in the
      // background (not awaited: the answer is not held up), so the next turn's snapshot is cheap.
      // Last of the turn's handlers: what they run (a verification check) is done by then.
      api.on(
        "turn.after",
        ({ final }) => {
          if (!final || !snapshotted || !api.session.trusted || !opts.store.refresh) return;
          refreshing?.abort();
          const ctl = new AbortController();
          refreshing = ctl;
          known = true;
          changed = [];
          const refresh = opts.store.refresh.bind(opts.store);
          void Promise.all(workspaceFolders(api.session.services.fs).map((f) => refresh(f.root, { signal: ctl.signal }))).finally(() => {
            if (refreshing === ctl) refreshing = undefined;
          });
        },
        { priority: -1000 },
      );
      api.on("session.end", () => {
        refreshing?.abort();
        refreshing = undefined;
      });
    },
  };
}

/** The absolute paths a call names in its path arguments (canonical: the registry resolved them). */
function pathsOf(pathArgs: readonly string[] | undefined, args: unknown): string[] {
  if (!pathArgs || !args || typeof args !== "object") return [];
  const out: string[] = [];
  for (const k of pathArgs) {
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === "string" && v.startsWith("/")) out.push(v);
  }
  return out;
}
