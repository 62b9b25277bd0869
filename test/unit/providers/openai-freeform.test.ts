/**
 * apply_patch as a freeform (custom) tool on OpenAI's Chat Completions: the real `openai` SDK over
 * HTTP to the scripted server, which sends custom tool calls in OpenAI's wire format.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createProvider } from "../../../src/core/providers/create";
import { hasCustomTools } from "../../../src/core/providers/openai";
import type { ChatRequest, ProviderConfig, ToolSpec } from "../../../src/core/providers/types";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { V4A_LARK_GRAMMAR } from "../../../src/core/edit/patch/grammar";
import { type ScriptedServer, type ScriptedTurn, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";
import { collectEvents } from "../../support/llm";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PATCH = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n";

/** The session's tool specs as the registry makes them (apply_patch in edit_file's place). */
const specs = (freeform: "auto" | "on" | "off" = "auto"): ToolSpec[] => new ToolRegistry(createBuiltinTools("apply_patch", freeform)).specs();

function request(tools: ToolSpec[], messages: ChatRequest["messages"] = [{ role: "user", text: "fix a.py" }]): ChatRequest {
  return { system: "sys", messages, tools };
}

async function setup(script: ScriptedTurn[], config: Partial<ProviderConfig>) {
  server = await startScriptedLlmServer({ script });
  return createProvider({ provider: "openai", model: "gpt-5", baseUrl: server.openaiBaseUrl, apiKey: "sk-test", ...config });
}

type WireTool = { type: string; function?: { name: string }; custom?: { name: string; description?: string; format?: unknown } };
const wireTools = () => server!.requests.at(-1)!.body.tools as WireTool[];
const wireTool = (name: string) => wireTools().find((t) => (t.function ?? t.custom)!.name === name)!;

describe("apply_patch as a custom tool (Chat Completions)", () => {
  it("offers apply_patch as a custom tool with the V4A Lark grammar to a GPT-5 model on OpenAI's API, the other tools as functions", async () => {
    const provider = await setup([{ text: "ok" }], {});
    await collectEvents(provider, request(specs()));
    expect(wireTool("apply_patch")).toEqual({
      type: "custom",
      custom: { name: "apply_patch", description: expect.stringContaining("*** Begin Patch"), format: { type: "grammar", grammar: { syntax: "lark", definition: V4A_LARK_GRAMMAR } } },
    });
    expect(wireTool("read_file").type).toBe("function");
    expect(wireTools().filter((t) => t.type === "custom")).toHaveLength(1);
  });

  it("reads a streamed custom tool call back as the tool's arguments {input: patch}", async () => {
    const provider = await setup([{ toolCalls: [{ name: "apply_patch", input: PATCH, custom: true }] }], {});
    const events = await collectEvents(provider, request(specs()));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([{ type: "tool_call", id: "call_scripted_1_0", name: "apply_patch", input: { input: PATCH } }]);
    expect(events.at(-1)).toEqual({ type: "done", stopReason: "tool_use" });
  });

  it("reads a custom tool call from the non-streaming endpoint and from a whole-call chunk", async () => {
    const whole = await setup([{ toolCalls: [{ name: "apply_patch", input: PATCH, custom: true }] }], { stream: false });
    const events = await collectEvents(whole, request(specs()));
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({ name: "apply_patch", input: { input: PATCH } });
    await server!.close();
    const chunked = await setup([{ wholeToolCalls: true, toolCalls: [{ name: "apply_patch", input: PATCH, custom: true }] }], {});
    const again = await collectEvents(chunked, request(specs()));
    expect(again.find((e) => e.type === "tool_call")).toMatchObject({ name: "apply_patch", input: { input: PATCH } });
  });

  it("sends the call back as a custom call with its text, and the result as a tool message", async () => {
    const provider = await setup([{ text: "done" }], {});
    await collectEvents(
      provider,
      request(specs(), [
        { role: "user", text: "fix a.py" },
        { role: "assistant", text: "", toolCalls: [{ id: "call_1", name: "apply_patch", input: { input: PATCH } }] },
        { role: "tool", callId: "call_1", name: "apply_patch", content: "Applied: a.py +1 -1", isError: false },
      ]),
    );
    const messages = server!.requests[0]!.body.messages as unknown[];
    expect(messages.slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "custom", custom: { name: "apply_patch", input: PATCH } }] },
      { role: "tool", tool_call_id: "call_1", content: "Applied: a.py +1 -1" },
    ]);
  });

  it("falls back to a function tool with one string argument on an OpenAI-compatible server, for GPT-4.1, and with the setting off", async () => {
    const cases: Array<[Partial<ProviderConfig>, "auto" | "off"]> = [
      [{ provider: "openai-compatible" }, "auto"],
      [{ model: "gpt-4.1" }, "auto"],
      [{ model: "o3" }, "auto"],
      [{}, "off"],
    ];
    for (const [config, setting] of cases) {
      const provider = await setup([{ toolCalls: [{ name: "apply_patch", input: { input: PATCH } }] }], config);
      const events = await collectEvents(provider, request(specs(setting)));
      expect(wireTool("apply_patch"), JSON.stringify(config)).toMatchObject({
        type: "function",
        function: { name: "apply_patch", parameters: { properties: { input: { type: "string" } }, required: ["input"] } },
      });
      expect(wireTools().every((t) => t.type === "function")).toBe(true);
      expect(events.find((e) => e.type === "tool_call")).toMatchObject({ name: "apply_patch", input: { input: PATCH } });
      await server!.close();
      server = undefined;
    }
  });

  it("offers the custom tool on a compatible server when the setting is on", async () => {
    const provider = await setup([{ text: "ok" }], { provider: "openai-compatible", model: "my-local-model" });
    await collectEvents(provider, request(specs("on")));
    expect(wireTool("apply_patch").type).toBe("custom");
  });

  it("leaves the tool list as it was for edit_file sessions and when no freeform tool is offered", async () => {
    const provider = await setup([{ text: "ok" }], {});
    await collectEvents(provider, request(new ToolRegistry(createBuiltinTools("edit_file")).specs()));
    expect(wireTools().every((t) => t.type === "function")).toBe(true);
  });

  it("knows which models have custom tools", () => {
    for (const m of ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-codex", "openai/gpt-5.1", "GPT-5"]) expect(hasCustomTools(m), m).toBe(true);
    for (const m of ["gpt-4.1", "gpt-4o", "o3", "o4-mini", "codex-mini-latest", "claude-sonnet-4-5", "qwen3-coder"]) expect(hasCustomTools(m), m).toBe(false);
  });
});
