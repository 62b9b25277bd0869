/**
 * Conversation restores (checkpoints, issue 12) as a pure pre-pass over the log: a `rewind`
 * event with `fromSeq` takes the events from `fromSeq` up to itself out of force; a later rewind
 * that `undoes` it puts them back. Every projection of the conversation starts from here, so the
 * log stays append-only and a restore is itself undoable.
 */
import type { SessionEvent } from "../events";

/** The events in force: rewound spans left out (in log order). */
export function eventsInForce(events: readonly SessionEvent[]): readonly SessionEvent[] {
  if (!events.some((e) => e.type === "rewind")) return events;
  const kept: SessionEvent[] = [];
  const undone = new Set<number>();
  // From the end: a rewind in force hides the span before it (including earlier rewinds and undos,
  // whose effect it supersedes); an undo in force cancels the rewind it names.
  let hideFrom: number | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (hideFrom !== undefined) {
      if (e.seq >= hideFrom) continue;
      hideFrom = undefined;
    }
    if (e.type === "rewind") {
      if (e.undoes !== undefined) undone.add(e.undoes);
      if (e.conversation && e.fromSeq !== undefined && !undone.has(e.seq) && e.fromSeq < e.seq) hideFrom = e.fromSeq;
    }
    kept.push(e);
  }
  return kept.reverse();
}

/** The 1-based turn a log is in: its user messages in force (as summarizeSession counts them). */
export function turnCount(events: readonly SessionEvent[]): number {
  let n = 0;
  for (const e of eventsInForce(events)) if (e.type === "user_message") n++;
  return n;
}
