// The session open in this window (the live AgentSession): attaching it to the panel (its events
// projected into the view model, its text deltas batched), detaching it, its lock while idle, and
// its context meter and compaction ("Yoke: Compact Context").
import type * as vscode from "vscode";
import type { AgentSession } from "../../core/loop/agent-session";
import type { Disposable } from "../../core/ports";
import type { SessionEvent } from "../../core/events";
import type { Snapshot } from "../../protocol/messages";
import type { HostComposer } from "../composer";
import type { GuidanceControls } from "../guidance";
import type { HostServices } from "../host-services";
import type { PanelApprover } from "../panel-approver";
import { SessionViewModel } from "../../node/panel/view-model";
import { activity } from "../../node/watchdog";
import type { PanelState } from "./state";
import type { StoreLink } from "./store";

const DELTA_FLUSH_MS = 16;

export interface LiveDeps {
  state: PanelState;
  store: StoreLink;
  services: HostServices;
  composer: HostComposer;
  guidance: GuidanceControls;
  approver: PanelApprover;
  log: vscode.LogOutputChannel;
  pushState: () => Promise<void>;
}

export class LiveLink {
  /** The session open in this window; `modelLabel`: the model it was opened with (the settings then). */
  current: { session: AgentSession; subs: Disposable[]; modelLabel?: string } | undefined;
  /** The text streamed since the last message (a snapshot taken mid-stream shows it). */
  streaming = { text: "", reasoning: "" };
  private deltaBuf = { text: "", reasoning: "" };
  private deltaTimer: ReturnType<typeof setTimeout> | undefined;
  private unlockQueued = false;

  constructor(private readonly d: LiveDeps) {}

  get session(): AgentSession | undefined {
    return this.current?.session;
  }

  /** The live session, unless another process has written its log since (then the next send reopens it). */
  writable(): AgentSession | undefined {
    const live = this.current?.session;
    if (!live || this.d.state.running) return live;
    const { writer } = this.d.store.get();
    return writer.changedOnDisk(live.id) || writer.holder(live.id) ? undefined : live;
  }

  stop(): void {
    this.d.approver.cancel();
    this.current?.session.cancel();
  }

  attach(session: AgentSession, modelLabel?: string): void {
    const { state } = this.d;
    // The session shown is the one resumed: its view goes on from the events it has not seen (a long
    // session is not projected again on the host's thread); any other starts from its events.
    const events = session.events();
    if (state.shownId === session.id && !state.opening && state.vm.lastSeq >= 0 && state.vm.lastSeq < events.length && events[state.vm.lastSeq]?.seq === state.vm.lastSeq) state.vm.catchUp(events);
    else state.vm = new SessionViewModel(events);
    state.shownId = session.id;
    state.remember(session.id);
    this.streaming = { text: "", reasoning: "" };
    const subs = [session.onEvent((e) => activity(`session:${e.type}`, () => this.onEvent(e))), session.onDelta((d) => this.onDelta(d.type, d.text))];
    this.current = { session, subs, ...(modelLabel ? { modelLabel } : {}) };
    this.d.composer.show(session.id);
    void this.d.pushState();
  }

  /**
   * Drops the live session instance (keeping the one shown); `cancel` stops a run first. The
   * session is ended: SessionEnd hooks run and its background commands are stopped.
   */
  detach(cancel: boolean): Promise<void> {
    if (!this.current) return Promise.resolve();
    if (cancel) this.stop();
    const { session } = this.current;
    for (const s of this.current.subs) s.dispose();
    this.current = undefined;
    this.streaming = { text: "", reasoning: "" };
    this.deltaBuf = { text: "", reasoning: "" };
    return session.end(cancel ? "clear" : "other").then(
      () => {
        this.d.services.release(session.id);
        this.d.composer.forget(session.id);
        if (this.current?.session.id !== session.id) this.d.store.unlock(session.id);
      },
      (err: unknown) => this.d.log.warn(`ending session ${session.id} failed: ${(err as Error)?.message ?? String(err)}`),
    );
  }

  /**
   * The window closes (or reloads) while a question is open or a change waits for review: the
   * session is left as it is, unanswered in the log, so the next window asks it again.
   */
  abandon(): void {
    for (const s of this.current?.subs ?? []) s.dispose();
    this.current = undefined;
  }

  /** Lets go of the live session's lock once nothing runs: the CLI or another window may continue it. */
  /** A finished background agent's result as a turn of its own (SubagentOptions.deliver): into the live session, when no turn runs; else false. */
  deliver(sessionId: string, text: string, run: (act: (session: AgentSession) => Promise<void>) => Promise<void>): boolean {
    const session = this.current?.session;
    if (this.d.state.running || !session || session.id !== sessionId) return false;
    void run(async (s) => {
      s.appendFromHost({ type: "context", source: "subagents", text });
      await s.continue();
    });
    return true;
  }

  releaseIdle(): void {
    if (this.d.state.running || this.d.approver.waitingOwn || !this.current) return;
    this.d.store.unlock(this.current.session.id);
  }

  // --- compaction: "Yoke: Compact Context" and the context meter ---
  /** Compacts the live session's context now; what a guard or a PreCompact hook said is shown. */
  async compact(): Promise<void> {
    const session = this.current?.session;
    if (!session) {
      this.d.state.post({ type: "error", message: "No session to compact: send a message first (or open a session and continue it)." });
      return;
    }
    const out = await session.compact();
    if (out.status === "refused" || out.status === "vetoed") this.d.state.post({ type: "error", message: `Not compacted: ${out.reason}` });
    this.postContext();
  }

  contextMeter(): Snapshot["context"] {
    const m = this.current?.session.contextMeter();
    return m
      ? { tokens: m.tokens, window: m.window, windowKnown: m.windowKnown, threshold: m.threshold, ...(m.afterCompaction !== undefined ? { afterCompaction: m.afterCompaction } : {}) }
      : undefined;
  }

  private postContext(): void {
    const meter = this.contextMeter();
    if (meter) this.d.state.post({ type: "context", meter });
  }
  // --- end compaction ---

  private onEvent(e: SessionEvent): void {
    const { state } = this.d;
    this.flushDeltas();
    // Written while idle (a mode change, a review decided later): let go of the lock again.
    if (!state.running && !this.unlockQueued) {
      this.unlockQueued = true;
      queueMicrotask(() => {
        this.unlockQueued = false;
        this.releaseIdle();
      });
    }
    if (e.type === "assistant_message" || e.type === "error" || e.type === "status") this.streaming = { text: "", reasoning: "" };
    for (const view of state.vm.apply(e)) state.postItem(view);
    if (e.type === "status") state.post({ type: "status", state: e.state, ...(e.detail ? { detail: e.detail } : {}) });
    else if (e.type === "guidance") this.d.guidance.show(this.current?.session.events() ?? []);
    else if (e.type === "usage" || (e.type === "subagent" && e.phase === "finished")) state.post({ type: "usage", usage: state.vm.usage });
    if (e.type === "usage" || e.type === "compaction" || (e.type === "status" && e.state !== "thinking")) this.postContext();
  }

  // --- delta batching: text streamed in 16 ms batches ---
  private onDelta(kind: "text" | "reasoning", text: string): void {
    this.streaming[kind] += text;
    this.deltaBuf[kind] += text;
    this.deltaTimer ??= setTimeout(() => this.flushDeltas(), DELTA_FLUSH_MS);
  }

  flushDeltas(): void {
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    const buf = this.deltaBuf;
    this.deltaBuf = { text: "", reasoning: "" };
    if (buf.reasoning) this.d.state.post({ type: "delta", kind: "reasoning", text: buf.reasoning });
    if (buf.text) this.d.state.post({ type: "delta", kind: "text", text: buf.text });
  }
}
