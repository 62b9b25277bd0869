/**
 * Every session event type, and who draws it. A mechanism's events are described by the mechanism
 * (its folder's describe.ts): the panel's view model and the CLI renderer both show what
 * `describeEvent` returns, so a new mechanism appears in both by one line here. `null`: the event
 * is drawn by each consumer itself (the conversation, tool cards, usage, status…) or not at all.
 * The record has every event type as a key: an event type added to events.ts without a line here
 * does not compile.
 */
import { describe as breaker } from "./breakers/describe";
import { describe as budget } from "./budgets/describe";
import { describe as checkpoint } from "./checkpoints/describe";
import { describe as toolQueued } from "./concurrency/describe";
import { describe as cacheBreak } from "./cost/describe";
import type { Describe, EventNote } from "./event-note";
import type { SessionEvent, SessionEventType } from "./events";
import { describe as extension } from "./extensions/describe";
import { describe as fallback } from "./fallback/describe";
import { describe as mcpServer, describeOutput as mcpOutput, describeProgress as mcpProgress, describeRequest as mcpRequest } from "./mcp/describe";
import { describe as modeChange } from "./permissions/describe";
import { describeModelChange as modelChange } from "./providers/describe";
import { describe as review } from "./review-describe";
import { describe as stuck } from "./stuck/describe";
import { describe as turnTime } from "./turn-time/describe";
import { describe as verification } from "./verification/describe";

export type { EventNote } from "./event-note";

const DESCRIBE: { [K in SessionEventType]: Describe<K> | null } = {
  // Drawn by the consumers themselves: the conversation, tool cards, permissions, usage, state.
  session_start: null,
  user_message: null,
  context: null,
  assistant_message: null,
  tool_call: null,
  tool_result: null,
  permission_request: null,
  permission_decision: null,
  error: null,
  usage: null,
  guidance: null,
  status: null,
  rewind: null,
  compaction: null,
  subagent: null,
  mentions: null,
  queue: null,
  todos: null,
  // Described by their mechanism.
  review_proposed: review,
  review_decision: review,
  mode_change: modeChange,
  model_change: modelChange,
  extension,
  cache_break: cacheBreak,
  breaker,
  fallback,
  budget,
  stuck,
  tool_queued: toolQueued,
  verification,
  checkpoint,
  mcp_server: mcpServer,
  mcp_progress: mcpProgress,
  mcp_output: mcpOutput,
  mcp_request: mcpRequest,
  turn_time: turnTime,
};

/** What the event's mechanism says about it; undefined when nothing (or the consumer draws it itself). */
export function describeEvent(e: SessionEvent): EventNote | undefined {
  const d = DESCRIBE[e.type] as ((e: SessionEvent) => EventNote | undefined) | null;
  return d ? d(e) : undefined;
}
