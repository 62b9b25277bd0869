/**
 * The agent loop. Each step appends an event to the session log; the conversation, the UI state
 * and resume are projections of it. States: idle → thinking → (waiting_user → waiting_tool)* →
 * thinking … → done | error | cancelled.
 */
import type { LoopState, NewEvent, SessionEvent, ToolCallRecord, Usage } from "../events";
import type { HookEventFields, HookEventName, HookOutcome } from "../hooks/types";
import { decideWithHooks, permissionRequestAnswer, type HookRunner } from "../hooks/run-hooks";
import { argsFromHookInput } from "../hooks/claude-shapes";
import { silentLogger, type Disposable, type Logger, type Searcher, type SessionStore, type WorkspaceFs } from "../ports";
import { costOf } from "../providers/pricing";
import { withRetries } from "../providers/retry";
import { ProviderError, type Provider } from "../providers/types";
import { NOT_RUN_TEXT, projectConversation, unansweredToolCalls } from "../session/projection";
import { SessionLog, newSessionId } from "../session/session-log";
import { ToolRegistry } from "../tools/registry";
import type { ReviewMode } from "../review";
import { ToolError, type ToolContext, type ToolDefinition } from "../tools/types";
import { defaultDecision, RESTRICTED_REASON } from "./default-gate";
import { buildSystemPrompt } from "./system-prompt";
import type {
  AgentSessionApi,
  Approver,
  PermissionDecision,
  PermissionGate,
  PermissionMode,
  StreamDelta,
} from "./types";

export interface AgentSessionOptions {
  store: SessionStore;
  provider: Provider;
  /** Shown instead of the model name (e.g. "demo model"). */
  providerLabel?: string;
  /** Recorded in the log so a resume can reconnect (never a key). */
  baseUrl?: string;
  tools: ToolDefinition[];
  fs: WorkspaceFs;
  search: Searcher;
  approver: Approver;
  gate?: PermissionGate;
  /** Lifecycle hooks (Claude Code-compatible commands and in-process handlers), per session. */
  hooks?: (session: { id: string }) => HookRunner;
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
  retry?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Extra members for every ToolContext (the command runner, the change reviewer), or a factory per session. */
  toolContext?: Partial<ToolContext> | ((session: { id: string }) => Partial<ToolContext>);
  now?: () => Date;
}

const DEFAULT_MAX_TURNS = 50;
/** A Stop hook may keep the agent going at most this many times per message. */
const MAX_STOP_BLOCKS = 3;
const DEFAULT_THINKING_IDLE_MS = 120_000;

export class AgentSession implements AgentSessionApi {
  private readonly registry: ToolRegistry;
  private readonly eventListeners = new Set<(e: SessionEvent) => void>();
  private readonly deltaListeners = new Set<(d: StreamDelta) => void>();
  private readonly readState: ToolContext["readState"] = new Map();
  private current: AbortController | undefined;
  private running: Promise<void> | undefined;
  private loopState: LoopState = "idle";
  private mode: PermissionMode;
  private readonly log: Logger;
  private hookRunner: HookRunner | undefined;
  /** The ToolContext members the host supplies for this session. */
  readonly services: Partial<ToolContext>;
  /** Context from SessionStart hooks, given to the model with the next user message. */
  private pendingContext: string[] = [];

  private constructor(
    private readonly sessionLog: SessionLog,
    private readonly opts: AgentSessionOptions,
    private readonly system: string,
  ) {
    this.registry = new ToolRegistry(opts.tools);
    this.mode = opts.permissionMode ?? "default";
    this.log = opts.log ?? silentLogger;
    this.hookRunner = opts.hooks?.({ id: sessionLog.id });
    this.services = typeof opts.toolContext === "function" ? opts.toolContext({ id: sessionLog.id }) : (opts.toolContext ?? {});
  }

  /** Starts a new session and writes its session_start event. */
  static async create(opts: AgentSessionOptions): Promise<AgentSession> {
    const now = opts.now ?? (() => new Date());
    const id = newSessionId(now());
    const trusted = opts.trusted ?? true;
    const system =
      opts.systemPrompt ??
      buildSystemPrompt({
        workspaceRoot: opts.fs.root,
        platform: opts.platform ?? "unknown",
        trusted,
        permissionMode: opts.permissionMode ?? "default",
        instructions: opts.instructions,
      });
    const session = new AgentSession(SessionLog.create(opts.store, id, now), opts, system);
    session.append({
      type: "session_start",
      sessionId: id,
      cwd: opts.fs.root,
      provider: opts.provider.id,
      model: opts.provider.model,
      baseUrl: opts.baseUrl,
      permissionMode: session.mode,
      label: opts.providerLabel,
      systemPrompt: system,
      trusted,
      ...(session.services.commands
        ? { sandbox: session.services.commands.info.sandbox, sandboxWarning: session.services.commands.info.warning }
        : session.services.commandsUnavailable
          ? { sandbox: "unavailable", sandboxWarning: session.services.commandsUnavailable }
          : {}),
      version: 1,
    });
    session.append({ type: "status", state: "idle" });
    session.sessionLog.sync();
    await session.sessionStartHooks("startup");
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
    const system =
      start.systemPrompt ??
      buildSystemPrompt({ workspaceRoot: opts.fs.root, platform: opts.platform ?? "unknown", trusted, permissionMode: start.permissionMode });
    const session = new AgentSession(log, { ...opts, trusted, permissionMode: opts.permissionMode ?? (start.permissionMode as PermissionMode) }, system);
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
    await session.sessionStartHooks("resume");
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

  setPermissionMode(mode: PermissionMode): void {
    this.mode = mode;
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
    this.closeUnanswered(NOT_RUN_TEXT);
    const hooks = await this.runHooks("UserPromptSubmit", { prompt: text });
    if (hooks?.blocked || hooks?.stop) {
      const why = hooks.message ?? hooks.stop?.reason ?? "a UserPromptSubmit hook blocked it";
      this.append({ type: "error", message: `Your message was not sent: ${why}`, code: "hook_blocked" });
      this.setState("idle", "prompt blocked by a hook");
      this.sessionLog.sync();
      return;
    }
    const context = [...this.pendingContext, ...this.asyncHookContext(), ...(hooks?.additionalContext ?? [])].join("\n\n");
    this.pendingContext = [];
    this.append({ type: "user_message", text, ...(context ? { context } : {}) });
    this.sessionLog.sync();
    await this.run();
  }

  /** Ends the session: SessionEnd hooks run and running commands are the host's to stop. */
  async end(reason = "other"): Promise<void> {
    this.cancel();
    await this.idle();
    await this.services.commands?.killAll();
    await this.runHooks("SessionEnd", { reason });
    await this.hookRunner?.close?.();
  }

  /** What background hooks said since the last request (context for the model; messages for the user). */
  private asyncHookContext(): string[] {
    const out = this.hookRunner?.takeAsyncOutput?.();
    for (const m of out?.userMessages ?? []) this.append({ type: "error", message: m, code: "hook" });
    return [...(out?.additionalContext ?? []), ...(out?.rewake ?? []).map((r) => `A background hook reports: ${r}`)];
  }

  private async sessionStartHooks(source: "startup" | "resume"): Promise<void> {
    const out = await this.runHooks("SessionStart", { source, model: this.opts.provider.model });
    if (out?.additionalContext.length) this.pendingContext.push(...out.additionalContext);
  }

  /** Runs one event's hooks; reports non-blocking problems to the user as events. Never throws. */
  private async runHooks(event: HookEventName, fields: HookEventFields = {}, signal?: AbortSignal): Promise<HookOutcome | undefined> {
    if (!this.hookRunner) return undefined;
    try {
      const out = await this.hookRunner.runHooks(event, { permission_mode: this.mode, ...fields }, signal);
      for (const m of [...out.userMessages, ...out.errors.map((e) => `${event} hook: ${e}`)]) {
        this.append({ type: "error", message: m, code: "hook" });
      }
      return out;
    } catch (err) {
      if (signal?.aborted) throw err;
      this.append({ type: "error", message: `${event} hooks failed: ${err instanceof Error ? err.message : String(err)}`, code: "hook" });
      return undefined;
    }
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

  /** Records a result for every call of the last assistant message that has none. */
  private closeUnanswered(output: string): void {
    for (const call of unansweredToolCalls(this.sessionLog.events)) {
      this.append({ type: "tool_result", callId: call.id, name: call.name, output, isError: true, durationMs: 0 });
    }
  }

  private run(runLeftovers = false): Promise<void> {
    const controller = new AbortController();
    this.current = controller;
    this.running = this.loop(controller.signal, runLeftovers).finally(() => {
      this.sessionLog.sync();
      this.running = undefined;
      this.current = undefined;
    });
    return this.running;
  }

  private async loop(signal: AbortSignal, runLeftovers: boolean): Promise<void> {
    const maxTurns = this.opts.maxTurns ?? DEFAULT_MAX_TURNS;
    try {
      // Tool calls left from an interrupted turn that never started: run them now (gated as usual).
      const leftover = runLeftovers ? unansweredToolCalls(this.sessionLog.events).filter((c) => !c.started) : [];
      if (leftover.length > 0) {
        const msg = [...this.sessionLog.events].reverse().find((e) => e.type === "assistant_message");
        const calls = msg?.type === "assistant_message" ? msg.toolCalls.filter((c) => leftover.some((l) => l.id === c.id)) : [];
        for (const call of calls) await this.runToolCall(call, signal);
        this.sessionLog.sync();
      }
      let stopBlocks = 0;
      for (let turn = 0; turn < maxTurns; turn++) {
        const reply = await this.modelTurn(signal);
        if (reply.toolCalls.length === 0) {
          const stop = await this.runHooks("Stop", { stop_hook_active: stopBlocks > 0, last_assistant_message: reply.text }, signal);
          if (stop?.blocked && !stop.stop && stopBlocks < MAX_STOP_BLOCKS) {
            stopBlocks++;
            this.append({ type: "user_message", text: `A Stop hook asks you to continue: ${stop.message ?? "(no reason given)"}`, from: "hook" });
            continue;
          }
          this.setState("done", stop?.stop ? `stopped by a hook: ${stop.stop.reason}` : undefined);
          return;
        }
        for (const call of reply.toolCalls) await this.runToolCall(call, signal);
        this.sessionLog.sync();
      }
      this.append({ type: "error", message: `Stopped after ${maxTurns} model turns without finishing (max turns). Send a message to continue.`, code: "max_turns" });
      this.setState("error", "max turns reached");
    } catch (err) {
      if (err instanceof HookStop) {
        this.closeUnanswered(`Not run: a hook stopped the session (${err.message}).`);
        this.setState("done", `stopped by a hook: ${err.message}`);
        return;
      }
      if (signal.aborted) {
        this.closeUnanswered("Not run: the user stopped the agent before this call ran.");
        this.setState("cancelled", "stopped by the user");
        return;
      }
      const message = err instanceof ProviderError ? err.message : `Internal error: ${err instanceof Error ? err.message : String(err)}`;
      this.log.error("agent loop failed", err);
      this.append({ type: "error", message, code: err instanceof ProviderError ? err.kind : "internal", retryable: err instanceof ProviderError ? err.retryable : false });
      this.setState("error", message);
    }
  }

  /** One model request: streams deltas to listeners and logs the complete assistant message. */
  private async modelTurn(signal: AbortSignal): Promise<{ toolCalls: ToolCallRecord[]; text: string }> {
    this.setState("thinking");
    const idleMs = this.opts.timeouts?.thinkingIdleMs ?? DEFAULT_THINKING_IDLE_MS;
    const request = new AbortController();
    const onAbort = () => request.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    let idleExpired = false;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleExpired = true;
        request.abort(new DOMException("provider idle timeout", "TimeoutError"));
      }, idleMs);
    };
    const provider = withRetries(this.opts.provider, {
      ...this.opts.retry,
      onRetry: ({ error: err, attempt, delayMs }) => {
        this.log.warn(`provider ${err.kind} (${err.message}); retry ${attempt} in ${delayMs} ms`);
        this.append({ type: "error", message: `${err.message} — retrying in ${Math.round(delayMs / 1000)} s (attempt ${attempt})`, code: err.kind, retryable: true });
        armIdle();
      },
    });
    let text = "";
    let reasoning = "";
    const toolCalls: ToolCallRecord[] = [];
    let usage: Usage | undefined;
    let stopReason: string | undefined;
    const started = Date.now();
    armIdle();
    try {
      for await (const ev of provider.stream({
        system: this.system,
        messages: projectConversation(this.sessionLog.events),
        tools: this.registry.specs(),
        signal: request.signal,
      })) {
        armIdle();
        switch (ev.type) {
          case "text_delta":
            text += ev.text;
            this.emitDelta({ type: "text", text: ev.text });
            break;
          case "reasoning_delta":
            reasoning += ev.text;
            this.emitDelta({ type: "reasoning", text: ev.text });
            break;
          case "tool_call":
            toolCalls.push({ id: ev.id, name: ev.name, input: ev.input });
            break;
          case "usage":
            usage = ev.usage;
            break;
          case "done":
            stopReason = ev.stopReason;
            break;
        }
      }
    } catch (err) {
      if (signal.aborted) {
        // Keep what the user already saw: the partial answer is part of the record.
        if (text || reasoning) this.append({ type: "assistant_message", text, reasoning: reasoning || undefined, toolCalls: [], stopReason: "cancelled" });
        throw err;
      }
      if (idleExpired) {
        throw new ProviderError("network", `No response from ${this.opts.provider.id} (${this.opts.provider.model}) for ${seconds(idleMs)} s; the request was abandoned. Send a message to try again.`);
      }
      throw err;
    } finally {
      clearTimeout(idleTimer);
      signal.removeEventListener("abort", onAbort);
    }
    this.log.info(`model turn: ${Date.now() - started} ms, ${toolCalls.length} tool call(s), stop=${stopReason ?? "?"}`);
    this.append({ type: "assistant_message", text, reasoning: reasoning || undefined, toolCalls, stopReason });
    if (usage) {
      this.append({ type: "usage", usage, model: this.opts.provider.model, costUsd: costOf(this.opts.provider.model, usage) });
    }
    return { toolCalls, text };
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

  /** Validates, gates, runs and records one tool call. Never throws except on cancellation. */
  private async runToolCall(call: ToolCallRecord, signal: AbortSignal): Promise<void> {
    if (signal.aborted) throw signal.reason;
    const result = (output: string, isError: boolean, durationMs = 0, meta?: unknown) =>
      this.append({ type: "tool_result", callId: call.id, name: call.name, output, isError, durationMs, ...(meta === undefined ? {} : { meta }) });
    const def = this.registry.get(call.name);
    const checked = this.registry.validate(call.name, call.input);
    if (!def || !checked.ok) {
      result(checked.ok ? `Unknown tool "${call.name}".` : checked.error, true);
      return;
    }
    let args = checked.args;
    const pre = await this.runHooks("PreToolUse", { tool_name: def.permission, tool_input: def.hookInput(args as never), tool_use_id: call.id }, signal);
    if (pre?.updatedInput) {
      const updated = this.applyUpdatedInput(def, call, args, pre);
      if (!updated.ok) {
        result(updated.error, true);
        return;
      }
      args = updated.args;
    }
    if (pre?.stop) {
      result(`A PreToolUse hook stopped the session: ${pre.stop.reason}`, true);
      throw new HookStop(pre.stop.reason);
    }
    const decision = await this.decide(def, call, args, signal, pre);
    if (decision.decision !== "allow") {
      result([decision.message, ...(pre?.additionalContext ?? [])].join("\n\n"), true);
      return;
    }
    // A change the user already approved (rule, mode or answer) is applied at once, still listed and revertable.
    const reviewMode: ReviewMode = decision.review ?? "auto";
    this.append({ type: "tool_call", callId: call.id, name: call.name, input: args });
    this.setState("waiting_tool", call.name);
    const started = Date.now();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A change under review waits for the user, not for the tool: no timeout then (Stop still works).
    const timeout = new Promise<never>((_, reject) => {
      if (reviewMode === "ask") return;
      timer = setTimeout(() => {
        reject(new ToolError(`${call.name} did not finish within ${seconds(def.timeoutMs)} s and was stopped.`));
        controller.abort(new DOMException("tool timeout", "TimeoutError"));
      }, def.timeoutMs);
    });
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
    });
    try {
      const ctx: ToolContext = {
        ...this.services,
        fs: this.opts.fs,
        search: this.opts.search,
        signal: controller.signal,
        sessionId: this.id,
        callId: call.id,
        log: this.log,
        readState: this.readState,
        reviewMode,
      };
      const out = await Promise.race([def.run(args, ctx), timeout, aborted]);
      const duration = Date.now() - started;
      const failed = out.isError === true;
      const post = await this.runHooks(
        failed ? "PostToolUseFailure" : "PostToolUse",
        { tool_name: def.permission, tool_input: def.hookInput(args as never), tool_use_id: call.id, ...(failed ? { error: out.text, is_interrupt: false } : { tool_response: def.hookResponse?.(args as never, out) ?? { output: out.text, is_error: false } }) },
        signal,
      );
      const extra = [...(pre?.additionalContext ?? []), ...(post?.blocked && post.message ? [`${post.event} hook: ${post.message}`] : []), ...(post?.additionalContext ?? []), ...this.asyncHookContext()];
      const text = post?.updatedToolOutput ?? out.text;
      result(extra.length ? `${text}\n\n${extra.join("\n\n")}` : text, out.isError ?? false, duration, out.meta);
      const todos = (out.meta as { todos?: unknown } | undefined)?.todos;
      if (call.name === "todo_write" && Array.isArray(todos)) this.append({ type: "todos", todos: todos as never });
    } catch (err) {
      const duration = Date.now() - started;
      if (signal.aborted) {
        result(`Cancelled by the user after ${(duration / 1000).toFixed(1)} s; ${call.name} was stopped and its effects may be partial.`, true, duration);
        throw signal.reason;
      }
      if (err instanceof ToolError) {
        const post = await this.runHooks("PostToolUseFailure", { tool_name: def.permission, tool_input: def.hookInput(args as never), tool_use_id: call.id, error: err.message, is_interrupt: false }, signal);
        const extra = [...(pre?.additionalContext ?? []), ...(post?.blocked && post.message ? [`PostToolUseFailure hook: ${post.message}`] : []), ...(post?.additionalContext ?? [])];
        result(extra.length ? `${err.message}\n\n${extra.join("\n\n")}` : err.message, true, duration);
      }
      else {
        this.log.error(`tool ${call.name} failed`, err);
        result(`${call.name} failed with an internal error: ${err instanceof Error ? err.message : String(err)}`, true, duration);
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Applies a PreToolUse hook's updatedInput (hook-style names mapped back by the tool) and validates again. */
  private applyUpdatedInput(def: ToolDefinition, call: ToolCallRecord, args: unknown, pre: HookOutcome) {
    const merged = argsFromHookInput(def, args, pre.updatedInput ?? {}, pre.toolInput, this.opts.fs.root);
    if (!merged) return { ok: true as const, args };
    const checked = this.registry.validate(call.name, merged);
    if (checked.ok) return checked;
    return { ok: false as const, error: `A PreToolUse hook changed the arguments of ${call.name} into invalid ones, so it was not run: ${checked.error}` };
  }

  /** The permission gate, the user's answer when it asks, and Restricted Mode. Every decision is logged. */
  private async decide(
    def: ToolDefinition,
    call: ToolCallRecord,
    args: unknown,
    signal: AbortSignal,
    hooks?: HookOutcome,
  ): Promise<{ decision: "allow"; review?: ReviewMode } | { decision: "deny"; message: string }> {
    const input = def.hookInput(args as never);
    let d: PermissionDecision;
    if (this.opts.trusted === false && def.mutates) {
      d = { decision: "deny", by: "restricted", reason: RESTRICTED_REASON, rule: null };
    } else {
      const gate = this.opts.gate;
      const check = (mode: PermissionMode) => (gate ? gate.check({ tool: def.name, permission: def.permission, input, mutates: def.mutates }, mode) : Promise.resolve(defaultDecision(def, mode)));
      d = await decideWithHooks(check, this.mode, hooks);
    }
    if (d.decision === "ask") {
      const answer = permissionRequestAnswer(await this.runHooks("PermissionRequest", { tool_name: def.permission, tool_input: input, tool_use_id: call.id }, signal));
      if (answer) {
        this.append({ type: "permission_decision", callId: call.id, decision: answer.decision, by: "hook", ...(answer.message ? { message: answer.message } : {}) });
        if (answer.decision === "allow") return { decision: "allow" };
        return { decision: "deny", message: `Permission denied for ${def.name}: ${answer.message ?? "a PermissionRequest hook denied it"}` };
      }
      void this.runHooks("Notification", { message: `Yoke needs your permission to use ${def.permission}`, notification_type: "permission_prompt" });
    }
    if (d.decision === "ask" && def.reviewable && this.services.reviewer) {
      // The diff review is the question: the user accepts or rejects the change itself.
      this.append({ type: "permission_decision", callId: call.id, decision: "allow", by: d.by, ...(d.rule ? { rule: d.rule } : {}), message: "sent to review" });
      return { decision: "allow", review: "ask" };
    }
    if (d.decision === "ask") {
      this.append({ type: "permission_request", callId: call.id, tool: def.name, permission: def.permission, input, reason: d.reason });
      this.setState("waiting_user", def.name);
      this.sessionLog.sync();
      const answer = await this.askUser({ callId: call.id, tool: def.name, permission: def.permission, input, reason: d.reason }, signal);
      this.append({ type: "permission_decision", callId: call.id, decision: answer.decision, by: "user", ...(answer.message ? { message: answer.message } : {}) });
      if (answer.decision === "allow") return { decision: "allow" };
      return {
        decision: "deny",
        message: `The user denied ${def.name}${answer.message ? `: "${answer.message}"` : "."} Do not retry the same call; ask the user or take another approach.`,
      };
    }
    this.append({ type: "permission_decision", callId: call.id, decision: d.decision, by: d.by, ...(d.rule ? { rule: d.rule } : {}), ...(d.decision === "deny" ? { message: d.reason } : {}) });
    if (d.decision === "allow") return { decision: "allow" };
    return { decision: "deny", message: `Permission denied for ${def.name}: ${d.reason}` };
  }

  private async askUser(q: Parameters<Approver["ask"]>[0], signal: AbortSignal) {
    const waitMs = this.opts.timeouts?.waitingUserMs;
    if (!waitMs) return raceAbort(this.opts.approver.ask(q, signal), signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new DOMException("no answer", "TimeoutError")), waitMs);
    try {
      return await raceAbort(this.opts.approver.ask(q, controller.signal), controller.signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return { decision: "deny" as const, message: `no answer within ${seconds(waitMs)} s` };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/** Settles with the promise, or rejects as soon as the signal aborts (an approver may never answer). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Seconds for messages: whole seconds, or one decimal below 10 s. */
function seconds(ms: number): string {
  return ms >= 10_000 ? String(Math.round(ms / 1000)) : String(Math.round(ms / 100) / 10);
}

/** A hook said `continue: false`: the turn ends here. */
class HookStop extends Error {}
