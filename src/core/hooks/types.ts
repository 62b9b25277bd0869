/** Claude Code-compatible lifecycle hooks: events, payloads, hook output, aggregated outcome. */

export type HookEventName = "SessionStart" | "UserPromptSubmit" | "PreToolUse" | "PostToolUse" | "Stop" | "SubagentStop" | "PreCompact" | "Notification" | "SessionEnd";

/** Fields the caller supplies for an event (session_id, transcript_path, cwd and hook_event_name are added). */
export interface HookEventFields {
  /** Permission name (Bash, Edit, mcp__server__tool…), for PreToolUse/PostToolUse. */
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  /** UserPromptSubmit. */
  prompt?: string;
  /** SessionStart: startup | resume | clear | compact. */
  source?: string;
  /** PreCompact: manual | auto. */
  trigger?: string;
  custom_instructions?: string;
  /** Notification. */
  message?: string;
  /** Stop/SubagentStop: true when the agent is already continuing because of a Stop hook. */
  stop_hook_active?: boolean;
  /** SessionEnd: clear | logout | prompt_input_exit | other. */
  reason?: string;
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

/** What a hook may print on stdout (exit 0) or an in-process handler may return. */
export interface HookResponse {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  /** approve | block (legacy PreToolUse), block (PostToolUse, Stop, UserPromptSubmit). */
  decision?: "approve" | "block";
  reason?: string;
  additionalContext?: string;
  updatedInput?: Record<string, unknown>;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: "allow" | "ask" | "deny";
    permissionDecisionReason?: string;
    additionalContext?: string;
    updatedInput?: Record<string, unknown>;
  };
}

/** Runs one hook command (node implementation: src/node/hook-exec.ts). */
export interface HookCommandRunner {
  run(
    req: { command: string; cwd: string; stdin: string; timeoutMs: number; env?: Record<string, string> },
    signal?: AbortSignal,
  ): Promise<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean; error?: string }>;
}

/** What one hook (command or in-process handler) said. */
export interface HookResult {
  kind: "command" | "handler";
  /** The command line or handler name. */
  name: string;
  exitCode?: number | null;
  durationMs: number;
  response?: HookResponse;
  /** Exit 2: the hook's stderr. */
  blockMessage?: string;
  /** A non-blocking failure (other exit status, timeout, bad JSON, handler threw). */
  error?: string;
  /** Plain stdout of a successful command that printed no JSON. */
  plainOutput?: string;
}

/** The combined effect of every hook on one event, for the loop to apply. */
export interface HookOutcome {
  event: HookEventName;
  /**
   * The event's action is blocked: the tool call is not run (PreToolUse), the tool result is
   * followed by `message` (PostToolUse), the prompt is dropped (UserPromptSubmit), the agent must
   * continue instead of stopping (Stop/SubagentStop).
   */
  blocked: boolean;
  /** Why (for the model on tool events and Stop; for the user on UserPromptSubmit). */
  message?: string;
  /** PreToolUse permission decision (deny > ask > allow across hooks). */
  decision?: "allow" | "ask" | "deny";
  decisionReason?: string;
  /** Text to add to the model's context. */
  additionalContext: string[];
  /** Replacement tool input (PreToolUse). */
  updatedInput?: Record<string, unknown>;
  /** `continue: false`: stop the whole session turn, showing `reason` to the user. */
  stop?: { reason: string };
  /** Messages for the user (systemMessage, non-blocking errors). */
  userMessages: string[];
  errors: string[];
  results: HookResult[];
}
