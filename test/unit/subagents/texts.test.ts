// The task tool's model-facing texts (description, the child's instructions, the result), the
// `subagents` settings, and the panel's nested view model.
import { describe, expect, it } from "vitest";
import { childInstructions, DEFAULT_SUBAGENT_SETTINGS, parseSubagentSettings, resultText, subagentsExtension, taskDescription, type SubagentResult } from "../../../src/core/subagents";
import { childOutcome } from "../../../src/core/subagents/result";
import type { SessionEvent } from "../../../src/core/events";
import { SessionViewModel } from "../../../src/node/panel/view-model";
import { ViewItem } from "../../../src/protocol/messages";
import { subagentLine } from "../../../src/cli/render";

const result = (over: Partial<SubagentResult> = {}): SubagentResult => ({
  status: "completed",
  answer: "parseConfig is called from src/cli.ts:12 and src/host.ts:40.",
  childId: "20261201-170000-abcdef",
  description: "Find callers",
  turns: 3,
  toolCalls: 2,
  filesRead: ["src/cli.ts", "src/host.ts"],
  filesChanged: [],
  usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
  ...over,
});

describe("task tool description", () => {
  it("says what it is for, that the child sees nothing of this conversation, its read-only tools, the limits", () => {
    const text = taskDescription(["read_file", "grep"], DEFAULT_SUBAGENT_SETTINGS, 0);
    expect(text).toContain("returns only its final answer, with the files it read and changed. Its tool output never enters your context.");
    expect(text).toContain("The sub-agent cannot see this conversation: put everything it needs in `prompt`");
    expect(text).toContain("It has read-only tools (read_file, grep) unless you name more of your own tools in `tools`; every call it makes passes the same permission rules as yours.");
    expect(text).toContain("(at most 3; more wait their turn)");
    expect(text).toContain("Sub-agents may start their own, 2 levels deep at most.");
    expect(taskDescription([], DEFAULT_SUBAGENT_SETTINGS, 1)).toContain("Sub-agents cannot start sub-agents of their own.");
  });

  it("is listed with the session's read-only tools once every extension is set up", async () => {
    const ext = subagentsExtension();
    const tools: unknown[] = [];
    const readOnly = { name: "read_file", capabilities: { reads: true } };
    const writer = { name: "write_file", capabilities: { writes: true } };
    await ext.setup({
      session: { tools: () => [readOnly, writer, ...(tools as object[])] },
      addTools: (t: unknown[]) => tools.push(...t),
      on: () => ({ dispose() {} }),
      record() {},
    } as never);
    const task = tools[0] as { name: string; description: string; permission: string; concurrent: boolean; capabilities: object };
    expect(task).toMatchObject({ name: "task", permission: "Task", concurrent: true, capabilities: { reads: true } });
    expect(task.description).toContain("It has read-only tools (read_file) unless");
  });

  it("offers no task tool at the depth limit", async () => {
    const added: unknown[] = [];
    await subagentsExtension({ depth: 2 }).setup({ session: { tools: () => [] }, addTools: (t: unknown[]) => added.push(...t), on: () => ({ dispose() {} }), record() {} } as never);
    expect(added).toEqual([]);
  });

  it("the child's instructions: alone, its tools, a final answer only", () => {
    const text = childInstructions(1, DEFAULT_SUBAGENT_SETTINGS, [{ name: "read_file" }, { name: "grep" }] as never);
    expect(text).toContain("You are a sub-agent (depth 1): another agent gave you the task in the next message.");
    expect(text).toContain("Your tools: read_file, grep. You may start sub-agents of your own with task (depth 1 of at most 2).");
    expect(text).toContain("reply with your final answer and nothing else: it is all the other agent receives");
    expect(childInstructions(2, DEFAULT_SUBAGENT_SETTINGS, [])).not.toContain("start sub-agents");
  });
});

describe("the result the parent's model gets", () => {
  it("completed: outcome, files, the answer in a block", () => {
    expect(resultText(result())).toBe(
      'Sub-agent "Find callers" completed (3 turns, 2 tool calls; session 20261201-170000-abcdef).\n' +
        "Files read: src/cli.ts, src/host.ts\nFiles changed: none\n" +
        "Its answer:\n<answer>\nparseConfig is called from src/cli.ts:12 and src/host.ts:40.\n</answer>",
    );
  });

  it("failed and cancelled: why, what it had said, what to do next", () => {
    const failed = resultText(result({ status: "failed", error: "max turns reached", answer: "Found one caller so far." }));
    expect(failed).toContain('Sub-agent "Find callers" failed (3 turns, 2 tool calls; session 20261201-170000-abcdef): max turns reached.');
    expect(failed).toContain("What it had said before it stopped (may be incomplete):\n<answer>\nFound one caller so far.\n</answer>");
    expect(failed).toContain("You may start it again with a narrower prompt, or do the work yourself.");
    expect(resultText(result({ status: "cancelled", error: "the parent agent was stopped", answer: "" }))).toContain(
      "was cancelled (3 turns, 2 tool calls; session 20261201-170000-abcdef): the parent agent was stopped.\nFiles read",
    );
    expect(resultText(result({ answer: " " }))).toContain("It gave no answer.");
  });

  it("bounds a huge answer and lists at most 30 files", () => {
    const text = resultText(result({ answer: "x".repeat(100_000), filesRead: Array.from({ length: 40 }, (_, i) => `f${i}.ts`) }));
    expect(text.length).toBeLessThan(25_000);
    expect(text).toContain("f29.ts and 10 more");
  });

  it("the outcome: completed only when the child's model finished on its own", () => {
    const ev = (e: object, seq: number) => ({ seq, ts: "2026-12-01T00:00:00Z", ...e }) as SessionEvent;
    const done = [ev({ type: "assistant_message", text: "answer", toolCalls: [] }, 0), ev({ type: "status", state: "done" }, 1)];
    expect(childOutcome(done)).toEqual({ status: "completed", answer: "answer" });
    const stopped = [
      ev({ type: "assistant_message", text: "partial", toolCalls: [{ id: "c", name: "grep", input: {} }] }, 0),
      ev({ type: "status", state: "done", detail: "Stopped: the cost budget is used up" }, 1),
    ];
    expect(childOutcome(stopped)).toEqual({ status: "failed", answer: "partial", error: "Stopped: the cost budget is used up" });
    const errored = [ev({ type: "error", message: "HTTP 500 from the provider" }, 0), ev({ type: "status", state: "error", detail: "x" }, 1)];
    expect(childOutcome(errored)).toMatchObject({ status: "failed", error: "HTTP 500 from the provider" });
  });
});

describe("subagents settings", () => {
  it("parses the key; a bad field falls back to its default and says why", () => {
    expect(parseSubagentSettings(undefined)).toEqual({ settings: { maxDepth: 2, maxConcurrent: 3 }, problems: [] });
    expect(parseSubagentSettings({ maxDepth: 1, maxConcurrent: 5, maxTurns: 20 }).settings).toEqual({ maxDepth: 1, maxConcurrent: 5, maxTurns: 20 });
    const bad = parseSubagentSettings({ maxDepth: -1, maxConcurrent: "3", depth: 2 });
    expect(bad.settings).toEqual({ maxDepth: 2, maxConcurrent: 3 });
    expect(bad.problems).toEqual([
      "subagents.maxDepth must be a whole number from 0 to 5 (got -1); the default applies",
      'subagents.maxConcurrent must be a whole number from 1 to 16 (got "3"); the default applies',
      "subagents.depth is not a setting (known: maxDepth, maxConcurrent, maxTurns); it was ignored",
    ]);
    expect(parseSubagentSettings([1]).problems[0]).toContain("must be an object");
  });
});

describe("the panel's and the CLI's view of a sub-agent", () => {
  const ev = (e: object, seq: number) => ({ seq, ts: "2026-12-01T00:00:00Z", ...e }) as SessionEvent;
  const events = [
    ev({ type: "assistant_message", text: "", toolCalls: [{ id: "t1", name: "task", input: { description: "Survey" }, summary: "Survey" }] }, 0),
    ev({ type: "tool_call", callId: "t1", name: "task", input: {} }, 1),
    ev({ type: "subagent", callId: "t1", childId: "child-1", phase: "started", depth: 1, description: "Survey" }, 2),
    ev({ type: "subagent", callId: "t1", childId: "child-1", phase: "step", depth: 1, tool: "grep", summary: "parseConfig", isError: false }, 3),
    ev({ type: "subagent", callId: "t1", childId: "child-1", phase: "finished", depth: 1, status: "completed", toolCalls: 1, costUsd: 0.5, filesChanged: [] }, 4),
  ];

  it("one nested item per task call, updated in place, valid for the protocol; the cost joins the session's", () => {
    const vm = new SessionViewModel();
    const out = events.flatMap((e) => vm.apply(e));
    const subs = out.filter((i) => i.kind === "subagent");
    expect(subs.map((s) => s.id)).toEqual(["sub:t1", "sub:t1", "sub:t1"]);
    const last = vm.items().items.find((i) => i.kind === "subagent")!;
    expect(last).toEqual({
      kind: "subagent",
      id: "sub:t1",
      callId: "t1",
      childId: "child-1",
      description: "Survey",
      status: "completed",
      steps: [{ tool: "grep", summary: "parseConfig", isError: false }],
      omittedSteps: 0,
      toolCalls: 1,
      costUsd: 0.5,
    });
    expect(ViewItem.safeParse(last).success).toBe(true);
    expect(vm.usage.costUsd).toBe(0.5);
  });

  it("yoke run's lines, indented by depth", () => {
    expect(subagentLine(events[2] as never)).toBe('  ↳ sub-agent "Survey" started (session child-1)');
    expect(subagentLine(events[3] as never)).toBe("    · grep parseConfig");
    expect(subagentLine({ ...(events[4] as object), description: "Survey" } as never)).toBe('  ↳ sub-agent "Survey" completed (1 tool call, $0.5000)');
  });
});
