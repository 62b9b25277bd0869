/**
 * Cursor's hooks (`.cursor/hooks.json`, `~/.cursor/hooks.json`; issue 23) on Yoke's hook mechanism:
 * `{"version": 1, "hooks": {"beforeShellExecution": [{"command": "...", "timeout": 30}]}}`. Each
 * Cursor event becomes the Claude Code event it stands for, with a matcher on Yoke's tool names
 * (beforeShellExecution: PreToolUse of Bash), and its hooks are marked Cursor's: they get Cursor's
 * input on stdin (`hook_event_name` in Cursor's name, `conversation_id`, `workspace_roots`, the
 * event's own fields) and their answer is read as Cursor documents it (`permission`
 * allow/deny/ask with `user_message` and `agent_message`; `continue: false` on beforeSubmitPrompt;
 * `followup_message` on stop; exit status 2 denies; `failClosed: true` blocks when the hook fails).
 * Trust is the settings files': a repository's hooks run only in a trusted workspace, confined,
 * and may block, never allow.
 */
import type { HookGroupConfig, SettingsProblem, SettingsSourceInfo } from "../permissions/types";
import type { HookEventName, HookPayload, HookResponse } from "./types";

interface CursorEvent {
  event: HookEventName;
  /** A matcher on Yoke's hook tool names (Claude Code's: Bash, Read, Edit, Write, mcp__…). */
  matcher: string;
}

/** Cursor's agent events Yoke fires, and what each is in Claude Code's terms. */
export const CURSOR_HOOK_EVENTS: Readonly<Record<string, CursorEvent>> = {
  beforeShellExecution: { event: "PreToolUse", matcher: "^Bash$" },
  afterShellExecution: { event: "PostToolUse", matcher: "^Bash$" },
  beforeMCPExecution: { event: "PreToolUse", matcher: "^mcp__" },
  afterMCPExecution: { event: "PostToolUse", matcher: "^mcp__" },
  beforeReadFile: { event: "PreToolUse", matcher: "^Read$" },
  afterFileEdit: { event: "PostToolUse", matcher: "^(Edit|Write)$" },
  beforeSubmitPrompt: { event: "UserPromptSubmit", matcher: "" },
  stop: { event: "Stop", matcher: "" },
  sessionStart: { event: "SessionStart", matcher: "" },
  sessionEnd: { event: "SessionEnd", matcher: "" },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The hook groups of a Cursor hooks file's `hooks` object. */
export function readCursorHooks(hooks: Record<string, unknown>, info: SettingsSourceInfo, problems: SettingsProblem[]): HookGroupConfig[] {
  const where = info.path ?? info.label;
  const warn = (message: string, level?: "info") => problems.push({ source: info, message: `${where}: ${message}`, ...(level ? { level } : {}) });
  const out: HookGroupConfig[] = [];
  for (const [name, entries] of Object.entries(hooks)) {
    const mapped = CURSOR_HOOK_EVENTS[name];
    if (!mapped) {
      warn(`hooks.${name}: a Cursor event Yoke does not fire (it fires ${Object.keys(CURSOR_HOOK_EVENTS).join(", ")}); skipped`, "info");
      continue;
    }
    if (!Array.isArray(entries)) {
      warn(`hooks.${name} must be an array of {"command": string}; skipped`);
      continue;
    }
    const commands: HookGroupConfig["hooks"] = [];
    entries.forEach((e: unknown, i) => {
      const at = `hooks.${name}[${i}]`;
      if (!isObject(e)) return warn(`${at} must be {"command": string}; skipped`);
      if (e.type !== undefined && e.type !== "command") return warn(`${at}: hooks of type ${JSON.stringify(e.type)} cannot run in Yoke (only command hooks do); skipped`);
      if (typeof e.command !== "string" || e.command.trim() === "") return warn(`${at}: "command" must be a non-empty string; skipped`);
      if (e.timeout !== undefined && (typeof e.timeout !== "number" || !(e.timeout > 0))) return warn(`${at}: "timeout" must be a number of seconds above 0; skipped`);
      if (e.matcher !== undefined) warn(`${at}: "matcher" is not read yet; the hook runs for every ${name}, and an "allow" from it is not taken (it was meant for the matched calls only)`, "info");
      commands.push({
        type: "command",
        command: e.command,
        ...(typeof e.timeout === "number" ? { timeout: e.timeout } : {}),
        ...(e.failClosed === true ? { onFailure: "block" as const } : {}),
        cursor: { event: name, ...(e.matcher !== undefined ? { unreadMatcher: typeof e.matcher === "string" ? e.matcher : JSON.stringify(e.matcher) } : {}) },
      });
    });
    if (commands.length) out.push({ event: mapped.event, matcher: mapped.matcher, hooks: commands, source: info });
  }
  return out;
}

/** What a Cursor hook gets on stdin for a Yoke event (Cursor's documented input). */
export function cursorInput(cursorEvent: string, payload: HookPayload, extra: { content?: string } = {}): Record<string, unknown> {
  const input = payload.tool_input ?? {};
  const common = {
    hook_event_name: cursorEvent,
    conversation_id: payload.session_id,
    generation_id: payload.tool_use_id ?? payload.session_id,
    workspace_roots: [payload.cwd],
    ...(payload.model ? { model: payload.model } : {}),
  };
  const filePath = typeof input.file_path === "string" ? input.file_path : typeof input.path === "string" ? input.path : undefined;
  switch (cursorEvent) {
    case "beforeShellExecution":
    case "afterShellExecution": {
      const response = payload.tool_response as { stdout?: unknown; stderr?: unknown } | undefined;
      const output = response ? [response.stdout, response.stderr].filter((x) => typeof x === "string" && x !== "").join("\n") : undefined;
      return { ...common, command: input.command, cwd: payload.cwd, ...(cursorEvent === "afterShellExecution" ? { output: output ?? "" } : {}) };
    }
    case "beforeMCPExecution":
    case "afterMCPExecution":
      return {
        ...common,
        tool_name: (payload.tool_name ?? "").replace(/^mcp__.*?__/, ""),
        tool_input: JSON.stringify(input),
        ...(cursorEvent === "afterMCPExecution" ? { result_json: JSON.stringify(payload.tool_response ?? null) } : {}),
      };
    case "beforeReadFile":
      return { ...common, file_path: filePath, content: extra.content ?? "", attachments: [] };
    case "afterFileEdit": {
      const edits =
        typeof input.old_string === "string"
          ? [{ old_string: input.old_string, new_string: input.new_string ?? "" }]
          : typeof input.content === "string"
            ? [{ old_string: "", new_string: input.content }]
            : [];
      return { ...common, file_path: filePath, edits };
    }
    case "beforeSubmitPrompt":
      return { ...common, prompt: payload.prompt ?? "", attachments: [] };
    case "stop":
      return { ...common, status: "completed", loop_count: payload.stop_hook_active ? 1 : 0 };
    default:
      return { ...common };
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** A Cursor hook's JSON answer in Claude Code's shape (what interpret.ts reads). */
export function fromCursorResponse(cursorEvent: string, res: HookResponse | undefined, entry: { unreadMatcher?: string } = {}): HookResponse | undefined {
  if (!res) return undefined;
  const r = res as Record<string, unknown>;
  const out: HookResponse = {};
  const userMessage = str(r.user_message) ?? str(r.userMessage);
  const agentMessage = str(r.agent_message) ?? str(r.agentMessage);
  if (cursorEvent === "beforeShellExecution" || cursorEvent === "beforeMCPExecution" || cursorEvent === "beforeReadFile") {
    const permission = r.permission;
    // An entry whose matcher Yoke does not read runs for every call: its "allow" was meant for the
    // matched ones only, so it is not taken (deny and ask still are: they only restrict).
    if (permission !== undefined && !(permission === "allow" && entry.unreadMatcher !== undefined)) {
      out.hookSpecificOutput = {
        hookEventName: "PreToolUse",
        permissionDecision: typeof permission === "string" ? permission : JSON.stringify(permission),
        ...(agentMessage || userMessage ? { permissionDecisionReason: (agentMessage ?? userMessage)! } : {}),
      };
    }
    if (userMessage) out.systemMessage = userMessage;
    return out;
  }
  if (cursorEvent === "beforeSubmitPrompt") {
    if (r.continue === false) {
      out.decision = "block";
      out.reason = userMessage ?? "a beforeSubmitPrompt hook stopped this prompt";
    } else if (userMessage) out.systemMessage = userMessage;
    return out;
  }
  if (cursorEvent === "stop") {
    // Cursor sends the follow-up as the next user message; Claude Code's Stop block goes on with it as the reason.
    const followup = str(r.followup_message);
    if (followup) {
      out.decision = "block";
      out.reason = followup;
    }
    return out;
  }
  if (str(r.additional_context)) out.additionalContext = r.additional_context as string;
  if (userMessage) out.systemMessage = userMessage;
  return out;
}
