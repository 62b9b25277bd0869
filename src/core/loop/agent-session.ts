/**
 * A session of the agent: create or resume it from its event log, its state and listeners.
 * The loop itself lives in turn-loop.ts, model-turn.ts and tool-call.ts, over one LoopContext;
 * everything else that acts on a session (permissions, hooks, lessons, breakers…) is an Extension.
 */
import type { LoopState, NewEvent, SessionEvent } from "../events";
import { ExtensionRegistry } from "../extensions/registry";
import type { Extension, SessionInfo } from "../extensions/types";
import { claudeHooksExtension } from "../hooks/loop-adapter";
import type { HookRunner } from "../hooks/run-hooks";
import { permissionExtension } from "../permissions/extension";
import { silentLogger, type Disposable, type Logger, type SessionServices, type SessionServicesFactory, type SessionStore } from "../ports";
import type { Provider } from "../providers/types";
import { NOT_RUN_TEXT, projectConversation, unansweredToolCalls } from "../session/projection";
import { SessionLog, newSessionId } from "../session/session-log";
import { ToolRegistry } from "../tools/registry";
import type { ToolContext, ToolDefinition } from "../tools/types";
import type { LoopContext, LoopLimits } from "./context";
import { buildSystemPrompt } from "./system-prompt";
import { closeUnanswered, runTurns } from "./turn-loop";
import type { AgentSessionApi, Approver, PermissionGate, PermissionMode, StreamDelta } from "./types";

export interface AgentSessionOptions {
  store: SessionStore;
  provider: Provider;
  /** Shown instead of the model name (e.g. "demo model"). */
  providerLabel?: string;
  /** Recorded in the log so a resume can reconnect (never a key). */
  baseUrl?: string;
  tools: ToolDefinition[];
  /** What the host gives the session (file system, search, commands, review…), or a factory per session. */
  services: SessionServices | SessionServicesFactory;
  approver: Approver;
  /** The permission engine; without one, the mode's defaults decide. */
  gate?: PermissionGate;
  /** Claude Code-compatible hooks (commands and in-process handlers), per session. */
  hooks?: (session: { id: string }) => HookRunner;
  /** More extensions, set up for each session after the permission engine and the hooks. */
  extensions?: Extension[];
  permissionMode?: PermissionMode;
  /** false = Restricted Mode: tools that write or run are refused. */
  trusted?: boolean;
  /** Overrides the built system prompt (tests, embedders). */
  systemPrompt?: string;
  instructions?: Array<{ source: string; text: string }>;
  platform?: string;
  log?: Logger;
  /** Assistant turns per send() before the loop stops (default 50). */
  maxTurns?: number;
  timeouts?: {
    /** No event from the provider for this long aborts the request (default 120 s). */
    thinkingIdleMs?: number;
    /** An unanswered permission question is denied after this long (default: wait forever). */
    waitingUserMs?: number;
  };
  retry?: LoopLimits["retry"];
  now?: () => Date;
}

const DEFAULT_MAX_TURNS = 50;
const DEFAULT_THINKING_IDLE_MS = 120_000;

export class AgentSession implements AgentSessionApi {
  private readonly eventListeners = new Set<(e: SessionEvent) => void>();
  private readonly deltaListeners = new Set<(d: StreamDelta) => void>();
  private current: AbortController | undefined;
  private running: Promise<void> | undefined;
  private loopState: LoopState = "idle";
  private mode: PermissionMode;
  private readonly log: Logger;
  private readonly ctx: LoopContext;
  /** What the host gave this session. */
  readonly services: SessionServices;
  /** Context from session.start, given to the model with the next user message. */
  private pendingContext: string[] = [];

  private constructor(
    private readonly sessionLog: SessionLog,
    private readonly opts: AgentSessionOptions,
    services: SessionServices,
    system: string,
    trusted: boolean,
  ) {
    this.mode = opts.permissionMode ?? "default";
    this.services = services;
    this.log = opts.log ?? services.log ?? silentLogger;
    const session = this;
    const info: SessionInfo = {
      id: sessionLog.id,
      get mode() {
        return session.mode;
      },
      trusted,
      provider: opts.provider.id,
      model: opts.provider.model,
      events: () => sessionLog.events,
      services: this.services,
    };
    this.ctx = {
      id: sessionLog.id,
      sessionLog,
      system,
      provider: opts.provider,
      registry: new ToolRegistry(opts.tools),
      services: this.services,
      extensions: new ExtensionRegistry(info, (e) => this.append(e), this.log),
      approver: opts.approver,
      log: this.log,
      readState: new Map() as ToolContext["readState"],
      limits: {
        maxTurns: opts.maxTurns ?? DEFAULT_MAX_TURNS,
        thinkingIdleMs: opts.timeouts?.thinkingIdleMs ?? DEFAULT_THINKING_IDLE_MS,
        waitingUserMs: opts.timeouts?.waitingUserMs,
        retry: opts.retry,
      },
      info,
      mode: () => this.mode,
      append: (e) => this.append(e),
      setState: (state, detail) => this.setState(state, detail),
      emitDelta: (d) => this.emitDelta(d),
    };
  }

  /** Starts a new session and writes its session_start event. */
  static async create(opts: AgentSessionOptions): Promise<AgentSession> {
    const now = opts.now ?? (() => new Date());
    const id = newSessionId(now());
    const trusted = opts.trusted ?? true;
    const services = servicesFor(opts, id);
    const system =
      opts.systemPrompt ??
      buildSystemPrompt({ workspaceRoot: services.fs.root, platform: opts.platform ?? "unknown", trusted, permissionMode: opts.permissionMode ?? "default", instructions: opts.instructions });
    const session = new AgentSession(SessionLog.create(opts.store, id, now), opts, services, system, trusted);
    const commands = services.commands;
    session.append({
      type: "session_start",
      sessionId: id,
      cwd: services.fs.root,
      provider: opts.provider.id,
      model: opts.provider.model,
      baseUrl: opts.baseUrl,
      permissionMode: session.mode,
      label: opts.providerLabel,
      systemPrompt: system,
      trusted,
      ...(commands
        ? { sandbox: commands.info.sandbox, sandboxWarning: commands.info.warning }
        : services.commandsUnavailable
          ? { sandbox: "unavailable", sandboxWarning: services.commandsUnavailable }
          : {}),
      version: 1,
    });
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
    for (const call of unansweredToolCalls(log.events)) {
      if (!call.started) continue;
      session.append({
        type: "tool_result",
        callId: call.id,
        name: call.name,
        output: `The session was interrupted while ${call.name} was running, so its result is unknown. It was not run again: check its effects (e.g. read the files it would change) before retrying.`,
        isError: true,
        durationMs: 0,
        interrupted: true,
      });
    }
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

  onEvent(listener: (event: SessionEvent) => void): Disposable {
    this.eventListeners.add(listener);
    return { dispose: () => this.eventListeners.delete(listener) };
  }

  onDelta(listener: (delta: StreamDelta) => void): Disposable {
    this.deltaListeners.add(listener);
    return { dispose: () => this.deltaListeners.delete(listener) };
  }

  async send(text: string): Promise<void> {
    if (this.running) throw new Error("the agent is still working on the previous message: stop it first");
    // Calls left unstarted by a crash are superseded by the new message: record that they did not run.
    closeUnanswered(this.ctx, NOT_RUN_TEXT);
    const context = [...this.pendingContext];
    const signal = new AbortController().signal;
    for (const o of await this.ctx.extensions.run("prompt.submit", { text }, { signal })) {
      if (o.result?.block !== undefined) {
        this.append({ type: "extension", name: o.extension, point: "prompt.submit", outcome: "blocked", detail: o.result.block });
        this.append({ type: "error", message: `Your message was not sent: ${o.result.block}`, code: "hook_blocked" });
        this.setState("idle", "prompt blocked");
        this.sessionLog.sync();
        return;
      }
      context.push(...(o.result?.context ?? []));
    }
    this.pendingContext = [];
    const joined = context.filter((c) => c.trim()).join("\n\n");
    this.append({ type: "user_message", text, ...(joined ? { context: joined } : {}) });
    this.sessionLog.sync();
    await this.run(false);
  }

  async continue(): Promise<void> {
    if (this.running) throw new Error("the agent is already running");
    const conversation = projectConversation(this.sessionLog.events);
    const pending = unansweredToolCalls(this.sessionLog.events).filter((c) => !c.started);
    const last = conversation[conversation.length - 1];
    if (pending.length === 0 && (!last || last.role === "assistant")) {
      this.setState("done", "nothing to continue: the agent had finished");
      return;
    }
    await this.run(true);
  }

  cancel(): void {
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
    await this.services.commands?.killAll();
    await this.ctx.extensions.run("session.end", { reason }, { signal: new AbortController().signal }).catch((err: unknown) => this.log.error("session.end failed", err));
    this.ctx.extensions.dispose();
  }

  private async start(source: "startup" | "resume"): Promise<void> {
    const builtin: Extension[] = [permissionExtension({ gate: this.opts.gate })];
    if (this.opts.hooks) builtin.push(claudeHooksExtension(this.opts.hooks({ id: this.id })));
    await this.ctx.extensions.install([...builtin, ...(this.opts.extensions ?? [])]);
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
    for (const l of this.eventListeners) {
      try {
        l(stored);
      } catch (err) {
        this.log.error("event listener failed", err);
      }
    }
    return stored;
  }

  private setState(state: LoopState, detail?: string): void {
    this.loopState = state;
    this.append({ type: "status", state, ...(detail ? { detail } : {}) });
  }

  private emitDelta(delta: StreamDelta): void {
    for (const l of this.deltaListeners) {
      try {
        l(delta);
      } catch (err) {
        this.log.error("delta listener failed", err);
      }
    }
  }
}

function servicesFor(opts: AgentSessionOptions, id: string): SessionServices {
  return typeof opts.services === "function" ? opts.services({ id }) : opts.services;
}
