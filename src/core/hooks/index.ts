/** Lifecycle hooks: settings command hooks (Claude Code-compatible) and the in-process bus. */
export { HookBus, type HookHandler, type HookHandlerContext } from "./bus";
export { readHooks } from "./config";
export { EVENT_TRAITS, FIRED_EVENTS, HOOK_EVENTS, isHookEvent } from "./events";
export { boundHookText, MAX_HOOK_CONTEXT_CHARS, MAX_HOOK_MESSAGE_CHARS } from "./interpret";
export { compileMatcher, defaultIfMatcher, matcherMatches, matcherTarget, type HookIfMatcher } from "./matcher";
export { combineWithHooks, createHookRunner, decideWithHooks, DEFAULT_HOOK_TIMEOUT_S, eventBlocks, permissionRequestAnswer, type HookRunner, type HookRunnerOptions } from "./run-hooks";
export {
  absolutePaths,
  argsFromHookInput,
  changedHookFields,
  claudeEditInput,
  claudeEditWithText,
  editsFromHookInput,
  resolveHookInput,
  structuredPatch,
  toAbsolute,
  toRelative,
  type HookInputMapping,
} from "./claude-shapes";
export { ClaudeTranscriptProjector, transcriptUuid, type ClaudeToolShape, type TranscriptLine } from "./transcript";
export type { AsyncHookOutput, HookCommandRequest, HookCommandResult, HookCommandRunner, HookEventFields, HookEventName, HookOutcome, HookPayload, HookResponse, HookResult } from "./types";
