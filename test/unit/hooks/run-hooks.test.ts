import { mkdtempSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { HookBus } from "../../../src/core/hooks/bus";
import { combineWithHooks, createHookRunner } from "../../../src/core/hooks/run-hooks";
import type { HookGroupConfig } from "../../../src/core/permissions/types";
import { createNodeHookRunner } from "../../../src/node/hook-exec";

const source = { kind: "project" as const, label: ".claude/settings.json", baseDir: "/" };

function setup(groups: Array<{ event: string; matcher?: string; hooks: Array<{ command: string; timeout?: number }> }>, bus?: HookBus) {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-hooks-")));
  const hooks: HookGroupConfig[] = groups.map((g) => ({ event: g.event, matcher: g.matcher ?? "", hooks: g.hooks.map((h) => ({ type: "command", ...h })), source }));
  const runner = createHookRunner({ hooks, runner: createNodeHookRunner(), bus, cwd, sessionId: "s-1", transcriptPath: join(cwd, "s-1.jsonl") });
  return { cwd, runner };
}

describe("runHooks with command hooks", () => {
  it("passes the Claude Code payload on stdin and runs in the workspace folder", async () => {
    const { cwd, runner } = setup([{ event: "PreToolUse", matcher: "Bash", hooks: [{ command: "cat > payload.json; pwd > where.txt; echo $CLAUDE_PROJECT_DIR > env.txt" }] }]);
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    expect(outcome.blocked).toBe(false);
    expect(JSON.parse(readFileSync(join(cwd, "payload.json"), "utf8"))).toEqual({
      tool_name: "Bash",
      tool_input: { command: "ls" },
      session_id: "s-1",
      transcript_path: join(cwd, "s-1.jsonl"),
      cwd,
      hook_event_name: "PreToolUse",
    });
    expect(readFileSync(join(cwd, "where.txt"), "utf8").trim()).toBe(cwd);
    expect(readFileSync(join(cwd, "env.txt"), "utf8").trim()).toBe(cwd);
  });

  it("blocks a tool call with the hook's stderr when it exits 2", async () => {
    const { runner } = setup([{ event: "PreToolUse", matcher: "Bash", hooks: [{ command: "echo 'no rm here' >&2; exit 2" }] }]);
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "rm x" } });
    expect(outcome).toMatchObject({ blocked: true, message: "no rm here", decision: "deny", decisionReason: "no rm here" });
  });

  it("reports another exit status as a non-blocking error", async () => {
    const { runner } = setup([{ event: "PostToolUse", hooks: [{ command: "echo broken >&2; exit 3" }] }]);
    const outcome = await runner.runHooks("PostToolUse", { tool_name: "Edit", tool_input: {}, tool_response: {} });
    expect(outcome.blocked).toBe(false);
    expect(outcome.errors).toEqual(['hook "echo broken >&2; exit 3" (.claude/settings.json): failed with exit status 3: broken']);
    expect(outcome.message).toBeUndefined();
  });

  it("reads permissionDecision, updatedInput and additionalContext from JSON stdout", async () => {
    const out = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "check this", updatedInput: { command: "ls -la" }, additionalContext: "ctx" },
    });
    const { runner } = setup([{ event: "PreToolUse", matcher: "Bash|Edit", hooks: [{ command: `echo '${out}'` }] }]);
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    expect(outcome).toMatchObject({ blocked: false, decision: "ask", decisionReason: "check this", updatedInput: { command: "ls -la" }, additionalContext: ["ctx"] });
  });

  it("takes the strictest decision of several hooks (deny over allow)", async () => {
    const { runner } = setup([
      { event: "PreToolUse", matcher: "Bash", hooks: [{ command: `echo '{"decision":"approve","reason":"fine"}'` }] },
      { event: "PreToolUse", matcher: "*", hooks: [{ command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"not today"}}'` }] },
    ]);
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: {} });
    expect(outcome).toMatchObject({ blocked: true, decision: "deny", decisionReason: "not today", message: "not today" });
  });

  it("matches the whole tool name: Edit does not match NotebookEdit, mcp__.* matches MCP tools", async () => {
    const { runner } = setup([
      { event: "PreToolUse", matcher: "Edit", hooks: [{ command: "exit 2" }] },
      { event: "PreToolUse", matcher: "mcp__.*", hooks: [{ command: "echo mcp >&2; exit 2" }] },
    ]);
    expect((await runner.runHooks("PreToolUse", { tool_name: "NotebookEdit" })).results).toHaveLength(0);
    expect((await runner.runHooks("PreToolUse", { tool_name: "mcp__github__create_issue" })).message).toBe("mcp");
  });

  it("stops a hook that runs past its timeout, with its process group", async () => {
    const { cwd, runner } = setup([{ event: "Stop", hooks: [{ command: "(sleep 1; touch late.txt) & sleep 5", timeout: 0.3 }] }]);
    const start = Date.now();
    const outcome = await runner.runHooks("Stop", { stop_hook_active: false });
    expect(Date.now() - start).toBeLessThan(3000);
    expect(outcome.errors).toEqual(['hook "(sleep 1; touch late.txt) & sleep 5" (.claude/settings.json): timed out after 0.3 s and was stopped']);
    await new Promise((r) => setTimeout(r, 1500));
    expect(() => readFileSync(join(cwd, "late.txt")), "the background child was killed with the group").toThrow();
  });

  it("makes the agent continue when a Stop hook blocks, with its reason", async () => {
    const { runner } = setup([{ event: "Stop", hooks: [{ command: `echo '{"decision":"block","reason":"tests still fail"}'` }] }]);
    expect(await runner.runHooks("Stop", { stop_hook_active: false })).toMatchObject({ blocked: true, message: "tests still fail" });
  });

  it("adds plain stdout of UserPromptSubmit and SessionStart hooks as context", async () => {
    const { runner } = setup([
      { event: "UserPromptSubmit", hooks: [{ command: "echo 'branch: main'" }] },
      { event: "SessionStart", matcher: "startup", hooks: [{ command: "echo started" }] },
    ]);
    expect((await runner.runHooks("UserPromptSubmit", { prompt: "hi" })).additionalContext).toEqual(["branch: main"]);
    expect((await runner.runHooks("SessionStart", { source: "startup" })).additionalContext).toEqual(["started"]);
    expect((await runner.runHooks("SessionStart", { source: "resume" })).additionalContext).toEqual([]);
  });

  it("stops the session on continue:false with the stop reason", async () => {
    const { runner } = setup([{ event: "PostToolUse", hooks: [{ command: `echo '{"continue":false,"stopReason":"budget spent"}'` }] }]);
    expect((await runner.runHooks("PostToolUse", { tool_name: "Bash" })).stop).toEqual({ reason: "budget spent" });
  });

  it("takes stdout that starts with { but is not a JSON object as plain text, not an error", async () => {
    const { runner } = setup([
      { event: "Notification", hooks: [{ command: "echo '{oops'" }] },
      { event: "UserPromptSubmit", hooks: [{ command: "echo '{not json} but context'" }] },
    ]);
    const n = await runner.runHooks("Notification", { message: "x", notification_type: "permission_prompt" });
    expect(n.errors).toEqual([]);
    expect(n.notes?.[0]).toMatch(/printed: \{oops$/);
    expect((await runner.runHooks("UserPromptSubmit", { prompt: "hi" })).additionalContext).toEqual(["{not json} but context"]);
  });

  it("runs a command listed twice only once", async () => {
    const { cwd, runner } = setup([
      { event: "SessionEnd", hooks: [{ command: "echo x >> count.txt" }] },
      { event: "SessionEnd", hooks: [{ command: "echo x >> count.txt" }] },
    ]);
    await runner.runHooks("SessionEnd", { reason: "other" });
    expect(readFileSync(join(cwd, "count.txt"), "utf8")).toBe("x\n");
  });
});

describe("HookBus", () => {
  it("runs handlers by priority around the command hooks and honours stopPropagation", async () => {
    const bus = new HookBus();
    const order: string[] = [];
    bus.on({ name: "late", events: ["PreToolUse"], priority: -1, handle: () => void order.push("late") });
    bus.on({ name: "first", events: "*", priority: 10, handle: () => void order.push("first") });
    bus.on({
      name: "guard",
      events: ["PreToolUse"],
      matcher: "Write",
      priority: 5,
      handle: (_p, ctx) => {
        order.push("guard");
        ctx.stopPropagation();
        return { hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "read-only branch" } };
      },
    });
    const { cwd, runner } = setup([{ event: "PreToolUse", hooks: [{ command: "touch ran.txt" }] }], bus);
    const write = await runner.runHooks("PreToolUse", { tool_name: "Write", tool_input: {} });
    expect(order).toEqual(["first", "guard"]);
    expect(write).toMatchObject({ decision: "deny", blocked: true, message: "read-only branch" });
    expect(() => readFileSync(join(cwd, "ran.txt"))).toThrow();
    order.length = 0;
    await runner.runHooks("PreToolUse", { tool_name: "Read", tool_input: {} });
    expect(order).toEqual(["first", "late"]);
    expect(readFileSync(join(cwd, "ran.txt"), "utf8")).toBe("");
  });

  it("feeds updatedInput of an earlier handler to later hooks", async () => {
    const bus = new HookBus();
    bus.on({ name: "rewrite", events: ["PreToolUse"], priority: 1, handle: () => ({ updatedInput: { command: "ls -1" } }) });
    const { cwd, runner } = setup([{ event: "PreToolUse", hooks: [{ command: "cat > seen.json" }] }], bus);
    const outcome = await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    expect(outcome.updatedInput).toEqual({ command: "ls -1" });
    expect(JSON.parse(readFileSync(join(cwd, "seen.json"), "utf8")).tool_input).toEqual({ command: "ls -1" });
  });

  it("reports a handler that throws as a non-blocking error", async () => {
    const bus = new HookBus();
    bus.on({
      name: "boom",
      events: ["Stop"],
      handle: () => {
        throw new Error("bad");
      },
    });
    const { runner } = setup([], bus);
    expect(await runner.runHooks("Stop")).toMatchObject({ blocked: false, errors: ["hook handler boom: threw: bad"] });
  });
});

describe("combineWithHooks", () => {
  const outcome = (decision?: "allow" | "ask" | "deny") => ({
    event: "PreToolUse" as const,
    blocked: decision === "deny",
    decision,
    decisionReason: decision && `hook says ${decision}`,
    message: decision === "deny" ? "hook says deny" : undefined,
    additionalContext: [],
    userMessages: [],
    errors: [],
    results: [],
  });
  const bypassAllows = { decision: "allow" as const, by: "mode" as const, rule: null, reason: "bypass" };
  const bypassAsks = { decision: "ask" as const, by: "mode" as const, rule: null, reason: "cannot analyse; a deny rule could apply" };
  it("lets a hook deny what the rules allow", () => {
    expect(combineWithHooks({ decision: "allow", by: "rule", rule: "Bash(ls)", reason: "r" }, outcome("deny"))).toEqual({ decision: "deny", by: "hook", rule: null, reason: "hook says deny" });
  });
  it("lets a hook's allow skip a question only where bypassPermissions mode would allow the call", () => {
    expect(combineWithHooks({ decision: "ask", by: "mode", rule: null, reason: "r" }, outcome("allow"), bypassAllows)).toEqual({
      decision: "allow",
      by: "hook",
      rule: null,
      reason: "hook says allow",
    });
    // The gate asks because a deny rule might apply: the hook's allow cannot skip that.
    expect(combineWithHooks({ decision: "ask", by: "mode", rule: null, reason: "r" }, outcome("allow"), bypassAsks).decision).toBe("ask");
    // Without the bypass answer a hook's allow skips nothing.
    expect(combineWithHooks({ decision: "ask", by: "mode", rule: null, reason: "r" }, outcome("allow")).decision).toBe("ask");
    expect(combineWithHooks({ decision: "deny", by: "rule", rule: "Bash(rm:*)", reason: "r" }, outcome("allow"), bypassAllows).decision).toBe("deny");
    expect(combineWithHooks({ decision: "ask", by: "rule", rule: "Bash(git push:*)", reason: "r" }, outcome("allow"), bypassAsks).decision).toBe("ask");
  });
  it("turns an allow into ask when a hook asks", () => {
    expect(combineWithHooks({ decision: "allow", by: "mode", rule: null, reason: "r" }, outcome("ask"))).toMatchObject({ decision: "ask", by: "hook" });
  });
});

describe("once: true", () => {
  it("runs on the first matching event of the session and not again; a hook without it runs each time; another session runs it again", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-hooks-once-")));
    const hooks: HookGroupConfig[] = [
      { event: "PreToolUse", matcher: "Bash", hooks: [{ type: "command", command: "echo once >> ran.txt", once: true }], source },
      { event: "PreToolUse", matcher: "Bash", hooks: [{ type: "command", command: "echo each >> ran.txt" }], source },
    ];
    const session = (id: string) => createHookRunner({ hooks, runner: createNodeHookRunner(), cwd, sessionId: id, transcriptPath: join(cwd, `${id}.jsonl`) });
    const a = session("s-a");
    await a.runHooks("PreToolUse", { tool_name: "Edit", tool_input: {} }); // no match: does not spend it
    for (let i = 0; i < 3; i++) await a.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    expect(readFileSync(join(cwd, "ran.txt"), "utf8").split("\n").filter(Boolean).sort()).toEqual(["each", "each", "each", "once"]);
    await session("s-b").runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } });
    expect(
      readFileSync(join(cwd, "ran.txt"), "utf8")
        .split("\n")
        .filter((l) => l === "once"),
    ).toHaveLength(2);
  });
});

describe("once: true, side by side", () => {
  it("tool calls whose hooks run at the same time run a once hook once, also while an `if` is being decided", async () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-hooks-once-par-")));
    const hooks: HookGroupConfig[] = [{ event: "PreToolUse", matcher: "Bash", hooks: [{ type: "command", command: "echo once >> ran.txt", once: true, if: "Bash(git *)" }], source }];
    const runner = createHookRunner({ hooks, runner: createNodeHookRunner(), cwd, sessionId: "s-p", transcriptPath: join(cwd, "s-p.jsonl") });
    await Promise.all([1, 2, 3].map(() => runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "git status" } })));
    expect(readFileSync(join(cwd, "ran.txt"), "utf8")).toBe("once\n");
  });
});
