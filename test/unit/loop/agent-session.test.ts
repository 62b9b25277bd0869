import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import { RESTRICTED_REASON } from "../../../src/core/permissions/mode-default";
import type { Approver, PermissionQuestion } from "../../../src/core/loop/types";
import type { HookRunner } from "../../../src/core/hooks/run-hooks";
import type { HookEventFields, HookEventName, HookOutcome } from "../../../src/core/hooks/types";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { ProviderError } from "../../../src/core/providers/types";
import { NOT_RUN_TEXT, projectConversation } from "../../../src/core/session/projection";
import { parseLog } from "../../../src/core/session/session-log";
import { defineTool, ToolError, type ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

const fs = { root: "/ws" } as WorkspaceFs;
const search = {} as Searcher;

function makeTools(counter: { runs: Record<string, number> }): ToolDefinition[] {
  const count = (name: string) => (counter.runs[name] = (counter.runs[name] ?? 0) + 1);
  return [
    defineTool({
      name: "lookup",
      description: "reads",
      schema: z.object({ key: z.string() }),
      permission: "Read",
      capabilities: { reads: true },
      summarize: () => "",
      timeoutMs: 1000,
      hookInput: (a) => ({ key: a.key }),
      async run(a) {
        count("lookup");
        if (a.key === "missing") throw new ToolError('lookup: no key "missing"; try one of: a, b');
        return { text: `value of ${a.key}` };
      },
    }),
    defineTool({
      name: "touch",
      description: "writes",
      schema: z.object({ path: z.string() }),
      permission: "Write",
      capabilities: { writes: true },
      summarize: () => "",
      timeoutMs: 1000,
      hookInput: (a) => ({ file_path: a.path }),
      async run(a) {
        count("touch");
        return { text: `touched ${a.path}` };
      },
    }),
    defineTool({
      name: "slow",
      description: "waits",
      schema: z.object({ ms: z.number() }),
      permission: "Read",
      capabilities: { reads: true },
      summarize: () => "",
      timeoutMs: 300,
      hookInput: () => ({}),
      run: (a, ctx) =>
        new Promise((resolve, reject) => {
          count("slow");
          const t = setTimeout(() => resolve({ text: "slept" }), a.ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        }),
    }),
  ];
}

const allowAll: Approver = { ask: async () => ({ decision: "allow" }) };

function setup(turns: FakeTurn[], extra: Partial<AgentSessionOptions> = {}) {
  const counter = { runs: {} as Record<string, number> };
  const store = createMemoryStore();
  const provider = createFakeProvider(turns);
  const opts: AgentSessionOptions = {
    store,
    provider,
    tools: makeTools(counter),
    services: { fs, search, log: silentLogger },
    approver: allowAll,
    retry: { maxRetries: 0 },
    ...extra,
  };
  return { store, provider, counter, opts };
}

const types = (s: AgentSession) => s.events().map((e) => e.type);

describe("AgentSession", () => {
  it("streams an answer and logs every step when the model answers with text", async () => {
    const { opts, store } = setup([textTurn("Hello there.")]);
    const s = await AgentSession.create(opts);
    const deltas: string[] = [];
    s.onDelta((d) => deltas.push(d.text));
    await s.send("hi");
    expect(deltas.join("")).toBe("Hello there.");
    expect(types(s)).toEqual(["session_start", "status", "user_message", "status", "assistant_message", "usage", "status"]);
    expect(s.state).toBe("done");
    const logged = parseLog(store.read(s.id));
    expect(logged.events).toEqual(s.events());
    expect(logged.tornTail).toBe(false);
  });

  it("runs a tool call and sends its result back in the next request", async () => {
    const { opts, provider, counter } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("a is known")]);
    const s = await AgentSession.create(opts);
    await s.send("what is a?");
    expect(counter.runs.lookup).toBe(1);
    const second = provider.requests[1]!;
    expect(second.messages.at(-1)).toEqual({ role: "tool", callId: "c1", name: "lookup", content: "value of a", isError: false });
    expect(types(s)).toContain("tool_call");
    expect(s.state).toBe("done");
  });

  it("keeps the system prompt and tool list identical across turns so prompt caches hit", async () => {
    const { opts, provider } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(provider.requests[1]!.system).toBe(provider.requests[0]!.system);
    expect(provider.requests[1]!.tools).toEqual(provider.requests[0]!.tools);
    expect(provider.requests[1]!.messages.slice(0, 1)).toEqual(provider.requests[0]!.messages);
  });

  it("answers invalid arguments with the registry's error and never runs the handler", async () => {
    const { opts, provider, counter } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: 5 } }), textTurn("sorry")]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(counter.runs.lookup).toBeUndefined();
    const toolMsg = provider.requests[1]!.messages.at(-1)!;
    expect(toolMsg).toMatchObject({ role: "tool", isError: true });
    expect((toolMsg as { content: string }).content).toContain('"key"');
  });

  it("gives a ToolError's message to the model as the result", async () => {
    const { opts, provider } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "missing" } }), textTurn("ok")]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(provider.requests[1]!.messages.at(-1)).toMatchObject({ isError: true, content: 'lookup: no key "missing"; try one of: a, b' });
  });

  it("asks the user before a mutating tool in default mode and passes a denial message to the model", async () => {
    const asked: PermissionQuestion[] = [];
    const approver: Approver = { ask: async (q) => (asked.push(q), { decision: "deny", message: "not that file" }) };
    const { opts, provider, counter } = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x.txt" } }), textTurn("ok")], { approver });
    const s = await AgentSession.create(opts);
    await s.send("touch x");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: "touch", permission: "Write", input: { file_path: "x.txt" } });
    expect(counter.runs.touch).toBeUndefined();
    const content = (provider.requests[1]!.messages.at(-1) as { content: string }).content;
    expect(content).toBe('The user denied touch: "not that file" Do not retry the same call; ask the user or take another approach.');
    const decision = s.events().find((e) => e.type === "permission_decision");
    expect(decision).toMatchObject({ decision: "deny", by: "user", message: "not that file" });
  });

  it("refuses mutating tools in Restricted Mode without asking, and says why", async () => {
    let asked = 0;
    const approver: Approver = { ask: async () => (asked++, { decision: "allow" }) };
    const { opts, provider, counter } = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } }), textTurn("ok")], { approver, trusted: false });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(asked).toBe(0);
    expect(counter.runs.touch).toBeUndefined();
    expect((provider.requests[1]!.messages.at(-1) as { content: string }).content).toBe(`Permission denied for touch: ${RESTRICTED_REASON}`);
    expect(provider.requests[0]!.system).toContain("Restricted Mode");
  });

  it("refuses mutating tools in plan mode and allows them in bypassPermissions mode", async () => {
    const plan = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } }), textTurn("ok")], { permissionMode: "plan" });
    await (await AgentSession.create(plan.opts)).send("go");
    expect(plan.counter.runs.touch).toBeUndefined();
    expect((plan.provider.requests[1]!.messages.at(-1) as { content: string }).content).toContain("plan mode is on");
    const bypass = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } }), textTurn("ok")], {
      permissionMode: "bypassPermissions",
      approver: {
        ask: async () => {
          throw new Error("must not ask");
        },
      },
    });
    await (await AgentSession.create(bypass.opts)).send("go");
    expect(bypass.counter.runs.touch).toBe(1);
  });

  it("stops a tool at its timeout and tells the model", async () => {
    const { opts, provider } = setup([toolTurn({ id: "c1", name: "slow", input: { ms: 5000 } }), textTurn("ok")]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect((provider.requests[1]!.messages.at(-1) as { content: string }).content).toBe("slow did not finish within 0.3 s and was stopped.");
  });

  it("cancels a running tool, records it, and ends in the cancelled state", async () => {
    const { opts } = setup([toolTurn({ id: "c1", name: "slow", input: { ms: 250 } }, { id: "c2", name: "lookup", input: { key: "a" } })]);
    const s = await AgentSession.create(opts);
    s.onEvent((e) => {
      if (e.type === "tool_call" && e.name === "slow") setTimeout(() => s.cancel(), 20);
    });
    await s.send("go");
    expect(s.state).toBe("cancelled");
    const results = s.events().filter((e) => e.type === "tool_result");
    expect(results[0]).toMatchObject({ callId: "c1", isError: true });
    expect((results[0] as { output: string }).output).toMatch(/^Cancelled by the user after \d+\.\d s; slow was stopped/);
    expect(results[1]).toMatchObject({ callId: "c2", output: "Not run: the user stopped the agent before this call ran." });
  });

  it("keeps the partial answer when the user stops a stream", async () => {
    const hanging = async function* (req: { signal?: AbortSignal }) {
      yield { type: "text_delta" as const, text: "partial " };
      await new Promise((_, reject) => req.signal!.addEventListener("abort", () => reject(req.signal!.reason)));
    };
    const { opts } = setup([hanging]);
    const s = await AgentSession.create(opts);
    s.onDelta(() => setTimeout(() => s.cancel(), 5));
    await s.send("go");
    expect(s.state).toBe("cancelled");
    expect(s.events().find((e) => e.type === "assistant_message")).toMatchObject({ text: "partial ", stopReason: "cancelled" });
  });

  it("records a provider failure as an error event with the provider's message", async () => {
    const { opts } = setup([new ProviderError("auth", 'The API key was rejected by openai at http://x: set it with "Yoke: Set API Key"', 401)]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(s.state).toBe("error");
    expect(s.events().find((e) => e.type === "error")).toMatchObject({ code: "auth", message: expect.stringContaining("Set API Key") });
  });

  it("abandons a provider request that goes silent past the thinking timeout", async () => {
    const silent = async function* (req: { signal?: AbortSignal }) {
      await new Promise((_, reject) => req.signal!.addEventListener("abort", () => reject(req.signal!.reason)));
      yield { type: "done" as const, stopReason: "x" };
    };
    const { opts } = setup([silent], { timeouts: { thinkingIdleMs: 50 } });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(s.state).toBe("error");
    expect(s.events().find((e) => e.type === "error")).toMatchObject({ message: expect.stringContaining("No response from openai-compatible (fake-model) for 0.1 s") });
  });

  it("stops after max turns and says how to continue", async () => {
    const loop = Array.from({ length: 3 }, (_, i) => toolTurn({ id: `c${i}`, name: "lookup", input: { key: "a" } }));
    const { opts } = setup(loop, { maxTurns: 2 });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(s.state).toBe("error");
    expect(s.events().find((e) => e.type === "error")).toMatchObject({ code: "max_turns" });
  });
});

describe("AgentSession with a change reviewer", () => {
  const reviewTool = (modes: string[]) =>
    defineTool({
      name: "propose",
      description: "proposes a change",
      schema: z.object({ path: z.string() }),
      permission: "Edit",
      capabilities: { writes: true },
      summarize: () => "",
      reviewable: true,
      timeoutMs: 1000,
      hookInput: (a) => ({ file_path: a.path }),
      async run(_a, ctx) {
        modes.push(ctx.reviewMode ?? "none");
        return { text: "reviewed" };
      },
    });

  it("lets the review be the question in default mode (no permission card) and applies at once in acceptEdits", async () => {
    const reviewer = { review: async () => ({ status: "accepted" as const, finalContent: "" }) };
    for (const [mode, expected] of [
      ["default", "ask"],
      ["acceptEdits", "auto"],
    ] as const) {
      const modes: string[] = [];
      let asked = 0;
      const { opts } = setup([toolTurn({ id: "c1", name: "propose", input: { path: "a.ts" } }), textTurn("ok")], {
        tools: [reviewTool(modes)],
        permissionMode: mode,
        services: { fs, search, log: silentLogger, reviewer },
        approver: { ask: async () => (asked++, { decision: "allow" }) },
      });
      const s = await AgentSession.create(opts);
      await s.send("go");
      expect(modes).toEqual([expected]);
      expect(asked).toBe(0);
      expect(s.events().some((e) => e.type === "permission_request")).toBe(false);
    }
  });

  it("does not time out a change while the user is reviewing it", async () => {
    const slowReview = defineTool({
      name: "propose",
      description: "proposes a change",
      schema: z.object({}),
      permission: "Edit",
      capabilities: { writes: true },
      summarize: () => "",
      reviewable: true,
      timeoutMs: 50,
      hookInput: () => ({}),
      run: () => new Promise((r) => setTimeout(() => r({ text: "accepted after a while" }), 200)),
    });
    const { opts, provider } = setup([toolTurn({ id: "c1", name: "propose", input: {} }), textTurn("ok")], {
      tools: [slowReview],
      services: () => ({ fs, search, log: silentLogger, reviewer: { review: async () => ({ status: "accepted" as const, finalContent: "" }) } }),
    });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect((provider.requests[1]!.messages.at(-1) as { content: string }).content).toBe("accepted after a while");
  });
});

describe("AgentSession with hooks", () => {
  function hookRunner(react: (event: HookEventName, fields: HookEventFields) => Partial<HookOutcome>) {
    const calls: Array<{ event: HookEventName; fields: HookEventFields }> = [];
    const runner: HookRunner = {
      async runHooks(event, fields = {}) {
        calls.push({ event, fields });
        return { event, blocked: false, additionalContext: [], userMessages: [], errors: [], results: [], ...react(event, fields) };
      },
    };
    return { runner, calls };
  }

  it("blocks a tool call when a PreToolUse hook exits 2, giving its stderr to the model", async () => {
    const { runner, calls } = hookRunner((e, f) => (e === "PreToolUse" && f.tool_name === "Write" ? { blocked: true, message: "no writes on Fridays" } : {}));
    const { opts, provider, counter } = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } }), textTurn("ok")], {
      hooks: () => runner,
      permissionMode: "bypassPermissions",
    });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(counter.runs.touch).toBeUndefined();
    expect((provider.requests[1]!.messages.at(-1) as { content: string }).content).toBe("Permission denied for touch: no writes on Fridays");
    expect(s.events().find((e) => e.type === "permission_decision")).toMatchObject({ decision: "deny", by: "hook" });
    expect(calls.map((c) => c.event)).toEqual(["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"]);
    expect(calls[2]!.fields).toMatchObject({ tool_name: "Write", tool_input: { file_path: "x" } });
  });

  it("applies updatedInput, adds PostToolUse context to the result, and keeps going when a Stop hook blocks once", async () => {
    let stops = 0;
    const { runner } = hookRunner((e) => {
      if (e === "PreToolUse") return { updatedInput: { key: "b" } };
      if (e === "PostToolUse") return { additionalContext: ["remember: b is special"] };
      if (e === "Stop") return stops++ === 0 ? { blocked: true, message: "run the tests first" } : {};
      if (e === "UserPromptSubmit") return { additionalContext: ["branch: main"] };
      return {};
    });
    const { opts, provider } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("first"), textTurn("second")], { hooks: () => runner });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(provider.requests[0]!.messages[0]).toEqual({ role: "user", text: 'go\n\n<context source="hooks">\nbranch: main\n</context>' });
    expect(provider.requests[1]!.messages.at(-1)).toMatchObject({ content: "value of b\n\nremember: b is special" });
    expect(provider.requests[2]!.messages.at(-1)).toEqual({ role: "user", text: "A Stop hook asks you to continue: run the tests first" });
    expect(s.state).toBe("done");
  });

  it("does not send a prompt a UserPromptSubmit hook blocks, and says why", async () => {
    const { runner } = hookRunner((e) => (e === "UserPromptSubmit" ? { blocked: true, message: "contains a secret" } : {}));
    const { opts, provider } = setup([textTurn("never")], { hooks: () => runner });
    const s = await AgentSession.create(opts);
    await s.send("my key is sk-123");
    expect(provider.requests).toHaveLength(0);
    expect(s.events().some((e) => e.type === "user_message")).toBe(false);
    expect(s.events().find((e) => e.type === "error")).toMatchObject({ message: "Your message was not sent: contains a secret" });
  });
});

describe("AgentSession.resume", () => {
  it("records a tool call that was running at the crash as interrupted and never re-runs it", async () => {
    const first = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } })]);
    const s = await AgentSession.create(first.opts);
    // Simulate a crash right after the tool started: stop the run when tool_call is logged by
    // copying the log up to that point into a fresh store.
    s.onEvent(() => {});
    await s.send("go").catch(() => {});
    const lines = first.store.read(s.id);
    const cut = lines.findIndex((l) => l.includes('"type":"tool_result"'));
    const crashed = createMemoryStore();
    for (const l of lines.slice(0, cut)) crashed.append(s.id, l);

    const second = setup([textTurn("I will check x first.")]);
    const resumed = await AgentSession.resume(s.id, { ...second.opts, store: crashed });
    const interrupted = resumed.events().find((e) => e.type === "tool_result");
    expect(interrupted).toMatchObject({ callId: "c1", interrupted: true, isError: true });
    await resumed.continue();
    expect(second.counter.runs.touch).toBeUndefined();
    expect((second.provider.requests[0]!.messages.at(-1) as { content: string }).content).toContain("It was not run again");
    expect(resumed.state).toBe("done");
  });

  it("asks again about a call that was waiting for permission at the crash, then runs it", async () => {
    const store = createMemoryStore();
    const hang: Approver = { ask: (_q, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))) };
    const first = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } })], { approver: hang, store });
    const s = await AgentSession.create(first.opts);
    const done = s.send("go");
    await new Promise((r) => setTimeout(r, 20));
    expect(s.state).toBe("waiting_user");
    // The crash: copy the log as it is now.
    const crashed = createMemoryStore();
    for (const l of store.read(s.id)) crashed.append(s.id, l);
    s.cancel();
    await done;

    const asked: string[] = [];
    const second = setup([textTurn("done")], { approver: { ask: async (q) => (asked.push(q.callId), { decision: "allow" }) } });
    const resumed = await AgentSession.resume(s.id, { ...second.opts, store: crashed });
    await resumed.continue();
    expect(asked).toEqual(["c1"]);
    expect(second.counter.runs.touch).toBe(1);
    expect(resumed.state).toBe("done");
  });

  it("tolerates a torn last line and keeps appending on a fresh line", async () => {
    const first = setup([textTurn("one")]);
    const s = await AgentSession.create(first.opts);
    await s.send("first");
    first.store.raw.set(s.id, first.store.raw.get(s.id)! + '{"seq":99,"type":"assist');
    const second = setup([textTurn("two")]);
    const resumed = await AgentSession.resume(s.id, { ...second.opts, store: first.store });
    await resumed.send("second");
    const parsed = parseLog(first.store.read(s.id));
    expect(parsed.invalidLines).toHaveLength(1);
    expect(parsed.tornTail).toBe(false);
    expect(projectConversation(parsed.events).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("marks calls left unstarted as not run when the user sends a new message instead", async () => {
    const store = createMemoryStore();
    const first = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } })], { store });
    const s = await AgentSession.create(first.opts);
    await s.send("go").catch(() => {});
    const lines = store.read(s.id);
    const crashed = createMemoryStore();
    for (const l of lines.slice(
      0,
      lines.findIndex((l) => l.includes('"type":"permission_decision"')),
    ))
      crashed.append(s.id, l);
    const second = setup([textTurn("fine")]);
    const resumed = await AgentSession.resume(s.id, { ...second.opts, store: crashed });
    await resumed.send("never mind");
    expect(second.counter.runs.lookup).toBeUndefined();
    const msgs = second.provider.requests[0]!.messages;
    expect(msgs.at(-2)).toMatchObject({ role: "tool", content: NOT_RUN_TEXT });
    expect(msgs.at(-1)).toEqual({ role: "user", text: "never mind" });
  });
});
