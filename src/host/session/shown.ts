// The shown session's events and writes to it, for the checkpoint controls (src/host/checkpoints.ts):
// the live session's while it is current, else its log's, written under its lock.
import type { NewEvent, SessionEvent } from "../../core/events";
import { parseLog, SessionLog } from "../../core/session/session-log";
import type { LockHolder } from "../../node/session-store";
import { SessionViewModel } from "../../node/panel/view-model";
import type { UserFacingError } from "../session-options";
import type { LiveLink } from "./live";
import type { OpenOutcome } from "./open";
import type { PanelState } from "./state";
import type { StoreLink } from "./store";

export interface ShownWriter {
  events: () => readonly SessionEvent[];
  append: (e: NewEvent) => SessionEvent;
}

export interface ShownDeps {
  state: PanelState;
  store: StoreLink;
  live: LiveLink;
  show: (id: string) => Promise<OpenOutcome>;
  inUse: (id: string, holder: LockHolder) => UserFacingError;
  pushState: () => Promise<void>;
}

export class ShownSession {
  private cached: { id: string; size: number; events: readonly SessionEvent[] } | undefined;

  constructor(private readonly d: ShownDeps) {}

  /** The shown session's events: the live session's while it is current, else its log's. */
  read(): { id: string; events: readonly SessionEvent[] } | undefined {
    const id = this.d.state.shownId;
    if (!id) return undefined;
    const live = this.d.live.writable();
    if (live?.id === id) return { id: live.id, events: live.events() };
    const { view } = this.d.store.get();
    if (!view.exists(id)) return undefined;
    // Parsed again only when the log changed (the panel asks after every state it shows); a log
    // gone meanwhile (-1) fails clearly when read.
    const size = view.size(id);
    if (this.cached?.id !== id || this.cached.size !== size || size < 0) this.cached = { id, size, events: parseLog(view.read(id)).events };
    return { id, events: this.cached.events };
  }

  /** Appends to the shown session (the live one, or its log under its lock), then shows it as it is now. */
  async write<T>(act: (w: ShownWriter) => Promise<T>): Promise<T> {
    const { state } = this.d;
    const id = state.shownId;
    if (!id) throw new Error("no session is shown");
    const live = this.d.live.writable();
    if (live?.id === id) {
      try {
        return await act({ events: () => live.events(), append: (e) => live.appendFromHost(e) });
      } finally {
        // A conversation restore changes what is in force: the transcript is built again.
        state.vm = new SessionViewModel(live.events());
        void this.d.pushState();
      }
    }
    if (this.d.live.current) await this.d.live.detach(false);
    const { writer } = this.d.store.get();
    const lock = writer.lock(id);
    if (!lock.ok) throw this.d.inUse(id, lock.holder);
    try {
      const { log } = SessionLog.open(writer, id);
      try {
        return await act({ events: () => log.events, append: (e) => log.append(e) });
      } finally {
        log.sync();
      }
    } finally {
      writer.unlock(id);
      await this.d.show(id);
      void this.d.pushState();
    }
  }
}
