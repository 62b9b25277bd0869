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
  // Cursor's generic tool events: every tool, filtered by the entry's matcher on Cursor's tool type.
  preToolUse: { event: "PreToolUse", matcher: "" },
  postToolUse: { event: "PostToolUse", matcher: "" },
  postToolUseFailure: { event: "PostToolUseFailure", matcher: "" },
  // Cursor's subagentStart runs before the subagent is launched and may deny it: the task call's PreToolUse.
  subagentStart: { event: "PreToolUse", matcher: "^Task$" },
  subagentStop: { event: "SubagentStop", matcher: "" },
  preCompact: { event: "PreCompact", matcher: "" },
  // Observes the agent's answer: Yoke's turn ends with it (Stop), so it runs once a turn, on the final one.
  afterAgentResponse: { event: "Stop", matcher: "" },
};

/**
 * What an entry's `matcher` is tested against, per Cursor event (cursor.com/docs/hooks): the tool
 * type for the tool events (Shell, Read, Write, Grep, Task, MCP:<tool>…), the command text for the
 * shell events, the subagent type for the subagent events. Events not listed: the matcher is not read.
 */
const MATCHER_TARGET: Readonly<Record<string, "tool" | "command" | "subagent">> = {
  preToolUse: "tool",
  postToolUse: "tool",
  postToolUseFailure: "tool",
  beforeReadFile: "tool",
  afterFileEdit: "tool",
  beforeMCPExecution: "tool",
  afterMCPExecution: "tool",
  beforeShellExecution: "command",
  afterShellExecution: "command",
  subagentStart: "subagent",
  subagentStop: "subagent",
};

/**
 * Can this regular expression take exponential time (a repeated group that holds a quantifier or an
 * alternation: `(\w+\s?)*`, `(a|aa)+`)? JavaScript's engine backtracks, and a matcher is tested on the
 * extension host's thread against the command text, which has no bound: `^(\w+\s?)*$` took 61 s on a
 * 22-letter command ending in `!` (red team E, session 23). Such a matcher is not read.
 */
export function backtracksExponentially(source: string): boolean {
  const groups: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") inClass = true;
    else if (c === "(") groups.push(false);
    else if (c === "|" && groups.length) groups[groups.length - 1] = true;
    else if ((c === "*" || c === "+" || c === "{") && groups.length) groups[groups.length - 1] = true;
    else if (c === ")") {
      const risky = groups.pop() ?? false;
      const next = source[i + 1];
      if (risky && (next === "*" || next === "+" || next === "{")) return true;
      // What a group holds, its parent holds too.
      if (risky && groups.length) groups[groups.length - 1] = true;
    }
  }
  return false;
}

/** Cursor's tool type for a Yoke tool (its Claude Code permission name). */
export function cursorToolName(claudeName: string | undefined): string {
  const n = claudeName ?? "";
  if (n === "Bash") return "Shell";
  if (n === "Edit" || n === "Write" || n === "MultiEdit" || n === "NotebookEdit") return "Write";
  const mcp = /^mcp__.*?__(.+)$/.exec(n);
  if (mcp) return `MCP:${mcp[1]}`;
  return n;
}

/** Does a Cursor entry's matcher (an unanchored regular expression, as Cursor reads it) accept this call? */
export function cursorMatcherAccepts(cursor: { event: string; matcher?: string }, fields: { tool_name?: unknown; tool_input?: Record<string, unknown>; agent_type?: unknown }): boolean {
  if (cursor.matcher === undefined || cursor.matcher === "" || cursor.matcher === "*") return true;
  const kind = MATCHER_TARGET[cursor.event];
  const input = fields.tool_input ?? {};
  const target =
    kind === "command"
      ? String(input.command ?? "")
      : kind === "subagent"
        ? String(cursor.event === "subagentStart" ? (input.subagent_type ?? "") : (fields.agent_type ?? ""))
        : cursorToolName(typeof fields.tool_name === "string" ? fields.tool_name : undefined);
  try {
    return new RegExp(cursor.matcher).test(target);
  } catch {
    return false;
  }
}

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
      const matcher = typeof e.matcher === "string" ? e.matcher : e.matcher === undefined ? undefined : JSON.stringify(e.matcher);
      const slow = typeof e.matcher === "string" && MATCHER_TARGET[name] !== undefined && backtracksExponentially(e.matcher);
      const readMatcher = matcher !== undefined && MATCHER_TARGET[name] !== undefined && typeof e.matcher === "string" && !slow;
      if (readMatcher) {
        try {
          new RegExp(matcher);
        } catch {
          return warn(`${at}: "matcher" ${JSON.stringify(matcher)} is not a valid regular expression; skipped`);
        }
      } else if (slow)
        warn(
          `${at}: "matcher" ${JSON.stringify(matcher)} repeats a group that holds a quantifier or an alternation, which can take exponential time on a long ${MATCHER_TARGET[name] === "command" ? "command" : "name"}; it is not read: the hook runs for every ${name}, and an "allow" from it is not taken`,
        );
      else if (matcher !== undefined)
        warn(`${at}: "matcher" is not read for ${name}; the hook runs for every ${name}, and an "allow" from it is not taken (it was meant for the matched calls only)`, "info");
      commands.push({
        type: "command",
        command: e.command,
        ...(typeof e.timeout === "number" ? { timeout: e.timeout } : {}),
        ...(e.failClosed === true ? { onFailure: "block" as const } : {}),
        cursor: { event: name, ...(matcher === undefined ? {} : readMatcher ? { matcher } : { unreadMatcher: matcher }) },
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
    case "preToolUse":
    case "postToolUse":
    case "postToolUseFailure":
      return {
        ...common,
        tool_name: cursorToolName(payload.tool_name),
        tool_input: input,
        tool_use_id: payload.tool_use_id,
        cwd: payload.cwd,
        ...(cursorEvent === "postToolUse" ? { tool_output: JSON.stringify(payload.tool_response ?? null) } : {}),
        ...(cursorEvent === "postToolUseFailure" ? { error_message: payload.error ?? "", failure_type: "error" } : {}),
      };
    case "subagentStart":
      return { ...common, subagent_type: input.subagent_type, task: input.prompt ?? "", description: input.description ?? "", tool_call_id: payload.tool_use_id };
    case "subagentStop":
      return { ...common, subagent_type: payload.agent_type, status: "completed", summary: payload.last_assistant_message ?? "", loop_count: payload.stop_hook_active ? 1 : 0 };
    case "preCompact":
      return { ...common, trigger: payload.trigger };
    case "afterAgentResponse":
      return { ...common, text: payload.last_assistant_message ?? "" };
    case "stop":
      return { ...common, status: "completed", loop_count: payload.stop_hook_active ? 1 : 0 };
    default:
      return { ...common };
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** A Cursor hook's JSON answer in Claude Code's shape (what interpret.ts reads). */
export function fromCursorResponse(cursorEvent: string, res: HookResponse | undefined, entry: { unreadMatcher?: string } = {}, toolName?: string): HookResponse | undefined {
  // Events that only observe (Cursor reads no answer from them; afterMCPExecution's answer is discarded too).
  if (cursorEvent === "afterAgentResponse" || cursorEvent === "postToolUseFailure" || cursorEvent === "afterMCPExecution") return undefined;
  if (!res) return undefined;
  const r = res as Record<string, unknown>;
  const out: HookResponse = {};
  const userMessage = str(r.user_message) ?? str(r.userMessage);
  const agentMessage = str(r.agent_message) ?? str(r.agentMessage);
  if (cursorEvent === "beforeShellExecution" || cursorEvent === "beforeMCPExecution" || cursorEvent === "beforeReadFile" || cursorEvent === "preToolUse" || cursorEvent === "subagentStart") {
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
    // preToolUse's `updated_input`: the tool input to use instead (checked again like any hook's updatedInput).
    if (cursorEvent === "preToolUse" && isObject(r.updated_input)) {
      out.hookSpecificOutput = { hookEventName: "PreToolUse", ...out.hookSpecificOutput, updatedInput: r.updated_input };
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
  if (cursorEvent === "stop" || cursorEvent === "subagentStop") {
    // Cursor sends the follow-up as the next user message; Claude Code's Stop block goes on with it as the reason.
    const followup = str(r.followup_message);
    if (followup) {
      out.decision = "block";
      out.reason = followup;
    }
    return out;
  }
  if (str(r.additional_context)) out.additionalContext = r.additional_context as string;
  // postToolUse's `updated_mcp_tool_output`: what the model gets instead of an MCP tool's result.
  // Cursor takes it for MCP tools only (a built-in tool's output is never replaced), and from
  // postToolUse only (afterMCPExecution's answer is discarded, above).
  if (cursorEvent === "postToolUse" && toolName?.startsWith("mcp__")) {
    const replaced = mcpToolOutputText(r.updated_mcp_tool_output);
    if (replaced !== undefined) out.hookSpecificOutput = { hookEventName: "PostToolUse", updatedMCPToolOutput: replaced };
  }
  if (userMessage) out.systemMessage = userMessage;
  return out;
}

/**
 * The text of a Cursor `updated_mcp_tool_output`: a string as it is, or an MCP result's
 * `{content: [{type: "text", text}]}` as its text parts; another object as its JSON. Undefined when absent.
 */
function mcpToolOutputText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  const content = isObject(v) ? (v as { content?: unknown }).content : undefined;
  if (Array.isArray(content) && content.every((c) => isObject(c) && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string"))
    return content.map((c) => (c as { text: string }).text).join("\n");
  return JSON.stringify(v);
}
