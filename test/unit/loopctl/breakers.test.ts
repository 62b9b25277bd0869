// Circuit breakers: per tool and per tool group (through a real AgentSession and the loop's
// points), and per provider+model in the fallback chain. Time comes from an injectable clock.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Circuit, toolBreakersExtension } from "../../../src/core/breakers";
import type { SessionEvent } from "../../../src/core/events";
import { fallbackChain, parseFallbackModels, parseFallbackSpec } from "../../../src/core/fallback";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { ProviderError, type ProviderEvent } from "../../../src/core/providers/types";
import { defineTool, ToolError, type ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { collectEvents, streamError, userRequest } from "../../support/llm";
import { createMemoryStore } from "../../support/memory-store";

const services = { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger };

function flakyTool(name: string, failures: { left: number }, group?: string): ToolDefinition {
  let runs = 0;
  const def = defineTool({
    name,
    description: "talks to a server",
    schema: z.object({ q: z.string() }),
    permission: "Read",
    capabilities: { reads: true },
    summarize: (i) => String(i.q ?? ""),
    timeoutMs: 1000,
    hookInput: (a) => ({ q: a.q }),
    run: async (a) => {
      runs++;
      if (failures.left > 0) {
        failures.left--;
        throw new ToolError(`connection refused by the ${name} server`);
      }
      return { text: `answer to ${a.q}` };
    },
    ...(group ? { group } : {}),
  }) as ToolDefinition;
  return Object.assign(def, { runs: () => runs });
}

const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

async function session(turns: FakeTurn[], tools: ToolDefinition[], clock: { t: number }, extra: Partial<AgentSessionOptions> = {}) {
  const opts: AgentSessionOptions = {
    store: createMemoryStore(),
    provider: createFakeProvider(turns),
    tools,
    services,
    approver: { ask: async () => ({ decision: "allow" }) },
    retry: { maxRetries: 0 },
    permissionMode: "bypassPermissions",
    extensions: [toolBreakersExtension({ now: () => clock.t, cooldownMs: 30_000 })],
    ...extra,
  };
  return AgentSession.create(opts);
}

const calls = (name: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => toolTurn({ id: `c${from + i}`, name, input: { q: `q${from + i}` } }));

describe("Circuit", () => {
  it("opens after N consecutive failures, half-opens after the cooldown for one probe, closes on its success", () => {
    let t = 0;
    const c = new Circuit({ threshold: 3, cooldownMs: 1000, now: () => t });
    for (let i = 0; i < 2; i++) expect(c.failure("boom")).toBeUndefined();
    c.success(); // a success in between resets the count
    expect(c.failure("a")).toBeUndefined();
    expect(c.failure("b")).toBeUndefined();
    expect(c.failure("c")).toMatchObject({ from: "closed", to: "open", failures: 3 });
    expect(c.admit().admission).toEqual({ allowed: false, retryInMs: 1000, failures: 3, lastError: "c" });
    t = 999;
    expect(c.admit().admission.allowed).toBe(false);
    t = 1000;
    expect(c.admit()).toMatchObject({ admission: { allowed: true, probe: true }, transition: { to: "half_open" } });
    // Only one probe at a time.
    expect(c.admit().admission.allowed).toBe(false);
    expect(c.failure("d")).toMatchObject({ from: "half_open", to: "open" });
    t = 2500;
    expect(c.admit().admission.allowed).toBe(true);
    expect(c.success()).toMatchObject({ from: "half_open", to: "closed" });
    expect(c.admit().admission).toEqual({ allowed: true, probe: false });
  });
});

describe("tool circuit breakers", () => {
  it("open after 5 scripted failures, answer at once while open, and close after the cooldown when the probe succeeds", async () => {
    const clock = { t: 0 };
    const failures = { left: 5 };
    const tool = flakyTool("lookup", failures) as ToolDefinition & { runs(): number };
    const s = await session([...calls("lookup", 6), textTurn("ok")], [tool], clock);
    await s.send("go");
    expect(tool.runs()).toBe(5); // the 6th call was answered by the open circuit, not run
    const results = ofType(s.events(), "tool_result");
    expect(results).toHaveLength(6);
    expect(results[5]!.isError).toBe(true);
    expect(results[5]!.output).toBe(
      "lookup was not run: its circuit breaker is open after 5 consecutive failures (last error: connection refused by the lookup server). Yoke refuses these calls for 30 s more instead of letting them fail again. Do not retry it now: use another approach, or tell the user what is failing.",
    );
    expect(ofType(s.events(), "tool_call")).toHaveLength(5);
    expect(ofType(s.events(), "breaker")).toEqual([expect.objectContaining({ scope: "tool", key: "lookup", state: "open", failures: 5 })]);

    // After the cooldown one probe goes through; the server is back, so the circuit closes.
    clock.t = 30_000;
    const s2 = await session([...calls("lookup", 2, 10), textTurn("ok")], [tool], clock, { extensions: s["opts"].extensions });
    await s2.send("again");
    expect(tool.runs()).toBe(7);
    expect(ofType(s2.events(), "tool_result").map((r) => r.output)).toEqual(["answer to q10", "answer to q11"]);
    expect(ofType(s2.events(), "breaker").map((e) => e.state)).toEqual(["half_open", "closed"]);
  });

  it("does not count a permission denial, and a failed probe opens the circuit again", async () => {
    const clock = { t: 0 };
    const failures = { left: 100 };
    const tool = flakyTool("lookup", failures) as ToolDefinition & { runs(): number };
    const denyAll = { check: async () => ({ decision: "deny" as const, by: "rule" as const, reason: "denied by a test rule", rule: "Read" }) };
    const denied = await session([...calls("lookup", 6), textTurn("ok")], [tool], clock, { gate: denyAll, permissionMode: "default" });
    await denied.send("go");
    expect(ofType(denied.events(), "breaker")).toEqual([]);
    const ext = denied["opts"].extensions;
    const s = await session([...calls("lookup", 6, 20), textTurn("ok")], [tool], clock, { extensions: ext });
    await s.send("go");
    expect(tool.runs()).toBe(5);
    clock.t = 31_000;
    const s2 = await session([...calls("lookup", 2, 40), textTurn("ok")], [tool], clock, { extensions: ext });
    await s2.send("go");
    expect(tool.runs()).toBe(6); // one probe, which failed
    expect(ofType(s2.events(), "breaker").map((e) => e.state)).toEqual(["half_open", "open"]);
    expect(ofType(s2.events(), "tool_result")[1]!.output).toMatch(/^lookup was not run: its circuit breaker is open after 6 consecutive failures/);
  });

  it("counts per group: the failures of two tools of one MCP server open the group for both", async () => {
    const clock = { t: 0 };
    const failures = { left: 5 };
    const a = flakyTool("srv_search", failures, "mcp:srv") as ToolDefinition & { runs(): number };
    const b = flakyTool("srv_fetch", failures, "mcp:srv") as ToolDefinition & { runs(): number };
    const turns = [...calls("srv_search", 3), ...calls("srv_fetch", 2, 3), ...calls("srv_fetch", 1, 5), textTurn("ok")];
    const s = await session(turns, [a, b], clock);
    await s.send("go");
    expect(a.runs() + b.runs()).toBe(5);
    expect(ofType(s.events(), "breaker")).toEqual([expect.objectContaining({ scope: "group", key: "mcp:srv", state: "open" })]);
    expect(ofType(s.events(), "tool_result")[5]!.output).toMatch(/^srv_fetch was not run: the circuit breaker of its group "mcp:srv" is open after 5 consecutive failures/);
  });
});

describe("provider breakers and the fallback chain", () => {
  const overloaded = () => new ProviderError("overloaded", "the server is overloaded (HTTP 503)", 503);
  const answer = (text: string): ProviderEvent[] => [
    { type: "text_delta", text },
    { type: "done", stopReason: "end_turn" },
  ];

  it("parses `model` and `provider:model`, keeping colons of model names", () => {
    expect(parseFallbackSpec("gpt-5.1")).toEqual({ model: "gpt-5.1" });
    expect(parseFallbackSpec("anthropic:claude-haiku-4")).toEqual({ provider: "anthropic", model: "claude-haiku-4" });
    expect(parseFallbackSpec("llama3:8b")).toEqual({ model: "llama3:8b" });
    expect(parseFallbackSpec("openai-compatible:qwen:7b")).toEqual({ provider: "openai-compatible", model: "qwen:7b" });
    expect(() => parseFallbackSpec("openai:")).toThrow(/names no model/);
    expect(() => parseFallbackModels("gpt")).toThrow(/must be a list/);
    expect(() => parseFallbackModels([1])).toThrow(/fallbackModels\[0\] must be a string/);
  });

  it("opens the provider circuit after 3 failures, falls back to the next model, and says so", async () => {
    let t = 0;
    const a = createFakeProvider([overloaded(), overloaded(), overloaded(), answer("late")], "model-a");
    const b = createFakeProvider([answer("from b"), answer("b again")], "model-b");
    const chain = fallbackChain([a, b], { now: () => t, sleep: async () => {}, random: () => 0 });
    const events = await collectEvents(chain, userRequest("hi"));
    const logs = events.flatMap((e) => (e.type === "log" ? [e.event] : []));
    expect(logs.map((e) => e.type)).toEqual(["error", "error", "breaker", "fallback"]);
    expect(logs[2]).toMatchObject({ type: "breaker", scope: "provider", key: "openai-compatible:model-a", state: "open", failures: 3 });
    expect(logs[3]).toMatchObject({ type: "fallback", from: "openai-compatible:model-a", to: "openai-compatible:model-b" });
    expect((logs[3] as { reason: string }).reason).toContain("model-a failed and its circuit opened: the server is overloaded (HTTP 503)");
    expect(chain.model).toBe("model-b");
    expect(a.requests).toHaveLength(3);
    // While A's circuit is open it is not asked at all.
    t = 10_000;
    await collectEvents(chain, userRequest("hi"));
    expect(a.requests).toHaveLength(3);
    expect(b.requests).toHaveLength(2);
    // After the cooldown A gets one probe; it answers, its circuit closes and the chain is back on A.
    t = 60_000;
    const back = await collectEvents(chain, userRequest("hi"));
    expect(back.flatMap((e) => (e.type === "log" ? [[e.event.type, (e.event as { state?: string }).state ?? ""]] : []))).toEqual([
      ["breaker", "half_open"],
      ["fallback", ""],
      ["breaker", "closed"],
    ]);
    expect(chain.model).toBe("model-a");
  });

  it("a single model with an open circuit answers at once with a clear error; a bad request never falls back", async () => {
    const a = createFakeProvider([overloaded(), overloaded(), overloaded()], "solo");
    const chain = fallbackChain([a], { now: () => 0, sleep: async () => {} });
    expect(await streamError(chain, userRequest("hi"))).toMatchObject({ kind: "overloaded" });
    const err = (await streamError(chain, userRequest("hi"))) as Error;
    expect(err.message).toMatch(/^model openai-compatible:solo is not asked: its circuit breaker is open after 3 consecutive failures .*tried again in 60 s$/);
    expect(a.requests).toHaveLength(3);
    const bad = createFakeProvider([new ProviderError("bad_request", "rejected", 400)], "m1");
    const other = createFakeProvider([answer("x")], "m2");
    const chain2 = fallbackChain([bad, other], { sleep: async () => {} });
    expect(await streamError(chain2, userRequest("hi"))).toMatchObject({ kind: "bad_request" });
    expect(other.requests).toHaveLength(0);
  });

  it("records usage against the model that answered, through the loop", async () => {
    const usage = { type: "usage" as const, usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    const a = createFakeProvider([overloaded(), overloaded(), overloaded()], "model-a");
    const b = createFakeProvider([[{ type: "text_delta", text: "hello" }, usage, { type: "done", stopReason: "end_turn" }]], "model-b");
    const s = await AgentSession.create({
      store: createMemoryStore(),
      provider: fallbackChain([a, b], { sleep: async () => {} }),
      tools: [],
      services,
      approver: { ask: async () => ({ decision: "allow" }) },
    });
    await s.send("hi");
    expect(ofType(s.events(), "usage")).toEqual([expect.objectContaining({ model: "model-b" })]);
    expect(ofType(s.events(), "fallback")).toHaveLength(1);
    expect(ofType(s.events(), "assistant_message")[0]!.text).toBe("hello");
    expect(s.events().at(-1)).toMatchObject({ type: "status", state: "done" });
  });
});
