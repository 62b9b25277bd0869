// Owns the panel's state: the session shown, the live AgentSession (created lazily on first send),
// the view model projected from its events, and the messages sent to the webview.
import { activity } from "../node/watchdog";
import * as fs from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import * as vscode from "vscode";
import { AgentSession } from "../core/loop/agent-session";
import type { Disposable } from "../core/ports";
import { forkSession } from "../core/session/fork";
import { summarizeSession, type SessionSummary } from "../core/session/projection";
import { parseLog, parseLogSliced, SessionLog } from "../core/session/session-log";
import { createBuiltinTools } from "../core/tools/builtin";
import { resumableCalls } from "../core/tools/resumable";
import { createFileSessionStore, defaultSessionDir, describeHolder, importSessions, type FileSessionStore, type LockHolder } from "../node/session-store";
import type { PermissionMode } from "../core/loop/types";
import {
  PROTOCOL_VERSION,
  type ContextItemView,
  type FirstRunView,
  type HostInfoView,
  type HostToWebview,
  type SessionItemView,
  type Snapshot,
  type ViewItem,
  type ViewState,
  type WebviewToHost,
} from "../protocol/messages";
import { HostServices } from "./host-services";
import { HostMcp } from "./mcp";
import { PermissionControls } from "./permission-controls";
import { probeLocalServers } from "./local-servers";
import { PanelApprover } from "./panel-approver";
import { SessionViewModel } from "./panel/view-model";
import { hostSlicer, isCancelled, SNAPSHOT_ITEMS, TranscriptRequests } from "./panel/transcript";
import { SlicedWorkCancelled } from "../core/session/sliced";
import { ApiKeys, needsKey, readSettings, writeSetting, type HostSettings } from "./settings";
import { SessionOptionsBuilder, UserFacingError } from "./session-options";
import { GuidanceControls } from "./guidance";
import type { ReviewFeature } from "./review";
import { CheckpointControls } from "./checkpoints"; // checkpoints: restore/fork per turn (issue 12)
import type { NewEvent, SessionEvent } from "../core/events";
import { HostComposer } from "./composer";
import { nestUnderParents } from "./panel/history-order";
import { HostDemoModel } from "./demo-model";

const LAST_SESSION_KEY = "yoke.lastSession";
/** Logs larger than this are summarised for the history list in slices, off the host's hot path. */
const SYNC_SUMMARY_BYTES = 256 * 1024;
const MAX_HISTORY = 30;
const DELTA_FLUSH_MS = 16;
/** Store changes (another window, the CLI) are looked at this long after the last one. */
const STORE_SETTLE_MS = 300;
/** While a session is shown read-only, how often its holder is checked (a killed one leaves no file event). */
const HOLDER_POLL_MS = 2_000;

export class SessionController implements vscode.Disposable {
  readonly approver: PanelApprover;
  /** The shared store of this folder (session-store.ts): writes through locks. */
  private store: { dir: string; writer: FileSessionStore; view: FileSessionStore } | undefined;
  /** The shown session is being written by another process (a `yoke` command, another window). */
  private readOnly: LockHolder | undefined;
  /** Size of the shown log when the view was built from it (to see it grow under another writer). */
  private shownBytes = -1;
  private watcher: { close(): void } | undefined;
  private storeTimer: ReturnType<typeof setTimeout> | undefined;
  private holderPoll: ReturnType<typeof setInterval> | undefined;
  private unlockQueued = false;
  /** The restored session ended with an open question but another process held it: ask once it is free. */
  private askWhenFree: string | undefined;
  private lastHistory = "";
  private dirCache: { key: string; dir: string } | undefined;
  private readonly options: SessionOptionsBuilder;
  /** The session open in this window; `modelLabel`: the model it was opened with (the settings then). */
  private live: { session: AgentSession; subs: Disposable[]; modelLabel?: string } | undefined;
  private shownId: string | null = null;
  private vm = new SessionViewModel();
  private resumed = false;
  private running = false;
  private restored = false;
  private streaming = { text: "", reasoning: "" };
  private deltaBuf = { text: "", reasoning: "" };
  private deltaTimer: ReturnType<typeof setTimeout> | undefined;
  private servers: FirstRunView["servers"] | undefined;
  /** Summaries of listed logs, valid while the log's size and time are the same. */
  private readonly summaries = new Map<string, { mtimeMs: number; size: number; summary: SessionSummary }>();
  private probing: Promise<void> | undefined;
  /** Long sessions: the open in progress (a newer one supersedes it), and history summaries being made. */
  private openGen = 0;
  private opening: Promise<unknown> | undefined;
  private restoring: Promise<void> | undefined;
  private readonly summarizing = new Set<string>();
  private readonly transcript: TranscriptRequests;
  private readonly demo: HostDemoModel;
  private post: (msg: HostToWebview) => void = (msg) => this.posted.fire(msg);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly services: HostServices;
  private readonly permissions: PermissionControls;
  private readonly guidance: GuidanceControls;
  private readonly mcp: HostMcp;
  private readonly checkpoints: CheckpointControls;

  // --- palette (src/host/commands, src/host/status-bar.ts) ---
  private readonly posted = new vscode.EventEmitter<HostToWebview>();
  /** Every message meant for the panel, also while it is closed: the status bar follows the state with it. */
  readonly onDidPost = this.posted.event;
  /** Sends a message to the panel (dropped while it is closed). */
  postView(msg: HostToWebview): void {
    this.post(msg);
  }
  // --- end palette ---
  /** @-mentions, steering and the queue (src/host/composer.ts). */
  readonly composer: HostComposer;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly keys: ApiKeys,
    isPanelVisible: () => boolean,
    /** The change review (src/host/review): sessions propose changes through it; its pending list is shown in the panel. */
    private readonly review?: ReviewFeature,
  ) {
    this.approver = new PanelApprover(isPanelVisible);
    this.services = new HostServices(ctx, log, () => this.sessionDir());
    this.mcp = new HostMcp(log);
    this.composer = new HostComposer(log, (msg) => this.post(msg));
    this.permissions = new PermissionControls({
      services: this.services,
      approver: this.approver,
      log,
      post: (msg) => this.post(msg),
      notice: (id, level, text) => this.postItem(this.vm.notice(id, level, text)),
      live: () => this.writableLive(),
      sandbox: () => this.vm.sandbox,
    });
    this.guidance = new GuidanceControls(ctx.workspaceState, (msg) => this.post(msg));
    this.checkpoints = new CheckpointControls({
      shown: () => this.shownSession(),
      running: () => this.running,
      pendingReviews: () => this.review?.reviewer.pending().length ?? 0,
      write: (act) => this.writeShown(act),
      writer: () => this.sessionStore().writer,
      sessionDir: () => this.sessionDir(),
      show: (id) => {
        // The open is sliced (long sessions): the state is pushed once the session is shown.
        void this.detach(false)
          .then(() => this.showFromLog(id))
          .then(() => this.pushState());
      },
      post: (msg) => this.post(msg),
      log,
    });
    this.demo = new HostDemoModel(ctx.globalState, log);
    this.transcript = new TranscriptRequests(
      () => ({ vm: this.vm, sessionId: this.shownId }),
      (msg) => this.post(msg),
    );
    this.options = new SessionOptionsBuilder({
      guidancePrefs: () => this.guidance.prefs(),
      log,
      keys,
      approver: this.approver,
      store: () => this.sessionStore().writer,
      ...(review ? { reviewer: review.reviewer } : {}),
      services: () => this.services.sessionParts(),
      mode: () => this.permissions.mode,
      extensions: () => this.mcp.extensions(),
      composer: () => this.composer.extension(),
    });
    this.disposables.push(
      this.approver.onDidChange((request) => this.post({ type: "permission", request })),
      this.mcp.onDidChange((servers) => this.post({ type: "mcpServers", servers })),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.settingsChanged()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("yoke.permissionMode")) void this.services.startMode().then((mode) => this.permissions.setMode(mode));
        if (e.affectsConfiguration("yoke")) this.settingsChanged();
      }),
      keys.onDidChange(() => this.settingsChanged()),
      // Another window or the CLI may have changed the store while this window was in the background.
      vscode.window.onDidChangeWindowState?.((w) => {
        if (w.focused) this.storeChanged();
      }) ?? { dispose() {} },
      this.services,
      this.checkpoints,
      this.services.onDidChange(() => void this.permissions.pushInfo()),
    );
    // --- change review: post the pending-changes list when it changes ---
    if (review) {
      let last = "";
      this.disposables.push(
        review.onDidChange(() => {
          const items = review.list();
          const json = JSON.stringify(items);
          if (json !== last) this.post({ type: "reviews", items });
          last = json;
        }),
      );
    }
  }

  /** Connects the webview; `post` is called with every message for it until `disconnect`. */
  connect(post: (msg: HostToWebview) => void): void {
    this.post = (msg) => {
      this.posted.fire(msg);
      post(msg);
    };
    this.watchStore();
  }

  disconnect(): void {
    this.post = (msg) => this.posted.fire(msg);
    this.composer.panelDisconnected();
  }

  get isRunning(): boolean {
    return this.running;
  }

  async handle(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case "ready":
        if (msg.protocol !== PROTOCOL_VERSION) this.log.warn(`webview speaks protocol ${msg.protocol}, host ${PROTOCOL_VERSION}`);
        this.post({ type: "mcpServers", servers: this.mcp.views() });
        await this.pushState();
        this.composer.panelConnected();
        return;
      case "prompt":
        return this.sendComposed(msg.text, [], "send");
      case "continue":
        return this.run((session) => session.continue());
      case "stop":
        return this.stop();
      case "newSession":
        return this.newSession();
      case "openSession":
        return this.openSession(msg.id);
      case "forkSession":
        return this.forkShown();
      case "permissionAnswer":
        return this.permissions.answer(msg);
      case "setMode":
        return this.permissions.setMode(msg.mode);
      case "killProcess":
        if (this.live) await this.services.kill(this.live.session.id, msg.id);
        return this.permissions.pushInfo();
      case "useLocalServer":
        await writeSetting("provider", "openai-compatible");
        await writeSetting("baseUrl", msg.baseUrl);
        await writeSetting("model", msg.model);
        this.log.info(`using local server ${msg.baseUrl} (${msg.model})`);
        return this.pushState();
      case "probeLocalServers":
        this.servers = undefined;
        this.probing = undefined;
        return this.pushState();
      case "setApiKey":
        await vscode.commands.executeCommand("yoke.setApiKey");
        return;
      case "openLog":
        this.log.show(true);
        return;
      case "openSettings":
        await vscode.commands.executeCommand("workbench.action.openSettings", "@ext:yoke-dev.yoke");
        return;
      case "guidanceAction":
        return this.guidance.action(msg.id, msg.action);
      case "reviewAction":
        return this.reviewAction(msg);
      case "compact":
        return this.compact();
      case "checkpointPreview":
      case "checkpointRestore":
      case "checkpointUndo":
      case "checkpointFork":
      case "checkpointDiff":
        return this.checkpoints.handle(msg);
      // --- composer: @-mention completion, messages with attachments, steering and the queue ---
      case "composer.complete":
        return this.composer.complete(msg.requestId, msg.query);
      case "composer.send":
        return this.sendComposed(msg.text, msg.items, msg.mode);
      case "composer.editQueued":
        return this.editQueued(msg.id, msg);
      case "composer.removeQueued":
        if (!(await this.queueOwner())?.remove(msg.id)) this.composer.postQueue();
        return;
      // --- long sessions: the panel's window over the transcript ---
      case "loadItems":
        return this.transcript.load(msg);
      case "searchTranscript":
        return this.transcript.search(msg);
      case "useDemoModel":
        await this.demo.use().catch((err: unknown) => this.post({ type: "error", message: `The demo model did not start: ${(err as Error)?.message ?? String(err)}` }));
        this.probing = undefined;
        return this.pushState();
      default:
        msg satisfies never;
    }
  }

  send(text: string): Promise<void> {
    return this.run((session) => session.send(text));
  }

  // --- composer ---
  /**
   * A message from the panel's input with its chips and typed mentions: sent now when the agent
   * is idle; while it works, steered (delivered at the next step) or queued (sent after the task).
   */
  async sendComposed(text: string, chips: readonly ContextItemView[], mode: "send" | "steer" | "queue"): Promise<void> {
    const items = await this.composer.itemsOf(text, chips);
    const live = this.composer.of(this.live?.session.id);
    if (this.running && mode !== "send" && live) {
      try {
        live.add(text, items, mode);
      } catch (err) {
        this.post({ type: "error", message: `Not added: ${(err as Error).message}` });
      }
      return;
    }
    return this.run(async (session) => {
      const c = this.composer.of(session.id);
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
    if (!this.live && !this.running && this.shownId && !this.readOnly) {
      try {
        await this.liveSession();
        this.releaseIdle();
      } catch (err) {
        this.post({ type: "error", message: (err as Error).message });
      }
    }
    return this.composer.of(this.live?.session.id);
  }

  private async editQueued(id: string, patch: { text?: string; mode?: "steer" | "queue" }): Promise<void> {
    const c = await this.queueOwner();
    try {
      if (!c?.edit(id, patch)) this.composer.postQueue();
    } catch (err) {
      this.post({ type: "error", message: `Not changed: ${(err as Error).message}` });
      this.composer.postQueue();
    }
  }

  /** After a run: the next waiting message is sent when the task is done; after a Stop or an error, steered ones wait as queued. */
  private afterRun(): void {
    const session = this.live?.session;
    const c = this.composer.of(session?.id);
    if (!session || !c || c.list().length === 0) return;
    if (session.state !== "done") {
      c.holdSteered();
      return;
    }
    const next = c.takeNext();
    if (next) queueMicrotask(() => void this.sendComposed(next.text, next.items, "send"));
  }
  // --- end composer ---

  /** Runs the loop on the live session (resuming the shown one first); one run at a time. */
  private async run(act: (session: AgentSession) => Promise<void>): Promise<void> {
    if (this.running) {
      this.post({ type: "error", message: "Yoke is still working on the last message. Wait for it or press Stop." });
      return;
    }
    this.running = true;
    void vscode.commands.executeCommand("setContext", "yoke.running", true);
    try {
      await this.opening;
      await this.demo.ensure(readSettings());
      const session = await this.liveSession();
      this.resumed = false;
      await act(session);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof UserFacingError) && (err as Error)?.name !== "ProviderConfigError") this.log.error(`send failed: ${(err as Error)?.stack ?? message}`);
      this.post({ type: "error", message });
      this.post({ type: "status", state: this.vm.state });
    } finally {
      this.running = false;
      this.flushDeltas();
      void vscode.commands.executeCommand("setContext", "yoke.running", false);
      this.releaseIdle();
      this.postHistory(true);
      this.afterRun();
    }
  }

  /** The permission mode from now on (also for the session running now). */
  setMode(mode: PermissionMode): Promise<void> {
    return this.permissions.setMode(mode);
  }

  /** The mode shown and used: picked from the settings the first time. */
  currentMode(): Promise<PermissionMode> {
    return this.permissions.currentMode();
  }

  // --- compaction: "Yoke: Compact Context" and the context meter ---
  /** Compacts the live session's context now; what a guard or a PreCompact hook said is shown. */
  async compact(): Promise<void> {
    const session = this.live?.session;
    if (!session) {
      this.post({ type: "error", message: "No session to compact: send a message first (or open a session and continue it)." });
      return;
    }
    const out = await session.compact();
    if (out.status === "refused" || out.status === "vetoed") this.post({ type: "error", message: `Not compacted: ${out.reason}` });
    this.postContext();
  }

  private contextMeter(): Snapshot["context"] {
    const m = this.live?.session.contextMeter();
    return m
      ? { tokens: m.tokens, window: m.window, windowKnown: m.windowKnown, threshold: m.threshold, ...(m.afterCompaction !== undefined ? { afterCompaction: m.afterCompaction } : {}) }
      : undefined;
  }

  private postContext(): void {
    const meter = this.contextMeter();
    if (meter) this.post({ type: "context", meter });
  }
  // --- end compaction ---

  stop(): void {
    this.approver.cancel();
    this.live?.session.cancel();
  }

  newSession(): void {
    this.openGen++;
    this.detach(true);
    this.shownId = null;
    this.vm = new SessionViewModel();
    this.resumed = false;
    this.composer.show(undefined);
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, undefined);
    void this.pushState();
  }

  async openSession(id: string): Promise<void> {
    if (id === this.shownId && !this.opening) return void this.pushState();
    const store = this.sessionStore().view;
    if (!store.exists(id)) {
      this.post({ type: "error", message: `Session ${id} no longer exists.` });
      return;
    }
    void this.detach(true);
    if ((await this.showFromLog(id)) === "superseded") return;
    await this.pushState();
  }

  /** Sessions of this workspace, newest first, for the history list and the quick pick. */
  history(fresh = false): SessionItemView[] {
    const { view, writer } = this.sessionStore();
    const out: SessionItemView[] = [];
    if (fresh) this.summaries.clear();
    for (const entry of view.entries().slice(0, MAX_HISTORY)) {
      const { id } = entry;
      try {
        // A log is parsed again only when it changed (this window, another one, or the CLI wrote it).
        let cached = this.summaries.get(id);
        if (!cached || cached.mtimeMs !== entry.mtimeMs || cached.size !== entry.size) {
          if (entry.size > SYNC_SUMMARY_BYTES) {
            // A long log is summarised in slices; the list is posted again once it is done.
            this.summarizeLater(entry);
            if (!cached) {
              out.push({ id, title: "Loading…", status: "idle", updatedAt: new Date(entry.mtimeMs).toISOString(), modelLabel: "", active: id === this.shownId });
              continue;
            }
          } else {
            cached = { mtimeMs: entry.mtimeMs, size: entry.size, summary: summarizeSession(parseLog(view.read(id)).events, id) };
            this.summaries.set(id, cached);
          }
        }
        const s = cached.summary;
        const holder = writer.holder(id);
        const status: ViewState = id === this.shownId && this.running ? this.vm.state : s.status;
        out.push({
          id,
          title: s.parentId ? `↳ sub-agent: ${s.title}` : s.forkedFrom ? `${s.title} (fork)` : s.title,
          status,
          updatedAt: s.updatedAt,
          modelLabel: s.label ?? s.model,
          active: id === this.shownId,
          ...(holder ? { inUse: describeHolder(holder) } : {}),
          ...(s.parentId ? { parentId: s.parentId } : {}),
        });
      } catch (err) {
        this.log.warn(`session ${id}: cannot be listed: ${(err as Error).message}`);
      }
    }
    for (const id of this.summaries.keys()) if (!out.some((s) => s.id === id)) this.summaries.delete(id);
    return nestUnderParents(out);
  }

  /** Summarises a long log for the history list in slices, then posts the list again. */
  private summarizeLater(entry: { id: string; mtimeMs: number; size: number }): void {
    if (this.summarizing.has(entry.id)) return;
    this.summarizing.add(entry.id);
    const { view } = this.sessionStore();
    void parseLogSliced(view.read(entry.id), hostSlicer())
      .then((parsed) => {
        this.summaries.set(entry.id, { mtimeMs: entry.mtimeMs, size: entry.size, summary: summarizeSession(parsed.events, entry.id) });
        this.postHistory(true);
      })
      .catch((err: unknown) => this.log.warn(`session ${entry.id}: cannot be listed: ${(err as Error)?.message ?? String(err)}`))
      .finally(() => this.summarizing.delete(entry.id));
  }

  async snapshot(): Promise<Snapshot> {
    await this.restoreOnce();
    await this.opening;
    const s = readSettings();
    const needsProvider = await this.needsProvider(s);
    return this.buildSnapshot(s, needsProvider, await this.permissions.info().catch(() => undefined));
  }

  /**
   * The model the header names: the one answering while a run goes on (the live session was opened
   * with it; a resumed session's log names the model it started with), the holder's when another
   * process has the session, otherwise the one the next message uses: the settings' ("Switch
   * Model" shows at once).
   */
  private headerModel(s: HostSettings, firstRun: FirstRunView | null): string {
    if (this.running && this.live?.modelLabel) return this.live.modelLabel;
    if ((this.running || this.readOnly) && this.vm.modelLabel) return this.vm.modelLabel;
    return firstRun ? "no model" : s.demoLabel || s.model || s.provider;
  }

  /** Synchronous, so no event can slip in between reading the state and posting it. */
  private buildSnapshot(s: HostSettings, needsProvider: boolean, hostInfo?: HostInfoView): Snapshot {
    // The local-server probe's state as it is now, not as it was before the awaits that led here:
    // a probe that ended meanwhile must not be shown as still running.
    const firstRun: FirstRunView | null = needsProvider ? { servers: this.servers ?? [], probing: this.servers === undefined } : null;
    const { items, omitted } = this.vm.items(SNAPSHOT_ITEMS);
    const firstUser = omitted ? this.vm.range(0, 64).items.find((i) => i.kind === "user") : items.find((i) => i.kind === "user");
    const streaming = this.running && (this.streaming.text || this.streaming.reasoning) ? { ...this.streaming } : undefined;
    return {
      protocol: PROTOCOL_VERSION,
      sessionId: this.shownId,
      title: firstUser?.kind === "user" ? firstUser.text.slice(0, 80) : "New session",
      state: this.vm.state,
      resumed: this.resumed,
      ...(this.readOnly ? { readOnly: { by: describeHolder(this.readOnly) } } : {}),
      items,
      omitted,
      ...(streaming ? { streaming } : {}),
      pending: this.approver.current,
      usage: this.vm.usage,
      modelLabel: this.headerModel(s, firstRun),
      mode: hostInfo?.mode ?? (this.shownId ? this.vm.mode : s.permissionMode),
      restricted: !vscode.workspace.isTrusted,
      firstRun,
      history: this.history(),
      reviews: this.review?.list() ?? [],
      ...(hostInfo ? { hostInfo } : {}),
      ...(this.contextMeter() ? { context: this.contextMeter() } : {}),
      ...(!firstRun && this.demo.view(s) ? { demo: this.demo.view(s) } : {}),
    };
  }

  // --- checkpoints (src/host/checkpoints.ts): restore / fork per turn, "Yoke: Restore Checkpoint…" ---
  restoreCheckpoint(): Promise<void> {
    this.restoreOnce();
    return this.checkpoints.restoreCommand();
  }

  /** The shown session's events: the live session's while it is current, else its log's. */
  private shownSession(): { id: string; events: readonly SessionEvent[] } | undefined {
    if (!this.shownId) return undefined;
    const live = this.writableLive();
    if (live?.id === this.shownId) return { id: live.id, events: live.events() };
    const { view, dir } = this.sessionStore();
    if (!view.exists(this.shownId)) return undefined;
    // Parsed again only when the log changed (the panel asks after every state it shows).
    let size = -1;
    try {
      size = fs.statSync(join(dir, `${this.shownId}.jsonl`)).size;
    } catch {
      // gone meanwhile: read below fails clearly
    }
    if (this.shownLog?.id !== this.shownId || this.shownLog.size !== size || size < 0) this.shownLog = { id: this.shownId, size, events: parseLog(view.read(this.shownId)).events };
    return { id: this.shownId, events: this.shownLog.events };
  }
  private shownLog: { id: string; size: number; events: readonly SessionEvent[] } | undefined;

  /** Appends to the shown session (the live one, or its log under its lock), then shows it as it is now. */
  private async writeShown<T>(act: (w: { events: () => readonly SessionEvent[]; append: (e: NewEvent) => SessionEvent }) => Promise<T>): Promise<T> {
    const id = this.shownId;
    if (!id) throw new Error("no session is shown");
    const live = this.writableLive();
    if (live?.id === id) {
      try {
        return await act({ events: () => live.events(), append: (e) => live.appendFromHost(e) });
      } finally {
        // A conversation restore changes what is in force: the transcript is built again.
        this.vm = new SessionViewModel(live.events());
        void this.pushState();
      }
    }
    if (this.live) await this.detach(false);
    const { writer } = this.sessionStore();
    const lock = writer.lock(id);
    if (!lock.ok) throw this.inUse(id, lock.holder);
    try {
      const { log } = SessionLog.open(writer, id);
      try {
        return await act({ events: () => log.events, append: (e) => log.append(e) });
      } finally {
        log.sync();
      }
    } finally {
      writer.unlock(id);
      await this.showFromLog(id);
      void this.pushState();
    }
  }
  // --- end checkpoints ---

  // --- change review: buttons of the pending-changes list ---
  private async reviewAction(msg: Extract<WebviewToHost, { type: "reviewAction" }>): Promise<void> {
    if (!this.review) return;
    if (msg.action === "accept") return this.review.accept(msg.editId);
    if (msg.action === "reject") return this.review.reject(msg.editId, msg.message);
    if (msg.action === "openDiff") return this.review.openDiff(msg.editId);
    const problem = await this.review.revert(msg.editId);
    if (problem) this.post({ type: "error", message: problem });
  }

  dispose(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.storeTimer) clearTimeout(this.storeTimer);
    this.setHolderPoll(false);
    if ((this.approver.current || this.review?.reviewer.pending().length) && this.live) {
      // The window closes (or reloads) while a question is open or a change waits for review: leave
      // it unanswered in the log, so the next window asks it again (the review re-attaches to the
      // editor VS Code restores). Commands die with the extension host.
      for (const s of this.live.subs) s.dispose();
      this.live = undefined;
    } else {
      this.detach(true);
      this.approver.dispose();
    }
    for (const d of this.disposables) d.dispose();
    this.posted.dispose();
    this.mcp.dispose();
    this.demo.dispose();
    // Nothing more is written from this window: another one (or the CLI) may take the sessions over.
    this.store?.writer.dispose();
  }

  private async pushState(): Promise<void> {
    try {
      await this.restoreOnce();
      // A session being opened is shown once it is (its own pushState follows).
      if (this.opening) return;
      const s = readSettings();
      const needsProvider = await this.needsProvider(s);
      const hostInfo = await this.permissions.info().catch((err: unknown) => {
        this.log.warn(`cannot build the permission/sandbox info: ${(err as Error)?.message ?? String(err)}`);
        return undefined;
      });
      this.post({ type: "state", snapshot: this.buildSnapshot(s, needsProvider, hostInfo) });
      this.checkpoints.pushUndo();
      this.composer.postQueue();
      this.guidance.show(this.live?.session.events() ?? [], true);
    } catch (err) {
      this.log.error(`cannot build the panel state: ${(err as Error).stack ?? String(err)}`);
      this.post({ type: "error", message: `Yoke could not load its state: ${(err as Error).message}` });
    }
  }

  /**
   * After a window reload the panel shows the last active session, read-only until the user sends;
   * a question or a review left open is taken up again. Called when the panel first connects, and at
   * startup (so a pending review comes back in the editor while the panel stays closed).
   */
  restoreOnce(): Promise<void> {
    if (this.restored) return this.restoring ?? Promise.resolve();
    this.restored = true;
    this.restoring = this.restore().catch((err: unknown) => this.log.error(`cannot restore the last session: ${(err as Error)?.stack ?? String(err)}`));
    return this.restoring;
  }

  private async restore(): Promise<void> {
    const id = this.ctx.workspaceState.get<string>(LAST_SESSION_KEY);
    if (id && !this.shownId && this.sessionStore().view.exists(id)) {
      const pending = await this.showFromLog(id);
      if (pending === "superseded") return;
      // A question was open, or a change waited for review, when the window closed or crashed: ask
      // again without the user doing anything (the core re-checks an unstarted call through the
      // gate, and puts a pending review up again; its decision becomes that call's result).
      if (pending && this.readOnly) this.askWhenFree = id;
      if (pending && !this.readOnly) {
        this.log.info(`session ${id}: ${pending === "review" ? "a change was waiting for review; resuming to show it again" : "a permission question was open; resuming to ask it again"}`);
        queueMicrotask(() => void this.run((session) => session.continue()));
      }
    }
  }

  /**
   * Shows a session from its log; says what the log ends with that nobody answered: a permission
   * question or a review. The log is parsed and projected in time slices (a 10,000-event session
   * never blocks the host); "superseded": another open (or a new session) came first.
   */
  private showFromLog(id: string): Promise<"question" | "review" | "superseded" | undefined> {
    const gen = ++this.openGen;
    const done = this.loadFromLog(id, gen)
      .catch((err: unknown) => {
        if (isCancelled(err)) return "superseded" as const;
        throw err;
      })
      .finally(() => {
        // Cleared before anyone awaiting the open goes on (a newer open keeps its own).
        if (this.openGen === gen) this.opening = undefined;
      });
    this.opening = done.catch(() => undefined);
    return done;
  }

  private async loadFromLog(id: string, gen: number): Promise<"question" | "review" | undefined> {
    const { view, writer } = this.sessionStore();
    const lines = view.read(id);
    const bytes = view.entries().find((e) => e.id === id)?.size ?? -1;
    const slicer = hostSlicer(() => gen !== this.openGen);
    const parsed = await parseLogSliced(lines, slicer);
    const vm = await SessionViewModel.build(parsed.events, slicer);
    if (gen !== this.openGen) throw new SlicedWorkCancelled();
    this.shownBytes = bytes;
    this.vm = vm;
    this.composer.show(id, parsed.events);
    const pending = this.vm.pending !== null ? "question" : this.review && resumableCalls(parsed.events, createBuiltinTools()).length ? "review" : undefined;
    // Another process is writing it: its last state is live there, not interrupted.
    this.setReadOnly(writer.holder(id));
    if (!this.readOnly) this.vm.markInterrupted();
    this.shownId = id;
    this.resumed = true;
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, id);
    return pending;
  }

  /**
   * Whether no provider is configured (the panel then shows its first-run view); starts looking
   * for local model servers the first time. The view itself is built with the snapshot.
   */
  private async needsProvider(s: HostSettings): Promise<boolean> {
    const hasKey = async () => Boolean(await this.keys.get(s.provider));
    const configured = !s.explicit
      ? await hasKey()
      : s.provider === "openai-compatible"
        ? Boolean(s.baseUrl) // a local server needs no key, but it needs its URL
        : !needsKey(s) || (await hasKey());
    if (configured) return false;
    if (!this.probing) {
      const probing = probeLocalServers().then((servers) => {
        if (this.probing !== probing) return; // "Look again" started another one
        this.servers = servers;
        this.log.info(`local servers found: ${servers.map((x) => `${x.name} (${x.model})`).join(", ") || "none"}`);
        // A whole state, not a first-run message of its own: the provider may have been set meanwhile.
        void this.pushState();
      });
      this.probing = probing;
    }
    return true;
  }

  private settingsChanged(): void {
    // The next send reopens the session with the new provider, mode or trust.
    if (!this.running) this.detach(false);
    void this.pushState();
  }

  /**
   * The session folder: the setting `yoke.sessionDir` (user settings only), or the folder's shared
   * store `~/.yoke/sessions/<workspace-key>/` (node/session-location.ts), the one the CLI uses.
   * Without a folder on disk, the window's own storage.
   */
  private sessionDir(): string {
    const configured = vscode.workspace.getConfiguration("yoke").inspect<string>("sessionDir")?.globalValue?.trim();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const key = `${configured ?? ""}\n${folder?.uri.toString() ?? ""}`;
    if (this.dirCache?.key !== key) {
      const dir = configured ? resolve(configured.replace(/^~(?=$|[\\/])/, homedir())) : folder && folder.uri.scheme === "file" ? defaultSessionDir(folder.uri.fsPath) : this.windowSessionDir();
      this.dirCache = { key, dir };
    }
    return this.dirCache.dir;
  }

  /** Where sessions were kept before the shared store: VS Code's per-window workspace storage. */
  private windowSessionDir(): string {
    const base = this.ctx.storageUri ?? this.ctx.globalStorageUri;
    return join(base.fsPath, "sessions");
  }

  private sessionStore(): { dir: string; writer: FileSessionStore; view: FileSessionStore } {
    const dir = this.sessionDir();
    if (this.store?.dir === dir) return this.store;
    this.store?.writer.dispose();
    const legacy = this.windowSessionDir();
    if (resolve(legacy) !== resolve(dir) && fs.existsSync(legacy)) {
      // Once: the sessions of the old per-window storage move to the shared store (each to its folder's).
      const { moved, skipped } = importSessions(legacy);
      if (moved.length) this.log.info(`moved ${moved.length} session(s) from ${legacy} to the shared store ${dir}`);
      for (const x of skipped) this.log.warn(`session ${x.id} stays in ${legacy}: ${x.reason}`);
    }
    this.store = { dir, writer: createFileSessionStore(dir, { owner: vscode.env.appName || "VS Code" }), view: createFileSessionStore(dir, { readOnly: true }) };
    this.summaries.clear();
    if (this.watcher) this.watchStore(true);
    return this.store;
  }

  /** The live session, unless another process has written its log since (then the next send reopens it). */
  private writableLive(): AgentSession | undefined {
    const live = this.live?.session;
    if (!live || this.running) return live;
    const { writer } = this.sessionStore();
    return writer.changedOnDisk(live.id) || writer.holder(live.id) ? undefined : live;
  }

  private async liveSession(): Promise<AgentSession> {
    const { writer } = this.sessionStore();
    if (this.live) {
      const id = this.live.session.id;
      const lock = writer.lock(id);
      if (lock.ok && !writer.changedOnDisk(id)) return this.live.session;
      // The CLI or another window continued it meanwhile (or is writing it now): start again from its log.
      this.log.info(`session ${id} was continued elsewhere; reopening it from its log`);
      await this.detach(false);
      if (!lock.ok) throw this.inUse(id, lock.holder);
    }
    // Settings files may have changed while no watcher event arrived yet: read them afresh.
    await this.services.gate?.reload().catch((err: unknown) => this.log.warn(`reloading the permission settings failed: ${(err as Error)?.message ?? String(err)}`));
    await this.permissions.currentMode();
    const opts = await this.options.build();
    const store = opts.store;
    if (this.shownId && store.exists(this.shownId)) {
      // Held while this window writes; released when it is idle again (releaseIdle).
      const lock = writer.lock(this.shownId);
      if (!lock.ok) throw this.inUse(this.shownId, lock.holder);
    }
    const session = this.shownId && store.exists(this.shownId) ? await AgentSession.resume(this.shownId, opts) : await AgentSession.create(opts);
    this.attach(session, opts.providerLabel || opts.provider.model);
    return session;
  }

  /** The shown session is written by another process: show it read-only and say why. */
  private inUse(id: string, holder: LockHolder): UserFacingError {
    this.setReadOnly(holder);
    if (this.shownId === id && !this.live) void this.showFromLog(id).then(() => this.pushState());
    else void this.pushState();
    return new UserFacingError(`This session is in use by ${describeHolder(holder)}. It is shown read-only here; use "Continue as a fork" to go on with a copy.`);
  }

  private setReadOnly(holder: LockHolder | undefined): void {
    this.readOnly = holder;
    this.setHolderPoll(holder !== undefined);
  }

  private setHolderPoll(on: boolean): void {
    if (on && !this.holderPoll) {
      this.holderPoll = setInterval(() => this.storeChanged(), HOLDER_POLL_MS);
      this.holderPoll.unref?.();
    } else if (!on && this.holderPoll) {
      clearInterval(this.holderPoll);
      this.holderPoll = undefined;
    }
  }

  /** Lets go of the live session's lock once nothing runs: the CLI or another window may continue it. */
  private releaseIdle(): void {
    if (this.running || this.approver.current || !this.live) return;
    this.store?.writer.unlock(this.live.session.id);
  }

  /** Continues the shown session in a copy (a fork), e.g. when another process is writing it. */
  private forkShown(): void {
    const source = this.shownId;
    if (!source || this.running) return;
    const { writer } = this.sessionStore();
    const { id } = forkSession(writer, source);
    writer.unlock(id);
    this.log.info(`session ${source} forked as ${id}`);
    void this.detach(false);
    void this.showFromLog(id).then((r) => (r === "superseded" ? undefined : this.pushState()));
  }

  /** Watches the store folder: another window or the CLI adding or writing sessions. */
  private watchStore(restart = false): void {
    if (this.watcher && !restart) return;
    this.watcher?.close();
    this.watcher = undefined;
    const dir = this.sessionStore().dir;
    try {
      fs.mkdirSync(dir, { recursive: true });
      const w = fs.watch(dir, { persistent: false }, () => this.storeChanged());
      w.on("error", (err) => this.log.warn(`watching ${dir} failed: ${err.message}; the history refreshes when the window gets the focus`));
      this.watcher = w;
    } catch (err) {
      this.log.warn(`cannot watch ${dir}: ${(err as Error).message}; the history refreshes when the window gets the focus`);
      this.watcher = { close() {} };
    }
  }

  /** Something in the store changed: refresh the history, and the shown session if another process wrote it. */
  private storeChanged(): void {
    if (this.storeTimer) return;
    this.storeTimer = setTimeout(() => {
      this.storeTimer = undefined;
      try {
        this.refreshFromStore();
      } catch (err) {
        this.log.warn(`refreshing from the session store failed: ${(err as Error).message}`);
      }
    }, STORE_SETTLE_MS);
    this.storeTimer.unref?.();
  }

  private refreshFromStore(): void {
    // While this window runs, its own appends are what changed: the run's end refreshes the history.
    if (this.running) return;
    const id = this.shownId;
    if (id) {
      const { view, writer } = this.sessionStore();
      const holder = writer.holder(id);
      const size = view.entries().find((e) => e.id === id)?.size ?? -1;
      const grew = this.live ? writer.changedOnDisk(id) : size !== this.shownBytes;
      if (grew || describe(holder) !== describe(this.readOnly)) {
        if (this.live && (grew || holder)) void this.detach(false);
        if (!this.live) {
          void this.showFromLog(id).then(async (pending) => {
            if (pending === "superseded") return;
            await this.pushState();
            if (this.askWhenFree === id && !this.readOnly) {
              this.askWhenFree = undefined;
              if (pending) queueMicrotask(() => void this.run((session) => session.continue()));
            }
          });
        }
      }
    }
    this.postHistory();
  }

  private postHistory(force = false): void {
    const sessions = this.history();
    const json = JSON.stringify(sessions);
    if (!force && json === this.lastHistory) return;
    this.lastHistory = json;
    this.post({ type: "history", sessions });
  }

  private attach(session: AgentSession, modelLabel?: string): void {
    // The session shown is the one resumed: its view goes on from the events it has not seen (a long
    // session is not projected again on the host's thread); any other starts from its events.
    const events = session.events();
    if (this.shownId === session.id && !this.opening && this.vm.lastSeq >= 0 && this.vm.lastSeq < events.length && events[this.vm.lastSeq]?.seq === this.vm.lastSeq) this.vm.catchUp(events);
    else this.vm = new SessionViewModel(events);
    this.shownId = session.id;
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, session.id);
    this.streaming = { text: "", reasoning: "" };
    const subs = [session.onEvent((e) => activity(`session:${e.type}`, () => this.onEvent(e))), session.onDelta((d) => this.onDelta(d.type, d.text))];
    this.live = { session, subs, ...(modelLabel ? { modelLabel } : {}) };
    this.composer.show(session.id);
    void this.pushState();
  }

  /**
   * Drops the live session instance (keeping the one shown); `cancel` stops a run first. The
   * session is ended: SessionEnd hooks run and its background commands are stopped.
   */
  private detach(cancel: boolean): Promise<void> {
    if (!this.live) return Promise.resolve();
    if (cancel) this.stop();
    const { session } = this.live;
    for (const s of this.live.subs) s.dispose();
    this.live = undefined;
    this.streaming = { text: "", reasoning: "" };
    this.deltaBuf = { text: "", reasoning: "" };
    return session.end(cancel ? "clear" : "other").then(
      () => {
        this.services.release(session.id);
        this.composer.forget(session.id);
        if (this.live?.session.id !== session.id) this.store?.writer.unlock(session.id);
      },
      (err: unknown) => this.log.warn(`ending session ${session.id} failed: ${(err as Error)?.message ?? String(err)}`),
    );
  }

  private onEvent(e: Parameters<SessionViewModel["apply"]>[0]): void {
    this.flushDeltas();
    // Written while idle (a mode change, a review decided later): let go of the lock again.
    if (!this.running && !this.unlockQueued) {
      this.unlockQueued = true;
      queueMicrotask(() => {
        this.unlockQueued = false;
        this.releaseIdle();
      });
    }
    if (e.type === "assistant_message" || e.type === "error" || e.type === "status") this.streaming = { text: "", reasoning: "" };
    for (const view of this.vm.apply(e)) this.postItem(view);
    if (e.type === "status") this.post({ type: "status", state: e.state, ...(e.detail ? { detail: e.detail } : {}) });
    else if (e.type === "guidance") this.guidance.show(this.live?.session.events() ?? []);
    else if (e.type === "usage" || (e.type === "subagent" && e.phase === "finished")) this.post({ type: "usage", usage: this.vm.usage });
    if (e.type === "usage" || e.type === "compaction" || (e.type === "status" && e.state !== "thinking")) this.postContext();
  }

  /** An item created or changed, with its place in the transcript (the panel shows a window over it). */
  private postItem(view: ViewItem): void {
    const index = this.vm.indexOf(view.id);
    this.post({ type: "event", view, ...(index >= 0 ? { index } : {}) });
  }

  private onDelta(kind: "text" | "reasoning", text: string): void {
    this.streaming[kind] += text;
    this.deltaBuf[kind] += text;
    this.deltaTimer ??= setTimeout(() => this.flushDeltas(), DELTA_FLUSH_MS);
  }

  private flushDeltas(): void {
    if (this.deltaTimer) clearTimeout(this.deltaTimer);
    this.deltaTimer = undefined;
    const buf = this.deltaBuf;
    this.deltaBuf = { text: "", reasoning: "" };
    if (buf.reasoning) this.post({ type: "delta", kind: "reasoning", text: buf.reasoning });
    if (buf.text) this.post({ type: "delta", kind: "text", text: buf.text });
  }
}

function describe(holder: LockHolder | undefined): string {
  return holder ? describeHolder(holder) : "";
}
