// What a session cost and when the prompt cache broke, through real parts: the @anthropic-ai/sdk
// client over HTTP to the scripted server, Yoke's own system prompt and tool list, a real compaction.
import { describe, expect, it } from "vitest";
import { scriptedPrefixSession } from "../../src/bench/compaction";
import { sessionCost } from "../../src/core/cost";
import type { EventOf, SessionEvent } from "../../src/core/events";

const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);

describe("the prompt-cache watch and the cost per turn (real Anthropic client, scripted server)", () => {
  it("12 turns and a compaction: one cache break, at the compaction, said to be expected; every turn's spend is counted", async () => {
    const { requests, compactionRequest, session } = await scriptedPrefixSession({ sends: 12, compactAfter: 7 });
    const events = session.events();
    const breaks = ofType(events, "cache_break");
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toMatchObject({ kind: "messages", cause: "compaction", messageIndex: 0 });
    expect(breaks[0]!.detail).toMatch(/^message 1 of \d+ was rewritten \(user\)$/);
    // The break is recorded right before the request that carried the compacted conversation.
    const usageBefore = events.filter((e) => e.type === "usage" && e.seq < breaks[0]!.seq).length;
    expect(usageBefore).toBe(compactionRequest);

    const cost = sessionCost(events);
    expect(cost.turns).toHaveLength(12);
    expect(cost.total.requests).toBe(requests.length);
    for (const t of cost.turns) expect(t.requests).toBe(2);
    expect(cost.turns.map((t) => t.cacheBreaks.length)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
    for (const t of cost.turns) expect(t.tools).toEqual([expect.objectContaining({ name: "probe", calls: 1 })]);
    expect(cost.total.inputTokens).toBe(ofType(events, "usage").reduce((n, e) => n + e.usage.inputTokens, 0));
  }, 60_000);
});
