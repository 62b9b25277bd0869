/**
 * Calls an interruption (a window reload) left running that their tool can take up again from
 * what it recorded — a change still waiting for review. A host asks this when it restores a
 * session, to know whether `continue()` has something to resume (the loop asks the same tools).
 */
import type { SessionEvent } from "../events";
import { unansweredToolCalls } from "../session/projection";
import type { ToolDefinition } from "./types";

export function resumableCalls(events: readonly SessionEvent[], tools: readonly Pick<ToolDefinition, "name" | "resumable">[]): Array<{ id: string; name: string }> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return unansweredToolCalls(events)
    .filter((c) => c.started && (byName.get(c.name)?.resumable?.(c.id, events) ?? false))
    .map(({ id, name }) => ({ id, name }));
}
