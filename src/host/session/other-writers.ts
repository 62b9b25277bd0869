// Other writers of the store (another window, a `yoke` command): a session they hold is shown
// read-only (who holds it, checked again every few seconds), a log they wrote is shown again, and
// "Continue as a fork" goes on with a copy.
import type * as vscode from "vscode";
import type { AgentSession } from "../../core/loop/agent-session";
import { forkSession } from "../../core/session/fork";
import { describeHolder, type LockHolder } from "../../node/session-store";
import { UserFacingError } from "../session-options";
import type { HistoryList } from "./history";
import type { LiveLink } from "./live";
import type { SessionOpener } from "./open";
import type { PanelState } from "./state";
import type { StoreLink } from "./store";

export interface OtherWritersDeps {
  state: PanelState;
  store: StoreLink;
  live: LiveLink;
  opener: () => SessionOpener;
  history: () => HistoryList;
  log: vscode.LogOutputChannel;
  pushState: () => Promise<void>;
  run: (act: (session: AgentSession) => Promise<void>) => Promise<void>;
}

export class OtherWriters {
  constructor(private readonly d: OtherWritersDeps) {}

  /** The shown session is written by another process: show it read-only and say why. */
  inUse(id: string, holder: LockHolder): UserFacingError {
    this.setReadOnly(holder);
    if (this.d.state.shownId === id && !this.d.live.current)
      void this.d
        .opener()
        .show(id)
        .then(() => this.d.pushState());
    else void this.d.pushState();
    return new UserFacingError(`This session is in use by ${describeHolder(holder)}. It is shown read-only here; use "Continue as a fork" to go on with a copy.`);
  }

  setReadOnly(holder: LockHolder | undefined): void {
    this.d.state.readOnly = holder;
    this.d.store.pollHolder(holder !== undefined);
  }

  /** Continues the shown session in a copy (a fork), e.g. when another process is writing it. */
  fork(): void {
    const source = this.d.state.shownId;
    if (!source || this.d.state.running) return;
    const { writer } = this.d.store.get();
    const { id } = forkSession(writer, source);
    writer.unlock(id);
    this.d.log.info(`session ${source} forked as ${id}`);
    void this.d.live.detach(false);
    void this.d
      .opener()
      .show(id)
      .then((r) => (r === "superseded" ? undefined : this.d.pushState()));
  }

  /** Something in the store changed: refresh the history, and the shown session if another process wrote it. */
  refresh(): void {
    const { state, live } = this.d;
    // While this window runs, its own appends are what changed: the run's end refreshes the history.
    if (state.running) return;
    const id = state.shownId;
    if (id) {
      const { view, writer } = this.d.store.get();
      const holder = writer.holder(id);
      const size = view.entries().find((e) => e.id === id)?.size ?? -1;
      const grew = live.current ? writer.changedOnDisk(id) : size !== state.shownBytes;
      if (grew || holderName(holder) !== holderName(state.readOnly)) {
        if (live.current && (grew || holder)) void live.detach(false);
        if (!live.current) {
          const opener = this.d.opener();
          void opener.show(id).then(async (pending) => {
            if (pending === "superseded") return;
            await this.d.pushState();
            if (opener.askWhenFree === id && !state.readOnly) {
              opener.askWhenFree = undefined;
              if (pending) queueMicrotask(() => void this.d.run((session) => session.continue()));
            }
          });
        }
      }
    }
    this.d.history().post();
  }
}

function holderName(holder: LockHolder | undefined): string {
  return holder ? describeHolder(holder) : "";
}
