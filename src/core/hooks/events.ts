/**
 * Claude Code's hook events, and what each one means to Yoke: which input field its matcher is
 * tested against, whether exit 2 blocks its action, whether a hook that cannot run blocks it
 * (fail closed), and whether Yoke fires it yet. One table, read by the settings reader, the
 * matcher and the runner.
 */

export const HOOK_EVENTS = [
  "SessionStart",
  "Setup",
  "SessionEnd",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "Stop",
  "StopFailure",
  "PreToolUse",
  "PermissionRequest",
  "PermissionDenied",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "SubagentStart",
  "SubagentStop",
  "TaskCreated",
  "TaskCompleted",
  "TeammateIdle",
  "InstructionsLoaded",
  "ConfigChange",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "CwdChanged",
  "DirectoryAdded",
  "FileChanged",
  "WorktreeCreate",
  "WorktreeRemove",
  "Notification",
  "MessageDisplay",
  "Elicitation",
  "ElicitationResult",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

interface EventTraits {
  /** The input field the matcher is tested against; absent: the event has no matcher (it is ignored). */
  matcherField?: string;
  /** Exit 2 (or `decision: "block"`) blocks the event's action. */
  blocks?: boolean;
  /** A hook that cannot start blocks the action (a guard must not fail open). */
  failClosed?: boolean;
  /** Plain stdout of exit 0 is context for the model. */
  plainContext?: boolean;
  /** Yoke's loop fires it today. */
  fires?: boolean;
  /** Why it never fires yet (for the settings problem). */
  missing?: string;
}

const TOOL = { matcherField: "tool_name" };

export const EVENT_TRAITS: Record<HookEventName, EventTraits> = {
  SessionStart: { matcherField: "source", plainContext: true, fires: true },
  Setup: { matcherField: "trigger", plainContext: true, missing: "Yoke has no --init/--maintenance run" },
  SessionEnd: { matcherField: "reason", fires: true },
  UserPromptSubmit: { blocks: true, failClosed: true, plainContext: true, fires: true },
  UserPromptExpansion: { matcherField: "command_name", blocks: true, failClosed: true, plainContext: true, missing: "custom slash commands expand without it yet" },
  Stop: { blocks: true, fires: true },
  StopFailure: { matcherField: "error", missing: "not wired to provider errors yet" },
  PreToolUse: { ...TOOL, blocks: true, failClosed: true, fires: true },
  PermissionRequest: { ...TOOL, blocks: true, failClosed: true, fires: true },
  PermissionDenied: { ...TOOL, missing: "Yoke has no auto mode" },
  PostToolUse: { ...TOOL, blocks: true, fires: true },
  PostToolUseFailure: { ...TOOL, blocks: true, fires: true },
  PostToolBatch: { blocks: true, missing: "Yoke runs tool calls one at a time" },
  SubagentStart: { matcherField: "agent_type", fires: true },
  SubagentStop: { matcherField: "agent_type", blocks: true, fires: true },
  TaskCreated: { blocks: true, failClosed: true, missing: "Yoke has no shared task list" },
  TaskCompleted: { blocks: true, missing: "Yoke has no shared task list" },
  TeammateIdle: { blocks: true, missing: "Yoke has no agent teams" },
  InstructionsLoaded: { matcherField: "load_reason", missing: "not wired to instruction loading yet" },
  ConfigChange: { matcherField: "source", blocks: true, failClosed: true, missing: "Yoke does not watch settings files during a session" },
  PreCompact: { matcherField: "trigger", blocks: true, failClosed: true, fires: true },
  PostCompact: { matcherField: "trigger", fires: true },
  PreModelSwitch: { matcherField: "model", blocks: true, failClosed: true, missing: "Yoke cannot switch models during a session" },
  PostModelSwitch: { matcherField: "model", plainContext: true, missing: "Yoke cannot switch models during a session" },
  CwdChanged: { missing: "the workspace folder of a session never changes" },
  DirectoryAdded: { matcherField: "source", missing: "Yoke has no /add-dir" },
  FileChanged: { matcherField: "file_path", missing: "Yoke has no file watch for hooks" },
  WorktreeCreate: { blocks: true, missing: "Yoke creates no worktrees" },
  WorktreeRemove: { missing: "Yoke creates no worktrees" },
  Notification: { matcherField: "notification_type", fires: true },
  MessageDisplay: { missing: "not wired to the display yet" },
  Elicitation: { matcherField: "mcp_server_name", blocks: true, missing: "Yoke's MCP client does not offer elicitation to servers" },
  ElicitationResult: { matcherField: "mcp_server_name", blocks: true, missing: "Yoke's MCP client does not offer elicitation to servers" },
};

export function isHookEvent(name: string): name is HookEventName {
  return Object.prototype.hasOwnProperty.call(EVENT_TRAITS, name);
}

/** Events Yoke's loop fires. */
export const FIRED_EVENTS: readonly HookEventName[] = HOOK_EVENTS.filter((e) => EVENT_TRAITS[e].fires);
