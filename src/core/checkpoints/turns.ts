/**
 * Turn bookkeeping for checkpoints. A turn is a user message and what the agent did in reply,
 * numbered from 1 as summarizeSession counts them (user messages in force). "Turn N" as a place
 * to go back to means the state right after turn N: the conversation up to the end of its
 * answer, the files as the agent left them then. Turn 0 is before the first message.
 */
import type { SessionEvent } from "../events";
import { eventsInForce } from "../session/rewind";
import type { CheckpointEvent } from "./types";

export interface TurnInfo {
  turn: number;
  /** Seq of the turn's user message. */
  seq: number;
  /** The user's text, one line (for lists and pick lists). */
  text: string;
}

export function turnsOf(events: readonly SessionEvent[]): TurnInfo[] {
  const out: TurnInfo[] = [];
  for (const e of eventsInForce(events)) {
    if (e.type === "user_message") out.push({ turn: out.length + 1, seq: e.seq, text: e.text.replace(/\s+/g, " ").trim().slice(0, 120) });
  }
  return out;
}

/** The checkpoints in force, oldest first. */
export function checkpointsOf(events: readonly SessionEvent[]): CheckpointEvent[] {
  return eventsInForce(events).filter((e): e is CheckpointEvent => e.type === "checkpoint");
}

/**
 * The checkpoint holding the files as they were right after `turn`: the first one taken after
 * the turn ended (before the next turn's first change, or before a restore). `undefined`: no
 * change was checkpointed since, so the files are as the agent left them after that turn.
 */
export function checkpointAfterTurn(events: readonly SessionEvent[], turn: number): CheckpointEvent | undefined {
  const turns = turnsOf(events);
  if (!Number.isInteger(turn) || turn < 0 || turn > turns.length) throw new RangeError(`TURN must be a turn of the session, 0 to ${turns.length} (got ${turn})`);
  if (turn === turns.length) return undefined;
  const next = turns[turn]!.seq;
  return checkpointsOf(events).find((c) => c.seq > next);
}
