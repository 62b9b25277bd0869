/** A model-facing tool: schema, handler, timeout and permission name in one object. */
import type { z } from "zod";
import type { CommandConfinement, CommandRunner } from "../commands/types";
import type { ChangeReviewer, ReviewMode } from "../review";
import type { Logger, Searcher, WorkspaceFs } from "../ports";

export interface ToolContext {
  fs: WorkspaceFs;
  search: Searcher;
  signal: AbortSignal;
  sessionId: string;
  callId: string;
  log: Logger;
  /** Files the model has seen this session: absolute path -> content hash at that time (see read tracking). */
  readState: Map<string, { mtimeMs: number; size: number }>;
  /** Runs shell commands (run_command, command_output, kill_command); absent where the host has none. */
  commands?: CommandRunner;
  /** Why there is no command runner (e.g. the chosen sandbox is not installed, and what to install). */
  commandsUnavailable?: string;
  /**
   * Set by the permission decision for this call: how the sandbox must confine the command
   * (read-only workspace, protected paths the user approved writing). run_command passes it to the runner.
   */
  confine?: CommandConfinement;
  /**
   * Reviews proposed file changes (the extension's diff review). Absent: tools write directly.
   * With it, edit_file/write_file compute the new content and call
   * `reviewer.review(change, ctx.reviewMode ?? "auto", ctx.signal)`, and the outcome decides what the model is told.
   */
  reviewer?: ChangeReviewer;
  /** "ask" when the permission gate would ask about this edit (the review is the question), else "auto". */
  reviewMode?: ReviewMode;
}

export interface ToolOutput {
  /** What the model is told. Keep it bounded (see output.ts). */
  text: string;
  isError?: boolean;
  /** Structured details for the UI and the event log; never sent to the model. */
  meta?: unknown;
}

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  /** Permission name used by permission rules and hooks (contract section 1): Read, Edit, Bash... */
  permission: string;
  /** Does the tool change anything (files, processes)? Restricted Mode and plan mode refuse those. */
  mutates: boolean;
  timeoutMs: number;
  /**
   * The tool proposes file changes through ctx.reviewer. When the gate would ask about it and a
   * reviewer exists, the review itself is the question (no separate permission card).
   */
  reviewable?: boolean;
  /** The `tool_input` a Claude Code-compatible hook sees (contract section 1). */
  hookInput(args: z.infer<S>): Record<string, unknown>;
  /** The `tool_response` a PostToolUse hook sees, in the shape Claude Code gives that tool (default: {output, is_error}). */
  hookResponse?(args: z.infer<S>, output: ToolOutput): unknown;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
}

/** Thrown by a handler for an expected failure; its message goes to the model as is. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}
