// The telemetry extension on a real AgentSession with an in-memory tracer: spans, parents and
// outcomes from the session log, including a call the user refused (it never ran).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Extension } from "../../../src/core/extensions/types";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import type { Approver } from "../../../src/core/loop/types";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import type { Provider } from "../../../src/core/providers/types";
import { telemetryExtension, type Attributes, type SpanTracer, type TraceSpan } from "../../../src/core/telemetry";
import { parseTelemetrySettings } from "../../../src/core/telemetry/settings";
import { defineTool, type ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn, toolTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

interface Recorded {
  name: string;
  kind: string;
  attributes: Attributes;
  parent?: Recorded;
  error?: string;
  start: number;
  end?: number;
}

function memoryTracer(): SpanTracer & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  const byHandle = new Map<TraceSpan, Recorded>();
  return {
    spans,
    startSpan(name, opts) {
      const r: Recorded = { name, kind: opts.kind, attributes: { ...opts.attributes }, parent: opts.parent ? byHandle.get(opts.parent) : undefined, start: opts.startMs ?? Date.now() };
      spans.push(r);
      const handle: TraceSpan = {
        setAttributes: (a) => Object.assign(r.attributes, a),
        updateName: (n) => {
          r.name = n;
        },
        setError: (type) => {
          r.error = type;
        },
        end: (at) => {
          r.end ??= at ?? Date.now();
        },
      };
      byHandle.set(handle, r);
      return handle;
    },
  };
}

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

describe("telemetry extension", () => {
  it("traces a turn whose tool call the user refused", async () => {
    const tracer = memoryTracer();
    const provider = createFakeProvider([toolTurn({ id: "c1", name: "touch", input: { path: "a.txt" } }), textTurn("I will not touch it.")]);
    const approver: Approver = { ask: async () => ({ decision: "deny", message: "no" }) };
    const failing: Extension = {
      name: "bad-observer",
      setup: (api) =>
        void api.onEvent(() => {
          throw new Error("observer broke");
        }),
    };
    const opts: AgentSessionOptions = {
      store: createMemoryStore(),
      provider,
      tools: [touch] as ToolDefinition[],
      services: { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger },
      approver,
      retry: { maxRetries: 0 },
      extensions: [failing, telemetryExtension(tracer)],
    };
    const session = await AgentSession.create(opts);
    await session.send("touch a.txt");
    expect(session.state).toBe("done"); // a throwing observer does not hurt the loop or the others

    const names = tracer.spans.map((s) => s.name);
    expect(names).toEqual(["invoke_agent yoke", "chat fake-model", "execute_tool touch", "chat fake-model"]);
    const [agent, chat1, tool, chat2] = tracer.spans as [Recorded, Recorded, Recorded, Recorded];
    for (const s of [chat1, tool, chat2]) expect(s.parent).toBe(agent);
    expect(tool.attributes).toMatchObject({ "gen_ai.tool.name": "touch", "gen_ai.tool.call.id": "c1", "yoke.tool.outcome": "not_run" });
    expect(tool.error).toBe("tool_error");
    expect(chat1.attributes).toMatchObject({ "gen_ai.response.finish_reasons": ["tool_use"], "yoke.tool_calls": 1 });
    expect(chat2.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 10 });
    expect(agent.attributes).toMatchObject({ "yoke.outcome": "done", "yoke.requests": 2, "yoke.tool_calls": 1, "gen_ai.conversation.id": session.id });
    expect(tracer.spans.every((s) => s.end !== undefined && s.end >= s.start)).toBe(true);
    await session.end("other");
  });

  it("names a request's span by the model that answered it (architect mode's editor, a fallback)", async () => {
    const tracer = memoryTracer();
    const inner = createFakeProvider([toolTurn({ id: "c1", name: "touch", input: { path: "a.txt" } }), textTurn("Done.")]);
    let model = "planner";
    const provider: Provider = {
      id: "openai-compatible",
      get model() {
        return model;
      },
      async *stream(req) {
        if (inner.requests.length === 1) model = "editor";
        yield* inner.stream(req);
      },
    };
    const session = await AgentSession.create({
      store: createMemoryStore(),
      provider,
      tools: [touch] as ToolDefinition[],
      services: { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
      extensions: [telemetryExtension(tracer)],
    });
    await session.send("touch a.txt");
    const chats = tracer.spans.filter((s) => s.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((c) => c.name)).toEqual(["chat planner", "chat editor"]);
    expect(chats[1]!.attributes).toMatchObject({ "gen_ai.request.model": "editor", "gen_ai.response.model": "editor", "yoke.session_model": "planner" });
    expect(tracer.spans.find((s) => s.name === "execute_tool touch")?.attributes["yoke.tool.outcome"]).toBe("ok");
    await session.end("other");
  });

  it("reads the setting: off when absent, the traces URL from the base endpoint", () => {
    expect(parseTelemetrySettings(undefined)).toBeUndefined();
    expect(parseTelemetrySettings({})).toBeUndefined();
    expect(parseTelemetrySettings({ otlpEndpoint: "http://127.0.0.1:4318/" })).toEqual({ tracesUrl: "http://127.0.0.1:4318/v1/traces", headers: {} });
    expect(parseTelemetrySettings({ otlpEndpoint: "https://otel.example/v1/traces", headers: { a: "b" } })).toEqual({ tracesUrl: "https://otel.example/v1/traces", headers: { a: "b" } });
    expect(() => parseTelemetrySettings({ otlpEndpoint: "not a url" })).toThrow(/is not a URL/);
    expect(() => parseTelemetrySettings({ endpoint: "http://x" })).toThrow(/telemetry.endpoint is not a telemetry setting/);
    expect(() => parseTelemetrySettings({ otlpEndpoint: "http://x", headers: { a: 1 } })).toThrow(/headers.a must be a string/);
  });
});
