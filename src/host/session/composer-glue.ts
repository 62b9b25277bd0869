// The composer's glue (src/host/composer.ts holds @-mentions, steering and the queue): a message
// from the panel's input is sent now when the agent is idle; while it works, steered (delivered at
// the next step) or queued (sent after the task).
import type { AgentSession } from "../../core/loop/agent-session";
import type { ContextItemView } from "../../protocol/messages";
import type { HostComposer } from "../composer";
import type { LiveLink } from "./live";
import type { PanelState } from "./state";

export interface ComposerGlueDeps {
  state: PanelState;
  composer: HostComposer;
  live: LiveLink;
  run: (act: (session: AgentSession) => Promise<void>) => Promise<void>;
  /** Opens the shown session (resuming it from its log) without running it. */
  open: () => Promise<AgentSession>;
}

export class ComposerGlue {
  constructor(private readonly d: ComposerGlueDeps) {}

  /** A message from the panel's input with its chips and typed mentions. */
  async send(text: string, chips: readonly ContextItemView[], mode: "send" | "steer" | "queue"): Promise<void> {
    const { composer, state } = this.d;
    const items = await composer.itemsOf(text, chips);
    const live = composer.of(this.d.live.session?.id);
    if (state.running && mode !== "send" && live) {
      try {
        live.add(text, items, mode);
      } catch (err) {
        state.post({ type: "error", message: `Not added: ${(err as Error).message}` });
      }
      return;
    }
    return this.d.run(async (session) => {
      const c = composer.of(session.id);
      c?.stage(text, items);
      try {
        await session.send(text);
      } finally {
        c?.unstage(text);
      }
    });
  }

  /**
   * The composer whose queue the panel lists: the live session's; a session shown from its log
   * (after a reload) is opened first, so its waiting messages can be changed before it goes on.
   */
  private async queueOwner() {
    const { state } = this.d;
    if (!this.d.live.current && !state.running && state.shownId && !state.readOnly) {
      try {
        await this.d.open();
        this.d.live.releaseIdle();
      } catch (err) {
        state.post({ type: "error", message: (err as Error).message });
      }
    }
    return this.d.composer.of(this.d.live.session?.id);
  }

  async editQueued(id: string, patch: { text?: string; mode?: "steer" | "queue" }): Promise<void> {
    const c = await this.queueOwner();
    try {
      if (!c?.edit(id, patch)) this.d.composer.postQueue();
    } catch (err) {
      this.d.state.post({ type: "error", message: `Not changed: ${(err as Error).message}` });
      this.d.composer.postQueue();
    }
  }

  async removeQueued(id: string): Promise<void> {
    if (!(await this.queueOwner())?.remove(id)) this.d.composer.postQueue();
  }

  /** After a run: the next waiting message is sent when the task is done; after a Stop or an error, steered ones wait as queued. */
  afterRun(): void {
    const session = this.d.live.session;
    const c = this.d.composer.of(session?.id);
    if (!session || !c || c.list().length === 0) return;
    if (session.state !== "done") {
      c.holdSteered();
      return;
    }
    const next = c.takeNext();
    if (next) queueMicrotask(() => void this.send(next.text, next.items, "send"));
  }
}
