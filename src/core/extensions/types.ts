/**
 * Typed extension points of the agent loop. Every mechanism that acts on a session — the
 * permission gate, Claude Code–compatible hooks, lessons, compaction, breakers, checkpoints,
 * MCP — is an Extension that registers handlers on these points; the loop knows only the points.
 *
 * Handlers of one point run one after another, highest priority first (stable for equal
 * priorities); a handler may stop propagation (no later handler of that point runs for this
 * occurrence). A handler that throws is contained: the failure is logged, recorded as an
 * `extension` event and the others go on — the session never dies of it.
 */
import type { CommandConfinement } from "../commands/types";
import type { ImagePart, NewEvent, SessionEvent, ToolCallRecord } from "../events";
import type { Approver, Asker, AskerRules, PermissionDecision, PermissionGate, PermissionMode, StreamDelta } from "../loop/types";
import type { HookRunner } from "../hooks/run-hooks";
import type { Disposable, SessionServices, SessionServicesFactory } from "../ports";
import type { Effort, ModelMessage, Provider, ToolSpec } from "../providers/types";
import type { ToolDefinition, ToolOutput } from "../tools/types";
import type { HookGroupConfig } from "../permissions/types";

/** What an extension may know about the session it is part of. */
export interface SessionInfo {
  readonly id: string;
  readonly mode: PermissionMode;
  /** false in Restricted Mode (an untrusted workspace). */
  readonly trusted: boolean;
  readonly provider: string;
  readonly model: string;
  /** Every event of the log so far. */
  events(): readonly SessionEvent[];
  readonly services: SessionServices;
  /**
   * The session's approver: a sub-agent's asks in its name, answers its dontAsk unasked and carries
   * its own rules (child-options' askingAs). What an extension asks on a session's behalf goes here.
   */
  readonly approver?: Approver;
  /** The session whose sub-agent this session is (its session_start's `parentId`). */
  readonly parentId?: string;
  /** A sub-agent's type: the custom agent it runs (absent: the general-purpose one). */
  readonly agentType?: string;
  /** Every tool the session offers, built-in and from extensions (complete once setup is over). */
  tools(): readonly ToolDefinition[];
  /**
   * Starts a child session (a sub-agent): this session's provider, store, services, approver,
   * permission engine, hooks, mode and trust, with its own log and context, linked by `parentId`
   * (and `parentCallId`) in its session_start. Its permission questions go through this session's
   * approver, one at a time.
   */
  spawn(spec: ChildSessionSpec): Promise<ChildSession>;
  /**
   * Runs these Claude Code hook groups with the session's own hooks, through the same engine, until
   * called again (undefined: none) — a Copilot prompt file's agent's `hooks` for its run. Absent
   * when the session has no hook engine.
   */
  scopeHooks?(groups: readonly HookGroupConfig[] | undefined): void;
  /**
   * Runs these Claude Code hook groups with the session's own hooks, through the same engine, for the
   * rest of the session — a skill's or command's `hooks` from the moment it is loaded or run (Claude
   * Code registers them then and keeps them). One set per `key`: the latest invocation's (loading the
   * skill again with the same hooks changes nothing; a rewritten file's run again replaces them); the
   * sub-agents started afterwards run them too. Absent when the session has no hook engine.
   * True when the key's set changed (added or replaced); false when it already was exactly this set.
   */
  addHooks?(key: string, groups: readonly HookGroupConfig[]): boolean;
  /**
   * The reasoning effort of this session's model requests (ChatRequest.effort) until called again
   * (undefined: the provider's default) — a custom command's or skill's `effort` for its run. The
   * sub-agents the run starts inherit it.
   */
  useEffort?(effort: Effort | undefined): void;
}

/** What a child session gets besides what it inherits from its parent. */
export interface ChildSessionSpec {
  /** The child's tools (never more than the parent's: take them from tools()). */
  tools: readonly ToolDefinition[];
  /**
   * The child's extensions, from the parent's (default: the same list). Inherited are those that
   * added no tools to the parent: tools from extensions are shared with the child as they are.
   */
  extensions?(inherited: readonly Extension[]): Extension[];
  /** Appended to the parent's system prompt for the child. */
  instructions?: string;
  /**
   * Replaces the parent's system prompt for the child (a custom agent's body replaces Yoke's prose,
   * as in Claude Code); given the parent's, so the harness parts can be kept (harnessParts).
   */
  systemPrompt?(parentSystem: string): string;
  /** The child's permission mode (a custom agent's `permissionMode`, already bounded by the parent's: never looser than what the user's settings allow). */
  permissionMode?: PermissionMode;
  /** The child's turn limit per message (default: the parent's). */
  maxTurns?: number;
  /** The parent's tool call that starts it. */
  callId?: string;
  /** The model the child runs on (a custom agent's `model`; default: the parent's provider). */
  provider?: Provider;
  /** The child's reasoning effort (a forked skill's `effort`; default: the parent's now). */
  effort?: Effort;
  /** The custom agent it runs (hooks' `agent_type`; default general-purpose). */
  agentType?: string;
  /** Its permission questions say who asks (a custom agent: its name, and its worktree and branch). */
  asker?: Asker;
  /** Hook groups the child runs besides the settings' (a custom agent's own `hooks`, already checked for trust). */
  hooks?: readonly HookGroupConfig[];
  /**
   * A workspace of the child's own (a custom agent's `isolation: worktree`): its file tools,
   * search, commands (and their sandbox), permission rules and hooks work in `root`, not in the
   * parent's workspace; its system prompt names `root` where the parent's names its own.
   */
  workspace?: ChildWorkspace;
}

/** A child's own workspace (ChildSessionSpec.workspace), made by the host. */
export interface ChildWorkspace {
  root: string;
  services: SessionServicesFactory;
  /** The permission engine and hooks of that folder (its settings files, its hooks' cwd). */
  sessionOptions: { gate?: PermissionGate; hooks?: (session: { id: string; extraHooks?: readonly HookGroupConfig[] }) => HookRunner };
  /** That gate's rules as its questions carry them (PermissionQuestion.rules): "Always allow" then governs the child too. */
  rules?: AskerRules;
}

/** A running child session, as its parent's extension drives it. */
export interface ChildSession {
  readonly id: string;
  events(): readonly SessionEvent[];
  onEvent(listener: (event: SessionEvent) => void): Disposable;
  onDelta(listener: (delta: StreamDelta) => void): Disposable;
  send(text: string): Promise<void>;
  cancel(): void;
  /** Ends it: session.end for its extensions; its own commands (not its parent's) are stopped. */
  end(reason?: string): Promise<void>;
}

/** A permission answer from an extension (the gate, a hook, a policy). */
export interface ExtensionDecision {
  decision: PermissionDecision["decision"];
  reason: string;
  by: PermissionDecision["by"] | "extension";
  rule?: string | null;
  /**
   * true for the mode's default answer ("edits ask in default mode"): an explicit allow from
   * another extension (a hook) may lift it. A rule's or a hook's ask is not overridable, and a
   * deny never is.
   */
  overridable?: boolean;
  /** Why an ask is not overridable (said when an explicit allow meets it). */
  notLiftable?: string;
  confine?: CommandConfinement;
}

export interface ToolBeforeInput {
  call: ToolCallRecord;
  tool: ToolDefinition;
  /** Validated arguments, as rewritten by the handlers before this one. */
  args: unknown;
}

export interface ToolBeforeResult {
  decision?: ExtensionDecision;
  /** New arguments (validated again by the loop; invalid ones refuse the call). */
  args?: unknown;
  /** Text given to the model with the tool's result. */
  context?: string[];
  /** Ends the turn at once (Claude `continue: false`); shown to the user as the reason. */
  stop?: string;
  /**
   * Answers the call without running it (an open circuit breaker): this text is the error result
   * the model gets. The first handler's answer wins.
   */
  respond?: string;
}

export interface PermissionRequestInput {
  call: ToolCallRecord;
  tool: ToolDefinition;
  args: unknown;
  /** Why the decision is "ask". */
  reason: string;
}

export interface PermissionRequestResult {
  /** Answers the question instead of the user (a PermissionRequest hook); absent: the user is asked. */
  decision?: "allow" | "deny";
  message?: string;
  /** Logged as who decided (default "extension"). */
  by?: "hook" | "extension";
}

export interface ToolAfterInput {
  call: ToolCallRecord;
  tool: ToolDefinition;
  args: unknown;
  output: ToolOutput;
  durationMs: number;
}

export interface ToolAfterResult {
  /** Replaces the text the model is told (later handlers see the replacement). */
  text?: string;
  /** Appended to the text the model is told. */
  append?: string[];
}

export interface TurnAfterInput {
  /** 0-based assistant turn within this send()/continue(). */
  turn: number;
  text: string;
  toolCalls: readonly ToolCallRecord[];
  /** The model asked for no tool: the loop is about to finish. */
  final: boolean;
  /** How many times extensions have already kept the loop going after a final turn (this send). */
  continued: number;
}

export interface TurnAfterResult {
  /** Ends the loop; shown to the user as the reason (e.g. "stopped by a hook: tests pass"). */
  stop?: string;
  /** Keeps the agent going with this message to the model (logged as a user message from the extension). */
  nudge?: string;
  /** Who the nudge is from in the log (default "extension"). */
  by?: "hook" | "extension";
}

export interface ContextMessage {
  /** Who adds it, e.g. "lessons", "hooks". Shown in the log and the transcript. */
  source: string;
  text: string;
  /** Guidance in force (a rule, project memory): a compaction re-injects it verbatim instead of summarising it. */
  persist?: boolean;
}

/** The points, with what each handler gets and may return. */
export interface ExtensionPoints {
  "session.start": { input: { source: "startup" | "resume" }; result: { context?: string[] } };
  /**
   * `outlive`: work of the session that goes on after it ends (a background agent of a host that
   * hands back: its own session, which a new panel session must not stop). The session's
   * extensions — the tools they offer, which that work may use (an MCP server) — are torn down
   * once it settles; `end()` does not wait for it.
   */
  "session.end": { input: { reason: string }; result: { outlive?: Promise<void> } | void };
  /**
   * A user message as typed, before prompt.submit: the first handler that answers expands it (a
   * custom slash command: `text` is what the model gets, `typed` stays in the log for the
   * transcript), handles it without a model turn (`handled`: a setting changed, shown to the user),
   * or refuses it (`block`, shown to the user; nothing is sent). `images` go with the expanded
   * text (an MCP prompt's images), sent as image parts where the provider takes them.
   */
  "prompt.expand": { input: { text: string }; result: { text?: string; handled?: string; block?: string; images?: ImagePart[] } };
  /** A user message is about to be sent (Claude UserPromptSubmit): may block it or add context. */
  /**
   * `typed`: what was typed, before prompt.expand (a custom command's or MCP prompt's body is the
   * repository's or the server's words, not the user's: a mention in it is not the user's action).
   */
  "prompt.submit": { input: { text: string; typed?: string }; result: { block?: string; context?: string[] } };
  /**
   * Before each model request. Handlers may append context messages (logged as `context`
   * events, so later requests carry them at the same place); the existing prefix is never changed.
   */
  "request.prepare": {
    input: { turn: number; messages: readonly ModelMessage[] };
    result: {
      append?: ContextMessage[];
      /**
       * Messages from the user delivered at this step (typed while the agent worked: steering),
       * after `append`. Each passes prompt.submit like any user message (a hook may block it) and
       * is logged as a user_message before the request, followed by its `context` unless blocked.
       */
      user?: Array<{ text: string; context?: ContextMessage[] }>;
    };
  };
  /** The request as it goes to the provider (observers: the prompt-cache watch). Nothing can change it here. */
  "request.sent": { input: { model: string; system: string; tools: readonly ToolSpec[]; messages: readonly ModelMessage[] }; result: void };
  "turn.after": { input: TurnAfterInput; result: TurnAfterResult };
  "tool.before": { input: ToolBeforeInput; result: ToolBeforeResult };
  /** The decision is "ask" and no review answers it: an extension may answer before the user is asked. */
  "permission.request": { input: PermissionRequestInput; result: PermissionRequestResult };
  "tool.after": { input: ToolAfterInput; result: ToolAfterResult };
  /**
   * A call was refused before it could run: unknown tool, invalid arguments, a path that does not
   * resolve. Handlers may append text to the error the model gets (fix hints).
   */
  "tool.invalid": { input: { call: ToolCallRecord; tool?: ToolDefinition; error: string }; result: { append?: string[] } };
  /** Before a compaction (issue: context engineering): may add instructions or veto it. */
  compaction: { input: { trigger: "manual" | "auto" }; result: { veto?: string; instructions?: string[] } };
  /**
   * After a compaction was recorded: handlers may add context, which comes right after the
   * summary (Claude PostCompact, and SessionStart with source "compact").
   */
  "compaction.after": { input: { trigger: "manual" | "auto"; summary: string }; result: { context?: string[] } };
}

export type PointName = keyof ExtensionPoints;
export type PointInput<P extends PointName> = ExtensionPoints[P]["input"];
export type PointResult<P extends PointName> = ExtensionPoints[P]["result"];

export interface HandlerContext {
  readonly session: SessionInfo;
  readonly signal: AbortSignal;
  /** No later handler of this point runs for this occurrence. */
  stopPropagation(): void;
}

export type Handler<P extends PointName> = (input: PointInput<P>, ctx: HandlerContext) => PointResult<P> | void | undefined | Promise<PointResult<P> | void | undefined>;

export interface HandlerOptions {
  /** Higher runs first; default 0. */
  priority?: number;
  /**
   * If the handler throws on tool.before, the call is not allowed silently: it asks (the
   * permission gate and guards register with this). Elsewhere a failure is only reported.
   */
  failClosed?: boolean;
}

/** What an extension gets when it is set up for one session. */
export interface ExtensionApi {
  readonly session: SessionInfo;
  on<P extends PointName>(point: P, handler: Handler<P>, opts?: HandlerOptions): Disposable;
  /** Appends an event to the session log (e.g. a lesson injected, a breaker opened). */
  record(event: NewEvent): void;
  /**
   * Offers tools to the model (load_skill, recall, an MCP server's tools). Only during setup: the
   * tool list is part of every request's prefix, so it never changes mid-session. A name that is
   * already taken fails the extension's setup.
   */
  addTools(tools: readonly ToolDefinition[]): void;
  /**
   * Observes every event appended to the session log, after it is stored (read-only: for
   * observers such as tracing). A listener that throws is logged; the others and the loop go on.
   */
  onEvent(listener: (event: SessionEvent) => void): Disposable;
}

/** A mechanism that plugs into the loop. `setup` runs once per session, before session.start. */
export interface Extension {
  /** Unique and stable: it names the extension in events, logs and errors. */
  name: string;
  setup(api: ExtensionApi): void | Disposable | Promise<void | Disposable>;
}
