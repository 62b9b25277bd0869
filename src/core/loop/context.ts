/** What every step of the loop works over: one object per session, built by AgentSession. */
import type { HookGroupConfig } from "../permissions/types";
import type { LoopState, NewEvent, SessionEvent } from "../events";
import { ExtensionRegistry } from "../extensions/registry";
import type { ChildSession, ChildSessionSpec, SessionInfo } from "../extensions/types";
import type { Logger, SessionServices } from "../ports";
import type { Effort, Provider } from "../providers/types";
import type { SessionLog } from "../session/session-log";
import { ToolRegistry } from "../tools/registry";
import type { ToolContext, ToolDefinition } from "../tools/types";
import type { Approver, PermissionMode, StreamDelta } from "./types";

export interface LoopLimits {
  /** Assistant turns per send() before the loop stops. */
  maxTurns: number;
  /** No event from the provider for this long aborts the request. */
  thinkingIdleMs: number;
  /** An unanswered permission question is denied after this long (undefined: wait). */
  waitingUserMs?: number;
  retry?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
}

export interface LoopContext {
  readonly id: string;
  readonly sessionLog: SessionLog;
  readonly system: string;
  readonly provider: Provider;
  readonly registry: ToolRegistry;
  readonly services: SessionServices;
  readonly extensions: ExtensionRegistry;
  readonly approver: Approver;
  readonly log: Logger;
  readonly readState: ToolContext["readState"];
  readonly limits: LoopLimits;
  readonly info: SessionInfo;
  mode(): PermissionMode;
  /** The reasoning effort of the next request (SessionInfo.useEffort; undefined: the provider's default). */
  effort(): Effort | undefined;
  /** Appends to the log and tells the listeners. */
  append(event: NewEvent): SessionEvent;
  setState(state: LoopState, detail?: string): void;
  emitDelta(delta: StreamDelta): void;
  /** The provider rejected a request as too long: true when the context was made smaller (the request is tried once more). */
  onContextOverflow?: (signal: AbortSignal) => Promise<boolean>;
}

export interface LoopContextParts {
  sessionLog: SessionLog;
  system: string;
  trusted: boolean;
  provider: Provider;
  tools: ToolDefinition[];
  services: SessionServices;
  approver: Approver;
  log: Logger;
  limits: LoopLimits;
  mode(): PermissionMode;
  append(event: NewEvent): SessionEvent;
  setState(state: LoopState, detail?: string): void;
  emitDelta(delta: StreamDelta): void;
  onContextOverflow?: (signal: AbortSignal) => Promise<boolean>;
  parentId?: string;
  /** A sub-agent's type (a custom agent's name; hooks' `agent_type`). */
  agentType?: string;
  spawn(spec: ChildSessionSpec): Promise<ChildSession>;
  /** SessionInfo.scopeHooks (absent: no hook engine). */
  scopeHooks?(groups: readonly HookGroupConfig[] | undefined): void;
  /** SessionInfo.addHooks (absent: no hook engine). */
  addHooks?(key: string, groups: readonly HookGroupConfig[]): boolean;
  /** SessionInfo.useEffort and its current value. */
  effort(): Effort | undefined;
  useEffort(effort: Effort | undefined): void;
}

/** The context of one session: its tools, its extension registry and what extensions may know of it. */
export function createLoopContext(p: LoopContextParts): LoopContext {
  const info: SessionInfo = {
    id: p.sessionLog.id,
    get mode() {
      return p.mode();
    },
    trusted: p.trusted,
    provider: p.provider.id,
    model: p.provider.model,
    events: () => p.sessionLog.events,
    services: p.services,
    approver: p.approver,
    ...(p.parentId ? { parentId: p.parentId } : {}),
    ...(p.agentType ? { agentType: p.agentType } : {}),
    tools: () => registry.names().map((n) => registry.get(n)!),
    spawn: (spec) => p.spawn(spec),
    ...(p.scopeHooks ? { scopeHooks: p.scopeHooks } : {}),
    ...(p.addHooks ? { addHooks: p.addHooks } : {}),
    useEffort: (e) => p.useEffort(e),
  };
  const registry = new ToolRegistry(p.tools);
  return {
    id: p.sessionLog.id,
    sessionLog: p.sessionLog,
    system: p.system,
    provider: p.provider,
    registry,
    services: p.services,
    extensions: new ExtensionRegistry(info, p.append, p.log, registry),
    approver: p.approver,
    log: p.log,
    readState: new Map(),
    limits: p.limits,
    info,
    mode: p.mode,
    effort: p.effort,
    append: p.append,
    setState: p.setState,
    emitDelta: p.emitDelta,
    onContextOverflow: p.onContextOverflow,
  };
}

/** An extension ended the turn (Claude hooks' `continue: false`): the loop finishes as done. */
export class LoopStop extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "LoopStop";
  }
}

/** Seconds for messages: whole seconds, or one decimal below 10 s. */
export function seconds(ms: number): string {
  return ms >= 10_000 ? String(Math.round(ms / 1000)) : String(Math.round(ms / 100) / 10);
}

/** Settles with the promise, or rejects as soon as the signal aborts (an approver may never answer). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

/** A child controller aborted with its parent. */
export function childController(parent: AbortSignal): { controller: AbortController; release: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onAbort, { once: true });
  return { controller, release: () => parent.removeEventListener("abort", onAbort) };
}
