// src/core/events.ts: each event type's schema is made when an event of that type is first checked
// (start-up, issue 19 item 4). Its answers must be the discriminated union's on `type`, the schema
// the log had before: the same success, the same data (defaults filled in), the same issues.
import { describe, expect, it } from "vitest";
import { SessionEvent, sessionEventUnion } from "../../../src/core/events";

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
const answer = (r: { success: boolean; data?: unknown; error?: { issues: unknown[] } }) => plain({ success: r.success, data: r.data, issues: r.error?.issues });

describe("SessionEvent", () => {
  const union = sessionEventUnion();
  const types = (union as unknown as { _zod: { def: { options: Array<{ _zod: { def: { shape: { type: { _zod: { def: { values: string[] } } } } } } }> } } })._zod.def.options.map(
    (o) => o._zod.def.shape.type._zod.def.values[0]!,
  );

  it("has one schema per event type", () => {
    expect(new Set(types).size).toBe(types.length);
    expect(types).toEqual(expect.arrayContaining(["session_start", "user_message", "tool_call", "tool_result", "turn_time", "todos"]));
    expect(types.length).toBeGreaterThan(30);
  });

  it("answers as the discriminated union does, for events of every type, broken ones, unknown types and non-objects", () => {
    const inputs: unknown[] = [
      { seq: 0, ts: "t", type: "session_start", sessionId: "s", cwd: "/w", provider: "p", model: "m", version: 1 },
      { seq: 0, ts: "t", type: "session_start", sessionId: "s", cwd: "/w", provider: "p", model: "m", version: 2 },
      { seq: 1, ts: "t", type: "user_message", text: "hi", extra: "dropped" },
      { seq: 1, ts: "t", type: "user_message", text: 5 },
      { seq: -1, ts: "t", type: "user_message", text: "hi" },
      { seq: 2, ts: "t", type: "todos", todos: [{ content: "a", status: "pending" }] },
      { seq: 2, ts: "t", type: "todos", todos: [{ content: "a", status: "later" }] },
      { seq: 3, ts: "t", type: "no_such_event" },
      { seq: 3, ts: "t", type: "toString" },
      { seq: 3, ts: "t", type: "__proto__" },
      { seq: 3, ts: "t" },
      { seq: 3, ts: "t", type: 7 },
      null,
      "session_start",
      [],
      42,
      ...types.map((type) => ({ seq: 4, ts: "t", type })),
      ...types.map((type) => ({ type })),
    ];
    for (const input of inputs) {
      expect(answer(SessionEvent.safeParse(input)), JSON.stringify(input)).toEqual(answer(union.safeParse(input)));
      let thrown: unknown;
      try {
        expect(plain(SessionEvent.parse(input))).toEqual(plain(union.parse(input)));
      } catch (e) {
        thrown = e;
      }
      if (thrown !== undefined) expect(() => union.parse(input), JSON.stringify(input)).toThrow();
    }
  });
});
