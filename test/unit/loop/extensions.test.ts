// The loop's typed extension points, used from outside src/core/loop: an extension registered
// through AgentSessionOptions.extensions observes and changes the loop without touching it.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SessionEvent } from "../../../src/core/events";
import type { Extension } from "../../../src/core/extensions/types";
import type { HookRunner } from "../../../src/core/hooks";
import type { HookGroupConfig } from "../../../src/core/permissions/types";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import type { Approver } from "../../../src/core/loop/types";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { defineTool, type ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

const services = { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger };

const lookup = defineTool({
  name: "lookup",
  description: "reads a value",
  schema: z.object({ key: z.string() }),
  permission: "Read",
  capabilities: { reads: true },
  summarize: (i) => String(i.key ?? ""),
  timeoutMs: 1000,
  hookInput: (a) => ({ key: a.key }),
  run: async (a) => ({ text: `value of ${a.key}` }),
});

const touch = defineTool({
  name: "touch",
  description: "writes",
  schema: z.object({ path: z.string() }),
  permission: "Write",
  capabilities: { writes: true },
  summarize: (i) => String(i.path ?? ""),
  timeoutMs: 1000,
  hookInput: (a) => ({ file_path: a.path }),
  run: async (a) => ({ text: `touched ${a.path}` }),
});

function setup(turns: FakeTurn[], extensions: Extension[], extra: Partial<AgentSessionOptions> = {}) {
  const provider = createFakeProvider(turns);
  const asked: string[] = [];
  const approver: Approver = { ask: async (q) => (asked.push(q.tool), { decision: "allow" }) };
  const opts: AgentSessionOptions = { store: createMemoryStore(), provider, tools: [lookup, touch] as ToolDefinition[], services, approver, retry: { maxRetries: 0 }, extensions, ...extra };
  return { provider, opts, asked };
}

const last = (provider: ReturnType<typeof createFakeProvider>, i: number) => provider.requests[i]!.messages.at(-1) as { content?: string; text?: string };
const ofType = <T extends SessionEvent["type"]>(s: AgentSession, type: T) => s.events().filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

describe("extension points", () => {
  it("an extension counts tool calls and rewrites one tool's result, without any change to the loop", async () => {
    const counts: Record<string, number> = {};
    const counter: Extension = {
      name: "counter",
      setup(api) {
        api.on("tool.after", ({ tool, output }) => {
          counts[tool.name] = (counts[tool.name] ?? 0) + 1;
          if (tool.name === "lookup") return { text: `${output.text} (checked)` };
          return undefined;
        });
      },
    };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }, { id: "c2", name: "touch", input: { path: "x" } }), textTurn("done")], [counter], {
      permissionMode: "bypassPermissions",
    });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(counts).toEqual({ lookup: 1, touch: 1 });
    const results = ofType(s, "tool_result");
    expect(results.map((r) => r.output)).toEqual(["value of a (checked)", "touched x"]);
    expect(provider.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content)).toEqual(["value of a (checked)", "touched x"]);
    expect(ofType(s, "extension")).toEqual([expect.objectContaining({ name: "counter", point: "tool.after", outcome: "rewrote_output", callId: "c1" })]);
  });

  it("runs handlers by priority and honours stopPropagation", async () => {
    const order: string[] = [];
    const ext = (name: string, priority: number, stop = false): Extension => ({
      name,
      setup(api) {
        api.on(
          "tool.after",
          (_i, ctx) => {
            order.push(name);
            if (stop) ctx.stopPropagation();
          },
          { priority },
        );
      },
    });
    const { opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [ext("low", -5), ext("high", 10, true), ext("mid", 0)]);
    await (await AgentSession.create(opts)).send("go");
    expect(order).toEqual(["high"]);
  });

  it("contains an extension that throws: the failure is an event and the session finishes", async () => {
    const broken: Extension = {
      name: "broken",
      setup(api) {
        api.on("tool.after", () => {
          throw new Error("boom");
        });
        api.on("turn.after", () => {
          throw new Error("bang");
        });
      },
    };
    const failingSetup: Extension = {
      name: "no-setup",
      setup() {
        throw new Error("cannot start");
      },
    };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [broken, failingSetup]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(s.state).toBe("done");
    expect(last(provider, 1).content).toBe("value of a");
    expect(ofType(s, "extension").map((e) => [e.name, e.point, e.outcome, e.detail])).toEqual([
      ["no-setup", "setup", "error", "cannot start"],
      ["broken", "tool.after", "error", "boom"],
      ["broken", "turn.after", "error", "bang"],
      ["broken", "turn.after", "error", "bang"],
    ]);
  });

  it("a policy that throws at tool.before with failClosed makes the call ask instead of running silently", async () => {
    const policy: Extension = {
      name: "policy",
      setup(api) {
        api.on(
          "tool.before",
          () => {
            throw new Error("rules unreadable");
          },
          { failClosed: true },
        );
      },
    };
    const { opts, asked } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [policy]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(asked).toEqual(["lookup"]);
    expect(ofType(s, "permission_request")[0]).toMatchObject({ reason: "The permission check (policy) failed (rules unreadable), so Yoke asks.", summary: "a" });
  });

  it("tool.before may rewrite the input (validated again) and deny; the deny wins over the mode's allow", async () => {
    const guard: Extension = {
      name: "guard",
      setup(api) {
        api.on("tool.before", ({ tool, args }) => {
          if (tool.name === "lookup") return { args: { key: `${(args as { key: string }).key}-rewritten` } };
          return { decision: { decision: "deny", by: "extension", reason: "touch is off today" } };
        });
      },
    };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }, { id: "c2", name: "touch", input: { path: "x" } }), textTurn("ok")], [guard], {
      permissionMode: "bypassPermissions",
    });
    const s = await AgentSession.create(opts);
    await s.send("go");
    const tools = provider.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => (m as { content: string }).content);
    expect(tools).toEqual(["value of a-rewritten", "Permission denied for touch: touch is off today"]);
    expect(ofType(s, "tool_call").map((e) => e.input)).toEqual([{ key: "a-rewritten" }]);
    expect(ofType(s, "permission_decision").map((e) => [e.callId, e.decision, e.by])).toEqual([
      ["c1", "allow", "mode"],
      ["c2", "deny", "extension"],
    ]);
  });

  it("ignores a rewrite made after the permission engine checked the input: what runs is what was checked", async () => {
    const sneaky: Extension = {
      name: "sneaky",
      setup: (api) => void api.on("tool.before", () => ({ args: { key: "after-the-check" } }), { priority: -200 }),
    };
    const { opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [sneaky]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(ofType(s, "tool_call").map((e) => e.input)).toEqual([{ key: "a" }]);
    expect(ofType(s, "extension")).toEqual([
      expect.objectContaining({ name: "sneaky", point: "tool.before", outcome: "error", detail: "rewrote the input after permissions had checked it; the rewrite was ignored" }),
    ]);
  });

  it("refuses a call whose input an extension rewrote into invalid arguments", async () => {
    const bad: Extension = { name: "bad", setup: (api) => void api.on("tool.before", () => ({ args: { key: 42 } })) };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [bad]);
    await (await AgentSession.create(opts)).send("go");
    expect(last(provider, 1).content).toMatch(/^An extension changed the arguments of lookup into invalid ones, so it was not run: lookup: /);
  });

  it("permission.request may answer a question before the user is asked", async () => {
    const answerer: Extension = {
      name: "answerer",
      setup: (api) => void api.on("permission.request", ({ tool }) => ({ decision: tool.name === "touch" ? "deny" : "allow", message: "not on main" })),
    };
    const { provider, opts, asked } = setup([toolTurn({ id: "c1", name: "touch", input: { path: "x" } }), textTurn("ok")], [answerer]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(asked).toEqual([]);
    expect(last(provider, 1).content).toBe("Permission denied for touch: not on main");
    expect(ofType(s, "permission_decision")[0]).toMatchObject({ decision: "deny", by: "extension", message: "not on main" });
  });

  it("request.prepare appends context as a logged message, so the earlier prefix of every request stays the same", async () => {
    let n = 0;
    const lessons: Extension = {
      name: "lessons",
      setup: (api) => void api.on("request.prepare", ({ turn }) => (turn === 0 ? { append: [{ source: "lessons", text: `lesson ${++n}` }] } : undefined)),
    };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("ok")], [lessons]);
    const s = await AgentSession.create(opts);
    await s.send("go");
    const [first, second] = provider.requests;
    expect(first!.messages.at(-1)).toEqual({ role: "user", text: '<context source="lessons">\nlesson 1\n</context>' });
    expect(second!.messages.slice(0, first!.messages.length)).toEqual(first!.messages);
    expect(ofType(s, "context")).toEqual([expect.objectContaining({ source: "lessons", text: "lesson 1" })]);
  });

  it("turn.after may keep the agent going (at most 3 times per message) or stop the loop", async () => {
    const nudger: Extension = { name: "nudger", setup: (api) => void api.on("turn.after", ({ final }) => (final ? { nudge: "run the tests first" } : undefined)) };
    const a = setup([textTurn("done?"), textTurn("done?"), textTurn("done?"), textTurn("done.")], [nudger]);
    const s = await AgentSession.create(a.opts);
    await s.send("go");
    expect(a.provider.requests).toHaveLength(4);
    expect(ofType(s, "user_message").map((m) => [m.text, m.from])).toEqual([
      ["go", undefined],
      ["run the tests first", "extension"],
      ["run the tests first", "extension"],
      ["run the tests first", "extension"],
    ]);
    expect(s.state).toBe("done");

    const stopper: Extension = { name: "stopper", setup: (api) => void api.on("turn.after", () => ({ stop: "budget spent" })) };
    const b = setup([toolTurn({ id: "c1", name: "lookup", input: { key: "a" } }), textTurn("never")], [stopper]);
    const t = await AgentSession.create(b.opts);
    await t.send("go");
    expect(b.provider.requests).toHaveLength(1);
    expect(t.state).toBe("done");
    expect(ofType(t, "status").at(-1)).toMatchObject({ state: "done", detail: "budget spent" });
  });

  it("session.start context reaches the model with the first message; session.end runs on end()", async () => {
    const seen: string[] = [];
    const life: Extension = {
      name: "life",
      setup(api) {
        api.on("session.start", ({ source }) => ({ context: [`started by ${source}`] }));
        api.on("session.end", ({ reason }) => void seen.push(reason));
      },
    };
    const { provider, opts } = setup([textTurn("hi")], [life]);
    const s = await AgentSession.create(opts);
    await s.send("hello");
    await s.end("clear");
    expect(provider.requests[0]!.messages[0]).toEqual({ role: "user", text: 'hello\n\n<context source="hooks">\nstarted by startup\n</context>' });
    expect(seen).toEqual(["clear"]);
  });

  it("records a permission mode change as an event", async () => {
    const { opts } = setup([textTurn("hi")], []);
    const s = await AgentSession.create(opts);
    s.setPermissionMode("plan");
    s.setPermissionMode("plan");
    expect(ofType(s, "mode_change")).toEqual([expect.objectContaining({ mode: "plan", from: "default", by: "user" })]);
  });

  it("refuses two extensions with the same name", async () => {
    const x: Extension = { name: "dup", setup() {} };
    const { opts } = setup([textTurn("hi")], [x, x]);
    await expect(AgentSession.create(opts)).rejects.toThrow('two extensions are named "dup"');
  });
  it("an extension offers a tool during setup: the model sees it in every request and can call it", async () => {
    const recall = defineTool({ ...lookup, name: "recall_value", description: "recalls", run: async (a: { key: string }) => ({ text: `recalled ${a.key}` }) });
    const offers: Extension = { name: "offers", setup: (api) => api.addTools([recall as ToolDefinition]) };
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "recall_value", input: { key: "k" } }), textTurn("done")], [offers], { permissionMode: "bypassPermissions" });
    const s = await AgentSession.create(opts);
    await s.send("go");
    expect(provider.requests.map((r) => r.tools?.map((t) => t.name))).toEqual([
      // recall (from the built-in compaction extension) is deferred: load_tools, set up last, lists it.
      ["lookup", "touch", "recall_value", "load_tools"],
      ["lookup", "touch", "recall_value", "load_tools"],
    ]);
    expect(ofType(s, "tool_result").map((r) => r.output)).toEqual(["recalled k"]);
  });

  it("a tool offered under a taken name, or after setup, fails that extension's setup and nothing else", async () => {
    let late: (() => void) | undefined;
    const clash: Extension = { name: "clash", setup: (api) => api.addTools([{ ...lookup, name: "touch" } as ToolDefinition, { ...lookup, name: "fresh" } as ToolDefinition]) };
    const tardy: Extension = { name: "tardy", setup: (api) => void (late = () => api.addTools([{ ...lookup, name: "later" } as ToolDefinition])) };
    const { provider, opts } = setup([textTurn("done")], [clash, tardy]);
    const s = await AgentSession.create(opts);
    expect(() => late!()).toThrow(/only be added during setup/);
    await s.send("go");
    expect(provider.requests[0]!.tools?.map((t) => t.name)).toEqual(["lookup", "touch", "load_tools"]);
    expect(ofType(s, "extension")).toEqual([expect.objectContaining({ name: "clash", point: "setup", outcome: "error", detail: expect.stringContaining('duplicate tool name "touch"') })]);
  });
});

describe("SessionInfo.addHooks", () => {
  it("one set per key, the latest invocation's: the same set again changes nothing, a changed set replaces it; the engine reads the set in force", async () => {
    const group = (command: string): HookGroupConfig => ({ event: "PreToolUse", matcher: "Write", hooks: [{ type: "command", command }], source: { kind: "claude", label: "t", baseDir: "" } });
    let engine: { extraHooks?: readonly HookGroupConfig[] } | undefined;
    const answers: boolean[] = [];
    const ext: Extension = {
      name: "registers",
      setup(api) {
        answers.push(api.session.addHooks!("file:/c.md", [group("echo old")]));
        answers.push(api.session.addHooks!("file:/c.md", [group("echo old")]));
        answers.push(api.session.addHooks!("file:/other.md", [group("echo other")]));
        answers.push(api.session.addHooks!("file:/c.md", [group("echo new")]));
      },
    };
    const { opts } = setup([textTurn("done")], [ext], {
      hooks: (session) => {
        engine = session;
        return { runHooks: async () => ({}) } as unknown as HookRunner;
      },
    });
    await AgentSession.create(opts);
    expect(answers).toEqual([true, false, true, true]);
    expect(engine!.extraHooks!.map((g) => g.hooks[0]!.command)).toEqual(["echo new", "echo other"]);
  });
});
