/**
 * The checkpoints extension: before the first call of a turn that may change files — an edit or
 * a command (a tool that writes or runs) — every workspace folder is snapshotted once, within a
 * time budget, and a `checkpoint` event records it. It never blocks a call for long nor stops
 * one: a failed snapshot is recorded as such and the call goes on.
 */
import type { Extension } from "../extensions/types";
import type { WorkspaceFolder } from "../ports";
import { eventsInForce } from "../session/rewind";
import { snapshotFolders } from "./restore";
import { CHECKPOINT_DEFAULTS, type CheckpointStore } from "./types";

export interface CheckpointsExtensionOptions {
  store: CheckpointStore;
  budgetMs?: number;
}

export function workspaceFolders(fs: { root: string; folders?: readonly WorkspaceFolder[] }): WorkspaceFolder[] {
  return fs.folders?.length ? [...fs.folders] : [{ name: fs.root.split("/").pop() || fs.root, root: fs.root }];
}

export function checkpointsExtension(opts: CheckpointsExtensionOptions): Extension {
  return {
    name: "checkpoints",
    setup(api) {
      const budgetMs = opts.budgetMs ?? CHECKPOINT_DEFAULTS.budgetMs;
      // Paths the agent's edits named since the last snapshot: kept even when the budget runs out.
      let hints: string[] = [];
      api.on(
        "tool.before",
        async ({ tool, args }) => {
          // In Restricted Mode nothing is written or run, so there is nothing to take back.
          if (!api.session.trusted || (!tool.capabilities.writes && !tool.capabilities.runs)) return;
          const events = eventsInForce(api.session.events());
          let turn = 0;
          let taken = false;
          for (const e of events) {
            if (e.type === "user_message") {
              turn++;
              taken = false;
            } else if (e.type === "checkpoint" && e.reason === "turn") taken = true;
          }
          if (taken || turn === 0) {
            collect(tool.pathArgs, args, hints);
            return;
          }
          const folders = workspaceFolders(api.session.services.fs);
          const event = await snapshotFolders(opts.store, folders, { turn, reason: "turn", budgetMs, hints });
          hints = [];
          collect(tool.pathArgs, args, hints);
          api.record(event);
        },
        // After the policies: a call they refuse needs no snapshot, but it costs nothing to take one.
        { priority: -100 },
      );
    },
  };
}

function collect(pathArgs: readonly string[] | undefined, args: unknown, into: string[]): void {
  if (!pathArgs || !args || typeof args !== "object") return;
  for (const k of pathArgs) {
    const v = (args as Record<string, unknown>)[k];
    if (typeof v === "string" && v.startsWith("/")) into.push(v);
  }
}
