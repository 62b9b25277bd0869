/**
 * The session event log: every step of a session is one of these, appended to a JSONL file.
 * The conversation the model sees, the UI state and resume are projections of this log.
 */
import { z } from "zod";
import { ContextItem } from "./composer/mentions";

export const LOOP_STATES = ["idle", "thinking", "waiting_tool", "waiting_user", "done", "error", "cancelled"] as const;
export const LoopState = z.enum(LOOP_STATES);
export type LoopState = z.infer<typeof LoopState>;

export const ToolCallRecord = z.object({
  id: z.string(),
  name: z.string(),
  /** Arguments as the model sent them (parsed JSON, or the raw string when it was not JSON). */
  input: z.unknown(),
  /** One line for cards and approvals, from the tool's own summary (never sent to the model). */
  summary: z.string().optional(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative().default(0),
  cacheWriteTokens: z.number().int().nonnegative().default(0),
});
export type Usage = z.infer<typeof Usage>;

/**
 * An image given to the model with a message or a tool result (an MCP tool's image, an MCP
 * prompt's image): base64 bytes, bounded (src/core/providers/images.ts). Providers that accept
 * images send it as an image part; the others tell the model it was not shown.
 */
export const ImagePart = z.object({ mimeType: z.string(), data: z.string() });
export type ImagePart = z.infer<typeof ImagePart>;

const base = {
  /** Position in the log, from 0. */
  seq: z.number().int().nonnegative(),
  /** ISO time. */
  ts: z.string(),
};

export const SessionEvent = z.discriminatedUnion("type", [
  z.object({
    ...base,
    type: z.literal("session_start"),
    sessionId: z.string(),
    cwd: z.string(),
    provider: z.string(),
    model: z.string(),
    /** Provider base URL (never a key), so `yoke resume` can reconnect without options. */
    baseUrl: z.string().optional(),
    permissionMode: z.string().default("default"),
    /** Label shown instead of the model name (e.g. "demo model"). */
    label: z.string().optional(),
    /** The system prompt, fixed for the session so resume sends the same prefix (prompt caches hit). */
    systemPrompt: z.string().optional(),
    /** Whether the workspace was trusted (false = Restricted Mode: nothing is written or run). */
    trusted: z.boolean().default(true),
    /** The sandbox commands run in, chosen once per session (absent: the host runs no commands). */
    sandbox: z.string().optional(),
    /** Shown persistently while it applies (e.g. sandbox "none"). */
    sandboxWarning: z.string().optional(),
    /** The session is a copy of another's events up to `seq` (a fork), continued on its own. */
    forkedFrom: z.object({ sessionId: z.string(), seq: z.number().int().nonnegative() }).optional(),
    /** A sub-agent's session (src/core/subagents): the session whose `task` call started it, and that call. */
    parentId: z.string().optional(),
    parentCallId: z.string().optional(),
    /** Version of the event schema. */
    version: z.literal(1),
  }),
  z.object({
    ...base,
    type: z.literal("user_message"),
    text: z.string(),
    /** Context added for the model by hooks (SessionStart, UserPromptSubmit, Stop); not shown as the user's words. */
    context: z.string().optional(),
    /** Who wrote it: the user, or an extension (a Stop hook, a nudge) that kept the agent going. */
    from: z.enum(["user", "hook", "extension"]).optional(),
    /** What the user typed when an extension expanded it (a custom slash command `/name args`); `text` is what the model got. */
    typed: z.string().optional(),
    /** Images given with the message (an MCP prompt's): sent as image parts where the provider takes them. */
    images: z.array(ImagePart).optional(),
  }),
  /**
   * Context an extension appended for the model (request.prepare): sent as a user-role message at
   * this place in the conversation, so the prefix before it never changes and prompt caches hit.
   */
  z.object({
    ...base,
    type: z.literal("context"),
    source: z.string(),
    text: z.string(),
    /** Guidance in force (rules, project memory): a compaction re-injects it verbatim, never summarises it. */
    persist: z.boolean().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("assistant_message"),
    text: z.string(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ToolCallRecord),
    stopReason: z.string().optional(),
  }),
  /** A tool began to run (after validation and permission). */
  z.object({ ...base, type: z.literal("tool_call"), callId: z.string(), name: z.string(), input: z.unknown() }),
  z.object({
    ...base,
    type: z.literal("tool_result"),
    callId: z.string(),
    name: z.string(),
    /** What the model is told. */
    output: z.string(),
    isError: z.boolean(),
    durationMs: z.number().nonnegative(),
    /** The tool was running when the session died; it was not re-run. */
    interrupted: z.boolean().optional(),
    /** Structured details for the UI (never sent to the model). */
    meta: z.unknown().optional(),
    /** What the tool card shows besides the output (the tool's own description of its result). */
    card: z.object({ badges: z.array(z.string()).optional(), detail: z.string().optional() }).optional(),
    /** Images the tool returned (an MCP tool's), bounded: sent with the result where the provider takes them. */
    images: z.array(ImagePart).optional(),
  }),
  z.object({
    ...base,
    type: z.literal("permission_request"),
    callId: z.string(),
    tool: z.string(),
    permission: z.string(),
    input: z.unknown(),
    reason: z.string(),
    /** One line describing the call (the tool's own summary). */
    summary: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("permission_decision"),
    callId: z.string(),
    decision: z.enum(["allow", "deny"]),
    by: z.enum(["rule", "mode", "hook", "user", "restricted", "extension"]),
    rule: z.string().optional(),
    message: z.string().optional(),
  }),
  /**
   * A change put up for review. The proposal is recorded as a unified diff against `beforeHash`
   * (the content it was made from), so a window reload can rebuild the review from the log.
   */
  z.object({
    ...base,
    type: z.literal("review_proposed"),
    editId: z.string(),
    callId: z.string(),
    /** Absolute path. */
    path: z.string(),
    relPath: z.string(),
    tool: z.string(),
    /** "ask": waits for the user; "auto": applied at once (the mode or a rule allowed it), still revertable. */
    mode: z.enum(["ask", "auto"]),
    /** The file did not exist before. */
    created: z.boolean(),
    /** xxHash32 (hex) of the content before, without BOM. */
    beforeHash: z.string(),
    /** Unified diff from the content before to the proposal. */
    diff: z.string(),
  }),
  /** What became of a reviewed change: by the user (per file or per hunk) or by the mode. */
  z.object({
    ...base,
    type: z.literal("review_decision"),
    editId: z.string(),
    path: z.string(),
    status: z.enum(["accepted", "rejected", "partial", "failed"]),
    by: z.enum(["user", "mode"]),
    hunks: z.object({ accepted: z.number().int(), rejected: z.number().int() }).optional(),
    userEdited: z.boolean().optional(),
    message: z.string().optional(),
    /** The changed region of the file as it now reads (bounded), for the record. */
    region: z.string().optional(),
  }),
  /** The permission mode changed during the session. */
  z.object({ ...base, type: z.literal("mode_change"), mode: z.string(), from: z.string(), by: z.enum(["user", "host", "extension"]) }),
  /** An extension changed the course of the loop, or failed (it is contained; the session goes on). */
  z.object({
    ...base,
    type: z.literal("extension"),
    name: z.string(),
    point: z.string(),
    outcome: z.enum(["error", "rewrote_input", "rewrote_output", "stopped", "nudged", "blocked", "decided", "context", "expanded", "handled"]),
    callId: z.string().optional(),
    detail: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("error"),
    message: z.string(),
    code: z.string().optional(),
    retryable: z.boolean().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("usage"),
    usage: Usage,
    model: z.string(),
    /** USD for this request; absent when the model's price is unknown. */
    costUsd: z.number().optional(),
    /** The MCP server whose sampling request (`sampling/createMessage`) this request answered: paid for, not part of the conversation's context. */
    sampling: z.string().optional(),
  }),
  /**
   * A request's prefix stopped matching the previous request's (src/core/cost): the prompt cache
   * serves nothing after the first difference. `cause` names an event that explains it.
   */
  z.object({
    ...base,
    type: z.literal("cache_break"),
    kind: z.enum(["model", "tools", "system", "messages"]),
    detail: z.string(),
    messageIndex: z.number().int().nonnegative().optional(),
    keptMessages: z.number().int().nonnegative(),
    cause: z.enum(["compaction", "rewind", "fallback"]).optional(),
  }),
  // --- guidance (src/core/guidance): lessons, skills, rules and project memory injected, and why ---
  z.object({
    ...base,
    type: z.literal("guidance"),
    injected: z.array(
      z.object({
        /** `kind:source`, the key pin and mute use. */
        id: z.string(),
        name: z.string(),
        kind: z.enum(["lesson", "skill", "rule", "memory"]),
        source: z.string(),
        /** Why it applies: `always`, `keyword "x"`, `glob src/** (src/a.ts)`, `tool run_command`, `pinned`… */
        reasons: z.array(z.string()),
        /** Estimated tokens it added. */
        tokens: z.number().nonnegative(),
        /** A skill only listed by name and description (not loaded). */
        listed: z.boolean().optional(),
        /** Project memory: the folder it applies to. */
        dir: z.string().optional(),
      }),
    ),
    /** Files that could not be loaded (malformed frontmatter…), with file and line. */
    problems: z.array(z.object({ path: z.string(), line: z.number().int().optional(), message: z.string() })).optional(),
    /** Ids of entries that apply but the guidance budget left out (the model was told their names). */
    withheld: z.array(z.string()).optional(),
  }),
  // --- end guidance ---
  z.object({ ...base, type: z.literal("status"), state: LoopState, detail: z.string().optional() }),
  // --- loop control (issue 12: breakers, fallback, budgets, stuck detection, concurrency gates) ---
  /** A circuit breaker changed state: per tool, per tool group (`mcp:<server>`) or per provider+model. */
  z.object({
    ...base,
    type: z.literal("breaker"),
    scope: z.enum(["tool", "group", "provider"]),
    /** The tool name, the group, or `provider:model`. */
    key: z.string(),
    state: z.enum(["open", "half_open", "closed"]),
    /** Consecutive failures counted when it opened. */
    failures: z.number().int().nonnegative(),
    /** What the user and the model are told. */
    message: z.string(),
  }),
  /** The session went on with another model of the fallback chain. */
  z.object({ ...base, type: z.literal("fallback"), from: z.string(), to: z.string(), reason: z.string() }),
  /** A budget of the task (cost, wall time) ran out: the loop stopped with this report. */
  z.object({
    ...base,
    type: z.literal("budget"),
    limit: z.enum(["cost", "time"]),
    turns: z.number().int().nonnegative(),
    costUsd: z.number().nonnegative(),
    elapsedS: z.number().nonnegative(),
    report: z.string(),
  }),
  /** The stuck detector saw a pattern: first a nudge to the model, then the loop stops and asks the user. */
  z.object({
    ...base,
    type: z.literal("stuck"),
    pattern: z.enum(["repeat", "same_error", "alternation", "no_progress"]),
    action: z.enum(["nudge", "stop"]),
    detail: z.string(),
  }),
  /** A tool call waits for a free slot of a concurrency gate (e.g. at most 4 commands at once). */
  z.object({ ...base, type: z.literal("tool_queued"), callId: z.string(), name: z.string(), gate: z.string(), position: z.number().int().positive(), limit: z.number().int().positive() }),
  // --- end loop control ---
  // --- verification (issue 12, src/core/verification): the checks run after the agent's edits ---
  /**
   * A check ran: `verification.command` before the agent may finish ("check"), or the diagnostics
   * of the files the agent changed ("diagnostics": the language servers, or verification.lintCommand).
   * The evidence the final answer carries: what ran, its result, where its output is.
   */
  z.object({
    ...base,
    type: z.literal("verification"),
    kind: z.enum(["check", "diagnostics"]),
    /** "error": the check could not run (no command runner, could not start); nothing was concluded. */
    status: z.enum(["passed", "failed", "error"]),
    /** What checked: "verification.command", "verification.lintCommand", "language server". */
    source: z.string(),
    command: z.string().optional(),
    exitCode: z.number().int().nullable().optional(),
    durationMs: z.number().nonnegative(),
    /** The command's id in the session's runner (command_output {"id"} reads its output). */
    outputRef: z.string().optional(),
    /** The file holding the command's full output. */
    logPath: z.string().optional(),
    /** The last lines of the output (bounded). */
    snippet: z.string().optional(),
    /** Workspace-relative files the diagnostics were collected for. */
    files: z.array(z.string()).optional(),
    /** New problems found (diagnostics). */
    problems: z.number().int().nonnegative().optional(),
    /** Which failed run this is since the user's message (check), and the limit. */
    attempt: z.number().int().nonnegative().optional(),
    maxReflections: z.number().int().nonnegative().optional(),
    /** Why it could not run, or what happened next (one line, for the transcript). */
    message: z.string().optional(),
  }),
  // --- checkpoints (issue 12): a snapshot of the workspace folders, and a restore/rewind ---
  /**
   * The workspace files at one moment, per folder: taken before the first change of a turn (an
   * edit or a command), before a restore or a fork changes the files (the undo point), so every
   * restore can be undone. `turn` is the 1-based turn (user messages so far, rewound ones left out).
   */
  z.object({
    ...base,
    type: z.literal("checkpoint"),
    turn: z.number().int().nonnegative(),
    reason: z.enum(["turn", "restore", "fork"]),
    folders: z.array(
      z.object({
        name: z.string(),
        root: z.string(),
        /** The snapshot commit in Yoke's shadow repository of the folder (absent: the snapshot failed, see `error`). */
        commit: z.string().optional(),
        /** Left out of the snapshot, never touched by a restore. */
        skipped: z.array(z.object({ path: z.string(), reason: z.enum(["large-file", "nested-repository", "large-folder"]), detail: z.string().optional() })),
        /** Only what changed since the last snapshot was recorded (the time budget ran out); `fallback` says what. */
        partial: z.boolean().optional(),
        fallback: z.string().optional(),
        error: z.string().optional(),
        durationMs: z.number().nonnegative(),
      }),
    ),
  }),
  /**
   * A restore to the state after `turn` (0: before the first turn). `conversation`: the events
   * from seq `fromSeq` up to this one are out of force (session/rewind.ts). `files`: the files were
   * restored from the checkpoint at `checkpointSeq`; `undoSeq` is the checkpoint taken just before,
   * which an undo restores. `undoes`: this restore undid the rewind at that seq.
   */
  z.object({
    ...base,
    type: z.literal("rewind"),
    turn: z.number().int().nonnegative(),
    conversation: z.boolean(),
    files: z.boolean(),
    fromSeq: z.number().int().nonnegative().optional(),
    checkpointSeq: z.number().int().nonnegative().optional(),
    undoSeq: z.number().int().nonnegative().optional(),
    undoes: z.number().int().nonnegative().optional(),
    /** Paths written and deleted, per folder (bounded), and what was left alone. */
    changed: z.array(z.object({ root: z.string(), written: z.number().int(), deleted: z.number().int(), kept: z.array(z.string()).optional() })).optional(),
  }),
  // --- end checkpoints ---
  // --- MCP client (src/core/mcp) ---
  /** An MCP server changed state (started, failed, not approved…), with its tool count once known. */
  z.object({
    ...base,
    type: z.literal("mcp_server"),
    server: z.string(),
    state: z.enum(["starting", "running", "failed", "stopped", "cached", "not_approved", "untrusted", "disabled", "config_error"]),
    detail: z.string().optional(),
    tools: z.number().int().nonnegative().optional(),
  }),
  /** A running MCP tool call reported progress (`notifications/progress`; at most one event a second per call). */
  z.object({
    ...base,
    type: z.literal("mcp_progress"),
    callId: z.string(),
    server: z.string(),
    tool: z.string(),
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  }),
  /**
   * A server asked the user something through Yoke (src/core/mcp/client-requests.ts): a sampling
   * request (`sampling/createMessage`, answered by the session's model) or an elicitation
   * (`elicitation/create`, a form), and what became of it.
   */
  z.object({
    ...base,
    type: z.literal("mcp_request"),
    server: z.string(),
    kind: z.enum(["sampling", "elicitation"]),
    outcome: z.enum(["answered", "accepted", "declined", "cancelled", "denied", "failed"]),
    detail: z.string().optional(),
  }),
  // --- end MCP client ---
  // --- compaction (issue 11: context engineering, src/core/compaction) ---
  /**
   * The model's context was compacted. The log is never rewritten: from here on the model sees
   * the summary, the persisted context and the user's constraint messages verbatim, the open
   * todo list, then the events from `firstKeptSeq` on (with `stubs` in place of large old tool
   * results, each recallable by its ref). See session/projection.ts.
   */
  z.object({
    ...base,
    type: z.literal("compaction"),
    trigger: z.enum(["manual", "threshold", "overflow"]),
    strategy: z.enum(["extractive", "llm"]),
    /** First event of the log kept verbatim (everything before it is in the summary). */
    firstKeptSeq: z.number().int().nonnegative(),
    /** The anchored summary of the events before firstKeptSeq ("" when nothing was summarised). */
    summary: z.string(),
    /** The model that wrote an LLM summary. */
    summaryModel: z.string().optional(),
    /** User messages before firstKeptSeq re-sent verbatim (they state constraints). */
    keptUserSeqs: z.array(z.number().int().nonnegative()),
    /** Persisted context events (guidance in force) before firstKeptSeq, re-sent verbatim. */
    persistedSeqs: z.array(z.number().int().nonnegative()),
    /** The todos event re-sent (the open todo list), when there is one. */
    todosSeq: z.number().int().nonnegative().optional(),
    /** Tool results at or after firstKeptSeq the model sees as a stub instead (seq of the tool_result). */
    stubs: z.array(z.object({ seq: z.number().int().nonnegative(), ref: z.string() })),
    /** Every tool result of the log the model can get back with `recall`. */
    references: z.array(z.object({ ref: z.string(), tool: z.string(), summary: z.string(), chars: z.number().int().nonnegative() })),
    filesRead: z.array(z.string()),
    filesModified: z.array(z.string()),
    phases: z.array(z.object({ name: z.enum(["reasoning", "tool_results", "summary"]), savedTokens: z.number().int(), detail: z.string() })),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    /** What a PreCompact hook / compaction handler asked the summary to keep in mind. */
    instructions: z.array(z.string()).optional(),
  }),
  // --- end compaction ---
  // --- sub-agents (src/core/subagents): a child session started by the `task` tool, in the parent's log ---
  /**
   * A sub-agent's progress, recorded in the parent's log with the `task` call (`callId`): "started"
   * (its own session `childId`), one "step" per tool call the child finished (its one-line summary,
   * never its output), "finished" with the typed outcome and what it cost (counted in the parent's
   * budgets and totals). Never sent to the parent's model: it gets only the distilled result.
   */
  z.object({
    ...base,
    type: z.literal("subagent"),
    callId: z.string(),
    childId: z.string(),
    phase: z.enum(["started", "step", "finished"]),
    /** Depth of the child (1: started by the user's session). */
    depth: z.number().int().positive(),
    description: z.string().optional(),
    /** step: the child's tool, its summary, whether it failed or was refused. */
    tool: z.string().optional(),
    summary: z.string().optional(),
    isError: z.boolean().optional(),
    /** finished: the outcome, why it failed, its turns and tool calls, files it read and changed. */
    status: z.enum(["completed", "failed", "cancelled"]).optional(),
    error: z.string().optional(),
    turns: z.number().int().nonnegative().optional(),
    toolCalls: z.number().int().nonnegative().optional(),
    filesRead: z.array(z.string()).optional(),
    filesChanged: z.array(z.string()).optional(),
    usage: Usage.optional(),
    /** USD the child spent (its own sub-agents included); absent when no price was known. */
    costUsd: z.number().nonnegative().optional(),
  }),
  // --- end sub-agents ---
  // --- composer (src/core/composer): @-mentions attached to a message, steered and queued messages ---
  /** What the user attached to the next user message (@-mentions, chips): what each became for the model. */
  z.object({
    ...base,
    type: z.literal("mentions"),
    items: z.array(
      z.object({
        kind: z.string(),
        label: z.string(),
        /** Why it could not be attached (the model is told too). */
        error: z.string().optional(),
        /** Only a bounded part of it was sent. */
        truncated: z.boolean().optional(),
        /** Characters the model got. */
        chars: z.number().int().nonnegative(),
      }),
    ),
  }),
  /**
   * A message typed while the agent worked: "steer" delivers it at the next step (before the next
   * model request), "queue" sends it after the task ends. `added`/`edited`/`removed` keep the
   * queue (rebuilt from these on resume); `steered` (delivered mid-run) and `sent` (after the task)
   * come right before its user_message.
   */
  z.object({
    ...base,
    type: z.literal("queue"),
    action: z.enum(["added", "edited", "removed", "steered", "sent"]),
    id: z.string(),
    mode: z.enum(["steer", "queue"]).optional(),
    text: z.string().optional(),
    items: z.array(ContextItem).optional(),
  }),
  // --- end composer ---
  /** How long the agent worked on one message, and where the time went (src/core/turn-time). Never sent to the model. */
  z.object({
    ...base,
    type: z.literal("turn_time"),
    /** Wall time from the first model request to the end of the run. */
    ms: z.number().nonnegative(),
    /** Waiting for the model: each request from the "thinking" state to its answer. */
    modelMs: z.number().nonnegative(),
    /** The tools' own durations, summed (parallel calls count each). */
    toolMs: z.number().nonnegative(),
    requests: z.number().int().nonnegative(),
    tools: z.number().int().nonnegative(),
    outcome: z.enum(["done", "error", "cancelled"]),
  }),
  z.object({
    ...base,
    type: z.literal("todos"),
    todos: z.array(z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })),
  }),
]);
export type SessionEvent = z.infer<typeof SessionEvent>;
export type SessionEventType = SessionEvent["type"];
export type EventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;
/** An event before the log assigns its position and time. */
export type NewEvent = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, "seq" | "ts"> : never) : never;
