import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createProvider as createWith } from "../../../src/core/providers/create";
import { retryDelay, withRetries } from "../../../src/core/providers/retry";
import { type Provider, type ProviderEvent, ProviderError } from "../../../src/core/providers/types";
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

async function openAi(script: ScriptedTurn[]): Promise<Provider> {
  server = await startScriptedLlmServer({ script });
  return createProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl });
}

/** Records the waits instead of sleeping. */
function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe.each(HTTP_CLIENTS)("over $name", ({ fetch }) => {
  beforeAll(() => {
    clientFetch = fetch;
  });

  describe("withRetries", () => {
    it("waits the retry-after of a 429 and then succeeds", async () => {
      const inner = await openAi([{ error: { status: 429, headers: { "retry-after": "3" } } }, { text: "after the wait" }]);
      const { waits, sleep } = fakeSleep();
      const events = await collectEvents(withRetries(inner, { sleep }), userRequest("x"));
      expect(textOf(events)).toBe("after the wait");
      expect(waits).toEqual([3000]);
      expect(server!.requests).toHaveLength(2);
    });

    it("really sleeps a short retry-after-ms before retrying", async () => {
      const inner = await openAi([{ error: { status: 429, headers: { "retry-after-ms": "250" } } }, { text: "ok" }]);
      const started = Date.now();
      const events = await collectEvents(withRetries(inner), userRequest("x"));
      const elapsed = Date.now() - started;
      expect(textOf(events)).toBe("ok");
      expect(elapsed).toBeGreaterThanOrEqual(240);
      expect(elapsed).toBeLessThan(2000);
    });

    it("retries a 500 with exponential backoff and reports each retry", async () => {
      const inner = await openAi([{ error: { status: 500 } }, { error: { status: 502 } }, { text: "third time" }]);
      const { waits, sleep } = fakeSleep();
      const retries: Array<{ attempt: number; kind: string }> = [];
      const provider = withRetries(inner, {
        sleep,
        random: () => 0.5,
        onRetry: ({ attempt, error }) => retries.push({ attempt, kind: error.kind }),
      });
      expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("third time");
      expect(retries).toEqual([
        { attempt: 1, kind: "server" },
        { attempt: 2, kind: "server" },
      ]);
      // base 1000 ms doubled per retry, jitter factor 0.5 + 0.5 * random = 0.75
      expect(waits).toEqual([750, 1500]);
    });

    it("gives up after maxRetries with the last error", async () => {
      const inner = await openAi([{ error: { status: 503 } }, { error: { status: 503 } }, { error: { status: 503 } }]);
      const { waits, sleep } = fakeSleep();
      const err = (await streamError(withRetries(inner, { sleep, maxRetries: 2 }), userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("server");
      expect(err.message).toContain("failed with a server error (HTTP 503): try again");
      expect(waits).toHaveLength(2);
      expect(server!.requests).toHaveLength(3);
    });

    it("does not retry errors the user must fix", async () => {
      const inner = await openAi([{ error: { status: 401 } }, { text: "never" }]);
      const { waits, sleep } = fakeSleep();
      const err = (await streamError(withRetries(inner, { sleep }), userRequest("x"))) as ProviderError;
      expect(err.kind).toBe("auth");
      expect(waits).toEqual([]);
      expect(server!.requests).toHaveLength(1);
    });

    it("never retries once output has been yielded", async () => {
      let calls = 0;
      const flaky: Provider = {
        id: "scripted",
        model: "m",
        async *stream() {
          calls++;
          yield { type: "text_delta", text: "partial " };
          throw new ProviderError("network", "connection reset");
        },
      };
      const seen: ProviderEvent[] = [];
      const { waits, sleep } = fakeSleep();
      const err = (await streamError(withRetries(flaky, { sleep }), userRequest("x"), seen)) as ProviderError;
      expect(err.message).toBe("connection reset");
      expect(calls).toBe(1);
      expect(seen).toEqual([{ type: "text_delta", text: "partial " }]);
      expect(waits).toEqual([]);
    });

    it("does not retry an overloaded error that arrives after streamed text (real SDK)", async () => {
      server = await startScriptedLlmServer({
        script: [{ text: "partial answer that is cut off midway", midStreamError: { type: "overloaded_error", message: "Overloaded" } }, { text: "never" }],
      });
      const inner = createProvider({ provider: "anthropic", model: "claude-haiku-4-5", baseUrl: server.anthropicBaseUrl, apiKey: "k" });
      const { waits, sleep } = fakeSleep();
      const seen: ProviderEvent[] = [];
      const err = (await streamError(withRetries(inner, { sleep }), userRequest("x"), seen)) as ProviderError;
      expect(err.kind).toBe("overloaded");
      expect(textOf(seen)).not.toBe("");
      expect("partial answer that is cut off midway".startsWith(textOf(seen))).toBe(true);
      expect(waits).toEqual([]);
      expect(server.requests).toHaveLength(1);
    });

    it("stops waiting at once when the request is aborted during backoff", async () => {
      const inner = await openAi([{ error: { status: 500 } }, { text: "never" }]);
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 100);
      const provider = withRetries(inner, { baseDelayMs: 10_000, random: () => 0 });
      const err = (await streamError(provider, userRequest("x", { signal: controller.signal }))) as ProviderError;
      expect(err.kind).toBe("aborted");
      expect(Date.now() - started).toBeLessThan(2000);
      expect(server!.requests).toHaveLength(1);
    });

    it("does not wait for a retry-after longer than the cap", () => {
      const err = new ProviderError("rate_limit", "slow down", 429, 3_600_000);
      expect(retryDelay(err, 1)).toBeUndefined();
      expect(retryDelay(new ProviderError("rate_limit", "x", 429, 5000), 1)).toBe(5000);
    });

    it("caps exponential backoff at maxDelayMs", () => {
      const err = new ProviderError("overloaded", "busy", 529);
      expect(retryDelay(err, 10, { maxDelayMs: 30_000, random: () => 0.999 })).toBeLessThanOrEqual(30_000);
      expect(retryDelay(err, 1, { random: () => 0 })).toBe(500);
    });
  });
});
