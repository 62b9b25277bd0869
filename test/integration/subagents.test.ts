// Sub-agents (the `task` tool) through real parts: the real loop, the OpenAI client over HTTP to the
// scripted LLM server (whose request log is what each model received), the file session store, the
// Node workspace, the built-in tools and the real permission engine — and the built CLI.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { budgetsExtension } from "../../src/core/budgets";
import type { EventOf, SessionEvent } from "../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../src/core/loop/agent-session";
import { silentLogger } from "../../src/core/ports";
import { OpenAiProvider } from "../../src/core/providers/openai";
import { summarizeSession } from "../../src/core/session/projection";
import { parseLog } from "../../src/core/session/session-log";
import { subagentsExtension, type SubagentSettings } from "../../src/core/subagents";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { systemPromptOf as system } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const SECRET = "ZEBRA-7731-child-only-output";

function workspace(): { ws: string; sessions: string } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-subagents-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, "src", "config.ts"), `export const token = "${SECRET}";\nexport function parseConfig() {}\n`);
  writeFileSync(join(ws, "README.md"), "# Widget\n");
  return { ws, sessions: join(dir, "sessions") };
}

type Json = Record<string, unknown>;
/** 0: the user's session; n: a sub-agent at depth n. */
const depthOf = (r: RecordedRequest) => {
  const marks = [...system(r).matchAll(/You are a sub-agent \(depth (\d+)\)/g)];
  expect(marks.length).toBeLessThanOrEqual(1);
  return Number(marks[0]?.[1] ?? 0);
};
const toolNames = (r: RecordedRequest) => ((r.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
/** The tools a request offers: those listed, and the deferred ones load_tools names ("- name: brief"). */
const offered = (r: RecordedRequest) => {
  const tools = (r.body.tools as Array<{ function: { name: string; description: string } }> | undefined) ?? [];
  const loader = tools.find((t) => t.function.name === "load_tools")?.function.description ?? "";
  return [...tools.map((t) => t.function.name), ...[...loader.matchAll(/^- ([a-z_]+): /gm)].map((m) => m[1]!)];
};
const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);
const logOf = (sessions: string, id: string) =>
  parseLog(
    readFileSync(join(sessions, `${id}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean),
  ).events;

/** A script per depth: each request of a session at that depth takes the next turn of its queue. */
function byDepth(queues: Record<number, Array<ScriptedTurn | ((r: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>)>>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => {
    const next = queues[depthOf(r)]?.shift();
    if (!next) return { text: "(no more turns)" };
    return typeof next === "function" ? next(r) : next;
  };
}

function options(ws: string, sessions: string, url: string, extra: Partial<AgentSessionOptions> & { subagents?: Partial<SubagentSettings>; model?: string } = {}): AgentSessionOptions {
  const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true });
  const fs = createNodeWorkspaceFs(ws);
  const search = createRipgrepSearcher();
  const { subagents, model, ...rest } = extra;
  return {
    store: createFileSessionStore(sessions),
    provider: new OpenAiProvider({ provider: "openai-compatible", model: model ?? "scripted-model", baseUrl: url, apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (session) => ({ fs, search, log: silentLogger, access: node.access, ...node.commands(session) }),
    approver: { ask: async () => ({ decision: "allow" }) },
    ...node.sessionOptions,
    permissionMode: "bypassPermissions",
    retry: { maxRetries: 0 },
    ...rest,
    extensions: [subagentsExtension({ settings: subagents }), ...(rest.extensions ?? [])],
  };
}

beforeAll(() => ensureBuilt(), 120_000);

describe("the task tool: a child session with its own context", () => {
  it("the child gets read-only tools and cannot write even when its model asks; the parent's next request carries only the distilled result; the child's log is linked by parentId", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Find the token", prompt: "Read src/config.ts and tell me which token it exports." } }] },
          { text: "The config exports a token (the sub-agent found it)." },
        ],
        1: [
          { toolCalls: [{ name: "read_file", input: { path: "src/config.ts" } }] },
          { toolCalls: [{ name: "write_file", input: { path: "src/pwned.ts", content: "x" } }] },
          { toolCalls: [{ name: "run_command", input: { command: "touch src/ran.txt" } }] },
          { text: "src/config.ts:1 exports `token`, a string constant; parseConfig is at line 2." },
        ],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl));
    await parent.send("Which token does the config export?");
    expect(parent.state).toBe("done");

    // Nothing was written or run, although the mode was bypassPermissions and the child's model asked.
    expect(existsSync(join(ws, "src", "pwned.ts"))).toBe(false);
    expect(existsSync(join(ws, "src", "ran.txt"))).toBe(false);
    const childRequests = server.requests.filter((r) => depthOf(r) === 1);
    expect(childRequests).toHaveLength(4);
    const childTools = offered(childRequests[0]!);
    expect(childTools).toEqual(expect.arrayContaining(["read_file", "list_files", "glob", "grep"]));
    for (const t of ["write_file", "edit_file", "run_command", "kill_command"]) expect(childTools).not.toContain(t);
    // Depth 1 of 2: the child may start its own sub-agents.
    expect(childTools).toContain("task");

    // The child saw the file; the parent's model never did: only the answer reached it.
    const parentRequests = server.requests.filter((r) => depthOf(r) === 0);
    expect(parentRequests).toHaveLength(2);
    expect(JSON.stringify(childRequests[1]!.body)).toContain(SECRET);
    const next = JSON.stringify(parentRequests[1]!.body);
    expect(next).not.toContain(SECRET);
    expect(next).toContain("src/config.ts:1 exports `token`, a string constant");
    const toolMsg = (parentRequests[1]!.body.messages as Json[]).find((m) => m.role === "tool") as { content: string };
    expect(toolMsg.content).toMatch(/^Sub-agent "Find the token" completed \(4 turns, 3 tool calls; session [\w.-]+\)\.\nFiles read: src\/config\.ts\nFiles changed: none\nIts answer:\n<answer>\n/);

    // The child's log is its own session, linked to the parent and the call.
    const events = parent.events();
    const started = ofType(events, "subagent").find((e) => e.phase === "started")!;
    const call = ofType(events, "tool_call").find((e) => e.name === "task")!;
    expect(started).toMatchObject({ callId: call.callId, depth: 1, description: "Find the token" });
    const child = logOf(sessions, started.childId);
    expect(child[0]).toMatchObject({ type: "session_start", parentId: parent.id, parentCallId: call.callId });
    expect(ofType(child, "tool_result").map((e) => [e.name, e.isError])).toEqual([
      ["read_file", false],
      ["write_file", true],
      ["run_command", true],
    ]);
    expect(ofType(child, "tool_result")[1]!.output).toContain('Unknown tool "write_file"');
    // Every mechanism of the child set up (its own compaction and recall, not the parent's).
    expect(ofType(child, "extension").filter((e) => e.outcome === "error")).toEqual([]);
    expect(offered(childRequests[0]!).filter((n) => n === "recall").length).toBeLessThanOrEqual(1);
    // Its progress in the parent's log is one line per step, never the output.
    const steps = ofType(events, "subagent").filter((e) => e.phase === "step");
    expect(steps.map((s) => [s.tool, s.isError])).toEqual([
      ["read_file", false],
      ["write_file", true],
      ["run_command", true],
    ]);
    expect(JSON.stringify(ofType(events, "subagent"))).not.toContain(SECRET);
    const finished = ofType(events, "subagent").find((e) => e.phase === "finished")!;
    expect(finished).toMatchObject({ status: "completed", turns: 4, toolCalls: 3, filesRead: ["src/config.ts"], filesChanged: [] });
    await parent.end();
  }, 60_000);

  it("tools the parent grants are given, never one it does not have, and the child's calls pass the parent's permission mode", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Bad grant", prompt: "x", tools: ["delete_everything"] } }] },
          { toolCalls: [{ name: "task", input: { description: "Write notes", prompt: "Write NOTES.md", tools: ["write_file"] } }] },
          { text: "done" },
        ],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "notes\n" } }] }, { text: "Wrote NOTES.md." }],
      }),
    });
    // Plan mode: the parent may not write, so neither may a child it grants write_file.
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { permissionMode: "plan" }));
    await parent.send("Take notes");
    const results = ofType(parent.events(), "tool_result");
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.output).toContain('task: "delete_everything" is not a tool you have, so it cannot be given to a sub-agent. Your tools: read_file,');
    const childStart = ofType(parent.events(), "subagent").find((e) => e.phase === "started")!;
    const child = logOf(sessions, childStart.childId);
    expect(child[0]).toMatchObject({ type: "session_start", permissionMode: "plan" });
    const childReq = server.requests.filter((r) => depthOf(r) === 1)[0]!;
    expect(toolNames(childReq)).toContain("write_file");
    expect(ofType(child, "permission_decision")).toEqual([expect.objectContaining({ decision: "deny" })]);
    expect(existsSync(join(ws, "NOTES.md"))).toBe(false);
    await parent.end();

    // In acceptEdits the same grant writes the file, and the result says so.
    await server.close();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Write notes", prompt: "Write NOTES.md", tools: ["write_file"] } }] }, { text: "done" }],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "notes\n" } }] }, { text: "Wrote NOTES.md." }],
      }),
    });
    const second = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { permissionMode: "acceptEdits" }));
    await second.send("Take notes");
    expect(readFileSync(join(ws, "NOTES.md"), "utf8")).toBe("notes\n");
    const out = ofType(second.events(), "tool_result").find((e) => e.name === "task")!;
    expect(out.output).toContain("Files changed: NOTES.md");
    await second.end();
  }, 60_000);

  it("depth limit: at the default depth 2 a sub-agent's sub-agent has no task tool; with maxDepth 1 the child has none", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Level one", prompt: "Go deeper." } }] }, { text: "done" }],
        1: [{ toolCalls: [{ name: "task", input: { description: "Level two", prompt: "Look at README.md." } }] }, { text: "level one done" }],
        2: [{ toolCalls: [{ name: "task", input: { description: "Level three", prompt: "deeper still" } }] }, { text: "level two done" }],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl));
    await parent.send("Nest");
    const reqs = (d: number) => server!.requests.filter((r) => depthOf(r) === d);
    // task is deferred (no custom agents): load_tools names it.
    expect(toolNames(reqs(0)[0]!)).not.toContain("task");
    expect(offered(reqs(0)[0]!)).toContain("task");
    expect(offered(reqs(1)[0]!)).toContain("task");
    expect(offered(reqs(2)[0]!)).not.toContain("task");
    expect(reqs(3)).toHaveLength(0);
    // The depth-2 agent's call to task is refused as an unknown tool, in its own log.
    const one = ofType(parent.events(), "subagent").find((e) => e.phase === "started")!;
    const two = ofType(logOf(sessions, one.childId), "subagent").find((e) => e.phase === "started")!;
    expect(two.depth).toBe(2);
    const deepest = logOf(sessions, two.childId);
    expect(deepest[0]).toMatchObject({ parentId: one.childId });
    expect(ofType(deepest, "tool_result")[0]!.output).toContain('Unknown tool "task"');
    await parent.end();

    await server.close();
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ toolCalls: [{ name: "task", input: { description: "Only", prompt: "p" } }] }, { text: "ok" }], 1: [{ text: "child" }] }) });
    const flat = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { subagents: { maxDepth: 1 } }));
    await flat.send("x");
    expect(offered(server.requests.find((r) => depthOf(r) === 1)!)).not.toContain("task");
    await flat.end();
  }, 60_000);

  it("concurrency: task calls of one message run at the same time, at most maxConcurrent, the rest queued", async () => {
    const { ws, sessions } = workspace();
    let inFlight = 0;
    let peak = 0;
    const waiting: Array<() => void> = [];
    const slowChild = async (): Promise<ScriptedTurn> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // Held until two children are in flight at once (or a generous bound), so the overlap is certain.
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (inFlight >= 2) for (const w of waiting.splice(0)) w();
        setTimeout(resolve, 5_000);
      });
      inFlight--;
      return { text: "child answer" };
    };
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [1, 2, 3, 4].map((i) => ({ name: "task", input: { description: `Part ${i}`, prompt: `Look at part ${i}.` } })) }, { text: "all done" }],
        1: [slowChild, slowChild, slowChild, slowChild],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { subagents: { maxConcurrent: 2 } }));
    await parent.send("Split it");
    expect(peak).toBe(2);
    const queued = ofType(parent.events(), "tool_queued");
    expect(queued.map((q) => [q.gate, q.limit])).toEqual([
      ["subagents", 2],
      ["subagents", 2],
    ]);
    const results = ofType(parent.events(), "tool_result");
    expect(results).toHaveLength(4);
    expect(results.every((r) => r.output.includes("completed") && !r.isError)).toBe(true);
    // The model gets the results in call order, whatever order they finished in.
    const callIds = ofType(parent.events(), "assistant_message")[0]!.toolCalls.map((c) => c.id);
    const toolMsgs = (server.requests.filter((r) => depthOf(r) === 0)[1]!.body.messages as Json[]).filter((m) => m.role === "tool");
    expect(toolMsgs.map((m) => m.tool_call_id)).toEqual(callIds);
    await parent.end();
  }, 60_000);

  it("parallel sub-agents' permission questions reach the parent's approver one at a time, each answered", async () => {
    const { ws, sessions } = workspace();
    let open = 0;
    let peak = 0;
    const asked: string[] = [];
    const approver = {
      ask: async (q: { input: unknown; summary: string }) => {
        open++;
        peak = Math.max(peak, open);
        asked.push(q.summary);
        await new Promise((r) => setTimeout(r, 300));
        open--;
        return { decision: "allow" as const };
      },
    };
    const writeTurn = (r: RecordedRequest): ScriptedTurn => {
      const prompt = String(((r.body.messages as Json[])[1] as { content?: unknown }).content ?? "");
      const file = /write (\S+)/.exec(prompt)?.[1] ?? "x.txt";
      return (r.body.messages as Json[]).some((m) => m.role === "tool") ? { text: `wrote ${file}` } : { toolCalls: [{ name: "write_file", input: { path: file, content: `${file}\n` } }] };
    };
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: ["a.txt", "b.txt"].map((f) => ({ name: "task", input: { description: `Write ${f}`, prompt: `write ${f}`, tools: ["write_file"] } })) }, { text: "both written" }],
        1: [writeTurn, writeTurn, writeTurn, writeTurn],
      }),
    });
    // Default mode: a write asks.
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { permissionMode: "default", approver }));
    await parent.send("Write both");
    expect(asked.sort()).toEqual(["a.txt", "b.txt"]);
    expect(peak).toBe(1);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("a.txt\n");
    expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("b.txt\n");
    await parent.end();
  }, 60_000);

  it("cancellation: Stop in the parent stops the running child; both logs say cancelled", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Long job", prompt: "Think hard." } }] }],
        1: [{ hang: true }],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl));
    const run = parent.send("Go");
    const deadline = Date.now() + 20_000;
    while (!server.requests.some((r) => depthOf(r) === 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    parent.cancel();
    await run;
    expect(parent.state).toBe("cancelled");
    let finished: EventOf<"subagent"> | undefined;
    while (!(finished = ofType(parent.events(), "subagent").find((e) => e.phase === "finished")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(finished).toMatchObject({ status: "cancelled", error: "the parent agent was stopped" });
    const child = logOf(sessions, finished!.childId);
    expect(ofType(child, "status").at(-1)).toMatchObject({ state: "cancelled" });
    await parent.end();
  }, 60_000);

  it("cost: the child's spending counts in the parent's totals and its budget", async () => {
    const { ws, sessions } = workspace();
    // gpt-5.1: $1.25 / $10 per million tokens in / out.
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Costly", prompt: "p" } }], usage: { input: 1000, output: 10 } },
          { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 1000, output: 10 } },
          { text: "never reached", usage: { input: 1000, output: 10 } },
        ],
        1: [{ text: "expensive answer", usage: { input: 1_000_000, output: 10_000 } }],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { model: "gpt-5.1", extensions: [budgetsExtension({ maxCostUsd: 1 })] }));
    await parent.send("Spend");
    const finished = ofType(parent.events(), "subagent").find((e) => e.phase === "finished")!;
    expect(finished.costUsd).toBeCloseTo(1.25 + 0.1, 6);
    expect(finished.usage).toMatchObject({ inputTokens: 1_000_000, outputTokens: 10_000 });
    // The parent's budget ($1) saw the child's $1.35: it stopped right after that turn.
    const budget = ofType(parent.events(), "budget");
    expect(budget).toHaveLength(1);
    expect(budget[0]!.costUsd).toBeGreaterThan(1.35);
    expect(existsSync(join(ws, "README.md"))).toBe(true);
    expect(ofType(parent.events(), "tool_call").map((e) => e.name)).toEqual(["task"]);
    const summary = summarizeSession(parent.events());
    expect(summary.costUsd).toBeCloseTo(1.35 + (1000 * 1.25 + 10 * 10) / 1e6, 6);
    // The parent's own token counts are its own (the context meter is not fooled by the child's).
    expect(summary.usage.inputTokens).toBe(1000);
    expect(server.requests.filter((r) => depthOf(r) === 0)).toHaveLength(1);
    await parent.end();
  }, 60_000);
});

describe("a sub-agent under its parent's budget", () => {
  it("is stopped mid-run when the parent's spend plus its own reaches the budget, and the parent stops after it", async () => {
    const { ws, sessions } = workspace();
    // gpt-5.1: $1.25 per million input tokens. The parent spends $0.50, the child's first turn $0.60.
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Runaway", prompt: "p" } }], usage: { input: 400_000, output: 0 } },
          { text: "never reached", usage: { input: 1000, output: 0 } },
        ],
        1: [
          { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 480_000, output: 0 } },
          { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 480_000, output: 0 } },
          { text: "never reached", usage: { input: 1000, output: 0 } },
        ],
      }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl, { model: "gpt-5.1", extensions: [budgetsExtension({ maxCostUsd: 1 })] }));
    await parent.send("Spend");
    const childId = ofType(parent.events(), "subagent")[0]!.childId;
    const child = logOf(sessions, childId);
    // The child was stopped before its first tool ran: $0.50 + $0.60 is over the $1 of the task.
    const childBudget = ofType(child, "budget");
    expect(childBudget).toHaveLength(1);
    expect(childBudget[0]!.costUsd).toBeCloseTo(1.1, 6);
    expect(childBudget[0]!.report).toContain("the cost budget of $1.00 is used up ($1.10 spent by the task this sub-agent works for)");
    expect(childBudget[0]!.report).toContain("Its parent decides what happens next.");
    expect(ofType(child, "tool_result")).toEqual([
      expect.objectContaining({ name: "read_file", isError: true, output: expect.stringMatching(/^Not run: the session was stopped \(Stopped: the cost budget/) }),
    ]);
    expect(server.requests.filter((r) => depthOf(r) === 1)).toHaveLength(1);
    // The parent stopped right after the task returned, without another request.
    expect(ofType(parent.events(), "budget")).toHaveLength(1);
    expect(server.requests.filter((r) => depthOf(r) === 0)).toHaveLength(1);
    await parent.end();
  }, 60_000);
});

describe("hooks of a sub-agent", () => {
  it("a sub-agent fires SubagentStart (its context reaches the child only) and SubagentStop, never SessionStart, Stop or SessionEnd; the parent fires those", async () => {
    const { ws, sessions } = workspace();
    const record = (name: string, out = "") => ({
      hooks: [{ type: "command", command: `cat >> ${JSON.stringify(join(ws, `${name}.jsonl`))}; echo >> ${JSON.stringify(join(ws, `${name}.jsonl`))}${out ? `; echo '${out}'` : ""}` }],
    });
    mkdirSync(join(ws, ".claude"));
    const childContext = JSON.stringify({ hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "Sub-agents in this repo cite line numbers." } });
    writeFileSync(
      join(ws, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          SessionStart: [record("session-start")],
          SessionEnd: [record("session-end")],
          Stop: [record("stop")],
          SubagentStart: [{ matcher: "general-purpose", ...record("subagent-start", childContext) }],
          SubagentStop: [record("subagent-stop")],
        },
      }),
    );
    server = await startScriptedLlmServer({
      script: byDepth({ 0: [{ toolCalls: [{ name: "task", input: { description: "Look", prompt: "Look around." } }] }, { text: "parent done" }], 1: [{ text: "child done" }] }),
    });
    const parent = await AgentSession.create(options(ws, sessions, server.openaiBaseUrl));
    await parent.send("Go");
    const childId = ofType(parent.events(), "subagent")[0]!.childId;
    await parent.end();
    const lines = (f: string) =>
      existsSync(join(ws, f))
        ? readFileSync(join(ws, f), "utf8")
            .split("\n")
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as Json)
        : [];
    expect(lines("subagent-start.jsonl")).toEqual([expect.objectContaining({ hook_event_name: "SubagentStart", session_id: childId, agent_id: childId, agent_type: "general-purpose" })]);
    expect(lines("subagent-stop.jsonl")).toEqual([
      expect.objectContaining({ hook_event_name: "SubagentStop", session_id: childId, agent_id: childId, agent_type: "general-purpose", last_assistant_message: "child done" }),
    ]);
    expect(lines("session-start.jsonl")).toEqual([expect.objectContaining({ hook_event_name: "SessionStart", session_id: parent.id, source: "startup" })]);
    expect(lines("stop.jsonl")).toEqual([expect.objectContaining({ hook_event_name: "Stop", session_id: parent.id, last_assistant_message: "parent done" })]);
    expect(lines("session-end.jsonl")).toEqual([expect.objectContaining({ hook_event_name: "SessionEnd", session_id: parent.id })]);
    // SubagentStart's context is in the child's first request, and in no request of the parent.
    const bodies = (depth: number) => server!.requests.filter((r) => depthOf(r) === depth).map((r) => JSON.stringify(r.body));
    expect(bodies(1)[0]).toContain("Sub-agents in this repo cite line numbers.");
    for (const b of bodies(0)) expect(b).not.toContain("Sub-agents in this repo cite line numbers.");
  }, 60_000);
});

describe("yoke run and yoke sessions with sub-agents", () => {
  it("run shows the child's progress indented; sessions lists the child under its parent", async () => {
    const { ws, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Survey", prompt: "List the files." } }] }, { text: "Survey complete." }],
        1: [{ toolCalls: [{ name: "list_files", input: { path: "." } }] }, { text: "Two files: README.md and src/config.ts." }],
      }),
    });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "Survey the repo"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /⏺ task Survey\n\s+↳ sub-agent "Survey" started \(session [\w.-]+\)\n\s+· list_files \.\n\s+↳ sub-agent "Survey" completed \(1 tool call\)\n\s+⎿ Sub-agent "Survey" completed/,
    );
    expect(r.stdout).toContain("Survey complete.");
    const ids = readdirSync(sessions)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => f.replace(/\.jsonl$/, ""));
    expect(ids).toHaveLength(2);
    const child = ids.find((id) => logOf(sessions, id)[0]!.type === "session_start" && (logOf(sessions, id)[0] as EventOf<"session_start">).parentId)!;
    const parentId = (logOf(sessions, child)[0] as EventOf<"session_start">).parentId!;
    const list = await runCli(["sessions", "--session-dir", sessions]);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${parentId}  done`));
    expect(lines[1]).toMatch(new RegExp(`^└ ${child}  done .*\\(sub-agent of ${parentId}\\)$`));
    const json = JSON.parse((await runCli(["sessions", "--session-dir", sessions, "--json"])).stdout) as { sessions: Array<{ id: string; parentId?: string }> };
    expect(json.sessions.find((s) => s.id === child)?.parentId).toBe(parentId);
  }, 90_000);
});
