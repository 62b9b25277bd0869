/**
 * A session of the agent: create or resume it from its event log, its state and listeners.
 * The loop itself lives in turn-loop.ts, model-turn.ts and tool-call.ts, over one LoopContext;
 * everything else that acts on a session (permissions, hooks, lessons, breakers…) is an Extension.
 */
import { hooksText } from "../hooks/frontmatter";
import type { Compaction, CompactionOutcome, ContextMeter } from "../compaction/compactor";
import { sessionCompaction } from "../compaction/session";
import type { LoopState, NewEvent, SessionEvent } from "../events";
import type { ChildSession, ChildSessionSpec, Extension } from "../extensions/types";
import { cacheWatchExtension } from "../cost";
import { deferredToolsExtension } from "../deferred-tools";
import { claudeHooksExtension } from "../hooks/loop-adapter";
import type { HookGroupConfig } from "../permissions/types";
import type { Effort } from "../providers/types";
import { permissionExtension } from "../permissions/extension";
import { silentLogger, type Disposable, type Logger, type SessionServices } from "../ports";
import { NOT_RUN_TEXT, projectConversation } from "../session/projection";
import { SessionLog, newSessionId } from "../session/session-log";
import { createLoopContext, type LoopContext } from "./context";
import type { AgentSessionOptions } from "./options";
import { buildSystemPrompt } from "./system-prompt";
import { childOptions } from "./child-options";
import { newSystemPrompt, parentOf, servicesFor, sessionStartEvent } from "./session-start";
import { Listeners, serialApprover } from "./listeners";
import { submitPrompt } from "./prompt";
import { closeUnanswered, leftoverCalls, recordInterrupted, runTurns } from "./turn-loop";
import type { AgentSessionApi, Approver, PermissionMode, StreamDelta } from "./types";
import type { ToolDefinition } from "../tools/types";

export type { AgentSessionOptions } from "./options";

const DEFAULT_MAX_TURNS = 50;
const DEFAULT_THINKING_IDLE_MS = 120_000;

export class AgentSession implements AgentSessionApi {
  private readonly eventListeners = new Listeners<SessionEvent>();
  private readonly deltaListeners = new Listeners<StreamDelta>();
  private current: AbortController | undefined;
  /** The message being expanded (prompt.expand), for Stop. */
  private expanding: AbortController | undefined;
  private running: Promise<void> | undefined;
  private loopState: LoopState = "idle";
  private mode: PermissionMode;
  private readonly log: Logger;
  private readonly ctx: LoopContext;
  /** Hook groups run with the session's own for a while (a prompt file's agent's: SessionInfo.scopeHooks). */
  private scopedHooks: HookGroupConfig[] = [];
  /** Hook groups run with the session's own for the rest of the session, by key (a loaded skill's: SessionInfo.addHooks). */
  private readonly sessionHooks = new Map<string, HookGroupConfig[]>();
  /** What each key's set runs (hooksText), to tell the same set from a changed one. */
  private readonly sessionHookPrints = new Map<string, string>();
  /** The reasoning effort of this session's requests now (SessionInfo.useEffort; a child starts with its parent's). */
  private effort: Effort | undefined;
  /** What the host gave this session. */
  readonly services: SessionServices;
  /** Context from session.start, given to the model with the next user message. */
  private pendingContext: string[] = [];
  /** Context compaction (absent when turned off). */
  private readonly compaction: Compaction | undefined;
  /** The approver, asked one question at a time (parallel calls, sub-agents). */
  private readonly approver: Approver;
  /** A sub-agent sharing its parent's command runner: ending it leaves the parent's commands alone. */
  private sharesCommands = false;
  /** The system prompt sub-agents build on: the user's session's, before any sub-agent instructions. */
  private baseSystem: string;
  /** The extensions every session of these options sets up itself (the permission engine, hooks, compaction). */
  private builtinNames: string[] = [];

  private constructor(
    private readonly sessionLog: SessionLog,
    private readonly opts: AgentSessionOptions,
    services: SessionServices,
    system: string,
    trusted: boolean,
  ) {
    this.mode = opts.permissionMode ?? "default";
    this.effort = opts.effort;
    this.services = services;
    this.log = opts.log ?? services.log ?? silentLogger;
    this.approver = serialApprover(opts.approver);
    this.baseSystem = system;
    this.ctx = createLoopContext({
      sessionLog,
      system,
      trusted,
      provider: opts.provider,
      tools: opts.tools,
      services,
      approver: this.approver,
      log: this.log,
      limits: {
        maxTurns: opts.maxTurns ?? DEFAULT_MAX_TURNS,
        thinkingIdleMs: opts.timeouts?.thinkingIdleMs ?? DEFAULT_THINKING_IDLE_MS,
        waitingUserMs: opts.timeouts?.waitingUserMs,
        retry: opts.retry,
      },
      mode: () => this.mode,
      append: (e) => this.append(e),
      setState: (state, detail) => this.setState(state, detail),
      emitDelta: (d) => this.emitDelta(d),
      onContextOverflow: async (signal) => (await this.compaction?.compact("overflow", signal))?.status === "compacted",
      ...(parentOf(opts, sessionLog) ? { parentId: parentOf(opts, sessionLog) } : {}),
      ...(opts.parent?.agentType ? { agentType: opts.parent.agentType } : {}),
      spawn: (spec) => this.spawn(spec),
      ...(opts.hooks
        ? {
            scopeHooks: (groups: readonly HookGroupConfig[] | undefined) => void (this.scopedHooks = groups ? [...groups] : []),
            // The set of the key's latest invocation holds (the same set again changes nothing).
            addHooks: (key: string, groups: readonly HookGroupConfig[]) => {
              const now = hooksText(groups);
              if (this.sessionHookPrints.get(key) === now) return false;
              this.sessionHooks.set(key, [...groups]);
              this.sessionHookPrints.set(key, now);
              return true;
            },
          }
        : {}),
      effort: () => this.effort,
      useEffort: (effort) => void (this.effort = effort),
    });
    this.compaction = opts.compaction === false ? undefined : sessionCompaction(() => this.ctx, { store: opts.store, model: opts.provider.model, system }, opts.compaction ?? {});
  }

  /** Starts a new session and writes its session_start event. */
  static async create(opts: AgentSessionOptions): Promise<AgentSession> {
    const now = opts.now ?? (() => new Date());
    const id = newSessionId(now());
    const trusted = opts.trusted ?? true;
    const services = servicesFor(opts, id);
    const system = opts.systemPrompt ?? newSystemPrompt(opts, services, trusted);
    const session = new AgentSession(SessionLog.create(opts.store, id, now), opts, services, system, trusted);
    session.append(sessionStartEvent({ id, opts, services, mode: session.mode, system, trusted }));
    session.append({ type: "status", state: "idle" });
    session.sessionLog.sync();
    await session.start("startup");
    return session;
  }

  /**
   * Reopens a session from its log. A tool call that was running when the process died is
   * recorded as interrupted (never re-run); calls that had not started yet run on continue(),
   * through the permission gate again (so a pending question is asked again).
   */
  static async resume(id: string, opts: AgentSessionOptions): Promise<AgentSession> {
    const now = opts.now ?? (() => new Date());
    const { log, parsed } = SessionLog.open(opts.store, id, now);
    const start = log.events.find((e) => e.type === "session_start");
    if (!start || start.type !== "session_start") throw new Error(`session ${id} has no session_start event: the log is damaged`);
    const trusted = opts.trusted ?? start.trusted;
    const services = servicesFor(opts, id);
    const system = start.systemPrompt ?? buildSystemPrompt({ workspaceRoot: services.fs.root, platform: opts.platform ?? "unknown", trusted, permissionMode: start.permissionMode });
    const session = new AgentSession(log, { ...opts, permissionMode: opts.permissionMode ?? (start.permissionMode as PermissionMode) }, services, system, trusted);
    if (parsed.tornTail || parsed.invalidLines.length > 0) {
      session.log.warn(`session ${id}: skipped ${parsed.invalidLines.length + (parsed.tornTail ? 1 : 0)} damaged line(s) of the log`);
    }
    recordInterrupted(session.ctx);
    const last = [...log.events].reverse().find((e) => e.type === "status");
    if (last?.type === "status" && last.state !== "idle" && last.state !== "done") {
      session.append({ type: "status", state: "idle", detail: `resumed (was ${last.state})` });
    }
    session.sessionLog.sync();
    await session.start("resume");
    return session;
  }

  get id(): string {
    return this.sessionLog.id;
  }

  get state(): LoopState {
    return this.loopState;
  }

  get permissionMode(): PermissionMode {
    return this.mode;
  }

  /** Changes the mode from now on (also for a run in progress); the change is an event. */
  setPermissionMode(mode: PermissionMode, by: "user" | "host" = "user"): void {
    if (mode === this.mode) return;
    const from = this.mode;
    this.mode = mode;
    this.append({ type: "mode_change", mode, from, by });
  }

  events(): readonly SessionEvent[] {
    return this.sessionLog.events;
  }

  /** A tool of the session as it is now: built-in, or one an extension added (an MCP server's, `task`). */
  tool(name: string): ToolDefinition | undefined {
    return this.ctx.registry.get(name);
  }

  /**
   * Appends an event from outside the loop (the host): a conversation restore's `rewind`, and the
   * like. It is recorded, synced and seen by the listeners as the loop's own events are. Refused
   * while a turn runs unless `whileRunning` (an event the loop must not see mid-turn, such as a
   * rewind, would change the conversation under it).
   */
  appendFromHost(event: NewEvent, opts: { whileRunning?: boolean } = {}): SessionEvent {
    if (this.running && !opts.whileRunning) throw new Error("the agent is working: stop it (or wait until it is done) first");
    const stored = this.append(event);
    this.sessionLog.sync();
    return stored;
  }

  onEvent(listener: (event: SessionEvent) => void): Disposable {
    return this.eventListeners.add(listener);
  }

  onDelta(listener: (delta: StreamDelta) => void): Disposable {
    return this.deltaListeners.add(listener);
  }

  async send(text: string): Promise<void> {
    if (this.running) throw new Error("the agent is still working on the previous message: stop it first");
    // Calls left unstarted by a crash are superseded by the new message: record that they did not run.
    closeUnanswered(this.ctx, NOT_RUN_TEXT);
    // Stop reaches the expansion too (a forked command's sub-agent runs during it).
    const expanding = new AbortController();
    this.expanding = expanding;
    let sent: boolean;
    try {
      sent = await submitPrompt(this.ctx, text, this.pendingContext, { signal: expanding.signal });
    } finally {
      if (this.expanding === expanding) this.expanding = undefined;
    }
    if (!sent) return;
    this.pendingContext = [];
    await this.run(false);
  }

  async continue(): Promise<void> {
    if (this.running) throw new Error("the agent is already running");
    const conversation = projectConversation(this.sessionLog.events);
    const pending = leftoverCalls(this.ctx);
    const last = conversation[conversation.length - 1];
    if (pending.length === 0 && (!last || last.role === "assistant")) {
      this.setState("done", "nothing to continue: the agent had finished");
      return;
    }
    await this.run(true);
  }

  /**
   * Compacts the context now ("Yoke: Compact Context", `yoke compact`): appends a compaction
   * event unless a guard or a handler of the compaction point refuses. Not while the agent runs.
   */
  async compact(opts: { dryRun?: boolean } = {}): Promise<CompactionOutcome> {
    if (!this.compaction) return { status: "refused", reason: "compaction is turned off for this session" };
    if (this.running) return { status: "refused", reason: "the agent is working: wait until it is done, or stop it, then compact" };
    const out = await this.compaction.compact("manual", new AbortController().signal, opts);
    this.sessionLog.sync();
    return out;
  }

  /** The fill of the model's context window and what a compaction would leave. */
  contextMeter(): ContextMeter | undefined {
    return this.compaction?.meter();
  }

  cancel(): void {
    this.expanding?.abort(new DOMException("cancelled by the user", "AbortError"));
    this.current?.abort(new DOMException("cancelled by the user", "AbortError"));
  }

  /** Waits for the running loop, if any, to finish. */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Ends the session: extensions see session.end, running commands are stopped. */
  async end(reason = "other"): Promise<void> {
    this.cancel();
    await this.idle();
    if (!this.sharesCommands) await this.services.commands?.killAll();
    const outcomes = await this.ctx.extensions.run("session.end", { reason }, { signal: new AbortController().signal }).catch((err: unknown) => {
      this.log.error("session.end failed", err);
      return [];
    });
    // Work that outlives the session (background agents, their own sessions): the extensions whose
    // tools it may use are torn down when it settles, not now.
    const outlive = outcomes.flatMap((o) => (o.result?.outlive ? [o.result.outlive] : []));
    if (!outlive.length) return this.ctx.extensions.dispose();
    void Promise.allSettled(outlive).then(() => this.ctx.extensions.dispose());
  }

  /** The hook groups run with the settings' own now: the session's (loaded skills', in load order), then the run's. */
  private extraHooks(): HookGroupConfig[] {
    return this.sessionHooks.size ? [...[...this.sessionHooks.values()].flat(), ...this.scopedHooks] : this.scopedHooks;
  }

  /** A sub-agent (SessionInfo.spawn): this session's options, its own log, linked by parentId. */
  private async spawn(spec: ChildSessionSpec): Promise<ChildSession> {
    const child = await AgentSession.create(
      childOptions(spec, {
        id: this.id,
        opts: this.opts,
        extensions: this.ctx.extensions,
        builtinNames: this.builtinNames,
        approver: this.approver,
        mode: this.mode,
        trusted: this.ctx.info.trusted,
        baseSystem: this.baseSystem,
        root: this.services.fs.root,
        // What is scoped to the run now (a prompt file's agent's hooks) holds for the sub-agents it starts, as do the session's loaded skills' hooks.
        scopedHooks: this.extraHooks(),
        effort: this.effort,
      }),
    );
    // A child in a workspace of its own (isolation: worktree) names that root to its own sub-agents too.
    child.baseSystem = spec.workspace ? this.baseSystem.split(this.services.fs.root).join(spec.workspace.root) : this.baseSystem;
    child.sharesCommands = child.services.commands !== undefined && child.services.commands === this.services.commands;
    return child;
  }

  private async start(source: "startup" | "resume"): Promise<void> {
    const builtin: Extension[] = [permissionExtension({ gate: this.opts.gate, restrictedHint: this.opts.restrictedHint })];
    // The engine reads extraHooks at each event: hook groups scoped for a while (SessionInfo.scopeHooks) run with the settings' own.
    const scoped = () => this.extraHooks();
    if (this.opts.hooks)
      builtin.push(
        claudeHooksExtension(
          this.opts.hooks({
            id: this.id,
            get extraHooks() {
              return scoped();
            },
          }),
        ),
      );
    if (this.compaction) builtin.push(this.compaction.extension);
    builtin.push(cacheWatchExtension());
    // Last, so it lists what is left of every tool the others added once `--tools` has trimmed
    // them: the deferred tools' loader (load_tools). A second trim checks every name and drops the
    // loader when `--tools` did not name it.
    const registry = this.ctx.registry;
    const last = deferredToolsExtension();
    this.builtinNames = [...builtin, last].map((e) => e.name);
    try {
      await this.ctx.extensions.install([...builtin, ...(this.opts.extensions ?? [])]);
      if (this.opts.onlyTools) registry.keepOnly(this.opts.onlyTools, { later: true });
      await this.ctx.extensions.install([last]);
      if (this.opts.onlyTools) registry.keepOnly(this.opts.onlyTools);
    } catch (err) {
      // A refused `--tools` (or an extension that failed): what the installed ones started (MCP
      // servers) stops, so the process can end.
      this.ctx.extensions.dispose();
      throw err;
    }
    for (const o of await this.ctx.extensions.run("session.start", { source }, { signal: new AbortController().signal })) {
      this.pendingContext.push(...(o.result?.context ?? []));
    }
  }

  private run(leftovers: boolean): Promise<void> {
    const controller = new AbortController();
    this.current = controller;
    this.running = runTurns(this.ctx, controller.signal, leftovers).finally(() => {
      this.sessionLog.sync();
      this.running = undefined;
      this.current = undefined;
    });
    return this.running;
  }

  private append(event: NewEvent): SessionEvent {
    const stored = this.sessionLog.append(event);
    this.ctx?.extensions.notify(stored);
    this.eventListeners.fire(stored, (err) => this.log.error("event listener failed", err));
    return stored;
  }

  private setState(state: LoopState, detail?: string): void {
    this.loopState = state;
    this.append({ type: "status", state, ...(detail ? { detail } : {}) });
  }

  private emitDelta(delta: StreamDelta): void {
    this.deltaListeners.fire(delta, (err) => this.log.error("delta listener failed", err));
  }
}
