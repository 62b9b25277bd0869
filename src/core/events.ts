/**
 * The session event log: every step of a session is one of these, appended to a JSONL file.
 * The conversation the model sees, the UI state and resume are projections of this log.
 */
import * as z from "zod/mini";
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
  summary: z.optional(z.string()),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

export const Usage = z.object({
  inputTokens: z.int().check(z.nonnegative()),
  outputTokens: z.int().check(z.nonnegative()),
  cacheReadTokens: z._default(z.int().check(z.nonnegative()), 0),
  cacheWriteTokens: z._default(z.int().check(z.nonnegative()), 0),
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
  seq: z.int().check(z.nonnegative()),
  /** ISO time. */
  ts: z.string(),
};

/**
 * Each event type's schema, made when an event of that type is first checked: the whole union (35
 * objects, a few hundred zod schemas) cost 3-5 ms of CPU on every start, before the first request,
 * where a session writes a handful of types (docs/benchmarks.md, session 21). The answers are the
 * discriminated union's: an event of a known type is checked by that type's object, anything else
 * by the whole union (made then).
 */
const EVENT_SCHEMAS = {
  session_start: () =>
    z.object({
      ...base,
      type: z.literal("session_start"),
      sessionId: z.string(),
      cwd: z.string(),
      provider: z.string(),
      model: z.string(),
      /** Provider base URL (never a key), so `yoke resume` can reconnect without options. */
      baseUrl: z.optional(z.string()),
      permissionMode: z._default(z.string(), "default"),
      /** Label shown instead of the model name (e.g. "demo model"). */
      label: z.optional(z.string()),
      /** The system prompt, fixed for the session so resume sends the same prefix (prompt caches hit). */
      systemPrompt: z.optional(z.string()),
      /** Whether the workspace was trusted (false = Restricted Mode: nothing is written or run). */
      trusted: z._default(z.boolean(), true),
      /** The sandbox commands run in, chosen once per session (absent: the host runs no commands). */
      sandbox: z.optional(z.string()),
      /** Shown persistently while it applies (e.g. sandbox "none"). */
      sandboxWarning: z.optional(z.string()),
      /** The session is a copy of another's events up to `seq` (a fork), continued on its own. */
      forkedFrom: z.optional(z.object({ sessionId: z.string(), seq: z.int().check(z.nonnegative()) })),
      /** A sub-agent's session (src/core/subagents): the session whose `task` call started it, and that call. */
      parentId: z.optional(z.string()),
      parentCallId: z.optional(z.string()),
      /** Version of the event schema. */
      version: z.literal(1),
    }),
  user_message: () =>
    z.object({
      ...base,
      type: z.literal("user_message"),
      text: z.string(),
      /** Context added for the model by hooks (SessionStart, UserPromptSubmit, Stop); not shown as the user's words. */
      context: z.optional(z.string()),
      /** Who wrote it: the user, or an extension (a Stop hook, a nudge) that kept the agent going. */
      from: z.optional(z.enum(["user", "hook", "extension"])),
      /** What the user typed when an extension expanded it (a custom slash command `/name args`); `text` is what the model got. */
      typed: z.optional(z.string()),
      /** Images given with the message (an MCP prompt's): sent as image parts where the provider takes them. */
      images: z.optional(z.array(ImagePart)),
    }),
  /**
   * Context an extension appended for the model (request.prepare): sent as a user-role message at
   * this place in the conversation, so the prefix before it never changes and prompt caches hit.
   */
  context: () =>
    z.object({
      ...base,
      type: z.literal("context"),
      source: z.string(),
      text: z.string(),
      /** Guidance in force (rules, project memory): a compaction re-injects it verbatim, never summarises it. */
      persist: z.optional(z.boolean()),
    }),
  assistant_message: () =>
    z.object({
      ...base,
      type: z.literal("assistant_message"),
      text: z.string(),
      reasoning: z.optional(z.string()),
      toolCalls: z.array(ToolCallRecord),
      stopReason: z.optional(z.string()),
    }),
  /** A tool began to run (after validation and permission). */
  tool_call: () => z.object({ ...base, type: z.literal("tool_call"), callId: z.string(), name: z.string(), input: z.unknown() }),
  tool_result: () =>
    z.object({
      ...base,
      type: z.literal("tool_result"),
      callId: z.string(),
      name: z.string(),
      /** What the model is told. */
      output: z.string(),
      isError: z.boolean(),
      durationMs: z.number().check(z.nonnegative()),
      /** The tool was running when the session died; it was not re-run. */
      interrupted: z.optional(z.boolean()),
      /** Structured details for the UI (never sent to the model). */
      meta: z.optional(z.unknown()),
      /** What the tool card shows besides the output (the tool's own description of its result). */
      card: z.optional(z.object({ badges: z.optional(z.array(z.string())), detail: z.optional(z.string()) })),
      /** Images the tool returned (an MCP tool's), bounded: sent with the result where the provider takes them. */
      images: z.optional(z.array(ImagePart)),
    }),
  permission_request: () =>
    z.object({
      ...base,
      type: z.literal("permission_request"),
      callId: z.string(),
      tool: z.string(),
      permission: z.string(),
      input: z.unknown(),
      reason: z.string(),
      /** One line describing the call (the tool's own summary). */
      summary: z.optional(z.string()),
    }),
  permission_decision: () =>
    z.object({
      ...base,
      type: z.literal("permission_decision"),
      callId: z.string(),
      decision: z.enum(["allow", "deny"]),
      by: z.enum(["rule", "mode", "hook", "user", "restricted", "extension"]),
      rule: z.optional(z.string()),
      message: z.optional(z.string()),
    }),
  /**
   * A change put up for review. The proposal is recorded as a unified diff against `beforeHash`
   * (the content it was made from), so a window reload can rebuild the review from the log.
   */
  review_proposed: () =>
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
  review_decision: () =>
    z.object({
      ...base,
      type: z.literal("review_decision"),
      editId: z.string(),
      path: z.string(),
      status: z.enum(["accepted", "rejected", "partial", "failed"]),
      by: z.enum(["user", "mode"]),
      hunks: z.optional(z.object({ accepted: z.int(), rejected: z.int() })),
      userEdited: z.optional(z.boolean()),
      message: z.optional(z.string()),
      /** The changed region of the file as it now reads (bounded), for the record. */
      region: z.optional(z.string()),
    }),
  /** The permission mode changed during the session. */
  mode_change: () => z.object({ ...base, type: z.literal("mode_change"), mode: z.string(), from: z.string(), by: z.enum(["user", "host", "extension"]) }),
  /** The model requests go to changed during the session (the editor's model option): the provider's model name, and the one before. A resumed session starts on it. */
  model_change: () => z.object({ ...base, type: z.literal("model_change"), provider: z.string(), model: z.string(), from: z.string(), by: z.enum(["user", "host"]) }),
  /** An extension changed the course of the loop, or failed (it is contained; the session goes on). */
  extension: () =>
    z.object({
      ...base,
      type: z.literal("extension"),
      name: z.string(),
      point: z.string(),
      outcome: z.enum(["error", "rewrote_input", "rewrote_output", "stopped", "nudged", "blocked", "decided", "context", "expanded", "handled"]),
      callId: z.optional(z.string()),
      detail: z.optional(z.string()),
      /**
       * Hook groups a command or skill registered for the rest of the session (SessionInfo.addHooks):
       * their key and the SHA-256 of what they run (hooksFingerprint), so a resumed session registers them again
       * only while the file still has exactly these.
       */
      hooks: z.optional(z.object({ key: z.string(), fingerprint: z.string() })),
    }),
  error: () =>
    z.object({
      ...base,
      type: z.literal("error"),
      message: z.string(),
      code: z.optional(z.string()),
      retryable: z.optional(z.boolean()),
    }),
  usage: () =>
    z.object({
      ...base,
      type: z.literal("usage"),
      usage: Usage,
      model: z.string(),
      /** USD for this request; absent when the model's price is unknown. */
      costUsd: z.optional(z.number()),
      /** The MCP server whose sampling request (`sampling/createMessage`) this request answered: paid for, not part of the conversation's context. */
      sampling: z.optional(z.string()),
    }),
  /**
   * A request's prefix stopped matching the previous request's (src/core/cost): the prompt cache
   * serves nothing after the first difference. `cause` names an event that explains it.
   */
  cache_break: () =>
    z.object({
      ...base,
      type: z.literal("cache_break"),
      kind: z.enum(["model", "tools", "system", "messages"]),
      detail: z.string(),
      messageIndex: z.optional(z.int().check(z.nonnegative())),
      keptMessages: z.int().check(z.nonnegative()),
      cause: z.optional(z.enum(["compaction", "rewind", "fallback"])),
    }),
  // --- guidance (src/core/guidance): lessons, skills, rules and project memory injected, and why ---
  guidance: () =>
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
          tokens: z.number().check(z.nonnegative()),
          /** A skill only listed by name and description (not loaded). */
          listed: z.optional(z.boolean()),
          /** Project memory: the folder it applies to. */
          dir: z.optional(z.string()),
        }),
      ),
      /** Files that could not be loaded (malformed frontmatter…), with file and line. */
      problems: z.optional(z.array(z.object({ path: z.string(), line: z.optional(z.int()), message: z.string() }))),
      /** Ids of entries that apply but the guidance budget left out (the model was told their names). */
      withheld: z.optional(z.array(z.string())),
    }),
  // --- end guidance ---
  status: () => z.object({ ...base, type: z.literal("status"), state: LoopState, detail: z.optional(z.string()) }),
  // --- loop control (issue 12: breakers, fallback, budgets, stuck detection, concurrency gates) ---
  /** A circuit breaker changed state: per tool, per tool group (`mcp:<server>`) or per provider+model. */
  breaker: () =>
    z.object({
      ...base,
      type: z.literal("breaker"),
      scope: z.enum(["tool", "group", "provider"]),
      /** The tool name, the group, or `provider:model`. */
      key: z.string(),
      state: z.enum(["open", "half_open", "closed"]),
      /** Consecutive failures counted when it opened. */
      failures: z.int().check(z.nonnegative()),
      /** What the user and the model are told. */
      message: z.string(),
    }),
  /** The session went on with another model of the fallback chain. */
  fallback: () => z.object({ ...base, type: z.literal("fallback"), from: z.string(), to: z.string(), reason: z.string() }),
  /** A budget of the task (cost, wall time) ran out: the loop stopped with this report. */
  budget: () =>
    z.object({
      ...base,
      type: z.literal("budget"),
      limit: z.enum(["cost", "time"]),
      turns: z.int().check(z.nonnegative()),
      costUsd: z.number().check(z.nonnegative()),
      elapsedS: z.number().check(z.nonnegative()),
      report: z.string(),
    }),
  /** The stuck detector saw a pattern: first a nudge to the model, then the loop stops and asks the user. */
  stuck: () =>
    z.object({
      ...base,
      type: z.literal("stuck"),
      pattern: z.enum(["repeat", "same_error", "alternation", "no_progress"]),
      action: z.enum(["nudge", "stop"]),
      detail: z.string(),
    }),
  /** A tool call waits for a free slot of a concurrency gate (e.g. at most 4 commands at once). */
  tool_queued: () =>
    z.object({ ...base, type: z.literal("tool_queued"), callId: z.string(), name: z.string(), gate: z.string(), position: z.int().check(z.positive()), limit: z.int().check(z.positive()) }),
  // --- end loop control ---
  // --- verification (issue 12, src/core/verification): the checks run after the agent's edits ---
  /**
   * A check ran: `verification.command` before the agent may finish ("check"), or the diagnostics
   * of the files the agent changed ("diagnostics": the language servers, or verification.lintCommand).
   * The evidence the final answer carries: what ran, its result, where its output is.
   */
  verification: () =>
    z.object({
      ...base,
      type: z.literal("verification"),
      kind: z.enum(["check", "diagnostics"]),
      /** "error": the check could not run (no command runner, could not start); nothing was concluded. */
      status: z.enum(["passed", "failed", "error"]),
      /** What checked: "verification.command", "verification.lintCommand", "language server". */
      source: z.string(),
      command: z.optional(z.string()),
      exitCode: z.optional(z.nullable(z.int())),
      durationMs: z.number().check(z.nonnegative()),
      /** The command's id in the session's runner (command_output {"id"} reads its output). */
      outputRef: z.optional(z.string()),
      /** The file holding the command's full output. */
      logPath: z.optional(z.string()),
      /** The last lines of the output (bounded). */
      snippet: z.optional(z.string()),
      /** Workspace-relative files the diagnostics were collected for. */
      files: z.optional(z.array(z.string())),
      /** New problems found (diagnostics). */
      problems: z.optional(z.int().check(z.nonnegative())),
      /** Which failed run this is since the user's message (check), and the limit. */
      attempt: z.optional(z.int().check(z.nonnegative())),
      maxReflections: z.optional(z.int().check(z.nonnegative())),
      /** Why it could not run, or what happened next (one line, for the transcript). */
      message: z.optional(z.string()),
    }),
  // --- checkpoints (issue 12): a snapshot of the workspace folders, and a restore/rewind ---
  /**
   * The workspace files at one moment, per folder: taken before the first change of a turn (an
   * edit or a command), before a restore or a fork changes the files (the undo point), so every
   * restore can be undone. `turn` is the 1-based turn (user messages so far, rewound ones left out).
   */
  checkpoint: () =>
    z.object({
      ...base,
      type: z.literal("checkpoint"),
      turn: z.int().check(z.nonnegative()),
      reason: z.enum(["turn", "restore", "fork"]),
      folders: z.array(
        z.object({
          name: z.string(),
          root: z.string(),
          /** The snapshot commit in Yoke's shadow repository of the folder (absent: the snapshot failed, see `error`). */
          commit: z.optional(z.string()),
          /** Left out of the snapshot, never touched by a restore. */
          skipped: z.array(z.object({ path: z.string(), reason: z.enum(["large-file", "nested-repository", "large-folder"]), detail: z.optional(z.string()) })),
          /** Only what changed since the last snapshot was recorded (the time budget ran out); `fallback` says what. */
          partial: z.optional(z.boolean()),
          fallback: z.optional(z.string()),
          error: z.optional(z.string()),
          durationMs: z.number().check(z.nonnegative()),
        }),
      ),
    }),
  /**
   * A restore to the state after `turn` (0: before the first turn). `conversation`: the events
   * from seq `fromSeq` up to this one are out of force (session/rewind.ts). `files`: the files were
   * restored from the checkpoint at `checkpointSeq`; `undoSeq` is the checkpoint taken just before,
   * which an undo restores. `undoes`: this restore undid the rewind at that seq.
   */
  rewind: () =>
    z.object({
      ...base,
      type: z.literal("rewind"),
      turn: z.int().check(z.nonnegative()),
      conversation: z.boolean(),
      files: z.boolean(),
      fromSeq: z.optional(z.int().check(z.nonnegative())),
      checkpointSeq: z.optional(z.int().check(z.nonnegative())),
      undoSeq: z.optional(z.int().check(z.nonnegative())),
      undoes: z.optional(z.int().check(z.nonnegative())),
      /** Paths written and deleted, per folder (bounded), and what was left alone. */
      changed: z.optional(z.array(z.object({ root: z.string(), written: z.int(), deleted: z.int(), kept: z.optional(z.array(z.string())) }))),
    }),
  // --- end checkpoints ---
  // --- MCP client (src/core/mcp) ---
  /** An MCP server changed state (started, failed, not approved…), with its tool count once known. */
  mcp_server: () =>
    z.object({
      ...base,
      type: z.literal("mcp_server"),
      server: z.string(),
      state: z.enum(["starting", "running", "failed", "stopped", "cached", "not_approved", "untrusted", "disabled", "config_error"]),
      detail: z.optional(z.string()),
      tools: z.optional(z.int().check(z.nonnegative())),
    }),
  /** A running MCP tool call reported progress (`notifications/progress`; at most one event a second per call). */
  mcp_progress: () =>
    z.object({
      ...base,
      type: z.literal("mcp_progress"),
      callId: z.string(),
      server: z.string(),
      tool: z.string(),
      progress: z.number(),
      total: z.optional(z.number()),
      message: z.optional(z.string()),
    }),
  /**
   * An MCP tool result or resource larger than MCP_OUTPUT_WARN_TOKENS (Claude Code warns past 10,000
   * tokens): a warning for the person (the panel and the CLI show it), never sent to the model.
   * `tool` or `uri` names what returned it; `tokens` is the whole result's estimate; `boundTokens`:
   * MAX_MCP_OUTPUT_TOKENS when set (the most of it the model was shown).
   */
  mcp_output: () =>
    z.object({
      ...base,
      type: z.literal("mcp_output"),
      callId: z.string(),
      server: z.string(),
      tool: z.optional(z.string()),
      uri: z.optional(z.string()),
      tokens: z.int().check(z.nonnegative()),
      boundTokens: z.optional(z.int().check(z.positive())),
    }),
  /**
   * A server asked the user something through Yoke (src/core/mcp/client-requests.ts): a sampling
   * request (`sampling/createMessage`, answered by the session's model) or an elicitation
   * (`elicitation/create`, a form), and what became of it.
   */
  mcp_request: () =>
    z.object({
      ...base,
      type: z.literal("mcp_request"),
      server: z.string(),
      kind: z.enum(["sampling", "elicitation"]),
      outcome: z.enum(["answered", "accepted", "declined", "cancelled", "denied", "failed"]),
      detail: z.optional(z.string()),
    }),
  // --- end MCP client ---
  // --- compaction (issue 11: context engineering, src/core/compaction) ---
  /**
   * The model's context was compacted. The log is never rewritten: from here on the model sees
   * the summary, the persisted context and the user's constraint messages verbatim, the open
   * todo list, then the events from `firstKeptSeq` on (with `stubs` in place of large old tool
   * results, each recallable by its ref). See session/projection.ts.
   */
  compaction: () =>
    z.object({
      ...base,
      type: z.literal("compaction"),
      trigger: z.enum(["manual", "threshold", "overflow"]),
      strategy: z.enum(["extractive", "llm"]),
      /** First event of the log kept verbatim (everything before it is in the summary). */
      firstKeptSeq: z.int().check(z.nonnegative()),
      /** The anchored summary of the events before firstKeptSeq ("" when nothing was summarised). */
      summary: z.string(),
      /** The model that wrote an LLM summary. */
      summaryModel: z.optional(z.string()),
      /** User messages before firstKeptSeq re-sent verbatim (they state constraints). */
      keptUserSeqs: z.array(z.int().check(z.nonnegative())),
      /** Persisted context events (guidance in force) before firstKeptSeq, re-sent verbatim. */
      persistedSeqs: z.array(z.int().check(z.nonnegative())),
      /** The todos event re-sent (the open todo list), when there is one. */
      todosSeq: z.optional(z.int().check(z.nonnegative())),
      /** Tool results at or after firstKeptSeq the model sees as a stub instead (seq of the tool_result). */
      stubs: z.array(z.object({ seq: z.int().check(z.nonnegative()), ref: z.string() })),
      /** Every tool result of the log the model can get back with `recall`. */
      references: z.array(z.object({ ref: z.string(), tool: z.string(), summary: z.string(), chars: z.int().check(z.nonnegative()) })),
      filesRead: z.array(z.string()),
      filesModified: z.array(z.string()),
      phases: z.array(z.object({ name: z.enum(["reasoning", "tool_results", "summary"]), savedTokens: z.int(), detail: z.string() })),
      tokensBefore: z.int().check(z.nonnegative()),
      tokensAfter: z.int().check(z.nonnegative()),
      /** What a PreCompact hook / compaction handler asked the summary to keep in mind. */
      instructions: z.optional(z.array(z.string())),
    }),
  // --- end compaction ---
  // --- sub-agents (src/core/subagents): a child session started by the `task` tool, in the parent's log ---
  /**
   * A sub-agent's progress, recorded in the parent's log with the `task` call (`callId`): "started"
   * (its own session `childId`), one "step" per tool call the child finished (its one-line summary,
   * never its output), "finished" with the typed outcome and what it cost (counted in the parent's
   * budgets and totals). Never sent to the parent's model: it gets only the distilled result.
   */
  subagent: () =>
    z.object({
      ...base,
      type: z.literal("subagent"),
      callId: z.string(),
      childId: z.string(),
      phase: z.enum(["started", "step", "finished"]),
      /** Depth of the child (1: started by the user's session). */
      depth: z.int().check(z.positive()),
      description: z.optional(z.string()),
      /** step: the child's tool, its summary, whether it failed or was refused. */
      tool: z.optional(z.string()),
      summary: z.optional(z.string()),
      isError: z.optional(z.boolean()),
      /** finished: the outcome, why it failed, its turns and tool calls, files it read and changed. */
      status: z.optional(z.enum(["completed", "failed", "cancelled"])),
      error: z.optional(z.string()),
      turns: z.optional(z.int().check(z.nonnegative())),
      toolCalls: z.optional(z.int().check(z.nonnegative())),
      filesRead: z.optional(z.array(z.string())),
      filesChanged: z.optional(z.array(z.string())),
      usage: z.optional(Usage),
      /** USD the child spent (its own sub-agents included); absent when no price was known. */
      costUsd: z.optional(z.number().check(z.nonnegative())),
    }),
  // --- end sub-agents ---
  // --- composer (src/core/composer): @-mentions attached to a message, steered and queued messages ---
  /** What the user attached to the next user message (@-mentions, chips): what each became for the model. */
  mentions: () =>
    z.object({
      ...base,
      type: z.literal("mentions"),
      items: z.array(
        z.object({
          kind: z.string(),
          label: z.string(),
          /** Why it could not be attached (the model is told too). */
          error: z.optional(z.string()),
          /** Only a bounded part of it was sent. */
          truncated: z.optional(z.boolean()),
          /** Characters the model got. */
          chars: z.int().check(z.nonnegative()),
        }),
      ),
    }),
  /**
   * A message typed while the agent worked: "steer" delivers it at the next step (before the next
   * model request), "queue" sends it after the task ends. `added`/`edited`/`removed` keep the
   * queue (rebuilt from these on resume); `steered` (delivered mid-run) and `sent` (after the task)
   * come right before its user_message.
   */
  queue: () =>
    z.object({
      ...base,
      type: z.literal("queue"),
      action: z.enum(["added", "edited", "removed", "steered", "sent"]),
      id: z.string(),
      mode: z.optional(z.enum(["steer", "queue"])),
      text: z.optional(z.string()),
      items: z.optional(z.array(ContextItem)),
    }),
  // --- end composer ---
  /** How long the agent worked on one message, and where the time went (src/core/turn-time). Never sent to the model. */
  turn_time: () =>
    z.object({
      ...base,
      type: z.literal("turn_time"),
      /** Wall time from the first model request to the end of the run. */
      ms: z.number().check(z.nonnegative()),
      /** Waiting for the model: each request from the "thinking" state to its answer. */
      modelMs: z.number().check(z.nonnegative()),
      /** The tools' own durations, summed (parallel calls count each). */
      toolMs: z.number().check(z.nonnegative()),
      requests: z.int().check(z.nonnegative()),
      tools: z.int().check(z.nonnegative()),
      outcome: z.enum(["done", "error", "cancelled"]),
    }),
  todos: () =>
    z.object({
      ...base,
      type: z.literal("todos"),
      todos: z.array(z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) })),
    }),
};
type EventSchemas = typeof EVENT_SCHEMAS;
type EventSchema = ReturnType<EventSchemas[keyof EventSchemas]>;
export type SessionEvent = { [K in keyof EventSchemas]: z.infer<ReturnType<EventSchemas[K]>> }[keyof EventSchemas];

const made = new Map<string, EventSchema>();
let whole: z.ZodMiniType<SessionEvent> | undefined;
/** The discriminated union of every event type's schema (made on first call; tests compare with it). */
export function sessionEventUnion(): z.ZodMiniType<SessionEvent> {
  whole ??= z.discriminatedUnion("type", Object.values(EVENT_SCHEMAS).map((make) => make()) as unknown as [EventSchema, ...EventSchema[]]) as unknown as z.ZodMiniType<SessionEvent>;
  return whole;
}
function schemaFor(input: unknown): z.ZodMiniType<SessionEvent> {
  const type = typeof input === "object" && input !== null ? (input as { type?: unknown }).type : undefined;
  if (typeof type === "string" && Object.hasOwn(EVENT_SCHEMAS, type)) {
    let schema = made.get(type);
    if (!schema) made.set(type, (schema = EVENT_SCHEMAS[type as keyof EventSchemas]()));
    return schema as unknown as z.ZodMiniType<SessionEvent>;
  }
  return sessionEventUnion();
}

/** The session event schema: `parse` and `safeParse` as a zod discriminated union on `type` gives them. */
export const SessionEvent = {
  parse: (input: unknown): SessionEvent => schemaFor(input).parse(input),
  safeParse: (input: unknown): ReturnType<z.ZodMiniType<SessionEvent>["safeParse"]> => schemaFor(input).safeParse(input),
};
export type SessionEventType = SessionEvent["type"];
export type EventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;
/** An event before the log assigns its position and time. */
export type NewEvent = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, "seq" | "ts"> : never) : never;
