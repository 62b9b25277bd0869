// Turn time (src/core/turn-time): one real AgentSession with a real file tool; the clock is the
// test's, advanced by the model's turns, so the recorded figures are exact. The panel's view model
// shows the event's line; the model never sees it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProviderEvent } from "../../../src/core/providers/types";
import type { SessionEvent } from "../../../src/core/events";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { seconds, turnTimeExtension, turnTimeLine } from "../../../src/core/turn-time";
import { SessionViewModel } from "../../../src/node/panel/view-model";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
beforeEach(() => (ws = createTempWorkspace({ "notes.md": "# Notes\n" })));
afterEach(() => ws.cleanup());

/** A model turn that takes `ms` on the test's clock. */
function slow(clock: { t: number }, ms: number, events: ProviderEvent[]) {
  return async function* () {
    clock.t += ms;
    yield* events;
  };
}

async function session(clock: { t: number }, turns: Parameters<typeof createFakeProvider>[0]) {
  const provider = createFakeProvider(turns);
  const s = await AgentSession.create({
    store: createMemoryStore(),
    provider,
    tools: createBuiltinTools(),
    services: { fs: ws.fs, search: ws.search, log: silentLogger },
    approver: { ask: async () => ({ decision: "allow" }) },
    permissionMode: "bypassPermissions",
    retry: { maxRetries: 0 },
    extensions: [turnTimeExtension({ now: () => clock.t })],
  });
  return { s, provider };
}

const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

describe("turn time", () => {
  it("records, after the run's end, how long the agent worked, the model's share and the tools'; the model never sees it", async () => {
    const clock = { t: 1_000 };
    const turns = [slow(clock, 1_200, toolTurn({ id: "c1", name: "read_file", input: { path: "notes.md" } })), slow(clock, 800, textTurn("Done."))];
    const { s, provider } = await session(clock, turns);
    await s.send("read the notes");
    const events = s.events();
    // The status closes the run; its time follows it.
    expect(events.at(-2)).toMatchObject({ type: "status", state: "done" });
    const [t] = ofType(events, "turn_time");
    expect(t).toMatchObject({ type: "turn_time", ms: 2_000, modelMs: 2_000, requests: 2, tools: 1, outcome: "done" });
    const tool = ofType(events, "tool_result")[0]!;
    expect(t!.toolMs).toBe(tool.durationMs);
    expect(ofType(events, "turn_time")).toHaveLength(1);

    // A second message is timed on its own.
    turns.push(slow(clock, 300, textTurn("Again.")));
    await s.send("again");
    expect(ofType(s.events(), "turn_time").at(-1)).toMatchObject({ ms: 300, modelMs: 300, requests: 1, tools: 0 });
    // Nothing of it reaches the model.
    expect(JSON.stringify(provider.requests)).not.toContain("Worked");
    expect(JSON.stringify(provider.requests)).not.toContain("turn_time");
  });

  it("a failed request counts as the model's time and the run's outcome is error", async () => {
    const clock = { t: 0 };
    const { s } = await session(clock, [
      () => {
        clock.t += 500;
        throw new Error("boom");
      },
    ]);
    await s.send("go");
    expect(ofType(s.events(), "turn_time")[0]).toMatchObject({ ms: 500, modelMs: 500, requests: 0, tools: 0, outcome: "error" });
  });

  it("the panel shows its line as an info notice under the answer", () => {
    const vm = new SessionViewModel();
    const items = vm.apply({ type: "turn_time", seq: 7, ts: "2026-12-04T00:00:00Z", ms: 12_400, modelMs: 9_100, toolMs: 3_000, requests: 3, tools: 2, outcome: "done" });
    expect(items).toEqual([{ kind: "notice", id: "n7", level: "info", text: "Worked 12.4 s: model 9.1 s in 3 requests, tools 3.0 s in 2 calls." }]);
    expect(turnTimeLine({ ms: 640, modelMs: 640, toolMs: 0, requests: 1, tools: 0 })).toBe("Worked 640 ms: model 640 ms in 1 request.");
    expect(seconds(125_000)).toBe("2 min 5 s");
  });
});
