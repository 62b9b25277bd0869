import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createProvider as createWith } from "../../../src/core/providers/create";
import { costOf } from "../../../src/core/providers/pricing";
import { type ProviderEvent, ProviderError } from "../../../src/core/providers/types";
import { type ScriptedServer, type ScriptedTurn, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";
import { collectEvents, streamError, textOf, userRequest } from "../../support/llm";
import type { ProviderConfig, ProviderFetch } from "../../../src/core/providers/types";
import { HTTP_CLIENTS } from "../../support/http-clients";

/** Every test below runs under each HTTP client the SDKs may be given (test/support/http-clients.ts). */
let clientFetch: ProviderFetch | undefined;
const createProvider = (c: ProviderConfig) => createWith({ ...c, ...(clientFetch ? { fetch: clientFetch } : {}) });

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptedTurn[], extra: { stream?: boolean; model?: string } = {}) {
  server = await startScriptedLlmServer({ script });
  const provider = createProvider({
    provider: "anthropic",
    model: extra.model ?? "claude-sonnet-4-6",
    baseUrl: server.anthropicBaseUrl,
    apiKey: "sk-ant-test",
    stream: extra.stream,
  });
  return { server, provider };
}

type Body = { system?: unknown; tools?: Array<Record<string, unknown>>; messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };

describe.each(HTTP_CLIENTS)("over $name", ({ fetch }) => {
  beforeAll(() => {
    clientFetch = fetch;
  });

  describe("AnthropicProvider", () => {
    it("streams text deltas in order through the real SDK", async () => {
      const text = "Sure. Here is a longer answer that arrives in many small pieces.";
      const { provider, server } = await setup([{ text, chunkDelayMs: 2 }]);
      const events = await collectEvents(provider, userRequest("hi"));
      expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(3);
      expect(textOf(events)).toBe(text);
      expect(events.at(-1)).toEqual({ type: "done", stopReason: "end_turn" });
      expect(server.requests[0]).toMatchObject({ format: "anthropic", path: "/v1/messages", stream: true });
      const headers = server.requests[0].headers;
      expect(headers["x-api-key"] ?? headers.authorization).toBe("***");
      expect(JSON.stringify(headers)).not.toContain("sk-ant-test");
    });

    it("reassembles tool_use input from input_json_delta fragments", async () => {
      const input = { path: "docs/architecture/overview.md", offset: 1, limit: 200 };
      const { provider } = await setup([{ text: "Reading.", toolCalls: [{ name: "read_file", input }] }]);
      const events = await collectEvents(provider, userRequest("x"));
      expect(events.filter((e) => e.type === "tool_call")).toEqual([{ type: "tool_call", id: "toolu_scripted_1_0", name: "read_file", input }]);
      expect(events.at(-1)).toEqual({ type: "done", stopReason: "tool_use" });
    });

    it("maps thinking deltas to reasoning_delta before the text", async () => {
      const { provider } = await setup([{ reasoning: "Consider the files first.", text: "Done." }]);
      const events = await collectEvents(provider, userRequest("x"));
      const reasoning = events.flatMap((e) => (e.type === "reasoning_delta" ? [e.text] : [])).join("");
      expect(reasoning).toBe("Consider the files first.");
      expect(events.findIndex((e) => e.type === "reasoning_delta")).toBeLessThan(events.findIndex((e) => e.type === "text_delta"));
    });

    it("reports usage including cache reads and writes, and prices it", async () => {
      const { provider } = await setup([{ text: "ok", usage: { input: 50, output: 400, cacheRead: 9000, cacheWrite: 1200 } }]);
      const events = await collectEvents(provider, userRequest("x"));
      const usage = events.find((e): e is Extract<ProviderEvent, { type: "usage" }> => e.type === "usage")!.usage;
      expect(usage).toEqual({ inputTokens: 50, outputTokens: 400, cacheReadTokens: 9000, cacheWriteTokens: 1200 });
      // Sonnet 4.x: $3 in, $15 out, $0.30 cache read, $3.75 cache write, per million.
      expect(costOf("claude-sonnet-4-6", usage)).toBeCloseTo((50 * 3 + 400 * 15 + 9000 * 0.3 + 1200 * 3.75) / 1e6, 10);
    });

    it("yields the same events from the non-streaming endpoint when stream is false", async () => {
      const { provider, server } = await setup([{ reasoning: "hm", text: "Whole.", toolCalls: [{ name: "list_files", input: { path: "." } }], usage: { input: 7, output: 3 } }], { stream: false });
      const events = await collectEvents(provider, userRequest("x"));
      expect(server.requests[0].stream).toBe(false);
      expect(events).toEqual([
        { type: "reasoning_delta", text: "hm" },
        { type: "text_delta", text: "Whole." },
        { type: "tool_call", id: "toolu_scripted_1_0", name: "list_files", input: { path: "." } },
        { type: "usage", usage: { inputTokens: 7, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 } },
        { type: "done", stopReason: "tool_use" },
      ]);
    });

    it("places cache_control breakpoints on the system prompt, the last tool and the last user message", async () => {
      const { provider, server } = await setup([{ text: "a" }]);
      await collectEvents(
        provider,
        userRequest("x", {
          messages: [
            { role: "user", text: "list and read" },
            {
              role: "assistant",
              text: "Looking.",
              toolCalls: [
                { id: "t1", name: "list_files", input: { path: "." } },
                { id: "t2", name: "read_file", input: { path: "a" } },
              ],
            },
            { role: "tool", callId: "t1", name: "list_files", content: "a\nb", isError: false },
            { role: "tool", callId: "t2", name: "read_file", content: "no such file", isError: true },
          ],
        }),
      );
      const body = server.requests[0].body as unknown as Body;
      expect(body.system).toEqual([{ type: "text", text: "You are a test assistant.", cache_control: { type: "ephemeral" } }]);
      expect(body.tools!.map((t) => t.name)).toEqual(["read_file", "list_files"]);
      expect(body.tools![0].cache_control).toBeUndefined();
      expect(body.tools![1].cache_control).toEqual({ type: "ephemeral" });
      // Consecutive tool results are merged into one user message of tool_result blocks.
      expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(body.messages[2].content).toEqual([
        { type: "tool_result", tool_use_id: "t1", content: "a\nb" },
        { type: "tool_result", tool_use_id: "t2", content: "no such file", is_error: true, cache_control: { type: "ephemeral" } },
      ]);
      expect(body.messages[1].content).toEqual([
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "t1", name: "list_files", input: { path: "." } },
        { type: "tool_use", id: "t2", name: "read_file", input: { path: "a" } },
      ]);
      expect(body.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" });
      const breakpoints = JSON.stringify(body).match(/"cache_control"/g)!.length;
      expect(breakpoints).toBeLessThanOrEqual(4);
    });

    it("keeps the cached prefix byte-identical across turns", async () => {
      const { provider, server } = await setup([{ text: "a" }, { text: "b" }]);
      const first = userRequest("x");
      await collectEvents(provider, first);
      await collectEvents(provider, { ...first, messages: [...first.messages, { role: "assistant", text: "a", toolCalls: [] }, { role: "user", text: "more" }] });
      const [a, b] = server.requests.map((r) => r.body as unknown as Body);
      expect(JSON.stringify(b.system)).toBe(JSON.stringify(a.system));
      expect(JSON.stringify(b.tools)).toBe(JSON.stringify(a.tools));
    });

    it("honours the base URL of an Anthropic-compatible gateway", async () => {
      const { provider, server } = await setup([{ text: "via gateway" }]);
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("via gateway");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0].body.model).toBe("claude-sonnet-4-6");
    });
  });

  describe("AnthropicProvider errors", () => {
    it("says the key was rejected by Anthropic and how to set it on 401", async () => {
      const { provider, server } = await setup([{ error: { status: 401 } }]);
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("auth");
      expect(err.message).toContain(`the API key was rejected by Anthropic at ${server.anthropicBaseUrl}`);
      expect(err.message).toContain(`"Yoke: Set API Key" or the ANTHROPIC_API_KEY environment variable`);
    });

    it("reports context_length when Anthropic says the prompt is too long", async () => {
      const body = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 212000 tokens > 200000 maximum" } };
      const { provider } = await setup([{ error: { status: 400, body } }]);
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("context_length");
      expect(err.message).toContain("compact the session or start a new one");
      expect(err.message).toContain("prompt is too long");
    });

    it("asks again within the model's output limit when max_tokens is too high", async () => {
      const body = { type: "error", error: { type: "invalid_request_error", message: "max_tokens: 16000 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022" } };
      const { provider, server } = await setup([{ error: { status: 400, body } }, { text: "ok" }, { text: "again" }], { model: "claude-3-5-haiku-20241022" });
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("ok");
      expect(textOf(await collectEvents(provider, userRequest("y")))).toBe("again");
      expect(server.requests.map((r) => r.body.max_tokens)).toEqual([16000, 8192, 8192]);
    });

    it("classifies 529 as overloaded with its retry-after", async () => {
      const { provider } = await setup([{ error: { status: 529, headers: { "retry-after": "2" } } }]);
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("overloaded");
      expect(err.retryAfterMs).toBe(2000);
      expect(err.message).toContain("Anthropic is overloaded (HTTP 529): try again in a moment");
    });

    it("fails with a network error when the stream is cut off before the message ends", async () => {
      const { provider, server } = await setup([{ text: "a long answer that will never be finished by the server", cutOff: true }]);
      const seen: ProviderEvent[] = [];
      const err = (await streamError(provider, userRequest("x"), seen)) as ProviderError;
      expect(err.kind).toBe("network");
      expect(err.message).toBe(`the response from ${server.anthropicBaseUrl} ended before the message was complete: try again`);
      expect(seen.some((e) => e.type === "done")).toBe(false);
    });

    it("ends promptly with kind aborted when a hanging stream is cancelled", async () => {
      const { provider } = await setup([{ text: "never", hang: true }]);
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 150);
      const err = (await streamError(provider, userRequest("x", { signal: controller.signal }))) as ProviderError;
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe("aborted");
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
});
