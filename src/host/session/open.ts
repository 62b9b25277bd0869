// Opening a session from its log (the history, a fork, a checkpoint restore) and restoring the last
// one after a window reload. The log is parsed and projected in time slices: a 10,000-event session
// never blocks the host, and a newer open supersedes an older one.
import type * as vscode from "vscode";
import { parseLogSliced } from "../../core/session/session-log";
import { SlicedWorkCancelled } from "../../core/session/sliced";
import { createBuiltinTools } from "../../core/tools/builtin";
import { resumableCalls } from "../../core/tools/resumable";
import type { LockHolder } from "../../node/session-store";
import type { HostComposer } from "../composer";
import { SessionViewModel } from "../../node/panel/view-model";
import { hostSlicer, isCancelled } from "../../node/panel/transcript";
import type { PanelState } from "./state";
import type { StoreLink } from "./store";

/** What a log ends with that nobody answered; "superseded": another open (or a new session) came first. */
export type OpenOutcome = "question" | "review" | "superseded" | undefined;

export interface OpenDeps {
  state: PanelState;
  store: StoreLink;
  composer: HostComposer;
  /** A change review is wired (a call waiting for review is resumed to put it up again). */
  reviews: boolean;
  log: vscode.LogOutputChannel;
  setReadOnly: (holder: LockHolder | undefined) => void;
  /** Continues the shown session (a question or a review left open is asked again). */
  resume: () => void;
}

export class SessionOpener {
  private restored = false;
  private restoring: Promise<void> | undefined;
  /** The restored session ended with an open question but another process held it: ask once it is free. */
  askWhenFree: string | undefined;

  constructor(private readonly d: OpenDeps) {}

  /**
   * After a window reload the panel shows the last active session, read-only until the user sends;
   * a question or a review left open is taken up again. Called when the panel first connects, and at
   * startup (so a pending review comes back in the editor while the panel stays closed).
   */
  restoreOnce(): Promise<void> {
    if (this.restored) return this.restoring ?? Promise.resolve();
    this.restored = true;
    this.restoring = this.restore().catch((err: unknown) => this.d.log.error(`cannot restore the last session: ${(err as Error)?.stack ?? String(err)}`));
    return this.restoring;
  }

  private async restore(): Promise<void> {
    const { state } = this.d;
    const id = state.lastShown;
    if (id && !state.shownId && this.d.store.get().view.exists(id)) {
      const pending = await this.show(id);
      if (pending === "superseded") return;
      // A question was open, or a change waited for review, when the window closed or crashed: ask
      // again without the user doing anything (the core re-checks an unstarted call through the
      // gate, and puts a pending review up again; its decision becomes that call's result).
      if (pending && state.readOnly) this.askWhenFree = id;
      if (pending && !state.readOnly) {
        this.d.log.info(`session ${id}: ${pending === "review" ? "a change was waiting for review; resuming to show it again" : "a permission question was open; resuming to ask it again"}`);
        queueMicrotask(() => this.d.resume());
      }
    }
  }

  /**
   * Shows a session from its log; says what the log ends with that nobody answered: a permission
   * question or a review.
   */
  show(id: string): Promise<OpenOutcome> {
    const { state } = this.d;
    const gen = ++state.openGen;
    const done = this.load(id, gen)
      .catch((err: unknown) => {
        if (isCancelled(err)) return "superseded" as const;
        throw err;
      })
      .finally(() => {
        // Cleared before anyone awaiting the open goes on (a newer open keeps its own).
        if (state.openGen === gen) state.opening = undefined;
      });
    state.opening = done.catch(() => undefined);
    return done;
  }

  private async load(id: string, gen: number): Promise<"question" | "review" | undefined> {
    const { state } = this.d;
    const { view, writer } = this.d.store.get();
    const lines = view.read(id);
    const bytes = view.entries().find((e) => e.id === id)?.size ?? -1;
    const slicer = hostSlicer(() => gen !== state.openGen);
    const parsed = await parseLogSliced(lines, slicer);
    const vm = await SessionViewModel.build(parsed.events, slicer);
    if (gen !== state.openGen) throw new SlicedWorkCancelled();
    state.shownBytes = bytes;
    state.vm = vm;
    this.d.composer.show(id, parsed.events);
    const pending = state.vm.pending !== null ? "question" : this.d.reviews && resumableCalls(parsed.events, createBuiltinTools()).length ? "review" : undefined;
    // Another process is writing it: its last state is live there, not interrupted.
    this.d.setReadOnly(writer.holder(id));
    if (!state.readOnly) state.vm.markInterrupted();
    state.shownId = id;
    state.resumed = true;
    state.remember(id);
    return pending;
  }
}
