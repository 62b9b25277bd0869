import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { eventsInForce, turnCount } from "../../../src/core/session/rewind";
import { projectConversation, summarizeSession } from "../../../src/core/session/projection";
import { checkpointAfterTurn, turnsOf } from "../../../src/core/checkpoints/turns";
import { restoreTarget } from "../../../src/core/checkpoints/restore";

function log(...events: NewEvent[]): SessionEvent[] {
  return events.map((e, seq) => ({ ...e, seq, ts: "2026-12-01T00:00:00.000Z" }) as SessionEvent);
}
const user = (text: string): NewEvent => ({ type: "user_message", text });
const said = (text: string): NewEvent => ({ type: "assistant_message", text, toolCalls: [] });
const cp = (turn: number, commit: string): NewEvent => ({ type: "checkpoint", turn, reason: "turn", folders: [{ name: "ws", root: "/ws", commit, skipped: [], durationMs: 1 }] });

describe("eventsInForce", () => {
  it("takes a rewound span out, and an undo puts it back", () => {
    const base = log(user("a"), said("A"), user("b"), cp(2, "c2"), said("B"), user("c"), said("C"));
    const rewound = base;
    const withRewind = [...rewound, { type: "rewind", turn: 1, conversation: true, files: false, fromSeq: 2, seq: 7, ts: "t" } as SessionEvent];
    expect(projectConversation(withRewind).map((m) => (m.role === "tool" ? "" : m.text))).toEqual(["a", "A"]);
    expect(summarizeSession(withRewind).turns).toBe(1);
    expect(turnCount(withRewind)).toBe(1);
    const after = [...withRewind, { ...user("b2"), seq: 8, ts: "t" } as SessionEvent];
    expect(turnsOf(after).map((t) => t.text)).toEqual(["a", "b2"]);
    const undone = [...withRewind, { type: "rewind", turn: 1, conversation: false, files: false, undoes: 7, seq: 8, ts: "t" } as SessionEvent];
    expect(eventsInForce(undone)).toHaveLength(undone.length);
    expect(summarizeSession(undone).turns).toBe(3);
  });

  it("a later rewind that covers an earlier one supersedes it", () => {
    const e = log(user("a"), user("b"), user("c"));
    const r1 = { type: "rewind", turn: 2, conversation: true, files: false, fromSeq: 2, seq: 3, ts: "t" } as SessionEvent;
    const r2 = { type: "rewind", turn: 1, conversation: true, files: false, fromSeq: 1, seq: 4, ts: "t" } as SessionEvent;
    expect(turnCount([...e, r1])).toBe(2);
    expect(turnCount([...e, r1, r2])).toBe(1);
  });

  it("finds the checkpoint holding the files after a turn (the next one taken), or none for the last turn", () => {
    const e = log(user("a"), cp(1, "c1"), said("A"), user("b"), said("B"), user("c"), cp(3, "c3"), said("C"));
    expect(checkpointAfterTurn(e, 0)?.folders[0]!.commit).toBe("c1");
    expect(checkpointAfterTurn(e, 1)?.folders[0]!.commit).toBe("c3");
    expect(checkpointAfterTurn(e, 2)?.folders[0]!.commit).toBe("c3");
    expect(checkpointAfterTurn(e, 3)).toBeUndefined();
    expect(() => checkpointAfterTurn(e, 4)).toThrow("0 to 3");
    expect(restoreTarget(e, 1).fromSeq).toBe(3);
    expect(restoreTarget(e, 3).fromSeq).toBeUndefined();
  });
});
