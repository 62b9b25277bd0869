import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { cardSummary, SessionViewModel } from "../../../src/node/panel/view-model";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";

function log(events: NewEvent[]): SessionEvent[] {
  return events.map((e, seq) => ({ ...e, seq, ts: `2026-11-30T00:00:${String(seq).padStart(2, "0")}Z` }) as SessionEvent);
}

const start: NewEvent = {
  type: "session_start",
  sessionId: "s1",
  cwd: "/w",
  provider: "openai-compatible",
  model: "qwen",
  permissionMode: "default",
  label: "demo model",
  trusted: true,
  version: 1,
};

/** One turn: read a file, ask to run a command (allowed), then answer; usage from two requests. */
const turn: NewEvent[] = [
  start,
  { type: "status", state: "idle" },
  { type: "user_message", text: "run the tests" },
  { type: "status", state: "thinking" },
  {
    type: "assistant_message",
    text: "",
    toolCalls: [
      { id: "c1", name: "read_file", input: { path: "package.json" } },
      { id: "c2", name: "run_command", input: { command: "npm test" } },
    ],
  },
  { type: "usage", usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 }, model: "qwen", costUsd: 0.01 },
  { type: "status", state: "waiting_tool" },
  { type: "tool_call", callId: "c1", name: "read_file", input: { path: "package.json" } },
  { type: "tool_result", callId: "c1", name: "read_file", output: "1#ZZ|{", isError: false, durationMs: 4 },
  { type: "permission_request", callId: "c2", tool: "run_command", permission: "Bash", input: { command: "npm test" }, reason: "commands need approval" },
  { type: "permission_decision", callId: "c2", decision: "allow", by: "user" },
  { type: "tool_call", callId: "c2", name: "run_command", input: { command: "npm test" } },
  { type: "tool_result", callId: "c2", name: "run_command", output: "ok", isError: false, durationMs: 1500 },
  { type: "status", state: "thinking" },
  { type: "assistant_message", text: "All tests pass.", reasoning: "looked fine", toolCalls: [] },
  { type: "usage", usage: { inputTokens: 2000, outputTokens: 30, cacheReadTokens: 800, cacheWriteTokens: 0 }, model: "qwen", costUsd: 0.02 },
  { type: "todos", todos: [{ content: "run tests", status: "completed" }] },
  { type: "status", state: "done" },
];

describe("SessionViewModel", () => {
  it("projects a turn with tools into user, tool, assistant and todo items in order", () => {
    const vm = new SessionViewModel(log(turn));
    const { items, omitted } = vm.items();
    expect(omitted).toBe(0);
    expect(items.map((i) => `${i.kind}:${i.id}`)).toEqual(["user:u2", "tool:c1", "tool:c2", "assistant:a14", "todos:t16", "turn:k2"]);
    expect(items[1]).toMatchObject({ name: "read_file", summary: "package.json", status: "done", durationMs: 4, output: "1#ZZ|{" });
    expect(items[2]).toMatchObject({ name: "run_command", summary: "npm test", status: "done", durationMs: 1500 });
    expect(items[3]).toMatchObject({ text: "All tests pass.", reasoning: "looked fine" });
    expect(vm.state).toBe("done");
    expect(vm.modelLabel).toBe("demo model");
    expect(vm.pending).toBeNull();
  });

  it("sums usage and cost over requests", () => {
    const vm = new SessionViewModel(log(turn));
    expect(vm.usage).toEqual({ inputTokens: 3000, outputTokens: 80, cacheReadTokens: 800, costUsd: 0.03, detail: "3.8k in (21% cached) · 80 out · $0.03 · 2 requests" });
  });

  it("each turn's control carries what the turn cost; a cache break is a notice saying what changed", () => {
    const events = log([
      start,
      { type: "user_message", text: "one" },
      { type: "assistant_message", text: "", toolCalls: [{ id: "r1", name: "read_file", input: { path: "a" } }] },
      { type: "usage", usage: { inputTokens: 3000, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 2900 }, model: "m", costUsd: 0.02 },
      { type: "tool_call", callId: "r1", name: "read_file", input: { path: "a" } },
      { type: "tool_result", callId: "r1", name: "read_file", output: "x".repeat(800), isError: false, durationMs: 1 },
      { type: "assistant_message", text: "done", toolCalls: [] },
      { type: "usage", usage: { inputTokens: 300, outputTokens: 10, cacheReadTokens: 2900, cacheWriteTokens: 0 }, model: "m", costUsd: 0.001 },
      { type: "status", state: "done" },
      { type: "user_message", text: "two" },
      { type: "cache_break", kind: "tools", detail: "the tool list changed (added mcp__db__query)", keptMessages: 0 },
      { type: "assistant_message", text: "ok", toolCalls: [] },
      { type: "usage", usage: { inputTokens: 3500, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 }, model: "m" },
      { type: "status", state: "done" },
    ]);
    const vm = new SessionViewModel(events);
    const items = vm.range(0, vm.size).items;
    const turns = items.flatMap((i) => (i.kind === "turn" ? [i] : []));
    expect(turns.map((t) => t.cost?.line)).toEqual(["9.1k in (32% cached, 2.9k written) · 30 out · $0.02 · 2 requests", "3.5k in (0% cached) · 5 out · price unknown · 1 request · 1 cache break"]);
    expect(turns[0]!.cost?.detail).toBe("3300 uncached input, 2900 read from the cache, 2900 written to it; 30 output tokens\nTool results (estimated tokens): read_file 1× 200");
    expect(items).toContainEqual(
      expect.objectContaining({
        kind: "notice",
        level: "warning",
        text: "Prompt cache break: the tool list changed (added mcp__db__query). The next request pays full price for what follows the change.",
      }),
    );
    expect(vm.usage.detail).toBe("13k in (23% cached, 2.9k written) · 35 out · $0.02 · 3 requests · 1 cache break");
  });

  it("leaves cost out when no request had a price", () => {
    const vm = new SessionViewModel(log([start, { type: "usage", usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, model: "x" }]));
    expect(vm.usage.costUsd).toBeUndefined();
  });

  it("reports the changed items incrementally as events arrive", () => {
    const events = log(turn);
    const vm = new SessionViewModel(events.slice(0, 9));
    const changed = vm.apply(events[9]!);
    expect(changed).toEqual([expect.objectContaining({ id: "c2", status: "asking" })]);
    expect(vm.pending).toMatchObject({ callId: "c2", tool: "run_command", permission: "Bash", summary: "npm test", reason: "commands need approval" });
    expect(vm.apply(events[10]!)).toEqual([expect.objectContaining({ id: "c2", status: "pending" })]);
    expect(vm.pending).toBeNull();
    expect(vm.apply(events[11]!)).toEqual([expect.objectContaining({ id: "c2", status: "running" })]);
  });

  // A typed forked command: its expansion records the fork (a task call of its own) before the
  // user_message that carries the answer; the person's message is drawn above it, where it was typed.
  const forked: NewEvent[] = [
    start,
    { type: "status", state: "idle" },
    { type: "user_message", text: "hello" },
    { type: "assistant_message", text: "Hi.", toolCalls: [] },
    { type: "status", state: "done" },
    { type: "extension", name: "custom-commands", point: "prompt.expand", outcome: "decided", detail: "/survey (project): runs in a general-purpose sub-agent (context: fork)" },
    { type: "tool_call", callId: "fork-survey-1", name: "task", input: { description: "/survey", prompt: "SURVEY" } },
    { type: "subagent", callId: "fork-survey-1", childId: "child", phase: "started", depth: 1, description: "/survey" },
    { type: "tool_result", callId: "fork-survey-1", name: "task", output: "FORK-ANSWER", isError: false, durationMs: 5 },
    { type: "user_message", text: "[/survey ran in a sub-agent] FORK-ANSWER", typed: "/survey" },
    { type: "status", state: "thinking" },
    { type: "assistant_message", text: "The answer.", toolCalls: [] },
    { type: "status", state: "done" },
  ];

  it("draws a typed forked command's message above the card its expansion recorded first, live and rebuilt from the log", () => {
    const events = log(forked);
    const order = (vm: SessionViewModel) => vm.items().items.map((i) => (i.kind === "user" ? `user:${i.text}` : i.kind === "tool" ? `tool:${i.name}` : i.kind));
    const rebuilt = new SessionViewModel(events);
    const expected = ["user:hello", "assistant", "turn", "user:/survey", "tool:task", "subagent", "assistant", "turn"];
    expect(order(rebuilt)).toEqual(expected);
    // Live: the message arrives after the card; it is an insertion at the card's place, said once.
    const live = new SessionViewModel(events.slice(0, 9));
    expect(order(live)).toEqual(["user:hello", "assistant", "turn", "tool:task", "subagent"]);
    const [user] = live.apply(events[9]!);
    expect(user).toMatchObject({ kind: "user", text: "/survey" });
    expect(live.indexOf(user!.id)).toBe(3);
    expect(live.indexOf("fork-survey-1")).toBe(4);
    expect(live.takeInserted(user!.id)).toBe(true);
    expect(live.takeInserted(user!.id)).toBe(false);
    for (const e of events.slice(10)) live.apply(e);
    expect(order(live)).toEqual(expected);
    // A plain message is appended, not inserted.
    const plain = new SessionViewModel(log(turn).slice(0, 2));
    const [first] = plain.apply(log(turn)[2]!);
    expect(plain.takeInserted(first!.id)).toBe(false);
  });

  it("leaves a blocked command's notes where they are: the next message is appended after them", () => {
    const events = log([
      start,
      { type: "status", state: "idle" },
      { type: "extension", name: "custom-commands", point: "prompt.expand", outcome: "blocked", detail: "/x was not run" },
      { type: "error", message: "Your message was not sent: /x was not run", code: "command_refused" },
      { type: "status", state: "idle" },
      { type: "user_message", text: "next" },
    ]);
    const vm = new SessionViewModel(events);
    expect(vm.items().items.map((i) => i.kind)).toEqual(["notice", "user"]);
  });

  it("marks a denied tool call with the user's message", () => {
    const vm = new SessionViewModel(
      log([
        start,
        { type: "assistant_message", text: "", toolCalls: [{ id: "c9", name: "write_file", input: { path: "a.ts", content: "x" } }] },
        { type: "permission_request", callId: "c9", tool: "write_file", permission: "Write", input: { path: "a.ts" }, reason: "edits need approval" },
        { type: "permission_decision", callId: "c9", decision: "deny", by: "user", message: "not that file" },
        { type: "tool_result", callId: "c9", name: "write_file", output: "denied: not that file", isError: true, durationMs: 0 },
      ]),
    );
    expect(vm.items().items[0]).toMatchObject({ id: "c9", status: "denied", note: "not that file", output: "denied: not that file" });
  });

  it("settles tool cards still running when the run is cancelled", () => {
    const vm = new SessionViewModel(log(turn.slice(0, 8)));
    const changed = vm.apply({ type: "status", state: "cancelled", seq: 99, ts: "" });
    // The tool cards, then the turn's checkpoint control (the turn ended).
    expect(changed.map((i) => i.id)).toEqual(["c1", "c2", "k2"]);
    expect(changed.slice(0, 2).every((i) => i.kind === "tool" && i.status === "interrupted")).toBe(true);
  });

  it("shows a log that ended mid-turn as interrupted", () => {
    const vm = new SessionViewModel(log(turn.slice(0, 8)));
    expect(vm.state).toBe("waiting_tool");
    vm.markInterrupted();
    expect(vm.state).toBe("interrupted");
  });

  it("bounds long tool output and keeps only the newest items when asked", () => {
    const big = "x".repeat(20_000);
    const events: NewEvent[] = [start];
    for (let i = 0; i < 10; i++) events.push({ type: "user_message", text: `m${i}` });
    events.push({ type: "tool_result", callId: "cb", name: "grep", output: big, isError: false, durationMs: 1 });
    const vm = new SessionViewModel(log(events));
    const { items, omitted } = vm.items(3);
    // Each user message after the first ends a turn: its checkpoint control (k<seq>) comes first.
    expect(omitted).toBe(17);
    expect(items.map((i) => i.id)).toEqual(["k9", "u10", "cb"]);
    const tool = items[2]!;
    expect(tool.kind === "tool" && tool.output!.length).toBeLessThan(8_100);
    expect(tool.kind === "tool" && tool.output).toContain("(12000 more characters)");
  });

  it("turns errors, review decisions, mode changes and extension failures into notices", () => {
    const vm = new SessionViewModel(
      log([
        start,
        { type: "error", message: "rate limited: retry in 5 s", code: "rate_limit" },
        { type: "review_decision", editId: "e1", path: "src/a.ts", status: "accepted", by: "user" },
        { type: "review_decision", editId: "e2", path: "src/b.ts", status: "rejected", by: "user", message: "wrong file" },
        { type: "mode_change", mode: "plan", from: "default", by: "user" },
        { type: "extension", name: "lessons", point: "request.prepare", outcome: "error", detail: "bad lesson" },
      ]),
    );
    expect(vm.items().items).toEqual([
      { kind: "notice", id: "n1", level: "error", text: "rate limited: retry in 5 s" },
      { kind: "notice", id: "n2", level: "info", text: "Change to src/a.ts accepted by you." },
      { kind: "notice", id: "n3", level: "warning", text: "Change to src/b.ts rejected by you: wrong file." },
      { kind: "notice", id: "n4", level: "info", text: "Permission mode: plan (was default)." },
      { kind: "notice", id: "n5", level: "warning", text: "lessons failed at request.prepare: bad lesson. The session goes on without it." },
    ]);
    expect(vm.mode).toBe("plan");
  });
});

describe("tool summaries", () => {
  it("each tool picks the argument that identifies its call", () => {
    const reg = new ToolRegistry(createBuiltinTools());
    expect(reg.summarize("read_file", { path: "src/a.ts", offset: 40 })).toBe("src/a.ts:40");
    expect(reg.summarize("grep", { pattern: "TODO", path: "src" })).toBe("TODO in src");
    expect(reg.summarize("write_file", { file_path: "notes.md", content: "x" })).toBe("notes.md");
    expect(reg.summarize("todo_write", { todos: [{}, {}] })).toBe("2 items");
    expect(reg.summarize("mcp__gh__search", { query: "bug" })).toBe("");
    expect(reg.summarize("run_command", "not json")).toBe("");
  });

  it("the card shows the tool's summary, else the first string argument, on one bounded line", () => {
    expect(cardSummary("src/a.ts:40", { path: "src/a.ts" })).toBe("src/a.ts:40");
    expect(cardSummary(undefined, { query: "bug" })).toBe("bug");
    expect(cardSummary(`echo ${"a".repeat(200)}`, {})).toHaveLength(100);
    expect(cardSummary(undefined, "not json")).toBe("not json");
  });
});
