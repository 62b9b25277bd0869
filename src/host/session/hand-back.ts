// A background agent's result for a session that has ended (SubagentOptions.deliver with `ended`):
// kept on disk beside the session's log (src/node/background/hand-back.ts) instead of being offered
// again every second, and delivered once — a `context` event and the model's answer, a turn of its
// own — when that session is shown again in a window that may write it (opened from the history,
// restored after a reload, or from the notification said when the agent finishes), as soon as no
// turn runs.
import * as vscode from "vscode";
import type { FinishedAgent } from "../../core/subagents";
import type { AgentSession } from "../../core/loop/agent-session";
import { handBackInbox, takeHandBacks } from "../../node/background/hand-back";
import { notify } from "../shown";
import type { PanelState } from "./state";

export interface HandBackDeps {
  state: PanelState;
  /** The session store's folder. */
  dir: () => string;
  run: (act: (session: AgentSession) => Promise<void>) => Promise<void>;
  log: vscode.LogOutputChannel;
  /** Shows session `id` in the panel (the history's Open): its kept results are delivered then. */
  open: (id: string) => Promise<void>;
  /** The sessions of the history (for the ended session's title). */
  history: () => ReadonlyArray<{ id: string; title: string }>;
}

/** The notification's button. */
export const OPEN_RESULT = "Open Result";

/** What the notification says when background agents of an ended session finish. */
export function finishedWords(agents: readonly FinishedAgent[], session: string | undefined): string {
  const names = agents.map((a) => `"${a.agent}" (${a.task})`).join(", ");
  const outcome = agents.length && agents.every((a) => a.failed) ? "failed" : agents.some((a) => a.failed) ? "finished (not all of them well)" : "finished";
  const who = agents.length === 0 ? "A background agent" : agents.length === 1 ? `The background agent ${names}` : `The background agents ${names}`;
  const where = session ? `the session "${session}"` : "the session it was started from";
  return `Yoke: ${who} ${outcome}. ${agents.length > 1 ? "Their results wait" : "Its result waits"} in ${where}, which has ended.`;
}

export class HandBacks {
  private delivering = false;

  constructor(private readonly d: HandBackDeps) {}

  /** Keeps the result of session `sessionId`'s background agent, which ended; delivered at once if that session is shown. */
  keep(sessionId: string, text: string, agents: readonly FinishedAgent[] = []): boolean {
    try {
      handBackInbox(this.d.dir(), sessionId).post(text);
    } catch (err) {
      this.d.log.error(`could not keep a background agent's result for session ${sessionId}: ${(err as Error)?.message ?? String(err)}`);
      return false;
    }
    this.d.log.info(`a background agent of session ${sessionId} finished; its result waits until that session is opened again`);
    setTimeout(() => this.deliverShown(), 0);
    // Not shown here: said at once, with the way to it (the person need not find the session in the history).
    if (this.d.state.shownId !== sessionId) void this.notify(sessionId, agents);
    return true;
  }

  private async notify(sessionId: string, agents: readonly FinishedAgent[]): Promise<void> {
    const choice = await notify("info", finishedWords(agents, this.d.history().find((s) => s.id === sessionId)?.title), OPEN_RESULT);
    if (choice !== OPEN_RESULT) return;
    await vscode.commands.executeCommand("yoke.focus");
    await this.d.open(sessionId);
  }

  /** The shown session's kept results, as a turn of its own: when it is shown, this window may write it, and nothing runs. */
  deliverShown(): void {
    const { state } = this.d;
    const id = state.shownId;
    if (!id || state.running || state.readOnly || state.opening || this.delivering) return;
    const inbox = handBackInbox(this.d.dir(), id);
    if (!inbox.waiting().length) return;
    this.delivering = true;
    void this.d
      .run(async (session) => {
        if (session.id !== id) return;
        // Taken now (a rename: another window cannot take it too); put back if the log refuses it.
        if (!takeHandBacks(this.d.dir(), session)) return;
        await session.continue();
      })
      .finally(() => (this.delivering = false));
  }
}
