// A background agent's result for a session that has ended (SubagentOptions.deliver with `ended`):
// kept on disk beside the session's log (src/node/background/hand-back.ts) instead of being offered
// again every second, and delivered once — a `context` event and the model's answer, a turn of its
// own — when that session is shown again in a window that may write it (opened from the history,
// restored after a reload), as soon as no turn runs.
import type * as vscode from "vscode";
import type { AgentSession } from "../../core/loop/agent-session";
import { handBackInbox, takeHandBacks } from "../../node/background/hand-back";
import type { PanelState } from "./state";

export interface HandBackDeps {
  state: PanelState;
  /** The session store's folder. */
  dir: () => string;
  run: (act: (session: AgentSession) => Promise<void>) => Promise<void>;
  log: vscode.LogOutputChannel;
}

export class HandBacks {
  private delivering = false;

  constructor(private readonly d: HandBackDeps) {}

  /** Keeps the result of session `sessionId`'s background agent, which ended; delivered at once if that session is shown. */
  keep(sessionId: string, text: string): boolean {
    try {
      handBackInbox(this.d.dir(), sessionId).post(text);
    } catch (err) {
      this.d.log.error(`could not keep a background agent's result for session ${sessionId}: ${(err as Error)?.message ?? String(err)}`);
      return false;
    }
    this.d.log.info(`a background agent of session ${sessionId} finished; its result waits until that session is opened again`);
    setTimeout(() => this.deliverShown(), 0);
    return true;
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
