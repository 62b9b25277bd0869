// Owns the panel's state: the session shown, the live AgentSession (created lazily on first send),
// the view model projected from its events, and the messages sent to the webview.
import { join } from "node:path";
import * as vscode from "vscode";
import { AgentSession } from "../core/loop/agent-session";
import type { Disposable, SessionStore } from "../core/ports";
import { summarizeSession, type SessionSummary } from "../core/session/projection";
import { parseLog } from "../core/session/session-log";
import { createBuiltinTools } from "../core/tools/builtin";
import { resumableCalls } from "../core/tools/resumable";
import { createFileSessionStore } from "../node/session-store";
import type { PermissionMode } from "../core/loop/types";
import { PROTOCOL_VERSION, type FirstRunView, type HostInfoView, type HostToWebview, type SessionItemView, type Snapshot, type ViewState, type WebviewToHost } from "../protocol/messages";
import { HostServices } from "./host-services";
import { PermissionControls } from "./permission-controls";
import { probeLocalServers } from "./local-servers";
import { PanelApprover } from "./panel-approver";
import { SessionViewModel } from "./panel/view-model";
import { ApiKeys, needsKey, readSettings, writeSetting, type HostSettings } from "./settings";
import { SessionOptionsBuilder, UserFacingError } from "./session-options";
import type { ReviewFeature } from "./review";

const LAST_SESSION_KEY = "yoke.lastSession";
/** Items sent in a snapshot; older ones are left out of long sessions. */
const MAX_SNAPSHOT_ITEMS = 400;
const MAX_HISTORY = 30;
const DELTA_FLUSH_MS = 16;

export class SessionController implements vscode.Disposable {
  readonly approver: PanelApprover;
  private store: SessionStore | undefined;
  private readonly options: SessionOptionsBuilder;
  private live: { session: AgentSession; subs: Disposable[] } | undefined;
  private shownId: string | null = null;
  private vm = new SessionViewModel();
  private resumed = false;
  private running = false;
  private restored = false;
  private streaming = { text: "", reasoning: "" };
  private deltaBuf = { text: "", reasoning: "" };
  private deltaTimer: ReturnType<typeof setTimeout> | undefined;
  private servers: FirstRunView["servers"] | undefined;
  private readonly summaries = new Map<string, SessionSummary>();
  private probing: Promise<void> | undefined;
  private post: (msg: HostToWebview) => void = () => {};
  private readonly disposables: vscode.Disposable[] = [];
  private readonly services: HostServices;
  private readonly permissions: PermissionControls;

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
    this.permissions = new PermissionControls({
      services: this.services,
      approver: this.approver,
      log,
      post: (msg) => this.post(msg),
      notice: (id, level, text) => this.post({ type: "event", view: this.vm.notice(id, level, text) }),
      live: () => this.live?.session,
      sandbox: () => this.vm.sandbox,
    });
    this.options = new SessionOptionsBuilder({
      log,
      keys,
      approver: this.approver,
      store: () => this.sessionStore(),
      ...(review ? { reviewer: review.reviewer } : {}),
      services: () => this.services.sessionParts(),
      mode: () => this.permissions.mode,
    });
    this.disposables.push(
      this.approver.onDidChange((request) => this.post({ type: "permission", request })),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.settingsChanged()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("yoke.permissionMode")) void this.services.startMode().then((mode) => this.permissions.setMode(mode));
        if (e.affectsConfiguration("yoke")) this.settingsChanged();
      }),
      keys.onDidChange(() => this.settingsChanged()),
      this.services,
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
    this.post = post;
  }

  disconnect(): void {
    this.post = () => {};
  }

  get isRunning(): boolean {
    return this.running;
  }

  async handle(msg: WebviewToHost): Promise<void> {
    switch (msg.type) {
      case "ready":
        if (msg.protocol !== PROTOCOL_VERSION) this.log.warn(`webview speaks protocol ${msg.protocol}, host ${PROTOCOL_VERSION}`);
        return this.pushState();
      case "prompt":
        return this.send(msg.text);
      case "continue":
        return this.run((session) => session.continue());
      case "stop":
        return this.stop();
      case "newSession":
        return this.newSession();
      case "openSession":
        return this.openSession(msg.id);
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
      case "reviewAction":
        return this.reviewAction(msg);
      default:
        msg satisfies never;
    }
  }

  send(text: string): Promise<void> {
    return this.run((session) => session.send(text));
  }

  /** Runs the loop on the live session (resuming the shown one first); one run at a time. */
  private async run(act: (session: AgentSession) => Promise<void>): Promise<void> {
    if (this.running) {
      this.post({ type: "error", message: "Yoke is still working on the last message. Wait for it or press Stop." });
      return;
    }
    this.running = true;
    void vscode.commands.executeCommand("setContext", "yoke.running", true);
    try {
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
      this.post({ type: "history", sessions: this.history() });
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

  stop(): void {
    this.approver.cancel();
    this.live?.session.cancel();
  }

  newSession(): void {
    this.detach(true);
    this.shownId = null;
    this.vm = new SessionViewModel();
    this.resumed = false;
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, undefined);
    void this.pushState();
  }

  openSession(id: string): void {
    if (id === this.shownId) return void this.pushState();
    const store = this.sessionStore();
    if (!store.exists(id)) {
      this.post({ type: "error", message: `Session ${id} no longer exists.` });
      return;
    }
    this.detach(true);
    this.showFromLog(id);
    void this.pushState();
  }

  /** Sessions of this workspace, newest first, for the history list and the quick pick. */
  history(fresh = false): SessionItemView[] {
    const store = this.sessionStore();
    const out: SessionItemView[] = [];
    if (fresh) this.summaries.clear();
    for (const id of store.list().slice(0, MAX_HISTORY)) {
      try {
        // Logs other than the shown one change only if another process writes them: cached.
        let s = id === this.shownId ? undefined : this.summaries.get(id);
        if (!s) {
          s = summarizeSession(parseLog(store.read(id)).events, id);
          this.summaries.set(id, s);
        }
        const status: ViewState = id === this.shownId && this.running ? this.vm.state : s.status;
        out.push({ id, title: s.title, status, updatedAt: s.updatedAt, modelLabel: s.label ?? s.model, active: id === this.shownId });
      } catch (err) {
        this.log.warn(`session ${id}: cannot be listed: ${(err as Error).message}`);
      }
    }
    return out;
  }

  async snapshot(): Promise<Snapshot> {
    this.restoreOnce();
    const s = readSettings();
    const firstRun = await this.firstRun(s);
    return this.buildSnapshot(s, firstRun, await this.permissions.info().catch(() => undefined));
  }

  /** Synchronous, so no event can slip in between reading the state and posting it. */
  private buildSnapshot(s: HostSettings, firstRun: FirstRunView | null, hostInfo?: HostInfoView): Snapshot {
    const { items, omitted } = this.vm.items(MAX_SNAPSHOT_ITEMS);
    const firstUser = items.find((i) => i.kind === "user");
    const streaming = this.running && (this.streaming.text || this.streaming.reasoning) ? { ...this.streaming } : undefined;
    return {
      protocol: PROTOCOL_VERSION,
      sessionId: this.shownId,
      title: firstUser?.kind === "user" ? firstUser.text.slice(0, 80) : "New session",
      state: this.vm.state,
      resumed: this.resumed,
      items,
      omitted,
      ...(streaming ? { streaming } : {}),
      pending: this.approver.current,
      usage: this.vm.usage,
      modelLabel: this.shownId && this.vm.modelLabel ? this.vm.modelLabel : firstRun ? "no model" : s.demoLabel || s.model || s.provider,
      mode: hostInfo?.mode ?? (this.shownId ? this.vm.mode : s.permissionMode),
      restricted: !vscode.workspace.isTrusted,
      firstRun,
      history: this.history(),
      reviews: this.review?.list() ?? [],
      ...(hostInfo ? { hostInfo } : {}),
    };
  }

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
  }

  private async pushState(): Promise<void> {
    try {
      this.restoreOnce();
      const s = readSettings();
      const firstRun = await this.firstRun(s);
      const hostInfo = await this.permissions.info().catch((err: unknown) => {
        this.log.warn(`cannot build the permission/sandbox info: ${(err as Error)?.message ?? String(err)}`);
        return undefined;
      });
      this.post({ type: "state", snapshot: this.buildSnapshot(s, firstRun, hostInfo) });
    } catch (err) {
      this.log.error(`cannot build the panel state: ${(err as Error).stack ?? String(err)}`);
      this.post({ type: "error", message: `Yoke could not load its state: ${(err as Error).message}` });
    }
  }

  /** After a window reload the panel shows the last active session, read-only until the user sends. */
  private restoreOnce(): void {
    if (this.restored) return;
    this.restored = true;
    const id = this.ctx.workspaceState.get<string>(LAST_SESSION_KEY);
    if (id && !this.shownId && this.sessionStore().exists(id)) {
      const pending = this.showFromLog(id);
      // A question was open, or a change waited for review, when the window closed or crashed: ask
      // again without the user doing anything (the core re-checks an unstarted call through the
      // gate, and puts a pending review up again; its decision becomes that call's result).
      if (pending) {
        this.log.info(`session ${id}: ${pending === "review" ? "a change was waiting for review; resuming to show it again" : "a permission question was open; resuming to ask it again"}`);
        queueMicrotask(() => void this.run((session) => session.continue()));
      }
    }
  }

  /** Shows a session from its log; says what the log ends with that nobody answered: a permission question or a review. */
  private showFromLog(id: string): "question" | "review" | undefined {
    const parsed = parseLog(this.sessionStore().read(id));
    this.vm = new SessionViewModel(parsed.events);
    const pending = this.vm.pending !== null ? "question" : this.review && resumableCalls(parsed.events, createBuiltinTools()).length ? "review" : undefined;
    this.vm.markInterrupted();
    this.shownId = id;
    this.resumed = true;
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, id);
    return pending;
  }

  private async firstRun(s: HostSettings): Promise<FirstRunView | null> {
    const hasKey = async () => Boolean(await this.keys.get(s.provider));
    const configured = !s.explicit
      ? await hasKey()
      : s.provider === "openai-compatible"
        ? Boolean(s.baseUrl) // a local server needs no key, but it needs its URL
        : !needsKey(s) || (await hasKey());
    if (configured) return null;
    if (!this.probing) {
      this.probing = probeLocalServers().then((servers) => {
        this.servers = servers;
        this.log.info(`local servers found: ${servers.map((x) => `${x.name} (${x.model})`).join(", ") || "none"}`);
        this.post({ type: "firstRun", info: { servers, probing: false } });
      });
    }
    return { servers: this.servers ?? [], probing: this.servers === undefined };
  }

  private settingsChanged(): void {
    // The next send reopens the session with the new provider, mode or trust.
    if (!this.running) this.detach(false);
    void this.pushState();
  }

  private sessionDir(): string {
    const base = this.ctx.storageUri ?? this.ctx.globalStorageUri;
    return join(base.fsPath, "sessions");
  }

  private sessionStore(): SessionStore {
    this.store ??= createFileSessionStore(this.sessionDir());
    return this.store as SessionStore;
  }

  private async liveSession(): Promise<AgentSession> {
    if (this.live) return this.live.session;
    // Settings files may have changed while no watcher event arrived yet: read them afresh.
    await this.services.gate?.reload().catch((err: unknown) => this.log.warn(`reloading the permission settings failed: ${(err as Error)?.message ?? String(err)}`));
    await this.permissions.currentMode();
    const opts = await this.options.build();
    const store = opts.store;
    const session =
      this.shownId && store.exists(this.shownId) ? await AgentSession.resume(this.shownId, opts) : await AgentSession.create(opts);
    this.attach(session);
    return session;
  }

  private attach(session: AgentSession): void {
    this.shownId = session.id;
    void this.ctx.workspaceState.update(LAST_SESSION_KEY, session.id);
    this.vm = new SessionViewModel(session.events());
    this.streaming = { text: "", reasoning: "" };
    const subs = [session.onEvent((e) => this.onEvent(e)), session.onDelta((d) => this.onDelta(d.type, d.text))];
    this.live = { session, subs };
    void this.pushState();
  }

  /**
   * Drops the live session instance (keeping the one shown); `cancel` stops a run first. The
   * session is ended: SessionEnd hooks run and its background commands are stopped.
   */
  private detach(cancel: boolean): void {
    if (!this.live) return;
    if (cancel) this.stop();
    const { session } = this.live;
    for (const s of this.live.subs) s.dispose();
    this.live = undefined;
    session.end(cancel ? "clear" : "other").then(
      () => this.services.release(session.id),
      (err: unknown) => this.log.warn(`ending session ${session.id} failed: ${(err as Error)?.message ?? String(err)}`),
    );
    this.streaming = { text: "", reasoning: "" };
    this.deltaBuf = { text: "", reasoning: "" };
  }

  private onEvent(e: Parameters<SessionViewModel["apply"]>[0]): void {
    this.flushDeltas();
    if (e.type === "assistant_message" || e.type === "error" || e.type === "status") this.streaming = { text: "", reasoning: "" };
    for (const view of this.vm.apply(e)) this.post({ type: "event", view });
    if (e.type === "status") this.post({ type: "status", state: e.state, ...(e.detail ? { detail: e.detail } : {}) });
    else if (e.type === "usage") this.post({ type: "usage", usage: this.vm.usage });
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
