/**
 * The typed protocol between the extension host and the chat webview. Both sides validate every
 * inbound message with these schemas; an invalid message is logged and dropped.
 * Imports nothing from the core: the host maps core events to these view types.
 * Uses zod/mini so the webview bundle stays small.
 */
import * as z from "zod/mini";

/** Bumped on any incompatible change; the webview sends it with `ready`. */
export const PROTOCOL_VERSION = 1;

const id = z.string().check(z.minLength(1), z.maxLength(200));
const text = z.string().check(z.maxLength(1_000_000));
/** A session id names a log file: letters, digits, `.`, `_`, `-`, never a path. */
const sessionId = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/));

export const VIEW_STATES = ["idle", "thinking", "waiting_tool", "waiting_user", "done", "error", "cancelled", "interrupted"] as const;
export const ViewState = z.enum(VIEW_STATES);
export type ViewState = z.infer<typeof ViewState>;

export const ToolStatus = z.enum(["pending", "asking", "running", "done", "error", "denied", "interrupted"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

export const TodoView = z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) });
export type TodoView = z.infer<typeof TodoView>;

/** One entry of the message list. `id` is stable: an `event` message with a known id replaces that entry. */
export const ViewItem = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("user"),
    id,
    text,
    /** Composer: what was attached (@-mentions), and how a message typed while the agent worked was delivered. */
    chips: z.optional(z.array(z.lazy(() => ChipView))),
    delivery: z.optional(z.enum(["steered", "queued"])),
  }),
  z.object({ kind: z.literal("assistant"), id, text, reasoning: z.optional(text) }),
  z.object({
    kind: z.literal("tool"),
    /** The tool call id. */
    id,
    name: z.string(),
    /** Short argument summary for the card header (a path, a command, a pattern). */
    summary: z.string(),
    status: ToolStatus,
    durationMs: z.optional(z.number()),
    /** Arguments, pretty-printed and bounded. */
    input: text,
    /** The result text the model was given, bounded. */
    output: z.optional(text),
    /** Why it was denied, when it was. */
    note: z.optional(z.string()),
    /** Who decided the call: "allowed by rule Bash(npm test:*)", "denied by hook: …", "asked you". */
    decision: z.optional(z.string()),
    /** The tool's own badges for its result: "exit 1", "+3 −1", "bwrap". */
    badges: z.optional(z.array(z.string())),
  }),
  z.object({ kind: z.literal("todos"), id, todos: z.array(TodoView) }),
  z.object({ kind: z.literal("notice"), id, level: z.enum(["info", "warning", "error"]), text }),
  // --- compaction (src/core/compaction): the divider in the transcript ---
  z.object({ kind: z.literal("compaction"), id, trigger: z.string(), tokensBefore: z.number(), tokensAfter: z.number(), kept: z.array(z.string()) }),
  // --- checkpoints (src/host/checkpoints.ts): the control at the end of each turn (restore, fork) ---
  z.object({
    kind: z.literal("turn"),
    id,
    turn: z.number(),
    userSeq: z.number(),
    /** What the turn cost (src/core/cost): a compact line, and the details for its tooltip. */
    cost: z.optional(z.object({ line: z.string(), detail: z.string(), costUsd: z.optional(z.number()), cacheHitShare: z.nullable(z.number()) })),
  }),
  // --- sub-agents (src/core/subagents): a child session, shown nested under its task call ---
  z.object({
    kind: z.literal("subagent"),
    id,
    /** The parent's task call (the tool card it is nested under). */
    callId: id,
    childId: z.string(),
    description: z.string(),
    status: z.enum(["running", "completed", "failed", "cancelled"]),
    /** The child's tool calls: name, one-line summary, failed or not (never their output). */
    steps: z.array(z.object({ tool: z.string(), summary: z.string(), isError: z.boolean() })),
    /** Earlier steps left out of `steps`. */
    omittedSteps: z.number(),
    toolCalls: z.optional(z.number()),
    filesChanged: z.optional(z.array(z.string())),
    costUsd: z.optional(z.number()),
    error: z.optional(z.string()),
  }),
  // --- end sub-agents ---
]);
export type ViewItem = z.infer<typeof ViewItem>;

export const PermissionView = z.object({
  callId: id,
  tool: z.string(),
  permission: z.string(),
  /** One line: what will happen (the command, the file). */
  summary: z.string(),
  /** The arguments, pretty-printed and bounded. */
  detail: text,
  reason: z.string(),
  /** The rule "Always allow" writes (e.g. `Bash(npm run test:*)`); absent when no rule is safe. */
  rule: z.optional(z.string()),
  /** Who asks when it is a custom agent, not the session shown: its name, and its background agent id, worktree and branch. */
  asker: z.optional(z.object({ agent: z.string(), background: z.boolean(), id: z.optional(z.string()), worktree: z.optional(z.string()), branch: z.optional(z.string()) })),
  /** The answer holds for the rest of the run (PermissionQuestion.forRun): allowing grants these. */
  forRun: z.optional(z.array(z.string())),
});
export type PermissionView = z.infer<typeof PermissionView>;

export { FOR_RUN_CHOICES } from "./choices";

export const UsageView = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  /** Absent when the model's price is unknown. */
  costUsd: z.optional(z.number()),
  /** The session's spend in one line (src/core/cost costLine): cache reads and writes, requests, cache breaks. */
  detail: z.optional(z.string()),
});
export type UsageView = z.infer<typeof UsageView>;

export const SessionItemView = z.object({
  id,
  title: z.string(),
  status: ViewState,
  updatedAt: z.string(),
  modelLabel: z.string(),
  active: z.boolean(),
  /** Another process is writing it now ("yoke resume (pid 4242 on devbox, since 14:02:11)"). */
  inUse: z.optional(z.string()),
  /** A sub-agent's session: the session that started it (the list shows it under that one). */
  parentId: z.optional(id),
});
export type SessionItemView = z.infer<typeof SessionItemView>;

export const LocalServerView = z.object({ name: z.string(), baseUrl: z.string(), model: z.string() });
export type LocalServerView = z.infer<typeof LocalServerView>;

/** Shown when no provider is configured. */
export const FirstRunView = z.object({
  /** Local OpenAI-compatible servers that answered GET /v1/models. */
  servers: z.array(LocalServerView),
  probing: z.boolean(),
});
export type FirstRunView = z.infer<typeof FirstRunView>;

// --- compaction (src/core/compaction): the context meter ---
export const ContextMeterView = z.object({
  /** Tokens the next request is expected to hold. */
  tokens: z.number(),
  /** The model's context window (a default when the model is not in the table: windowKnown false). */
  window: z.number(),
  windowKnown: z.boolean(),
  /** Share of the window at which the context is compacted automatically. */
  threshold: z.number(),
  /** What a compaction now would leave, when it would do anything. */
  afterCompaction: z.optional(z.number()),
});
export type ContextMeterView = z.infer<typeof ContextMeterView>;
// --- end compaction ---

// --- change review (src/host/review) ---
/** A file change the agent proposed (pending review) or applied in auto mode (revertable). */
const editId = z.string().check(z.minLength(1), z.maxLength(5_000));
export const ReviewItemView = z.object({
  editId,
  relPath: z.string(),
  added: z.number(),
  removed: z.number(),
  status: z.enum(["pending", "applied", "reverted"]),
  undecided: z.number(),
  hunks: z.number(),
  /** issue 21: one file of a change of several files (a patch) reviewed as one; rows with the same setId are one change. */
  setId: z.optional(z.string()),
  op: z.optional(z.enum(["update", "add", "delete", "move"])),
  /** A move's source (relPath is the destination). */
  from: z.optional(z.string()),
});
export type ReviewItemView = z.infer<typeof ReviewItemView>;
// --- end change review ---

// --- guidance (src/host/guidance.ts): lessons, skills, rules, project memory in force, and why ---
/** Key of a guidance entry: `kind:source`. */
const guidanceId = z.string().check(z.minLength(1), z.maxLength(5_000));
export const GuidanceItemView = z.object({
  id: guidanceId,
  name: z.string(),
  kind: z.enum(["lesson", "skill", "rule", "memory"]),
  source: z.string(),
  /** Why it is in force (`keyword "flaky"`, `glob src/** (src/a.ts)`, `always`…); empty when only pinned or muted. */
  reasons: z.array(z.string()),
  /** active: injected in this session; listed: a skill the model may load. */
  state: z.enum(["active", "listed", "inactive"]),
  pinned: z.boolean(),
  muted: z.boolean(),
});
export type GuidanceItemView = z.infer<typeof GuidanceItemView>;
export const GuidanceMessages = {
  toWebview: z.object({ type: z.literal("guidance"), items: z.array(GuidanceItemView), problems: z.array(z.string()) }),
  toHost: z.object({ type: z.literal("guidanceAction"), id: guidanceId, action: z.enum(["pin", "unpin", "mute", "unmute"]) }),
};
// --- end guidance ---

// --- palette (src/host/commands): the editor commands' part of the panel protocol. What "Add
// Selection/File to Chat" attach is a chip of the composer (composer.addContext, below) ---
export const PaletteMessages = {
  /** Put the keyboard focus into the prompt box ("Yoke: New Task"). */
  focus: z.object({ type: z.literal("composer.focus") }),
};
// --- end palette ---

// --- customizations (issue 23; src/host/customizations.ts, webview/views/customizations.ts): everything
// that customizes a session — rules, memory, lessons, skills, commands, agents, output styles, hooks,
// plugins, MCP servers — where each came from, whether it is in force and why; plugins managed here ---
const filePath = z.string().check(z.minLength(1), z.maxLength(4_096));
export const CustomizationView = z.object({
  kind: z.enum(["memory", "rule", "skill", "lesson", "command", "agent", "output-style", "hook", "plugin", "mcp-server", "ignore-file", "excluded"]),
  name: z.string(),
  origin: z.enum(["builtin", "user", "project", "plugin"]),
  plugin: z.optional(z.string()),
  source: z.string(),
  path: z.optional(filePath),
  /** always, folder, glob, listed, manual, match, active, over-budget, enabled, disabled, not-approved, not-trusted, needs-approval, inactive, overridden, excluded. */
  state: z.string(),
  inForce: z.boolean(),
  why: z.string(),
  description: z.optional(z.string()),
});
export type CustomizationView = z.infer<typeof CustomizationView>;
export const PluginView = z.object({
  id: z.string(),
  version: z.optional(z.string()),
  description: z.optional(z.string()),
  enabled: z.boolean(),
  runsPrograms: z.boolean(),
  approved: z.boolean(),
  /** What its hooks and MCP servers would run, shown before the user approves them. */
  programs: z.array(z.object({ kind: z.enum(["hook", "mcp-server"]), name: z.string(), run: z.string() })),
  /** The digest of the plugin's files as shown: an approval is for exactly this content. */
  digest: z.string(),
});
export type PluginView = z.infer<typeof PluginView>;
export const MarketplaceView = z.object({
  name: z.string(),
  plugins: z.array(z.object({ id: z.string(), description: z.optional(z.string()), installed: z.boolean() })),
  problem: z.optional(z.string()),
});
export type MarketplaceView = z.infer<typeof MarketplaceView>;
const pluginId = z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*@[A-Za-z0-9][A-Za-z0-9._-]*$/));
export const CustomizationMessages = {
  toWebview: z.object({
    type: z.literal("customizations"),
    items: z.array(CustomizationView),
    problems: z.array(z.string()),
    plugins: z.array(PluginView),
    marketplaces: z.array(MarketplaceView),
  }),
  toHost: [
    /** List them (again): the view was opened. */
    z.object({ type: z.literal("customizations.refresh") }),
    /** Open an entry's file in the editor (only a path the last listing named). */
    z.object({ type: z.literal("customizations.open"), path: filePath }),
    /** Manage a plugin as `yoke plugins` does; `approve` carries the digest of what the user was shown. */
    z.object({
      type: z.literal("plugins.action"),
      id: pluginId,
      action: z.enum(["install", "enable", "disable", "remove", "approve", "deny"]),
      digest: z.optional(z.string().check(z.maxLength(200))),
    }),
  ],
} as const;
// --- end customizations ---

export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;
export const PermissionModeView = z.enum(PERMISSION_MODES);

/** A background command of the live session. */
export const BackgroundProcessView = z.object({ id, command: z.string() });
export type BackgroundProcessView = z.infer<typeof BackgroundProcessView>;

/** Permissions, settings problems and the sandbox of the panel's session. */
export const HostInfoView = z.object({
  /** The permission mode the next tool call is checked in. */
  mode: PermissionModeView,
  /** Settings problems (malformed settings files, skipped rules), shown until fixed. */
  problems: z.array(z.string()),
  /** The sandbox commands run in ("bwrap", "none", "unavailable"); absent before a session has one. */
  sandbox: z.optional(z.object({ name: z.string(), network: z.optional(z.string()), warning: z.optional(z.string()) })),
  background: z.array(BackgroundProcessView),
  /** Modes the settings do not allow (disableBypassPermissionsMode), shown but not selectable. */
  disabledModes: z.optional(z.array(PermissionModeView)),
});
export type HostInfoView = z.infer<typeof HostInfoView>;

// --- demo model (src/demo/demo-tour.ts, src/host/demo-model.ts): suggested prompts, one per feature ---
export const DemoPromptView = z.object({ label: z.string(), text: z.string().check(z.minLength(1), z.maxLength(1_000)) });
export const DemoView = z.object({ label: z.string(), prompts: z.array(DemoPromptView) });
export type DemoView = z.infer<typeof DemoView>;
// --- end demo model ---

/** Everything the panel shows; sent on `ready` and whenever the host switches sessions. */
export const Snapshot = z.object({
  protocol: z.number(),
  sessionId: z.nullable(z.string()),
  title: z.string(),
  state: ViewState,
  /** A resumed session shown read-only until the user sends (which continues it). */
  resumed: z.boolean(),
  /** Another process (a `yoke` command, another window) is writing this session: shown, not continued here. */
  readOnly: z.optional(z.object({ by: z.string() })),
  items: z.array(ViewItem),
  /** Items left out at the start of a long session. */
  omitted: z.number(),
  /** Text streamed so far for the message in progress. */
  streaming: z.optional(z.object({ text: z.string(), reasoning: z.string() })),
  pending: z.nullable(PermissionView),
  usage: UsageView,
  modelLabel: z.string(),
  mode: z.string(),
  restricted: z.boolean(),
  firstRun: z.nullable(FirstRunView),
  history: z.array(SessionItemView),
  /** Change review: pending and auto-applied file changes. */
  reviews: z.optional(z.array(ReviewItemView)),
  hostInfo: z.optional(HostInfoView),
  /** Compaction: the context meter of the live session. */
  context: z.optional(ContextMeterView),
  /** Demo model: in use, with the prompts the empty panel suggests. */
  demo: z.optional(DemoView),
});
export type Snapshot = z.infer<typeof Snapshot>;

// --- MCP client (src/host/mcp.ts, webview/views/mcp-servers.ts) ---
/** One configured MCP server as the panel lists it. */
export const McpServerItemView = z.object({
  name: z.string(),
  state: z.string(),
  detail: z.optional(z.string()),
  source: z.string(),
  tools: z.array(z.string()),
  /** The last failure in this session (kept after the server runs again). */
  lastError: z.optional(z.string()),
  /** Defined by the workspace (approve/deny apply). */
  workspace: z.optional(z.boolean()),
  /** Brought by this custom agent (its own `mcpServers`), listed under it; absent: the session's. */
  agent: z.optional(z.string()),
  /** That agent's run goes on (false: it finished, its servers stopped with it). */
  agentRunning: z.optional(z.boolean()),
  /** Its last log messages (MCP logging), oldest first. */
  logs: z.optional(z.array(z.string())),
});
export type McpServerItemView = z.infer<typeof McpServerItemView>;
export const McpServersMessage = z.object({ type: z.literal("mcpServers"), servers: z.array(McpServerItemView) });
/** One field of an MCP server's form (src/core/mcp/elicitation.ts ElicitField). */
export const ElicitFieldView = z.object({
  name: z.string(),
  label: z.string(),
  description: z.optional(z.string()),
  required: z.boolean(),
  kind: z.enum(["string", "number", "integer", "boolean", "enum", "multi"]),
  format: z.optional(z.string()),
  minLength: z.optional(z.number()),
  maxLength: z.optional(z.number()),
  minimum: z.optional(z.number()),
  maximum: z.optional(z.number()),
  minItems: z.optional(z.number()),
  maxItems: z.optional(z.number()),
  options: z.optional(z.array(z.object({ value: z.string(), label: z.string() }))),
  default: z.optional(z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
});
export type ElicitFieldView = z.infer<typeof ElicitFieldView>;
/** An MCP server's open form (elicitation), with what was wrong in the last answer per field. */
export const McpElicitationView = z.object({
  id: z.string(),
  server: z.string(),
  message: z.string(),
  fields: z.array(ElicitFieldView),
  errors: z.optional(z.record(z.string(), z.string())),
});
export type McpElicitationView = z.infer<typeof McpElicitationView>;
const ElicitValueView = z.union([z.string().check(z.maxLength(100_000)), z.number(), z.boolean(), z.array(z.string().check(z.maxLength(10_000)))]);
export const McpMessages = {
  toWebview: [z.object({ type: z.literal("mcpElicitation"), request: z.nullable(McpElicitationView) })],
  toHost: [
    /** The MCP view's actions on one server: restart it, or answer a workspace server's approval. */
    z.object({ type: z.literal("mcpServerAction"), server: z.string().check(z.maxLength(500)), action: z.enum(["restart", "approve", "deny"]) }),
    /** The answer to the open form; `content`: what was entered, validated by the host. */
    z.object({ type: z.literal("mcpElicitationAnswer"), id: z.string(), action: z.enum(["accept", "decline", "cancel"]), content: z.optional(z.record(z.string(), ElicitValueView)) }),
  ],
} as const;
// --- end MCP client ---

// --- checkpoints (src/host/checkpoints.ts, webview/views/checkpoints.ts): restore / fork per turn ---
const turnRef = { turn: z.number().check(z.int(), z.nonnegative()), userSeq: z.number().check(z.int(), z.nonnegative()) };
/** One file a files restore would change, with the lines it writes back (+) and takes out (−). */
export const CheckpointFileView = z.object({
  folder: z.string(),
  root: z.string(),
  path: z.string(),
  action: z.enum(["write", "delete"]),
  added: z.number(),
  removed: z.number(),
  binary: z.boolean(),
  /** false: the diff was cut at the preview's bound, the counts are unknown. */
  counted: z.boolean(),
});
export type CheckpointFileView = z.infer<typeof CheckpointFileView>;
/** What restoring to the end of a turn would do: shown before anything changes. */
export const CheckpointPreviewView = z.object({
  ...turnRef,
  /** Turns of the session now. */
  turns: z.number(),
  files: z.array(CheckpointFileView),
  /** Files a restore leaves as they are (skipped then, or unknown to a partial snapshot). */
  kept: z.number(),
  problems: z.array(z.string()),
  /** A files restore can do something (a checkpoint holds the files as they were then, and they differ). */
  filesAvailable: z.boolean(),
  filesNote: z.string(),
  /** A conversation restore can do something (later turns to rewind). */
  conversationAvailable: z.boolean(),
  conversationNote: z.string(),
});
export type CheckpointPreviewView = z.infer<typeof CheckpointPreviewView>;
/** The last restore, while it can be undone. */
export const CheckpointUndoView = z.object({ turn: z.number(), files: z.boolean(), conversation: z.boolean(), text: z.string() });
export type CheckpointUndoView = z.infer<typeof CheckpointUndoView>;
export const RESTORE_WHAT = ["files", "conversation", "both"] as const;
export const CheckpointMessages = {
  toWebview: [z.object({ type: z.literal("checkpointPreview"), preview: z.nullable(CheckpointPreviewView) }), z.object({ type: z.literal("checkpointUndo"), undo: z.nullable(CheckpointUndoView) })],
  toHost: [
    z.object({ type: z.literal("checkpointPreview"), ...turnRef }),
    z.object({ type: z.literal("checkpointRestore"), ...turnRef, what: z.enum(RESTORE_WHAT) }),
    z.object({ type: z.literal("checkpointUndo") }),
    z.object({ type: z.literal("checkpointFork"), ...turnRef }),
    z.object({ type: z.literal("checkpointDiff"), ...turnRef, root: z.string().check(z.maxLength(5_000)), path: z.string().check(z.minLength(1), z.maxLength(5_000)) }),
  ],
} as const;
// --- end checkpoints ---
// --- composer (src/host/composer.ts, webview/views/composer.ts, mentions.ts, queue.ts): @-mentions, steering, the queue ---
const path = z.string().check(z.minLength(1), z.maxLength(4_096));
/** One thing attached to a message (src/core/composer/mentions.ts has the same shape). */
export const ContextItemView = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path }),
  z.object({ kind: z.literal("folder"), path }),
  z.object({
    kind: z.literal("selection"),
    path,
    startLine: z.number().check(z.int(), z.minimum(1)),
    endLine: z.number().check(z.int(), z.minimum(1)),
    text: z.string().check(z.maxLength(200_000)),
  }),
  z.object({ kind: z.literal("problems"), path: z.optional(path) }),
  z.object({ kind: z.literal("terminal") }),
  z.object({ kind: z.literal("git-diff") }),
]);
export type ContextItemView = z.infer<typeof ContextItemView>;
/** A chip of a sent message: what an attachment became. */
export const ChipView = z.object({ kind: z.string(), label: z.string(), error: z.optional(z.string()), truncated: z.optional(z.boolean()) });
export type ChipView = z.infer<typeof ChipView>;
/** One entry of the completion list: a mention becomes a chip (`item`); a slash command is text put in the box (`insert`). */
export const CompletionView = z.object({ label: z.string(), detail: z.optional(z.string()), item: z.optional(ContextItemView), insert: z.optional(z.string().check(z.maxLength(1_000))) });
export type CompletionView = z.infer<typeof CompletionView>;
/** A message typed while the agent works, waiting: "steer" at the next step, "queue" after the task. */
export const QueuedView = z.object({ id, text, mode: z.enum(["steer", "queue"]), chips: z.array(ChipView) });
export type QueuedView = z.infer<typeof QueuedView>;
const requestId = z.number().check(z.int(), z.minimum(0));
export const ComposerMessages = {
  toWebview: [
    /** Answer to composer.complete (only the latest request's answer is shown). */
    z.object({ type: z.literal("composer.completions"), requestId, items: z.array(CompletionView) }),
    /** The waiting messages of the live session. */
    z.object({ type: z.literal("composer.queue"), items: z.array(QueuedView) }),
    /** Adds a chip to the input from outside the panel ("Add Selection to Chat", "Add File to Chat"): the one way context is attached from the editor. */
    z.object({ type: z.literal("composer.addContext"), item: ContextItemView }),
  ],
  toHost: [
    /** Completion for `@query` (files and folders of the workspace, the keywords), or for `/query` at the start of the box (`kind: "command"`: custom slash commands). */
    z.object({ type: z.literal("composer.complete"), requestId, query: z.string().check(z.maxLength(1_000)), kind: z.optional(z.enum(["mention", "command"])) }),
    /** A message with its attachments: "send" as a new message (when idle), "steer" or "queue" while the agent works. */
    z.object({
      type: z.literal("composer.send"),
      text: z.string().check(z.minLength(1), z.maxLength(1_000_000)),
      items: z.array(ContextItemView).check(z.maxLength(50)),
      mode: z.enum(["send", "steer", "queue"]),
    }),
    z.object({ type: z.literal("composer.editQueued"), id, text: z.optional(z.string().check(z.minLength(1), z.maxLength(100_000))), mode: z.optional(z.enum(["steer", "queue"])) }),
    z.object({ type: z.literal("composer.removeQueued"), id }),
  ],
} as const;
// --- end composer ---
// --- long sessions (src/node/panel/transcript.ts, webview/views/message-list.ts): the panel shows a
// window over the transcript and asks the host for other parts of it (scrolling, search, a jump) ---
/** Items of a transcript are addressed by position: 0 is the first. */
const itemIndex = z.number().check(z.int(), z.minimum(0));
export const TranscriptMatchView = z.object({ index: itemIndex, id, kind: z.string(), snippet: z.string() });
export type TranscriptMatchView = z.infer<typeof TranscriptMatchView>;
/** Most items one `loadItems` answer carries. */
export const MAX_ITEMS_PER_LOAD = 500;
export const TranscriptMessages = {
  toWebview: [
    /** Answer to loadItems: items `start`… of the session `sessionId`, which now has `total` items. */
    z.object({ type: z.literal("items"), req: z.number(), sessionId: z.nullable(z.string()), start: itemIndex, total: itemIndex, items: z.array(ViewItem) }),
    /** Answer to searchTranscript: matching items oldest first; `truncated`: more matched than were sent. */
    z.object({ type: z.literal("searchResults"), req: z.number(), query: z.string(), matches: z.array(TranscriptMatchView), truncated: z.boolean() }),
  ] as const,
  toHost: [
    z.object({ type: z.literal("loadItems"), req: z.number(), start: itemIndex, count: z.number().check(z.int(), z.minimum(1), z.maximum(MAX_ITEMS_PER_LOAD)) }),
    z.object({ type: z.literal("searchTranscript"), req: z.number(), query: z.string().check(z.minLength(1), z.maxLength(500)) }),
  ] as const,
};
// --- end long sessions ---

// --- background agents (issue 24, src/host/agents): the Agents view, "Run in background", the review of an agent's change ---
const agentId = z.string().check(z.regex(/^[a-f0-9]{4,32}$/));
export const AGENT_CARRY = ["none", "tracked", "all"] as const;
export const AgentItemView = z.object({
  id: agentId,
  task: z.string(),
  state: z.enum(["queued", "running", "finished", "failed", "stopped", "interrupted"]),
  resumable: z.boolean(),
  branch: z.string(),
  /** Spend: "$0.0123" or "1234 tok", or "". */
  spend: z.string(),
  changedFiles: z.array(z.object({ path: z.string(), status: z.string() })),
  lastMessage: z.nullable(z.string()),
  /** A permission question it waits on (its tool and summary): answered in the panel's card. */
  asking: z.optional(z.nullable(z.string())),
  merged: z.boolean(),
});
export type AgentItemView = z.infer<typeof AgentItemView>;
/** One line of an agent's read-only transcript. */
export const AgentTranscriptLine = z.object({ kind: z.enum(["user", "assistant", "tool", "notice"]), text: z.string() });
export const AgentHunkView = z.object({ index: z.number(), beforeStart: z.number(), before: z.array(z.string()), after: z.array(z.string()) });
export const AgentFileDiffView = z.object({ path: z.string(), status: z.string(), binary: z.boolean(), hunks: z.array(AgentHunkView) });
export type AgentFileDiffView = z.infer<typeof AgentFileDiffView>;
/** What a merge, discard, stop or note did: `ok: false` carries the explanation shown to the person. */
export const AgentOutcomeView = z.object({ id: z.nullable(agentId), action: z.string(), ok: z.boolean(), text: z.string(), conflicts: z.array(z.object({ path: z.string(), detail: z.string() })) });
export type AgentOutcomeView = z.infer<typeof AgentOutcomeView>;
const agentPath = z.string().check(z.minLength(1), z.maxLength(5_000));
export const AgentMessages = {
  toWebview: [
    z.object({ type: z.literal("agents"), agents: z.array(AgentItemView) }),
    z.object({ type: z.literal("agents.transcript"), id: agentId, lines: z.array(AgentTranscriptLine) }),
    z.object({ type: z.literal("agents.review"), id: agentId, files: z.array(AgentFileDiffView) }),
    z.object({ type: z.literal("agents.outcome"), outcome: AgentOutcomeView }),
  ],
  toHost: [
    /** Start the composer's text as a background agent in a worktree of its own. */
    z.object({ type: z.literal("agents.start"), text: z.string().check(z.minLength(1), z.maxLength(100_000)), carry: z.enum(AGENT_CARRY) }),
    z.object({ type: z.literal("agents.open"), id: agentId, what: z.enum(["transcript", "review"]) }),
    z.object({ type: z.literal("agents.stop"), id: agentId }),
    z.object({ type: z.literal("agents.discard"), id: agentId }),
    z.object({ type: z.literal("agents.note"), id: agentId, text: z.string().check(z.minLength(1), z.maxLength(100_000)) }),
    /**
     * Merge back the accepted part of the change: per file, the accepted hunk numbers ("all" for a binary file taken whole).
     * `strategy` "merge": git merge of the agent's whole branch instead (`files` is then not used).
     */
    z.object({
      type: z.literal("agents.merge"),
      id: agentId,
      files: z.array(z.object({ path: agentPath, hunks: z.union([z.literal("all"), z.array(z.number().check(z.int(), z.minimum(1)))]) })),
      strategy: z.optional(z.enum(["apply", "merge"])),
    }),
    /** Open the agent's change in the editor's per-hunk review (CodeLens); what is accepted there is merged into the tree. */
    z.object({ type: z.literal("agents.reviewInEditor"), id: agentId }),
  ],
} as const;
// --- end background agents ---

export const HostToWebview = z.discriminatedUnion("type", [
  z.object({ type: z.literal("state"), snapshot: Snapshot }),
  /**
   * Append an item, or replace the item with the same id; `index`: its position in the transcript (long
   * sessions). `insert`: a new item put at `index`, before the end (the person's typed message above the
   * forked command's card its expansion recorded first): the items from there on move one down.
   */
  z.object({ type: z.literal("event"), view: ViewItem, index: z.optional(itemIndex), insert: z.optional(z.boolean()) }),
  /** Streamed text of the assistant message in progress. */
  z.object({ type: z.literal("delta"), kind: z.enum(["text", "reasoning"]), text }),
  z.object({ type: z.literal("status"), state: ViewState, detail: z.optional(z.string()) }),
  z.object({ type: z.literal("usage"), usage: UsageView }),
  z.object({ type: z.literal("permission"), request: z.nullable(PermissionView) }),
  z.object({ type: z.literal("history"), sessions: z.array(SessionItemView) }),
  z.object({ type: z.literal("firstRun"), info: z.nullable(FirstRunView) }),
  z.object({ type: z.literal("error"), message: z.string() }),
  /** Change review: the pending-changes list changed. */
  z.object({ type: z.literal("reviews"), items: z.array(ReviewItemView) }),
  /** Permission mode, settings problems, sandbox, background commands changed. */
  z.object({ type: z.literal("hostInfo"), info: HostInfoView }),
  GuidanceMessages.toWebview,
  /** Customizations (issue 23): the listing and the plugins. */
  CustomizationMessages.toWebview,
  /** MCP servers of the session: state and tools (MCP client block above). */
  McpServersMessage,
  /** MCP: a server's open form (null: none). */
  ...McpMessages.toWebview,
  /** Compaction: the context meter changed. */
  z.object({ type: z.literal("context"), meter: ContextMeterView }),
  /** Checkpoints: a restore's preview, and the restore that can be undone (checkpoints block above). */
  ...CheckpointMessages.toWebview,
  /** Palette: attachments waiting for the next message; focus the prompt box. */
  PaletteMessages.focus,
  ...ComposerMessages.toWebview,
  ...TranscriptMessages.toWebview,
  ...AgentMessages.toWebview,
]);
export type HostToWebview = z.infer<typeof HostToWebview>;

export const WebviewToHost = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), protocol: z.number() }),
  z.object({ type: z.literal("prompt"), text: z.string().check(z.minLength(1), z.maxLength(1_000_000)) }),
  /** Continue an interrupted session without a new message. */
  z.object({ type: z.literal("continue") }),
  z.object({ type: z.literal("stop") }),
  z.object({ type: z.literal("newSession") }),
  z.object({ type: z.literal("openSession"), id: sessionId }),
  /** Continue the session shown (read-only: another process writes it) in a copy of its own. */
  z.object({ type: z.literal("forkSession") }),
  z.object({
    type: z.literal("permissionAnswer"),
    callId: id,
    decision: z.enum(["allow", "deny"]),
    always: z.optional(z.boolean()),
    message: z.optional(z.string().check(z.maxLength(10_000))),
  }),
  z.object({
    type: z.literal("useLocalServer"),
    baseUrl: z.string().check(z.regex(/^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}\/v1$/)),
    model: z.string().check(z.minLength(1), z.maxLength(300)),
  }),
  z.object({ type: z.literal("probeLocalServers") }),
  z.object({ type: z.literal("setApiKey") }),
  z.object({ type: z.literal("openLog") }),
  z.object({ type: z.literal("openSettings") }),
  z.object({ type: z.literal("setMode"), mode: PermissionModeView }),
  /** Compaction: compact the live session's context now (as "Yoke: Compact Context"). */
  z.object({ type: z.literal("compact") }),
  /** Stops a background command of the live session. */
  z.object({ type: z.literal("killProcess"), id }),
  /** Change review: accept/reject a whole pending change, revert an applied one, open its diff. */
  z.object({
    type: z.literal("reviewAction"),
    editId,
    action: z.enum(["accept", "reject", "revert", "openDiff"]),
    message: z.optional(z.string().check(z.maxLength(10_000))),
  }),
  GuidanceMessages.toHost,
  ...CustomizationMessages.toHost,
  /** Checkpoints: preview, restore, undo, fork, diff of one file (checkpoints block above). */
  ...CheckpointMessages.toHost,
  /** Palette: a context chip removed. */
  ...ComposerMessages.toHost,
  ...TranscriptMessages.toHost,
  /** Demo model: start it and use it (the first-run view's "Try the demo model"). */
  z.object({ type: z.literal("useDemoModel") }),
  ...AgentMessages.toHost,
  /** MCP: restart / approve / deny a server; answer a server's form. */
  ...McpMessages.toHost,
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

export type ParseResult<T> = { ok: true; message: T } | { ok: false; error: string };

function describe(err: z.core.$ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

export function parseWebviewToHost(raw: unknown): ParseResult<WebviewToHost> {
  const r = WebviewToHost.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error) };
}

export function parseHostToWebview(raw: unknown): ParseResult<HostToWebview> {
  const r = HostToWebview.safeParse(raw);
  return r.success ? { ok: true, message: r.data } : { ok: false, error: describe(r.error) };
}
