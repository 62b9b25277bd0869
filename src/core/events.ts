/**
 * The session event log: every step of a session is one of these, appended to a JSONL file.
 * The conversation the model sees, the UI state and resume are projections of this log.
 */
import { z } from "zod";

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
    outcome: z.enum(["error", "rewrote_input", "rewrote_output", "stopped", "nudged", "blocked", "decided", "context"]),
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
  }),
  z.object({ ...base, type: z.literal("status"), state: LoopState, detail: z.string().optional() }),
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
