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

async function setup(script: ScriptedTurn[], extra: { stream?: boolean; apiKey?: string; model?: string } = {}) {
  server = await startScriptedLlmServer({ script });
  const provider = createProvider({
    provider: "openai-compatible",
    model: extra.model ?? "gpt-4o",
    baseUrl: server.openaiBaseUrl,
    stream: extra.stream,
    apiKey: extra.apiKey,
  });
  return { server, provider };
}

describe.each(HTTP_CLIENTS)("over $name", ({ fetch }) => {
  beforeAll(() => {
    clientFetch = fetch;
  });

  describe("OpenAiProvider", () => {
    it("streams text deltas in order when the server sends several chunks", async () => {
      const text = "Hello there, this is a streamed answer in several pieces.";
      const { provider, server } = await setup([{ text, chunkDelayMs: 2 }]);
      const events = await collectEvents(provider, userRequest("hi"));
      const deltas = events.filter((e) => e.type === "text_delta");
      expect(deltas.length).toBeGreaterThan(3);
      expect(textOf(events)).toBe(text);
      expect(events.at(-1)).toEqual({ type: "done", stopReason: "end_turn" });
      expect(server.requests[0]).toMatchObject({ format: "openai", path: "/v1/chat/completions", stream: true });
      expect(server.requests[0].body.stream_options).toEqual({ include_usage: true });
    });

    it("reassembles tool calls streamed in fragments and parses their arguments", async () => {
      const input = { path: "src/some/rather/long/path/to/a/file.ts", offset: 10 };
      const { provider } = await setup([
        {
          text: "Let me look.",
          toolCalls: [
            { name: "read_file", input },
            { name: "list_files", input: { path: "." } },
          ],
        },
      ]);
      const events = await collectEvents(provider, userRequest("read it"));
      const calls = events.filter((e) => e.type === "tool_call");
      expect(calls).toEqual([
        { type: "tool_call", id: "call_scripted_1_0", name: "read_file", input },
        { type: "tool_call", id: "call_scripted_1_1", name: "list_files", input: { path: "." } },
      ]);
      expect(events.at(-1)).toEqual({ type: "done", stopReason: "tool_use" });
    });

    it("keeps whole tool calls apart when the server sends them without index", async () => {
      const { provider } = await setup([
        {
          wholeToolCalls: true,
          toolCalls: [
            { name: "read_file", input: { path: "a" } },
            { name: "read_file", input: { path: "b" } },
          ],
        },
      ]);
      const events = await collectEvents(provider, userRequest("x"));
      expect(events.filter((e) => e.type === "tool_call")).toEqual([
        { type: "tool_call", id: "call_scripted_1_0", name: "read_file", input: { path: "a" } },
        { type: "tool_call", id: "call_scripted_1_1", name: "read_file", input: { path: "b" } },
      ]);
    });

    it("keeps the raw string as input when tool arguments are not JSON", async () => {
      const { provider } = await setup([{ toolCalls: [{ name: "read_file", input: "{not json" }] }]);
      // The scripted server JSON-encodes input, so a string input arrives as a JSON string literal.
      const events = await collectEvents(provider, userRequest("x"));
      const call = events.find((e) => e.type === "tool_call");
      expect(call).toMatchObject({ name: "read_file", input: "{not json" });
    });

    it("yields the same events from the non-streaming endpoint when stream is false", async () => {
      const turn = { text: "Whole answer.", reasoning: "thinking it over", toolCalls: [{ name: "list_files", input: { path: "." } }], usage: { input: 100, output: 20 } };
      const { provider, server } = await setup([turn], { stream: false });
      const events = await collectEvents(provider, userRequest("x"));
      expect(server.requests[0].stream).toBe(false);
      expect(events).toEqual([
        { type: "reasoning_delta", text: "thinking it over" },
        { type: "text_delta", text: "Whole answer." },
        { type: "tool_call", id: "call_scripted_1_0", name: "list_files", input: { path: "." } },
        { type: "usage", usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 } },
        { type: "done", stopReason: "tool_use" },
      ]);
    });

    it("reports usage with cached tokens split out and prices it", async () => {
      const { provider } = await setup([{ text: "ok", usage: { input: 1000, output: 500, cacheRead: 4000 } }]);
      const events = await collectEvents(provider, userRequest("x"));
      const usage = events.find((e): e is Extract<ProviderEvent, { type: "usage" }> => e.type === "usage")!.usage;
      expect(usage).toEqual({ inputTokens: 1000, outputTokens: 500, cacheReadTokens: 4000, cacheWriteTokens: 0 });
      // gpt-4o: $2.50 in, $10 out, $1.25 cached, per million.
      expect(costOf("gpt-4o", usage)).toBeCloseTo((1000 * 2.5 + 500 * 10 + 4000 * 1.25) / 1e6, 10);
    });

    it("ends with done and no usage event when the server reports no usage", async () => {
      const { provider } = await setup([{ text: "no usage here", noUsage: true }]);
      const events = await collectEvents(provider, userRequest("x"));
      expect(events.some((e) => e.type === "usage")).toBe(false);
      expect(textOf(events)).toBe("no usage here");
      expect(events.at(-1)).toEqual({ type: "done", stopReason: "end_turn" });
    });

    it("asks again without stream_options when a server refuses them", async () => {
      const refusal = { error: { message: "Unrecognized request argument supplied: stream_options", type: "invalid_request_error" } };
      const { provider, server } = await setup([{ error: { status: 400, body: refusal } }, { text: "fine" }, { text: "again" }]);
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("fine");
      expect(textOf(await collectEvents(provider, userRequest("y")))).toBe("again");
      expect(server.requests.map((r) => "stream_options" in r.body)).toEqual([true, false, false]);
    });

    it("maps reasoning_content and reasoning deltas to reasoning_delta", async () => {
      const { provider } = await setup([
        { reasoning: "First I think. Then I answer.", text: "Answer." },
        { reasoning: "OpenRouter style.", reasoningField: "reasoning", text: "Two." },
      ]);
      const a = await collectEvents(provider, userRequest("x"));
      const b = await collectEvents(provider, userRequest("y"));
      const reasoning = (ev: ProviderEvent[]) => ev.flatMap((e) => (e.type === "reasoning_delta" ? [e.text] : [])).join("");
      expect(reasoning(a)).toBe("First I think. Then I answer.");
      expect(reasoning(b)).toBe("OpenRouter style.");
      expect(a.findIndex((e) => e.type === "reasoning_delta")).toBeLessThan(a.findIndex((e) => e.type === "text_delta"));
    });

    it("sends the conversation, tools in stable order, and tool results as tool messages", async () => {
      const { provider, server } = await setup([{ text: "a" }, { text: "b" }]);
      const req = userRequest("x", {
        messages: [
          { role: "user", text: "read a.ts" },
          { role: "assistant", text: "", toolCalls: [{ id: "c1", name: "read_file", input: { path: "a.ts" } }] },
          { role: "tool", callId: "c1", name: "read_file", content: "1#ZZ|x", isError: false },
        ],
      });
      await collectEvents(provider, req);
      await collectEvents(provider, req);
      const [first, second] = server.requests;
      expect(first.body.messages).toEqual([
        { role: "system", content: "You are a test assistant." },
        { role: "user", content: "read a.ts" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
        { role: "tool", tool_call_id: "c1", content: "1#ZZ|x" },
      ]);
      const names = (first.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
      expect(names).toEqual(["read_file", "list_files"]);
      expect(JSON.stringify(second.body.tools)).toBe(JSON.stringify(first.body.tools));
    });

    it("works without an API key against a keyless local server", async () => {
      const { provider, server } = await setup([{ text: "local" }]);
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("local");
      expect(server.requests[0].headers.authorization).toBe("***");
    });

    it("honours the OpenAI base URL given for provider openai", async () => {
      server = await startScriptedLlmServer({ script: [{ text: "from scripted" }] });
      const provider = createProvider({ provider: "openai", model: "gpt-4.1", baseUrl: server.openaiBaseUrl, apiKey: "sk-test" });
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("from scripted");
      expect(server.requests[0].body.model).toBe("gpt-4.1");
    });
  });

  describe("OpenAiProvider errors", () => {
    it("says the key was rejected and how to set it when the server answers 401", async () => {
      server = await startScriptedLlmServer({ script: [{ text: "never" }], apiKey: "sk-right" });
      const p = createProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl, apiKey: "sk-wrong", apiKeyEnv: "MY_KEY" });
      const err = (await streamError(p, userRequest("x"))) as ProviderError;
      expect(err).toBeInstanceOf(ProviderError);
      expect(err.kind).toBe("auth");
      expect(err.status).toBe(401);
      expect(err.message).toContain(`the API key was rejected by the OpenAI-compatible server at ${server.openaiBaseUrl}`);
      expect(err.message).toContain(`set it with "Yoke: Set API Key" or the MY_KEY environment variable`);
    });

    it("says no key is set when a server needs one and none was configured", async () => {
      server = await startScriptedLlmServer({ script: [{ text: "never" }], apiKey: "sk-right" });
      const p = createProvider({ provider: "openai", model: "gpt-4o", baseUrl: server.openaiBaseUrl });
      const err = (await streamError(p, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("auth");
      expect(err.message).toContain(`no API key is set for OpenAI at ${server.openaiBaseUrl}`);
      expect(err.message).toContain("the OPENAI_API_KEY environment variable");
    });

    it("names the model and the URL when the server answers 404", async () => {
      const { provider, server } = await setup([{ error: { status: 404 } }], { model: "no-such-model" });
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("not_found");
      expect(err.message).toContain(`model "no-such-model" or URL not found at ${server.openaiBaseUrl}`);
    });

    it("hints at /v1 when a base URL without it leads to a 404", async () => {
      server = await startScriptedLlmServer({ script: [{ text: "unused" }] });
      const provider = createProvider({ provider: "openai-compatible", model: "llama3", baseUrl: server.url });
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("not_found");
      expect(err.message).toContain("base URL ending in /v1");
    });

    it("reports context_length when OpenAI answers context_length_exceeded", async () => {
      const body = { error: { message: "This model's maximum context length is 128000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } };
      const { provider } = await setup([{ error: { status: 400, body } }]);
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("context_length");
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(`the conversation is too long for model "gpt-4o"'s context window: compact the session or start a new one`);
    });

    it("says the server cannot be reached when nothing listens", async () => {
      const { server: s } = await setup([]);
      const url = s.openaiBaseUrl;
      await s.close();
      server = undefined;
      const provider = createProvider({ provider: "openai-compatible", model: "m", baseUrl: url });
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("network");
      expect(err.message).toContain(`could not reach ${url}: is the server running?`);
      expect(err.retryable).toBe(true);
    });

    it("says the request timed out when the server answers too slowly", async () => {
      server = await startScriptedLlmServer({ script: [{ text: "late", delayMs: 3000 }] });
      const provider = createProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl, timeoutMs: 300 });
      const started = Date.now();
      const err = (await streamError(provider, userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("network");
      expect(err.message).toBe(`the request to ${server.openaiBaseUrl} timed out after 300 ms: is the server running and responsive?`);
      expect(Date.now() - started).toBeLessThan(2500);
    });

    it("classifies an error sent inside the stream after some text", async () => {
      const { provider } = await setup([{ text: "one two three four five six", midStreamError: { type: "server_error", message: "backend crashed" } }]);
      const seen: ProviderEvent[] = [];
      const err = (await streamError(provider, userRequest("x"), seen)) as ProviderError;
      expect(err.kind).toBe("server");
      expect(err.message).toContain("backend crashed");
      expect(textOf(seen).length).toBeGreaterThan(0);
    });

    it("fails with a network error when the stream ends without a finish_reason", async () => {
      const { provider, server } = await setup([{ text: "a long answer that the server stops sending halfway", cutOff: true }]);
      const seen: ProviderEvent[] = [];
      const err = (await streamError(provider, userRequest("x"), seen)) as ProviderError;
      expect(err.kind).toBe("network");
      expect(err.message).toContain(`the response from ${server.openaiBaseUrl} ended before the answer was complete`);
      expect(seen.some((e) => e.type === "done")).toBe(false);
    });

    it("ends promptly with kind aborted when a hanging stream is cancelled", async () => {
      const { provider } = await setup([{ text: "never finishes", hang: true }]);
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 150);
      const err = (await streamError(provider, userRequest("x", { signal: controller.signal }))) as ProviderError;
      expect(err.kind).toBe("aborted");
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });
});
