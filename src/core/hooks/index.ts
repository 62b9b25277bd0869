/** Lifecycle hooks: settings command hooks and the in-process bus. */
export { HookBus, type HookHandler, type HookHandlerContext } from "./bus";
export { createHookRunner, combineWithHooks, DEFAULT_HOOK_TIMEOUT_S, type HookRunner, type HookRunnerOptions } from "./run-hooks";
export type { HookCommandRunner, HookEventFields, HookEventName, HookOutcome, HookPayload, HookResponse, HookResult } from "./types";
