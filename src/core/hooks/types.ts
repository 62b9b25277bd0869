/** Claude Code-compatible lifecycle hooks: events, payloads, hook output, aggregated outcome. */
import type { SettingsSourceInfo } from "../permissions/types";
import type { HookEventName } from "./events";

export type { HookEventName } from "./events";

/** Fields the caller supplies for an event (session_id, transcript_path, cwd and hook_event_name are added). */
export interface HookEventFields {
  /** Permission name (Bash, Edit, mcp__server__tool…), for the tool events. */
  tool_name?: string;
  /** The tool's hook input (ToolDefinition.hookInput); relative paths are made absolute for the hook. */
  tool_input?: Record<string, unknown>;
  /** The tool call's id (the provider's tool_use id). */
  tool_use_id?: string;
  /** PostToolUse: ToolDefinition.hookResponse (Claude's per-tool shape). */
  tool_response?: unknown;
  /** PostToolUseFailure: the error text, and whether the user interrupted it. */
  error?: string;
  is_interrupt?: boolean;
  /** UserPromptSubmit. */
  prompt?: string;
  /** SessionStart: startup | resume | clear | compact. */
  source?: string;
  /** SessionStart: the model of the session. */
  model?: string;
  /** PreCompact: manual | auto. */
  trigger?: string;
  custom_instructions?: string;
  /** Notification: the text, and permission_prompt | idle_prompt | … (what its matcher tests). */
  message?: string;
  notification_type?: string;
  title?: string;
  /** Stop/SubagentStop: true when the agent is already continuing because of a Stop hook. */
  stop_hook_active?: boolean;
  /** Stop/SubagentStop: the text of the final assistant message. */
  last_assistant_message?: string;
  /** SessionEnd: clear | logout | prompt_input_exit | other. */
  reason?: string;
  /** default | plan | acceptEdits | bypassPermissions. */
  permission_mode?: string;
  [key: string]: unknown;
}

/** The JSON document written to a hook's stdin. */
export interface HookPayload extends HookEventFields {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEventName;
}

/** What a hook may print on stdout or an in-process handler may return. */
export interface HookResponse {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  /** approve | block (legacy PreToolUse), block (PostToolUse, Stop, UserPromptSubmit…). */
  decision?: "approve" | "block" | string;
  reason?: string;
  additionalContext?: string;
  updatedInput?: Record<string, unknown>;
  hookSpecificOutput?: {
    hookEventName?: string;
    /** PreToolUse. `defer` is treated as ask (Yoke has no deferred runs). */
    permissionDecision?: "allow" | "ask" | "deny" | "defer" | string;
    permissionDecisionReason?: string;
    additionalContext?: string;
    updatedInput?: Record<string, unknown>;
    /** PermissionRequest. */
    decision?: { behavior?: "allow" | "deny" | string; updatedInput?: Record<string, unknown>; updatedPermissions?: unknown; message?: string; interrupt?: boolean };
    /** PostToolUse: what the model sees instead of the tool's output. */
    updatedToolOutput?: unknown;
    updatedMCPToolOutput?: unknown;
  };
}

/** One hook command to run (node implementation: src/node/hook-exec.ts). */
export interface HookCommandRequest {
  /** Shell form: the command line (run with `bash -c`). Exec form (with `args`): the program. */
  command: string;
  /** Exec form: the argument vector; no shell is involved. */
  args?: string[];
  /** Shell form only: bash (default) or powershell. */
  shell?: "bash" | "powershell";
  cwd: string;
  stdin: string;
  /** Undefined: no timeout (async hooks; they are stopped when the session ends). */
  timeoutMs?: number;
  env?: Record<string, string>;
  /**
   * Run it confined, in the sandbox the session's commands use (what a hook processes was written
   * by the agent): true unless the user's own settings opted it out. A runner without a sandbox
   * runs every hook on the host.
   */
  sandbox?: boolean;
  /** Why the hook runs outside the sandbox (for the log), when `sandbox` is false. */
  unconfinedBy?: string;
  /**
   * The hook comes from the user's own settings (mayUnconfineHook): only then do the files its
   * command line writes outside the workspace stay writable when it runs confined.
   */
  fromUser?: boolean;
  /** The hook's settings file, for messages ("add \"sandbox\": false to the hook in …"). */
  sourceLabel?: string;
}

export interface HookCommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The process could not be spawned (error text). */
  error?: string;
  /**
   * The hook did not really run: the program or script is missing or not executable (exit
   * 126/127 from the shell, spawn ENOENT/EACCES) or the command is not valid shell syntax.
   */
  cannotStart?: string;
  /** Where the hook ran: the sandbox backend's name, or "host". */
  ranIn?: string;
  /** A confined hook failed: where it ran and how to run it on the host (also at the end of stderr). */
  confinement?: string;
}

/** Runs one hook command. */
export interface HookCommandRunner {
  run(req: HookCommandRequest, signal?: AbortSignal): Promise<HookCommandResult>;
}

/** What one hook (command or in-process handler) said. */
export interface HookResult {
  kind: "command" | "handler";
  /** The command line (with its args) or handler name. */
  name: string;
  /** The settings file the hook came from (commands). */
  source?: SettingsSourceInfo;
  /** Every settings file that defines this hook is shared with the repository: its "allow" counts as no opinion. */
  checkedIn?: boolean;
  exitCode?: number | null;
  durationMs: number;
  response?: HookResponse;
  /** Exit 2: the hook's stderr. */
  blockMessage?: string;
  /** The hook could not start (missing script, not executable, bad syntax): blocks fail-closed events. */
  cannotStart?: string;
  /** A non-blocking failure (other exit status, timeout, handler threw). */
  error?: string;
  /** `onFailure: "block"`: a timeout or an unexpected exit status blocks fail-closed events too. */
  blockOnFailure?: boolean;
  /** Plain stdout of a command that printed no JSON object. */
  plainOutput?: string;
}

/** The combined effect of every hook on one event, for the loop to apply. */
export interface HookOutcome {
  event: HookEventName;
  /**
   * The event's action is blocked: the tool call is not run (PreToolUse, PermissionRequest), the
   * tool result is followed by `message` (PostToolUse, PostToolUseFailure), the prompt is dropped
   * (UserPromptSubmit), the agent must continue instead of stopping (Stop).
   */
  blocked: boolean;
  /** Why (for the model on tool events and Stop; for the user on UserPromptSubmit). Bounded. */
  message?: string;
  /** PreToolUse / PermissionRequest decision (deny > ask > allow across hooks). */
  decision?: "allow" | "ask" | "deny";
  decisionReason?: string;
  /** Text to add to the model's context (each bounded). */
  additionalContext: string[];
  /** Replacement tool input (PreToolUse; PermissionRequest with allow), in hook field names. */
  updatedInput?: Record<string, unknown>;
  /** The tool_input the hooks were given (absolute paths, Claude shapes): argsFromHookInput compares against it. */
  toolInput?: Record<string, unknown>;
  /** PostToolUse: what the model sees instead of the tool's output (text). */
  updatedToolOutput?: string;
  /** `continue: false` (or a PermissionRequest `interrupt`): stop the whole turn, showing `reason` to the user. */
  stop?: { reason: string };
  /** Messages for the user (systemMessage, non-blocking errors). */
  userMessages: string[];
  errors: string[];
  /** Notes for the log (ignored allows of checked-in hooks, debug output). */
  notes?: string[];
  results: HookResult[];
}

/** What background (`async: true`) hooks produced since the last take, for the next model request. */
export interface AsyncHookOutput {
  additionalContext: string[];
  userMessages: string[];
  /** `asyncRewake` hooks that exited 2: their stderr, to wake the model with. */
  rewake: string[];
}
