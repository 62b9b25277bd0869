// Long sessions on the host: a 10,000-event log is parsed and projected in time slices (each slice
// ends once its budget on the clock is spent, the event loop runs in between), with exactly the
// result of the one-go path; the panel's window over the transcript reads ranges and searches.
import { describe, expect, it } from "vitest";
import { longSessionLines, longSessionPrompt } from "../../../src/bench/long-session/fixture";
import { parseLog, parseLogSliced } from "../../../src/core/session/session-log";
import { forEachSliced, SlicedWorkCancelled, type Slicer } from "../../../src/core/session/sliced";
import type { SessionEvent } from "../../../src/core/events";
import { SessionViewModel } from "../../../src/node/panel/view-model";

/** A clock that moves 1 ms each time it is read, and counts the yields. */
function fakeSlicer(sliceMs = 8, cancelAfter = Infinity): Slicer & { yields: number; maxRun: number } {
  let t = 0;
  let last = 0;
  const s = {
    yields: 0,
    maxRun: 0,
    sliceMs,
    now: () => ++t,
    yield: async () => {
      s.maxRun = Math.max(s.maxRun, t - last);
      s.yields++;
      last = t;
    },
    cancelled: () => s.yields >= cancelAfter,
  };
  return s;
}

const lines = longSessionLines({ events: 10_000 });

describe("sliced parsing and projection of a long session", () => {
  it("the fixture is 10,000 valid events", () => {
    const parsed = parseLog(lines);
    expect(parsed.events).toHaveLength(10_000);
    expect(parsed.invalidLines).toEqual([]);
  });

  it("parses in slices to the same events as parseLog, yielding between slices", async () => {
    const damaged = [...lines.slice(0, 500), "{not json", ...lines.slice(500, 1000), '{"type":"user_mess'];
    const slicer = fakeSlicer();
    const sliced = await parseLogSliced(damaged, slicer);
    expect(sliced).toEqual(parseLog(damaged));
    expect(sliced.invalidLines).toEqual([501]);
    expect(sliced.tornTail).toBe(true);
    // 1,002 lines, the clock read every 16 and moving 1 ms a read: 8 ms slices of 128 lines.
    expect(slicer.yields).toBe(7);
    // No slice ran past its budget by more than the items between two looks at the clock.
    expect(slicer.maxRun).toBeLessThanOrEqual(8 + 2);
  });

  it("builds the view model in slices to the same items as the one-go constructor", async () => {
    const events = parseLog(lines).events;
    const slicer = fakeSlicer();
    const vm = await SessionViewModel.build(events, slicer);
    const direct = new SessionViewModel(events);
    expect(vm.items()).toEqual(direct.items());
    expect(vm.usage).toEqual(direct.usage);
    expect(vm.state).toBe(direct.state);
    // 4 items per turn and the checkpoint control between turns.
    expect(vm.size).toBe(4_999);
    expect(slicer.yields).toBeGreaterThan(10);
  });

  it("stops when superseded", async () => {
    await expect(forEachSliced(100_000, () => {}, fakeSlicer(8, 3))).rejects.toBeInstanceOf(SlicedWorkCancelled);
  });

  it("settles only the tool cards left open when a turn ends", () => {
    const ev = (e: Record<string, unknown>, seq: number) => ({ ts: "2026-01-01T00:00:00Z", seq, ...e }) as SessionEvent;
    const vm = new SessionViewModel([
      ev(
        {
          type: "assistant_message",
          text: "",
          toolCalls: [
            { id: "a", name: "read_file", input: { path: "x" } },
            { id: "b", name: "read_file", input: { path: "y" } },
          ],
        },
        0,
      ),
      ev({ type: "tool_result", callId: "a", name: "read_file", output: "ok", isError: false, durationMs: 1 }, 1),
      ev({ type: "status", state: "cancelled" }, 2),
    ]);
    const tools = vm.items().items.filter((i) => i.kind === "tool");
    expect(tools.map((t) => (t.kind === "tool" ? [t.id, t.status] : []))).toEqual([
      ["a", "done"],
      ["b", "interrupted"],
    ]);
  });
});

describe("the transcript window's host side", () => {
  const vm = new SessionViewModel(parseLog(lines).events);

  it("reads any range by index and knows each item's index", () => {
    const first = vm.range(0, 3);
    expect(first.start).toBe(0);
    expect(first.items[0]).toMatchObject({ kind: "user", text: longSessionPrompt(0) });
    expect(vm.indexOf(first.items[1]!.id)).toBe(1);
    const tail = vm.range(4_989, 50);
    expect(tail.items).toHaveLength(10);
    expect(vm.range(9_999, 5)).toEqual({ start: 4_999, items: [] });
  });

  it("searches every item oldest first, case-insensitively, with a snippet", async () => {
    const { matches, truncated } = await vm.search("request #0002:", 10, fakeSlicer());
    expect(truncated).toBe(false);
    expect(matches).toHaveLength(1);
    expect(matches[0]).toMatchObject({ index: 5, kind: "user" });
    expect(matches[0]!.snippet).toContain("Request #0002:");
  });

  it("finds text in a tool's output and says when there were more matches than sent", async () => {
    const { matches, truncated } = await vm.search("export const value29 = 29;", 5);
    expect(matches[0]).toMatchObject({ kind: "tool" });
    expect(truncated).toBe(false);
    const many = await vm.search("request #", 25);
    expect(many.matches).toHaveLength(25);
    expect(many.truncated).toBe(true);
    expect(many.matches.map((m) => m.index)).toEqual([...many.matches.map((m) => m.index)].sort((a, b) => a - b));
  });

  it("an empty query matches nothing", async () => {
    expect(await vm.search("   ", 10)).toEqual({ matches: [], truncated: false });
  });

  it("a resumed session's view goes on from the events it had not seen", () => {
    const events = parseLog(lines.slice(0, 100)).events;
    const shown = new SessionViewModel(events.slice(0, 60));
    const added = shown.catchUp(events);
    expect(added.length).toBeGreaterThan(0);
    expect(shown.items()).toEqual(new SessionViewModel(events).items());
    expect(shown.catchUp(events)).toEqual([]);
  });
});
