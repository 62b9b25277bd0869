/** The public surface of a running agent session, as hosts (CLI, extension) use it. */
import type { LoopState, SessionEvent } from "../events";
import type { CommandConfinement } from "../commands/types";
import type { Disposable } from "../ports";

export interface PermissionQuestion {
  callId: string;
  /** Tool name (e.g. run_command). */
  tool: string;
  /** Permission name (e.g. Bash). */
  permission: string;
  /** The hook-style tool_input (what the gate checked), as PermissionCheck.input. */
  input: Record<string, unknown>;
  /** Why the user is asked. */
  reason: string;
  /** The tool's one-line summary of the call (for the card). */
  summary: string;
  /** The tool changes nothing (its capabilities), e.g. for the rule "Always allow" proposes. */
  readOnly: boolean;
  /**
   * The answer is not about this one call: it holds until the run ends. "allow" grants these
   * (a project command's allowed-tools) for the rest of the run; "deny" leaves each call to the
   * permission rules (asked as usual). Hosts offer "Allow for this run" and "Ask each time" — no
   * "Allow once" (it would allow more than one call) and no "Always allow" rule.
   */
  forRun?: { grants: readonly string[] };
  /** Who asks, when it is a custom agent rather than the session the user talks to (the question names it). */
  asker?: Asker;
  /**
   * The asker's own permission rules, when it works under rules of its own (a custom agent in a
   * git worktree: that folder's gate). "Always allow" proposes its rule from these (the paths of
   * the agent's folder) and adds it here too, so it governs the asker's later calls, besides being
   * saved in the workspace's settings file; "Always deny" (ACP) likewise.
   */
  rules?: AskerRules;
}

/** An asker's own rules (PermissionQuestion.rules). */
export interface AskerRules {
  /** The rule "Always allow" offers for a call, from the asker's own settings and folder; null when none is safe. */
  propose(req: PermissionCheck): Promise<string | null>;
  /** Adds a rule to the asker's rules for the rest of its session (the workspace's file is written by the host). */
  add(rule: string, list: "allow" | "deny"): void;
}

/** A custom agent asking through its parent's approver: which agent, and where it works. */
export interface Asker {
  /** The agent's name (its definition's `name`). */
  agent: string;
  /** A `background: true` agent: its question outlives the parent's turn (a Stop or a New Session does not answer it). */
  background: boolean;
  /**
   * Its `permissionMode: dontAsk` (Claude Code's): a question of the agent's run — its sub-agents'
   * too — is answered "deny" without asking anyone; what the rules allow still runs.
   */
  dontAsk?: boolean;
  /** Its background agent id (the Agents view's, `yoke agents`), worktree and branch, when it works in one. */
  id?: string;
  worktree?: string;
  branch?: string;
}

export interface PermissionAnswer {
  decision: "allow" | "deny";
  /** Given to the model with a denial. */
  message?: string;
}

/** Asks the user about a tool call (panel card, terminal prompt, or a fixed policy in headless runs). */
export interface Approver {
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer>;
}

/** Streaming output that is not logged event by event (the final text is, in assistant_message). */
export type StreamDelta = { type: "text"; text: string } | { type: "reasoning"; text: string };

export interface AgentSessionApi {
  readonly id: string;
  readonly state: LoopState;
  /** Every event of the log so far, in order. */
  events(): readonly SessionEvent[];
  /** Called with each event as it is appended. */
  onEvent(listener: (event: SessionEvent) => void): Disposable;
  /** Called with streamed text as it arrives, before the assistant_message event. */
  onDelta(listener: (delta: StreamDelta) => void): Disposable;
  /** Adds a user message and runs the loop until the agent finishes, fails or is cancelled. */
  send(text: string): Promise<void>;
  /** Continues an interrupted session (after resume) without a new user message. */
  continue(): Promise<void>;
  /** Aborts the provider stream and running tools; records what happened. */
  cancel(): void;
}

export type PermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions";

/** What the permission engine decides about one tool call before it runs. */
export interface PermissionDecision {
  decision: "allow" | "ask" | "deny";
  /** The rule that decided, in rule syntax (e.g. `Bash(git push:*)`), when a rule did. */
  rule?: string | null;
  /** Who decided: a rule, the mode's default, a hook, or Restricted Mode. */
  by: "rule" | "mode" | "hook" | "restricted";
  /** Human-readable reason, shown to the user and (for a deny) to the model. */
  reason: string;
  /** For an allowed command: how the sandbox must confine it (read-only, protected paths it may write). */
  confine?: CommandConfinement;
}

export interface PermissionCheck {
  /** Tool name (read_file, run_command...). */
  tool: string;
  /** Permission name (Read, Bash...). */
  permission: string;
  /** The hook-style tool_input (contract section 1): {file_path}, {command}... */
  input: Record<string, unknown>;
  /** Does the tool change anything? */
  mutates: boolean;
  /**
   * Allow rules in force for this check only (a custom slash command's `allowed-tools`, for the
   * turn it runs): added to the allow rules, so deny and ask rules, protected paths and the mode still apply.
   */
  grants?: readonly string[];
}

/** The single gate every tool call passes (issue: permission engine). */
export interface PermissionGate {
  check(req: PermissionCheck, mode: PermissionMode): Promise<PermissionDecision>;
}
