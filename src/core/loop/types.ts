/** The public surface of a running agent session, as hosts (CLI, extension) use it. */
import type { LoopState, SessionEvent } from "../events";
import type { Disposable } from "../ports";

export interface PermissionQuestion {
  callId: string;
  /** Tool name (e.g. run_command). */
  tool: string;
  /** Permission name (e.g. Bash). */
  permission: string;
  input: unknown;
  /** Why the user is asked. */
  reason: string;
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
