/**
 * A model-facing tool: schema, handler, timeout, permission name and a description of itself
 * (what it can do, how it reads on a card, how Claude Code hooks see it) in one object. The
 * loop, the permission modes, the panel and the CLI read these properties; nothing outside a
 * tool's own module switches on its name.
 */
import type { z } from "zod";
import type { CommandConfinement } from "../commands/types";
import type { ImagePart, NewEvent, SessionEvent } from "../events";
import type { ReviewMode } from "../review";
import type { SessionServices } from "../ports";

/** What a tool can do. A tool with none of these is read-only (allowed in plan and Restricted Mode). */
export interface ToolCapabilities {
  /** Reads files (of the workspace or elsewhere). */
  reads?: boolean;
  /** Creates, changes or deletes files. */
  writes?: boolean;
  /** Runs programs, or controls programs it ran. */
  runs?: boolean;
  /** Reaches the network (an MCP server, a web fetch). */
  network?: boolean;
}

/** The one notion of read-only: changes nothing outside the session, runs nothing, reaches nothing. */
export function isReadOnly(c: ToolCapabilities): boolean {
  return !c.writes && !c.runs && !c.network;
}

export interface ToolContext extends SessionServices {
  signal: AbortSignal;
  sessionId: string;
  callId: string;
  /** Files the model has seen this session: absolute path -> content stamp at that time (see read tracking). */
  readState: Map<string, { mtimeMs: number; size: number }>;
  /** "ask" when the permission gate would ask about this edit (the review is the question), else "auto". */
  reviewMode?: ReviewMode;
  /** Set by the permission decision for this call: how the sandbox must confine the command. */
  confine?: CommandConfinement;
  /** Appends an event to the session log with this call (a change put up for review, the todo list). */
  record(event: NewEvent): void;
}

export interface ToolOutput {
  /** What the model is told. Keep it bounded (see output.ts). */
  text: string;
  isError?: boolean;
  /**
   * The whole output when `text` is a bounded view of it (an MCP result cut to fit): the session's
   * spill (compaction) keeps this, not `text`, so `recall` returns every byte and the model is told
   * so. Never logged nor sent as is.
   */
  full?: string;
  /** Structured details for the event log; never sent to the model. */
  meta?: unknown;
  /** Images for the model with the result (bounded: src/core/providers/images.ts); providers that take none get a note. */
  images?: ImagePart[];
}

/** A tool's own bound on what the model is shown of one result (ToolDefinition.outputBound). */
export interface ToolOutputBound {
  /** Characters, notes included. */
  chars: number;
  /** What sets it, as the model is told (`MAX_MCP_OUTPUT_TOKENS=2000`). */
  why: string;
}

/** A freeform tool's input format: a grammar (Lark or a regular expression) the model's text must match. */
export interface FreeformFormat {
  syntax: "lark" | "regex";
  definition: string;
  offer?: "always";
}

/** What a tool card shows besides the output, e.g. `exit 1`, `+3 −1`. */
export interface ToolCard {
  badges?: string[];
  detail?: string;
}

/**
 * What kind of action a call is, as editors group and show tool calls (the Agent Client
 * Protocol's tool kinds): reading, editing, deleting or moving files, searching, running a
 * command, thinking/planning, fetching from the network, or something else.
 */
export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";

/** A file a call changed: its workspace path (absolute, or relative to the first folder) and its text before and after. */
export interface FileChange {
  path: string;
  /** Absent: the file did not exist before. */
  before?: string;
  after: string;
}

/**
 * How the permission engine checks a tool's calls; every tool of one permission name has the same.
 * Absent (MCP tools): rules that name the tool, then the mode (it asks unless allowed).
 */
export type PermissionClass =
  /** Its input names files or folders (`file_path`/`path`, glob patterns): path rules, the workspace's edge, sensitive and protected files. */
  | "path"
  /** Runs or controls a shell command (`command`, or the `id` of one Yoke started): Bash rules and the command's analysis. */
  | "command"
  /** Changes nothing outside the session (a todo list, a sub-agent whose own calls are each checked, a skill's text): allowed in every mode unless a rule says otherwise. */
  | "session";

/**
 * What a tool is, without a session: the part of its definition the permission engine reads to
 * know Yoke's tools (src/core/tools/catalogue.ts) — names people may write in rules, and how each
 * permission is checked. A tool built per session declares it as a constant its definition spreads.
 */
export interface ToolIdentity {
  name: string;
  /** Permission name used by permission rules and hooks (contract section 1): Read, Edit, Bash... */
  permission: string;
  permissionClass?: PermissionClass;
  capabilities: ToolCapabilities;
}

/**
 * A tool. `ToolDefinition` without a type argument is the form the loop, the registry and the
 * extensions hold (any tool): its methods then take the arguments — already validated by that
 * tool's own `schema` — as `unknown`, which is what the loop has; the tool's module types them.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> extends ToolIdentity {
  description: string;
  /** What kind of action its calls are (editors' tool-call cards); default: from its capabilities (toolKind). */
  kind?: ToolKind;
  /** The files a finished call changed, with their text before and after, from its result's `meta` (shown as diffs). */
  changes?(output: Pick<ToolOutput, "meta">): FileChange[];
  schema: S;
  /**
   * Arguments that name workspace paths. The loop resolves them to their one canonical form (an
   * absolute path: trimmed, `\` as `/`, `..` and folder names resolved) before hooks and the
   * permission engine see the call, so what is checked is exactly what the tool opens.
   */
  pathArgs?: readonly string[];
  timeoutMs: number;
  /**
   * The argument that takes the arguments' text when the model sends text that is not JSON (a
   * freeform tool: the patch itself rather than {"input": patch}).
   */
  rawArgument?: string;
  /**
   * The tool can be offered as a freeform tool (OpenAI's custom tools, GPT-5 models): the model
   * writes `rawArgument`'s text itself, unwrapped, constrained by this grammar. Each provider
   * decides whether it offers it so (a capability of the API it speaks); elsewhere the tool is a
   * function tool with its JSON Schema. `offer: "always"` overrides that capability on OpenAI's
   * wire (setting edits.applyPatchFreeform "on"); absent `offer` means the provider decides.
   */
  freeform?: FreeformFormat;
  /**
   * Files the call changes that are not path arguments (a patch names its files in its text), as
   * written, each with the permission it needs (Edit, Write). The permission gate checks each one
   * as that permission's call on that path, and the checkpoint records each before the call.
   */
  touches?(args: z.infer<S>): Array<{ path: string; permission: string }>;
  /**
   * Tools that fail together share a group (one MCP server: `mcp:<server>`): circuit breakers
   * count failures per tool and per group. Absent: the tool is its own group.
   */
  group?: string;
  /**
   * Whether an error result means the tool itself failed (circuit breakers count it), rather than
   * reporting what it found (a command that ran and exited 1). Default: every error result.
   */
  failed?: (out: ToolOutput) => boolean;
  /**
   * The arguments' JSON Schema as sent to the provider, when it is not derived from `schema` (an
   * MCP tool declares its own; `schema` then only checks what can be checked).
   */
  inputJsonSchema?: Record<string, unknown>;
  /**
   * Calls of this tool in one assistant message may run at the same time as each other (the
   * loop runs adjacent such calls together; sub-agents): the tool bounds its own concurrency.
   */
  concurrent?: boolean;
  /**
   * Callable but not listed in the requests' tool list, so tools most sessions never call do not
   * fill every request: the model gets the definition from a tool that lists the deferred ones
   * (`load_tools` for those with a `brief`, src/core/deferred-tools; `mcp_search` for MCP tools)
   * and calls the tool by name. The definition arrives as a tool result, so the requests' prefix
   * (tools, system prompt, earlier messages) stays what the prompt cache holds.
   */
  deferred?: boolean;
  /**
   * The most the model is shown of one result, when the tool sets its own bound (an MCP tool under
   * Claude Code's `MAX_MCP_OUTPUT_TOKENS`): a result within it is shown whole (not spilled, however
   * long); a longer one is spilled (compaction) with a preview of at most `chars` characters, notes
   * included, instead of the default preview, or cut to it where nothing is spilled. `why` names
   * the bound in what the model is told (`MAX_MCP_OUTPUT_TOKENS=2000`). Absent: the default bounds.
   */
  outputBound?: ToolOutputBound;
  /** One line on what a deferred tool is for: what the model sees of it until it loads the definition. */
  brief?: string;
  /**
   * The deferred tools whose definitions this tool gives (`load_tools`): when `yoke run --tools`
   * names a deferred tool together with this one, the deferred tool stays behind it (without it, a
   * deferred tool named by `--tools` is sent whole).
   */
  loads?: readonly string[];
  /**
   * The tool as it is once `yoke run --tools` has trimmed the session's tools, given the tools
   * kept (itself included): a tool that describes other tools (`mcp_search`) describes only those
   * still there; undefined drops it (nothing left to describe). Without it the tool is kept as is.
   */
  trimmed?(kept: readonly ToolDefinition[]): ToolDefinition | undefined;
  /**
   * The tool proposes file changes through ctx.reviewer. When the decision is "ask" and a
   * reviewer exists, the review itself is the question (no separate permission card).
   */
  reviewable?: boolean;
  /**
   * One line for tool cards, approvals and the CLI. Gets the model's arguments as sent (possibly
   * invalid) or the hook-style input of a permission question: read fields defensively.
   */
  summarize(input: Record<string, unknown>): string;
  /** Badges for the card from the result (optional). */
  card?(output: ToolOutput): ToolCard | undefined;
  /** The tool's name in Claude Code hooks (`tool_name`, matchers, the transcript) when it is not the permission name. */
  hookName?: string;
  /** The `tool_input` a Claude Code-compatible hook sees (contract section 1); also what the permission gate checks. */
  hookInput(args: z.infer<S>): Record<string, unknown>;
  /** The `tool_response` a PostToolUse hook sees, in the shape Claude Code gives that tool (default: {output, is_error}). */
  hookResponse?(args: z.infer<S>, output: ToolOutput): unknown;
  /**
   * Maps a PreToolUse hook's `updatedInput` (hook field names, workspace paths relative, every
   * field present; `changedHookFields(updated)` names the ones the hook changed) back to argument
   * fields, e.g. `file_path` → `path`, `timeout` ms → `timeout_s` (default: names as they are).
   */
  fromHookInput?(updated: Record<string, unknown>, args: z.infer<S>): Record<string, unknown>;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * The call was running when the session was interrupted (a window reload) but can go on from
   * what it recorded (a change still under review): resume() then gives its result.
   */
  resumable?(callId: string, events: readonly SessionEvent[]): boolean;
  resume?(ctx: ToolContext, events: readonly SessionEvent[]): Promise<ToolOutput | undefined>;
}

/** A tool's kind: its own, else what its capabilities say (writes: edit, runs: execute, network: fetch, reads: read). */
export function toolKind(def: Pick<ToolDefinition, "kind" | "capabilities">): ToolKind {
  if (def.kind) return def.kind;
  const c = def.capabilities;
  return c.writes ? "edit" : c.runs ? "execute" : c.network ? "fetch" : c.reads ? "read" : "other";
}

/** Thrown by a handler for an expected failure; its message goes to the model as is. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/**
 * A ToolError from any bundle: the extension's and the session's bundles each have their own copy
 * of the class, so identity is by name, not by `instanceof`.
 */
export function isToolError(err: unknown): err is Error {
  return err instanceof Error && err.name === "ToolError";
}

/**
 * The tools once a list has been trimmed to `kept` (`--tools`, an agent's allow-list): a tool that
 * describes other tools (ToolDefinition.trimmed) is rebuilt from what is kept, or left out.
 */
export function trimTools(kept: readonly ToolDefinition[]): ToolDefinition[] {
  return kept.flatMap((t) => {
    if (!t.trimmed) return [t];
    const now = t.trimmed(kept);
    return now ? [now] : [];
  });
}

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}

/** A string field of a tool's input, for summaries. */
export function field(input: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = input?.[k];
    if (typeof v === "string" || typeof v === "number") return String(v);
  }
  return undefined;
}
