// Fix hints on real tool failures (the built-in tools over a temp workspace, a real command runner),
// stuck detection (nudge, then stop; A/B alternation; a write resets the count) and budgets, each
// through a real AgentSession.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { budgetsExtension } from "../../../src/core/budgets";
import type { SessionEvent } from "../../../src/core/events";
import type { Extension } from "../../../src/core/extensions/types";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { detectStuck, nudgeText, stuckExtension } from "../../../src/core/stuck";
import { hintsFor, toolHintsExtension } from "../../../src/core/tool-hints";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { silentLogger } from "../../../src/core/ports";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
let runner: NodeCommandRunner;

beforeEach(() => {
  ws = createTempWorkspace({ "src/a.ts": "export const a = 1;\nexport const b = 2;\n", "notes.md": "# Notes\n" });
  runner = createNodeCommandRunner({ workspace: ws.root, logDir: join(ws.root, ".yoke-logs"), sandbox: createNoSandbox(), pty: false, maxTimeoutMs: 5_000, killGraceMs: 500 });
});
afterEach(async () => {
  await runner.killAll();
  ws.cleanup();
});

const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

async function run(turns: FakeTurn[], extensions: Extension[], prompt = "go") {
  const provider = createFakeProvider(turns, "gpt-5.1");
  const s = await AgentSession.create({
    store: createMemoryStore(),
    provider,
    tools: createBuiltinTools(),
    services: { fs: ws.fs, search: ws.search, log: silentLogger, commands: runner },
    approver: { ask: async () => ({ decision: "allow" }) },
    permissionMode: "bypassPermissions",
    retry: { maxRetries: 0 },
    extensions,
  });
  await s.send(prompt);
  return { s, provider, results: ofType(s.events(), "tool_result") };
}

describe("fix hints on real tool failures", () => {
  const one = async (name: string, input: unknown) => {
    const { results } = await run([toolTurn({ id: "c1", name, input }), textTurn("ok")], [toolHintsExtension()]);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    return results[0]!.output;
  };

  it("missing argument", async () => {
    const out = await one("read_file", {});
    expect(out).toContain('missing required argument "path"');
    expect(out).toMatch(/\n\nFix: call read_file again with "path" set\. Give every required argument in each call; arguments from earlier calls are not remembered\.$/);
  });

  it("stale anchor", async () => {
    const out = await one("edit_file", { path: "src/a.ts", edits: [{ op: "replace", pos: "1#ZZ", lines: ["export const a = 3;"] }] });
    expect(out).toContain("has changed since it was read (anchor 1#ZZ");
    expect(out).toContain('Fix: take the anchors (LINE#HASH before the "|") from the current lines shown above and send the edit again');
    expect(out).not.toContain("changed by someone else");
    expect(ws.read("src/a.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
  });

  it("write of an unread file", async () => {
    const out = await one("write_file", { path: "notes.md", content: "# Replaced\n" });
    expect(out).toContain("already exists and you have not read it in this session");
    expect(out).toMatch(/Fix: call read_file on that file first, then call write_file again; to change only part of it, use edit_file\.$/);
    expect(ws.read("notes.md")).toBe("# Notes\n");
  });

  it("a path outside the workspace", async () => {
    const out = await one("read_file", { path: "../../etc/passwd" });
    expect(out).toContain("is outside the workspace");
    expect(out).toMatch(/Fix: use a path inside the workspace, relative to its root \(e\.g\. "src\/index\.ts"\)\. Tools cannot use files outside the workspace; if you need one, ask the user\.$/);
  });

  it("a command not found (exit 127)", async () => {
    const out = await one("run_command", { command: "yoke-no-such-program --version" });
    expect(out).toContain("[Exit code 127 after");
    expect(out).toMatch(/Fix: exit code 127 means the program is not installed or not on PATH in the sandbox\./);
  });

  it("adds nothing to successes or unknown errors", async () => {
    const { results } = await run(
      [toolTurn({ id: "c1", name: "read_file", input: { path: "src/a.ts" } }, { id: "c2", name: "run_command", input: { command: "exit 3" } }), textTurn("ok")],
      [toolHintsExtension()],
    );
    expect(results.map((r) => r.output.includes("Fix:"))).toEqual([false, false]);
    expect(hintsFor("something else went wrong", "x")).toEqual([]);
  });
});

describe("stuck detection", () => {
  const failingRead = (i: number) => toolTurn({ id: `c${i}`, name: "read_file", input: { path: "missing.ts" } });

  it("nudges a model that repeats a failing call, then stops the loop and asks the user", async () => {
    const { s, provider } = await run([failingRead(1), failingRead(2), failingRead(3), failingRead(4), textTurn("never")], [stuckExtension()]);
    const stuck = ofType(s.events(), "stuck");
    expect(stuck.map((e) => [e.pattern, e.action])).toEqual([
      ["same_error", "nudge"],
      ["repeat", "stop"],
    ]);
    // The nudge reached the model as a message after the third failure.
    const nudge = ofType(s.events(), "user_message").find((m) => m.from === "extension")!;
    expect(nudge.text).toBe(
      '[Yoke stuck detector] It looks like you are stuck: the same error came back 3 times: "File not found: "missing.ts". Use glob or list_files to find the right path.". ' +
        "Retrying the same way will fail the same way. Read the error message closely and fix its cause before trying again. " +
        "Step back: check your assumptions (the file's current content, the path, the arguments), try a different approach, or if you cannot make progress, stop and explain to the user what is blocking you.",
    );
    expect(provider.requests[3]!.messages.at(-1)).toEqual({ role: "user", text: nudge.text });
    expect(provider.requests).toHaveLength(4);
    expect(s.events().at(-1)).toMatchObject({ type: "status", state: "done" });
    expect((s.events().at(-1) as { detail?: string }).detail).toMatch(/^the agent seems stuck: you called read_file with the same arguments 4 times and got the same result each time/);
  });

  it("sees an A/B alternation of six calls", async () => {
    const ab = (i: number) => toolTurn({ id: `c${i}`, name: "read_file", input: { path: i % 2 ? "src/a.ts" : "notes.md" } });
    const { s } = await run([ab(1), ab(2), ab(3), ab(4), ab(5), ab(6), textTurn("done")], [stuckExtension()]);
    const stuck = ofType(s.events(), "stuck");
    expect(stuck).toEqual([expect.objectContaining({ pattern: "alternation", action: "nudge" })]);
    expect(stuck[0]!.detail).toBe("you alternated between two actions 6 times (read_file and read_file, the same arguments each time) without getting anywhere");
  });

  it("a file write in between resets the count", async () => {
    const events = (
      await run(
        [failingRead(1), failingRead(2), toolTurn({ id: "w", name: "write_file", input: { path: "new.ts", content: "x\n" } }), failingRead(3), failingRead(4), textTurn("done")],
        [stuckExtension()],
      )
    ).s.events();
    expect(ofType(events, "tool_result").find((r) => r.callId === "w")).toMatchObject({ isError: false });
    expect(ofType(events, "stuck")).toEqual([]);
    // Without the write the same calls are a pattern.
    const again = (await run([failingRead(1), failingRead(2), failingRead(3), failingRead(4), textTurn("done")], [stuckExtension()])).s.events();
    expect(ofType(again, "stuck").length).toBeGreaterThan(0);
  });

  it("three replies without a tool while a todo is open", () => {
    let seq = 0;
    const ev = (e: Record<string, unknown>) => ({ seq: seq++, ts: "2026-01-01T00:00:00Z", ...e }) as SessionEvent;
    const events = [
      ev({ type: "user_message", text: "do it" }),
      ev({ type: "todos", todos: [{ content: "fix the parser", status: "in_progress" }] }),
      ...[1, 2, 3].map(() => ev({ type: "assistant_message", text: "I will now fix it.", toolCalls: [] })),
    ];
    const d = detectStuck(events)!;
    expect(d.pattern).toBe("no_progress");
    expect(nudgeText(d)).toContain('3 replies in a row used no tool while 1 todo item(s) are still open (first: "fix the parser")');
    expect(detectStuck(events.slice(0, 4))).toBeUndefined();
  });
});

describe("budgets", () => {
  // 320k input tokens of gpt-5.1 ($1.25 per million) cost $0.40 a turn.
  const usage = { type: "usage" as const, usage: { inputTokens: 320_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } };
  const pricedCall = (i: number) => [{ type: "tool_call" as const, id: `c${i}`, name: "read_file", input: { path: "src/a.ts" } }, usage, { type: "done" as const, stopReason: "tool_use" }];

  it("stops at the cost budget with a report, and a new message continues with a new budget", async () => {
    const { s, provider } = await run([pricedCall(1), pricedCall(2), pricedCall(3), textTurn("done")], [budgetsExtension({ maxCostUsd: 1 })]);
    const budget = ofType(s.events(), "budget");
    expect(budget).toHaveLength(1);
    expect(budget[0]).toMatchObject({ limit: "cost", turns: 3 });
    expect(budget[0]!.costUsd).toBeCloseTo(1.2, 6);
    expect(budget[0]!.report).toMatch(
      /^Stopped: the cost budget of \$1\.00 is used up \(\$1\.20 spent\)\. This task ran 3 model turns, cost \$1\.20 and took \d+ s\. In progress: the call read_file src\/a\.ts \(not run\)\. Send a message \(or run `yoke resume \S+`\) to continue with a new budget\.$/,
    );
    expect(s.events().at(-1)).toMatchObject({ type: "status", state: "done", detail: budget[0]!.report });
    const results = ofType(s.events(), "tool_result");
    expect(results.map((r) => r.callId)).toEqual(["c1", "c2", "c3"]);
    expect(results[2]!.output).toMatch(/^Not run: the session was stopped \(Stopped: the cost budget/);
    // The user continues: the new task has its own budget and finishes.
    await s.send("go on");
    expect(provider.requests).toHaveLength(4);
    expect(ofType(s.events(), "budget")).toHaveLength(1);
    expect(ofType(s.events(), "assistant_message").at(-1)!.text).toBe("done");
    expect(s.events().at(-1)).toMatchObject({ type: "status", state: "done" });
  });

  it("stops at the time budget after the turn that used it up", async () => {
    let t = Date.now();
    const turns: FakeTurn[] = [toolTurn({ id: "c1", name: "read_file", input: { path: "src/a.ts" } }), toolTurn({ id: "c2", name: "read_file", input: { path: "notes.md" } }), textTurn("done")];
    const ext = budgetsExtension({ maxTimeS: 60, now: () => (t += 40_000) });
    const { s, results, provider } = await run(turns, [ext]);
    expect(ofType(s.events(), "budget")).toEqual([expect.objectContaining({ limit: "time", turns: 1 })]);
    expect(ofType(s.events(), "budget")[0]!.report).toMatch(
      /^Stopped: the time budget of 1 min 0 s is used up \(1 min 20 s elapsed\)\. This task ran 1 model turn, .* In progress: the call read_file src\/a\.ts had just finished\./,
    );
    expect(results).toHaveLength(1);
    expect(provider.requests).toHaveLength(1);
  });
});
