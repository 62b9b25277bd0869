import { describe, expect, it } from "vitest";
import { cacheBreakText, costLine, findCacheBreak, requestShape, sessionCost, toolsLine } from "../../../src/core/cost";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import type { ModelMessage, ToolSpec } from "../../../src/core/providers/types";

const tool = (name: string, description = `The ${name} tool.`): ToolSpec => ({ name, description, inputSchema: { type: "object", properties: {} } });
const tools = [tool("read_file"), tool("grep"), tool("edit_file")];
const base: ModelMessage[] = [
  { role: "user", text: "Fix the bug." },
  { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "read_file", input: { path: "a.ts" } }] },
  { role: "tool", callId: "c1", name: "read_file", content: "1: const a = 1;", isError: false },
];
const shape = (messages: ModelMessage[], extra: Partial<{ model: string; system: string; tools: ToolSpec[] }> = {}) =>
  requestShape({ model: extra.model ?? "m1", system: extra.system ?? "You are Yoke.", tools: extra.tools ?? tools, messages });

describe("findCacheBreak: the first difference that stops a prompt cache from serving the prefix", () => {
  it("appending messages, or text of the same role to the last one, is no break", () => {
    expect(findCacheBreak(shape(base), shape([...base, { role: "assistant", text: "Done.", toolCalls: [] }]))).toBeUndefined();
    const grown: ModelMessage[] = [...base.slice(0, 2), { ...(base[2] as Extract<ModelMessage, { role: "tool" }>), content: "1: const a = 1;\n2: more" }];
    expect(findCacheBreak(shape(base), shape(grown))).toBeUndefined();
    expect(findCacheBreak(shape(base), shape(base))).toBeUndefined();
  });
  it("names a rewritten earlier message, with its place", () => {
    const rewritten: ModelMessage[] = [{ role: "user", text: "Fix the bugs." }, ...base.slice(1), { role: "user", text: "go on" }];
    expect(findCacheBreak(shape(base), shape(rewritten))).toEqual({ kind: "messages", detail: "message 1 of 3 was rewritten (user)", messageIndex: 0, keptMessages: 0 });
  });
  it("says when messages were removed", () => {
    expect(findCacheBreak(shape(base), shape(base.slice(0, 1)))).toMatchObject({
      kind: "messages",
      messageIndex: 1,
      keptMessages: 1,
      detail: expect.stringContaining("2 earlier message(s) were removed"),
    });
  });
  it("names added, removed and changed tools, the system prompt and the model", () => {
    expect(findCacheBreak(shape(base), shape(base, { tools: [...tools, tool("mcp__db__query")] }))?.detail).toBe("the tool list changed (added mcp__db__query)");
    expect(findCacheBreak(shape(base), shape(base, { tools: tools.slice(1) }))?.detail).toBe("the tool list changed (removed read_file)");
    expect(findCacheBreak(shape(base), shape(base, { tools: [tool("read_file", "Reads."), ...tools.slice(1)] }))?.detail).toBe("the tool list changed (changed read_file)");
    expect(findCacheBreak(shape(base), shape(base, { tools: [tools[1]!, tools[0]!, tools[2]!] }))?.detail).toBe("the tool list changed (the same tools in another order)");
    expect(findCacheBreak(shape(base), shape(base, { system: "You are Yoke. Today is Tuesday." }))).toMatchObject({ kind: "system", detail: "the system prompt changed" });
    expect(findCacheBreak(shape(base), shape(base, { model: "m2" }))).toMatchObject({ kind: "model", detail: "the model changed (m1 → m2); a cache belongs to one model" });
  });
});

let seq = 0;
const ev = (e: NewEvent): SessionEvent => ({ ...e, seq: seq++, ts: "2026-12-03T00:00:00.000Z" }) as SessionEvent;
const usage = (inputTokens: number, cacheReadTokens: number, outputTokens: number, costUsd?: number, cacheWriteTokens = 0) =>
  ev({ type: "usage", model: "m1", usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens }, ...(costUsd === undefined ? {} : { costUsd }) });

describe("sessionCost: per turn and in total", () => {
  it("sums requests per user message, with cache share, tools, sub-agents and cache breaks", () => {
    seq = 0;
    const events = [
      ev({ type: "user_message", text: "one" }),
      usage(3000, 0, 100, 0.01, 2800),
      ev({ type: "tool_result", callId: "c1", name: "read_file", output: "x".repeat(4000), isError: false, durationMs: 3 }),
      usage(200, 3000, 50, 0.002),
      ev({ type: "user_message", text: "a nudge", from: "extension" }),
      usage(100, 3200, 20, 0.001),
      ev({ type: "user_message", text: "two" }),
      ev({ type: "cache_break", kind: "messages", detail: "message 1 of 5 was rewritten (user)", keptMessages: 0, messageIndex: 0, cause: "compaction" }),
      usage(1000, 0, 10, 0.004),
      ev({ type: "subagent", callId: "t1", childId: "child", phase: "finished", depth: 1, description: "look around", status: "completed", toolCalls: 3, costUsd: 0.5 }),
    ];
    const c = sessionCost(events);
    expect(c.turns).toHaveLength(2);
    expect(c.turns[0]).toMatchObject({
      turn: 1,
      userSeq: 0,
      requests: 3,
      inputTokens: 3300,
      cacheReadTokens: 6200,
      cacheWriteTokens: 2800,
      outputTokens: 170,
      tools: [{ name: "read_file", calls: 1, resultTokens: 1000 }],
    });
    expect(c.turns[0]!.costUsd).toBeCloseTo(0.013);
    expect(c.turns[0]!.cacheHitShare).toBeCloseTo(6200 / 12300);
    expect(c.turns[1]).toMatchObject({
      turn: 2,
      requests: 1,
      cacheHitShare: 0,
      cacheBreaks: [{ detail: "message 1 of 5 was rewritten (user)", cause: "compaction" }],
      subagents: [{ childId: "child", description: "look around", costUsd: 0.5, toolCalls: 3 }],
    });
    expect(c.turns[1]!.costUsd).toBeCloseTo(0.504);
    expect(c.total).toMatchObject({ requests: 4, inputTokens: 4300, cacheReadTokens: 6200, outputTokens: 180, cacheBreaks: 1 });
    expect(c.total.costUsd).toBeCloseTo(0.517);
  });
  it("a price that is never known stays unknown", () => {
    seq = 0;
    const c = sessionCost([ev({ type: "user_message", text: "one" }), usage(10, 0, 5)]);
    expect(c.total.costUsd).toBeUndefined();
    expect(costLine(c.total)).toBe("10 in (0% cached) · 5 out · price unknown · 1 request");
  });
});

describe("the texts the user reads", () => {
  it("costLine is one compact line", () => {
    expect(costLine({ requests: 4, inputTokens: 1200, cacheReadTokens: 17000, cacheWriteTokens: 0, outputTokens: 412, costUsd: 0.01234 })).toBe("18k in (93% cached) · 412 out · $0.01 · 4 requests");
    expect(costLine({ requests: 1, inputTokens: 3000, cacheReadTokens: 0, cacheWriteTokens: 3000, outputTokens: 12, costUsd: 0.004, cacheBreaks: 2 })).toBe(
      "6.0k in (0% cached, 3.0k written) · 12 out · $0.0040 · 1 request · 2 cache breaks",
    );
  });
  it("toolsLine lists the most expensive tools first, bounded", () => {
    expect(
      toolsLine([
        { name: "read_file", calls: 3, resultTokens: 2100 },
        { name: "grep", calls: 2, resultTokens: 800 },
      ]),
    ).toBe("read_file 3× 2.1k · grep 2× 800");
    const many = Array.from({ length: 7 }, (_, i) => ({ name: `t${i}`, calls: 1, resultTokens: 10 }));
    expect(toolsLine(many)).toMatch(/· 2 more$/);
  });
  it("cacheBreakText says what changed and whether it was expected", () => {
    expect(cacheBreakText({ detail: "the tool list changed (added x)" })).toBe("Prompt cache break: the tool list changed (added x). The next request pays full price for what follows the change.");
    expect(cacheBreakText({ detail: "message 1 of 9 was rewritten (user)", cause: "compaction" })).toContain("after a compaction (expected: the conversation was summarised)");
    expect(cacheBreakText({ detail: "x", cause: "rewind" })).toContain("after a conversation restore (expected)");
  });
});
