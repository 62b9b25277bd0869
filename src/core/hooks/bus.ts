/**
 * In-process hooks for the extension's own modules, on the same events as command hooks. Handlers
 * run one after another, highest priority first; settings command hooks run as one step at
 * priority 0. A handler may stop propagation: nothing after it runs for that event.
 */
import type { Disposable } from "../ports";
import { matcherMatches } from "./matcher";
import type { HookEventName, HookPayload, HookResponse } from "./types";

export interface HookHandlerContext {
  /** Skips every later handler (and the command hooks, if they come later) for this event. */
  stopPropagation(): void;
  signal?: AbortSignal;
}

export interface HookHandler {
  name: string;
  events: HookEventName[] | "*";
  /** Same syntax as a settings matcher (regex over tool name / source / trigger). */
  matcher?: string;
  /** Higher runs first; command hooks from settings run at 0. Default 0 (after command hooks of equal priority). */
  priority?: number;
  handle(payload: HookPayload, ctx: HookHandlerContext): HookResponse | void | Promise<HookResponse | void>;
}

export class HookBus {
  private readonly handlers: HookHandler[] = [];

  on(handler: HookHandler): Disposable {
    this.handlers.push(handler);
    return { dispose: () => void this.handlers.splice(this.handlers.indexOf(handler) >>> 0, 1) };
  }

  /** Handlers for the event whose matcher accepts `target`, highest priority first (stable). */
  handlersFor(event: HookEventName, target: string | undefined): HookHandler[] {
    return this.handlers
      .filter((h) => (h.events === "*" || h.events.includes(event)) && matcherMatches(h.matcher, target))
      .map((h, i) => ({ h, i }))
      .sort((a, b) => (b.h.priority ?? 0) - (a.h.priority ?? 0) || a.i - b.i)
      .map(({ h }) => h);
  }
}
