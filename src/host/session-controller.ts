// Owns the panel's state: the session shown, the live AgentSession (created lazily on first send), the view model
// projected from its events, and the messages sent to the webview. Its parts live in src/host/session/: the router
// (webview messages), the live session (attach/detach, deltas, compaction), the store (location, migration, locks,
// watching), the history, opening from the log and the restore after a reload, the snapshot, the first-run probe, and
// the composer, checkpoint and review glue. What stays here wires them, runs the loop, and builds the session.
import * as vscode from "vscode";
import { AgentSession } from "../core/loop/agent-session";
import type { PermissionMode } from "../core/loop/types";
import type { ContextItemView, HostToWebview, SessionItemView, Snapshot, WebviewToHost } from "../protocol/messages";
import { HostServices } from "./host-services";
import { HostMcp } from "./mcp";
import { PermissionControls } from "./permission-controls";
import { PanelApprover } from "./panel-approver";
import { SessionViewModel } from "../node/panel/view-model";
import { TranscriptRequests } from "../node/panel/transcript";
import { readSettings, type ApiKeys } from "./settings";
import { SessionOptionsBuilder, UserFacingError } from "./session-options";
import { HostCustomizations } from "./customizations";
import { GuidanceControls } from "./guidance";
import type { ReviewFeature } from "./review";
import { CheckpointControls } from "./checkpoints"; // checkpoints: restore/fork per turn (issue 12)
import { HostComposer } from "./composer";
import { HostDemoModel } from "./demo-model";
import { ComposerGlue } from "./session/composer-glue";
import { FirstRunProbe } from "./session/first-run";
import { HistoryList } from "./session/history";
import { LiveLink } from "./session/live";
import { SessionOpener } from "./session/open";
import { postReviewsOnChange } from "./session/review-glue";
import { routeMessage, type RouterTargets } from "./session/router";
import { ShownSession } from "./session/shown";
import { PanelSnapshots } from "./session/snapshot";
import { PanelState } from "./session/state";
import { StoreLink } from "./session/store";
import { OtherWriters } from "./session/other-writers";
import { HandBacks } from "./session/hand-back";
import { HostAgents } from "./agents"; // background agents (issue 24)
export { parseWebviewToHost } from "../protocol/messages"; // for the panel: the check of webview messages loads with this bundle, not at activation
export class SessionController implements vscode.Disposable {
  readonly approver: PanelApprover;
  private readonly state: PanelState;
  private readonly store: StoreLink;
  private readonly historyList: HistoryList;
  private readonly firstRun: FirstRunProbe;
  private readonly live: LiveLink;
  private readonly opener: SessionOpener;
  private readonly handBacks: HandBacks; // background agents' results for ended sessions, kept until they are shown again
  private readonly others: OtherWriters;
  private readonly shown: ShownSession;
  private readonly snapshots: PanelSnapshots;
  private readonly composed: ComposerGlue;
  private readonly router: RouterTargets;
  private readonly options: SessionOptionsBuilder;
  private readonly transcript: TranscriptRequests;
  private readonly demo: HostDemoModel;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly services: HostServices;
  private readonly permissions: PermissionControls;
  private readonly guidance: GuidanceControls;
  private readonly customizations: HostCustomizations;
  readonly mcp: HostMcp;
  private readonly checkpoints: CheckpointControls;

  // --- palette (src/host/commands, src/host/status-bar.ts) ---
  private readonly posted = new vscode.EventEmitter<HostToWebview>();
  /** Every message meant for the panel, also while it is closed: the status bar follows the state with it. */
  readonly onDidPost = this.posted.event;
  /** Sends a message to the panel (dropped while it is closed). */
  postView(msg: HostToWebview): void {
    this.state.post(msg);
  }
  // --- end palette ---
  /** @-mentions, steering and the queue (src/host/composer.ts). */
  readonly composer: HostComposer;
  /** Background agents: Run in background, the Agents view, review and merge back (src/host/agents). */
  readonly agents: HostAgents;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    keys: ApiKeys,
    isPanelVisible: () => boolean,
    /** The change review (src/host/review): sessions propose changes through it; its pending list is shown in the panel. */
    private readonly review?: ReviewFeature,
  ) {
    const state = (this.state = new PanelState(ctx.workspaceState, (msg) => this.posted.fire(msg)));
    const post = (msg: HostToWebview) => state.post(msg);
    const pushState = () => this.pushState();
    this.approver = new PanelApprover(isPanelVisible);
    this.store = new StoreLink(
      ctx,
      log,
      () => this.others.refresh(),
      () => this.historyList?.clear(),
    );
    this.historyList = new HistoryList(state, () => this.store.get(), log);
    this.firstRun = new FirstRunProbe(keys, log, () => void this.pushState());
    this.services = new HostServices(ctx, log, () => this.store.dir());
    this.mcp = new HostMcp(log, ctx.secrets, ctx.globalStorageUri);
    this.composer = new HostComposer(log, post, () => this.mcp.hub());
    this.guidance = new GuidanceControls(ctx.workspaceState, post);
    this.customizations = new HostCustomizations(log, post, () => this.live.session?.events() ?? [], ctx.globalStorageUri);
    this.guidance.onShow(() => this.customizations.sessionChanged());
    this.live = new LiveLink({ state, store: this.store, services: this.services, composer: this.composer, guidance: this.guidance, approver: this.approver, log, pushState });
    this.handBacks = new HandBacks({ state, dir: () => this.store.dir(), run: (act) => this.run(act), log, open: (id) => this.openSession(id), history: () => this.historyList.list() });
    this.opener = new SessionOpener({
      state,
      store: this.store,
      composer: this.composer,
      reviews: review !== undefined,
      log,
      setReadOnly: (holder) => this.others.setReadOnly(holder),
      resume: () => void this.run((session) => session.continue()),
    });
    this.others = new OtherWriters({ state, store: this.store, live: this.live, opener: () => this.opener, history: () => this.historyList, log, pushState, run: (act) => this.run(act) });
    this.shown = new ShownSession({ state, store: this.store, live: this.live, show: (id) => this.opener.show(id), inUse: (id, holder) => this.others.inUse(id, holder), pushState });
    this.composed = new ComposerGlue({ state, composer: this.composer, live: this.live, run: (act) => this.run(act), open: () => this.liveSession() });
    this.permissions = new PermissionControls({
      services: this.services,
      approver: this.approver,
      log,
      post,
      notice: (id, level, text) => state.postItem(state.vm.notice(id, level, text)),
      live: () => this.live.writable(),
      sandbox: () => state.vm.sandbox,
    });
    this.checkpoints = new CheckpointControls({
      shown: () => this.shown.read(),
      running: () => state.running,
      pendingReviews: () => this.review?.reviewer.pending().length ?? 0,
      write: (act) => this.shown.write(act),
      writer: () => this.store.get().writer,
      sessionDir: () => this.store.dir(),
      show: (id) => {
        // The open is sliced (long sessions): the state is pushed once the session is shown.
        void this.live
          .detach(false)
          .then(() => this.opener.show(id))
          .then(() => this.pushState());
      },
      post,
      log,
    });
    this.demo = new HostDemoModel(ctx.globalState, log);
    this.transcript = new TranscriptRequests(() => ({ vm: state.vm, sessionId: state.shownId }), post);
    this.options = new SessionOptionsBuilder({
      guidancePrefs: () => this.guidance.prefs(),
      log,
      keys,
      approver: this.approver,
      store: () => this.store.get().writer,
      ...(review ? { reviewer: review.reviewer, typing: review.reviewer.typing } : {}),
      services: () => this.services.sessionParts(),
      mode: () => this.permissions.mode,
      extensions: (settingsFiles, client, sandboxPaths) => this.mcp.extensions(settingsFiles, client, sandboxPaths),
      composer: () => this.composer.extension(),
      // A background agent's result: a turn of its own; for a session that has ended, kept until it is opened again.
      deliver: async (info, text, when) => (when?.ended ? this.handBacks.keep(info.id, text, when.agents) : this.live.deliver(info.id, text, (act) => this.run(act))),
    });
    this.snapshots = new PanelSnapshots({
      state,
      firstRun: this.firstRun,
      permissions: this.permissions,
      live: this.live,
      approver: this.approver,
      history: this.historyList,
      review,
      demo: this.demo,
      checkpoints: this.checkpoints,
      composer: this.composer,
      guidance: this.guidance,
      log,
      restoreOnce: () => this.restoreOnce(),
    });
    this.router = {
      log,
      post,
      pushState,
      run: (act) => this.run(act),
      stop: () => this.stop(),
      newSession: () => this.newSession(),
      openSession: (id) => this.openSession(id),
      forkShown: () => this.others.fork(),
      live: this.live,
      services: this.services,
      mcp: this.mcp,
      composer: this.composer,
      composed: this.composed,
      permissions: this.permissions,
      guidance: this.guidance,
      customizations: this.customizations,
      checkpoints: this.checkpoints,
      transcript: this.transcript,
      demo: this.demo,
      firstRun: this.firstRun,
      review,
      agents: (this.agents = new HostAgents({ extensionPath: ctx.extensionUri?.fsPath ?? "", log, keys, post, mode: () => this.permissions.mode, visible: isPanelVisible, review: review?.reviewer })),
    };
    this.disposables.push(this.agents);
    this.disposables.push(
      this.approver.onDidChange((request) => post({ type: "permission", request })),
      this.mcp.onDidChange((servers) => post({ type: "mcpServers", servers })),
      this.mcp.onDidChangeForm((request) => post({ type: "mcpElicitation", request })),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.settingsChanged()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("yoke.permissionMode")) void this.services.startMode().then((mode) => this.permissions.setMode(mode));
        if (e.affectsConfiguration("yoke")) this.settingsChanged();
      }),
      keys.onDidChange(() => this.settingsChanged()),
      // Another window or the CLI may have changed the store while this window was in the background.
      vscode.window.onDidChangeWindowState?.((w) => {
        if (w.focused) this.store.changed();
      }) ?? { dispose() {} },
      this.services,
      this.checkpoints,
      this.services.onDidChange(() => void this.permissions.pushInfo()),
    );
    // --- change review: post the pending-changes list when it changes ---
    if (review) this.disposables.push(postReviewsOnChange(review, post));
  }

  /** Connects the webview; `post` is called with every message for it until `disconnect`. */
  connect(post: (msg: HostToWebview) => void): void {
    this.state.post = (msg) => {
      this.posted.fire(msg);
      post(msg);
    };
    this.store.watch();
  }

  disconnect(): void {
    this.state.post = (msg) => this.posted.fire(msg);
    this.composer.panelDisconnected();
    this.customizations.panelDisconnected();
  }

  get isRunning(): boolean {
    return this.state.running;
  }

  /** A message from the webview (session/router.ts). */
  handle(msg: WebviewToHost): Promise<void> {
    return routeMessage(this.router, msg);
  }

  send(text: string): Promise<void> {
    return this.run((session) => session.send(text));
  }

  /** A message from the panel's input with its chips and typed mentions (session/composer-glue.ts). */
  sendComposed(text: string, chips: readonly ContextItemView[], mode: "send" | "steer" | "queue"): Promise<void> {
    return this.composed.send(text, chips, mode);
  }

  /** Runs the loop on the live session (resuming the shown one first); one run at a time. */
  private async run(act: (session: AgentSession) => Promise<void>): Promise<void> {
    const { state } = this;
    if (state.running) {
      state.post({ type: "error", message: "Yoke is still working on the last message. Wait for it or press Stop." });
      return;
    }
    state.running = true;
    void vscode.commands.executeCommand("setContext", "yoke.running", true);
    try {
      await state.opening;
      await this.demo.ensure(readSettings());
      const session = await this.liveSession();
      state.resumed = false;
      await act(session);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof UserFacingError) && (err as Error)?.name !== "ProviderConfigError") this.log.error(`send failed: ${(err as Error)?.stack ?? message}`);
      state.post({ type: "error", message });
      state.post({ type: "status", state: state.vm.state });
    } finally {
      state.running = false;
      this.live.flushDeltas();
      void vscode.commands.executeCommand("setContext", "yoke.running", false);
      this.live.releaseIdle();
      this.historyList.post(true);
      this.composed.afterRun();
      // A background agent's result kept for this session while it ran (or was not shown).
      setTimeout(() => this.handBacks.deliverShown(), 0);
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

  /** Compacts the live session's context now ("Yoke: Compact Context"; session/live.ts). */
  compact(): Promise<void> {
    return this.live.compact();
  }

  stop(): void {
    this.live.stop();
  }

  newSession(): void {
    const { state } = this;
    state.openGen++;
    void this.live.detach(true);
    state.shownId = null;
    state.vm = new SessionViewModel();
    state.resumed = false;
    this.composer.show(undefined);
    state.remember(undefined);
    void this.pushState();
  }

  async openSession(id: string): Promise<void> {
    if (id === this.state.shownId && !this.state.opening) return void this.pushState();
    const store = this.store.get().view;
    if (!store.exists(id)) {
      this.state.post({ type: "error", message: `Session ${id} no longer exists.` });
      return;
    }
    void this.live.detach(true);
    if ((await this.opener.show(id)) === "superseded") return;
    await this.pushState();
    this.handBacks.deliverShown();
  }

  /** Sessions of this workspace, newest first, for the history list and the quick pick (session/history.ts). */
  readonly history = (fresh = false): SessionItemView[] => this.historyList.list(fresh);

  readonly snapshot = (): Promise<Snapshot> => this.snapshots.take();

  // --- checkpoints (src/host/checkpoints.ts, session/shown.ts): restore / fork per turn, "Yoke: Restore Checkpoint…" ---
  restoreCheckpoint(): Promise<void> {
    void this.restoreOnce();
    return this.checkpoints.restoreCommand();
  }

  dispose(): void {
    this.store.stop();
    if ((this.approver.waitingOwn || this.review?.reviewer.pending().length) && this.live.current) {
      // The window closes (or reloads) while a question is open or a change waits for review: leave it unanswered in
      // the log, so the next window asks it again (the review re-attaches to the editor VS Code restores).
      this.live.abandon();
    } else {
      void this.live.detach(true);
      this.approver.dispose();
    }
    for (const d of this.disposables) d.dispose();
    this.posted.dispose();
    this.mcp.dispose();
    this.demo.dispose();
    // Nothing more is written from this window: another one (or the CLI) may take the sessions over.
    this.store.dispose();
  }

  private readonly pushState = (): Promise<void> => this.snapshots.push();

  /** After a window reload: the last session shown again (session/open.ts), then a background agent's result kept for it. */
  restoreOnce(): Promise<void> {
    return this.opener.restoreOnce().then(() => void setTimeout(() => this.handBacks.deliverShown(), 0));
  }

  private settingsChanged(): void {
    // The next send reopens the session with the new provider, mode or trust.
    if (!this.state.running) void this.live.detach(false);
    void this.pushState();
  }

  private async liveSession(): Promise<AgentSession> {
    const { writer } = this.store.get();
    const shownId = this.state.shownId;
    if (this.live.current) {
      const id = this.live.current.session.id;
      const lock = writer.lock(id);
      if (lock.ok && !writer.changedOnDisk(id)) return this.live.current.session;
      // The CLI or another window continued it meanwhile (or is writing it now): start again from its log.
      this.log.info(`session ${id} was continued elsewhere; reopening it from its log`);
      await this.live.detach(false);
      if (!lock.ok) throw this.others.inUse(id, lock.holder);
    }
    // Settings files may have changed while no watcher event arrived yet: read them afresh.
    await this.services.gate?.reload().catch((err: unknown) => this.log.warn(`reloading the permission settings failed: ${(err as Error)?.message ?? String(err)}`));
    await this.permissions.currentMode();
    const opts = await this.options.build();
    const store = opts.store;
    if (shownId && store.exists(shownId)) {
      // Held while this window writes; released when it is idle again (releaseIdle).
      const lock = writer.lock(shownId);
      if (!lock.ok) throw this.others.inUse(shownId, lock.holder);
    }
    const session = shownId && store.exists(shownId) ? await AgentSession.resume(shownId, opts) : await AgentSession.create(opts);
    this.live.attach(session, opts.providerLabel || opts.provider.model);
    return session;
  }
}
