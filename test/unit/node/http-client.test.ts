/**
 * Yoke's HTTP client (src/node/http-client/node-fetch.ts) under the real provider SDKs, over real
 * HTTP to the scripted LLM server, with a front server (test/support/http-front.ts) that
 * compresses, redirects or resets. Outcomes: what the server received, which connections closed,
 * what the provider yields. No timing assertions: waits poll with generous deadlines.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createProvider } from "../../../src/core/providers/create";
import { withRetries } from "../../../src/core/providers/retry";
import { type Provider, type ProviderConfig, ProviderError } from "../../../src/core/providers/types";
import { type ScriptedServer, type ScriptedTurn, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";
import { createNodeFetch } from "../../../src/node/http-client/node-fetch";
import { HttpClientChoiceError, providerFetch } from "../../../src/node/http-client/provider-fetch";
import { type Front, type FrontMode, startFront } from "../../support/http-front";
import { collectEvents, streamError, textOf, userRequest } from "../../support/llm";

const nodeFetch = createNodeFetch();
let server: ScriptedServer | undefined;
const fronts: Front[] = [];
afterEach(async () => {
  for (const f of fronts.splice(0)) await f.close();
  await server?.close();
  server = undefined;
});

type Format = "anthropic" | "openai";
const FORMATS: Format[] = ["anthropic", "openai"];

async function scripted(script: ScriptedTurn[]): Promise<ScriptedServer> {
  server = await startScriptedLlmServer({ script });
  return server;
}

async function front(mode: FrontMode, opts: Parameters<typeof startFront>[2] = {}): Promise<Front> {
  const f = await startFront(server!.url, mode, opts);
  fronts.push(f);
  return f;
}

/** A provider of `format` at `origin` (a server or a front) over Yoke's client. */
function providerAt(format: Format, origin: string, extra: Partial<ProviderConfig> = {}): Provider {
  return format === "anthropic"
    ? createProvider({ provider: "anthropic", model: "claude-sonnet-4-6", baseUrl: origin, apiKey: "sk-ant-test", fetch: nodeFetch, ...extra })
    : createProvider({ provider: "openai-compatible", model: "m", baseUrl: `${origin}/v1`, apiKey: "sk-test", fetch: nodeFetch, ...extra });
}

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const LONG = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");

describe.each(FORMATS)("Yoke's HTTP client under the %s SDK", (format) => {
  it("streams a whole answer with tool calls and usage", async () => {
    const s = await scripted([{ text: "Here it is.", toolCalls: [{ name: "read_file", input: { path: "a.ts" } }], usage: { input: 12, output: 5 }, chunkDelayMs: 1 }]);
    const events = await collectEvents(providerAt(format, s.url), userRequest("hi"));
    expect(textOf(events)).toBe("Here it is.");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(1);
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({ name: "read_file", input: { path: "a.ts" } });
    expect(events.at(-1)).toEqual({ type: "done", stopReason: "tool_use" });
    expect(s.requests[0]).toMatchObject({ stream: true });
  });

  for (const mode of ["gzip", "br"] as const) {
    it(`decodes a ${mode} answer, streamed and whole`, async () => {
      await scripted([{ text: LONG }, { text: "whole " + LONG }]);
      const f = await front(mode);
      expect(textOf(await collectEvents(providerAt(format, f.url), userRequest("x")))).toBe(LONG);
      expect(textOf(await collectEvents(providerAt(format, f.url, { stream: false }), userRequest("x")))).toBe("whole " + LONG);
    });
  }

  it("sends and receives large bodies whole", async () => {
    const big = "x".repeat(3_000_000) + " end";
    const answer = Array.from({ length: 40_000 }, (_, i) => `w${i}`).join(" ");
    const s = await scripted([{ text: answer }]);
    const events = await collectEvents(providerAt(format, s.url), userRequest(big));
    expect(textOf(events)).toBe(answer);
    expect(JSON.stringify(s.requests[0]!.body)).toContain(big);
  });

  it("follows a redirect with the request body, as fetch does", async () => {
    const s = await scripted([{ text: "moved answer" }]);
    const f = await front("redirect");
    expect(textOf(await collectEvents(providerAt(format, f.url), userRequest("the question")))).toBe("moved answer");
    expect(f.count()).toBe(2);
    expect(JSON.stringify(s.requests[0]!.body)).toContain("the question");
  });

  it("drops the API key on a redirect to another origin", async () => {
    const s = await scripted([{ text: "elsewhere" }]);
    const f = await front("redirect-away", { away: s.url });
    expect(textOf(await collectEvents(providerAt(format, f.url), userRequest("x")))).toBe("elsewhere");
    const headers = s.requests[0]!.headers;
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
    if (format === "anthropic") {
      // The same redirect with Node's fetch: it does not send the key on either (parity, measured).
      const other = await startScriptedLlmServer({ script: [{ text: "elsewhere" }] });
      try {
        const f2 = await front("redirect-away", { away: other.url });
        const viaFetch = createProvider({ provider: "anthropic", model: "claude-sonnet-4-6", baseUrl: f2.url, apiKey: "sk-ant-test" });
        expect(textOf(await collectEvents(viaFetch, userRequest("x")))).toBe("elsewhere");
        expect(other.requests[0]!.headers["x-api-key"]).toBeUndefined();
      } finally {
        await other.close();
      }
    }
  });

  it("retries 429, 529 and 500 with their retry-after through Yoke's retries", async () => {
    const s = await scripted([
      { error: { status: 429, headers: { "retry-after": "2" } } },
      { error: { status: 529, headers: { "retry-after-ms": "1500" } } },
      { error: { status: 500 } },
      { text: "at last" },
    ]);
    const waits: number[] = [];
    const kinds: string[] = [];
    const provider = withRetries(providerAt(format, s.url), { sleep: async (ms) => void waits.push(ms), random: () => 0.5, onRetry: ({ error }) => kinds.push(error.kind) });
    expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("at last");
    expect(kinds).toEqual(["rate_limit", "overloaded", "server"]);
    expect(waits.slice(0, 2)).toEqual([2000, 1500]);
    expect(s.requests).toHaveLength(4);
  });

  it("a connection reset mid-stream is a network error, and the retry gets the whole answer", async () => {
    await scripted([{ text: LONG, chunkDelayMs: 1 }, { text: "second try" }]);
    const f = await front("reset-once");
    const seen: unknown[] = [];
    const err = await streamError(providerAt(format, f.url), userRequest("x"), seen as never[]);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("network");
    expect((err as ProviderError).retryable).toBe(true);
    expect(f.resets()).toBe(1);
    const provider = withRetries(providerAt(format, f.url), { sleep: async () => {} });
    expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("second try");
  });

  it("sends a request again on a new connection when the kept-alive one was reset before any answer", async () => {
    await scripted([{ text: "one" }, { text: "two" }]);
    const f = await front("reset-reused");
    const provider = providerAt(format, f.url);
    expect(textOf(await collectEvents(provider, userRequest("x")))).toBe("one");
    expect(textOf(await collectEvents(provider, userRequest("y")))).toBe("two");
    expect(f.resets()).toBe(1);
    expect(server!.requests).toHaveLength(2);
  });

  it("an abort while the answer streams ends the request as cancelled and closes the connection", async () => {
    await scripted([{ text: "never finished", hang: true }]);
    const f = await front("plain");
    const controller = new AbortController();
    const provider = providerAt(format, f.url);
    const pending = streamError(provider, userRequest("x", { signal: controller.signal }));
    await until("the server to have the request", () => server!.requests.length === 1);
    controller.abort();
    const err = await pending;
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("aborted");
    await until("the front to see its response cut short", () => f.cutShort() === 1);
  });

  it("refuses a self-signed HTTPS server (no request reaches it)", async () => {
    const { selfSignedCert } = await import("../../support/http-front");
    const tls = selfSignedCert();
    const s = await scripted([{ text: "should not be read" }]);
    const f = await front("plain", { tls });
    const err = await streamError(providerAt(format, f.url), userRequest("x"));
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).kind).toBe("network");
    expect(s.requests).toHaveLength(0);
  });
});

describe("the client at the fetch level", () => {
  it("hands each chunk of an event stream over as it arrives, through gzip too, and an abort errors the body", async () => {
    for (const mode of ["plain", "gzip"] as const) {
      await scripted([{ text: "first part then more", hang: true }]);
      const f = await front(mode);
      const controller = new AbortController();
      const res = await nodeFetch(`${f.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      // The server holds back everything after its first event until the connection closes.
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain("message_start");
      controller.abort();
      await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
      await until("the front to see its response cut short", () => f.cutShort() === 1);
      for (const x of fronts.splice(0)) await x.close();
      await server!.close();
      server = undefined;
    }
  });

  it("answers like fetch: status, headers, url, json, text once", async () => {
    const s = await scripted([]);
    const res = await nodeFetch(`${s.url}/v1/models`);
    expect(res.ok).toBe(true);
    expect(res.headers.get("content-type")).toMatch(/json/);
    expect(res.url).toBe(`${s.url}/v1/models`);
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data[0]!.id).toBe("scripted-model");
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it("rejects like fetch: a refused connection, a bad URL, credentials in the URL, a body on GET", async () => {
    const s = await scripted([]);
    const port = new URL(s.url).port;
    await s.close();
    server = undefined;
    await expect(nodeFetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ name: "TypeError", message: "fetch failed", cause: { code: "ECONNREFUSED" } });
    await expect(nodeFetch("not a url")).rejects.toThrow(/Failed to parse URL/);
    await expect(nodeFetch("http://u:p@127.0.0.1/")).rejects.toThrow(/credentials/);
    await expect(nodeFetch("http://127.0.0.1/", { method: "GET", body: "x" })).rejects.toThrow(/GET\/HEAD/);
  });

  it("follows a redirect from http: to https: over TLS (node:https is loaded when first needed)", async () => {
    const { createServer } = await import("node:http");
    const { selfSignedCert } = await import("../../support/http-front");
    const s = await scripted([{ text: "never read" }]);
    const secure = await front("plain", { tls: selfSignedCert() });
    const mover = createServer((_req, res) => {
      res.writeHead(307, { location: `${secure.url}/v1/messages` });
      res.end();
    });
    await new Promise<void>((resolve) => mover.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = mover.address() as import("node:net").AddressInfo;
      // Over TLS the self-signed certificate is refused, as fetch refuses it: no request gets through.
      await expect(createNodeFetch()(`http://127.0.0.1:${port}/v1/messages`, { method: "POST", body: "{}" })).rejects.toMatchObject({
        name: "TypeError",
        message: "fetch failed",
        cause: { code: expect.stringMatching(/SELF_SIGNED/) },
      });
      expect(s.requests).toHaveLength(0);
    } finally {
      await new Promise((resolve) => mover.close(resolve));
    }
  });

  it("decodes deflate zlib-wrapped and raw, and several codings in order; a body that is not what it says is an error", async () => {
    const { createServer } = await import("node:http");
    const zlib = await import("node:zlib");
    const bodies: Record<string, [string, Buffer]> = {
      "/zlib": ["deflate", zlib.deflateSync("wrapped")],
      "/raw": ["deflate", zlib.deflateRawSync("raw")],
      "/both": ["deflate, gzip", zlib.gzipSync(zlib.deflateSync("both"))],
      "/bad": ["gzip", Buffer.from("not gzip at all")],
    };
    const http = createServer((req, res) => {
      const [coding, bytes] = bodies[req.url ?? ""]!;
      res.writeHead(200, { "content-encoding": coding });
      res.end(bytes);
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    try {
      expect(await (await nodeFetch(`${base}/zlib`)).text()).toBe("wrapped");
      expect(await (await nodeFetch(`${base}/raw`)).text()).toBe("raw");
      expect(await (await nodeFetch(`${base}/both`)).text()).toBe("both");
      await expect((await nodeFetch(`${base}/bad`)).text()).rejects.toMatchObject({ message: "terminated", cause: { code: "Z_DATA_ERROR" } });
    } finally {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  it("refuses more than 5 content codings as Node's fetch does (red team O: 2,500 gzip layers of 80 KB cost 84 s of CPU)", async () => {
    const { createServer } = await import("node:http");
    const zlib = await import("node:zlib");
    const layered = (n: number) => {
      let b = Buffer.from('{"ok":1}');
      for (let i = 0; i < n; i++) b = zlib.gzipSync(b, { level: 1 });
      return b;
    };
    const bodies: Record<string, [number, Buffer]> = { "/five": [5, layered(5)], "/six": [6, layered(6)], "/many": [2500, layered(2500)] };
    let served = 0;
    const http = createServer((req, res) => {
      const [n, bytes] = bodies[req.url ?? ""]!;
      served++;
      res.writeHead(200, { "content-type": "application/json", "content-encoding": Array(n).fill("gzip").join(",") });
      res.end(bytes);
    });
    await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
    try {
      for (const client of [nodeFetch, globalThis.fetch]) {
        expect(await (await client(`${base}/five`)).json()).toEqual({ ok: 1 });
        for (const path of ["/six", "/many"])
          await expect(client(`${base}${path}`)).rejects.toMatchObject({
            message: "fetch failed",
            cause: { message: expect.stringMatching(/^too many content-encodings in response: \d+, maximum allowed is 5$/) },
          });
      }
      expect(served).toBe(6);
    } finally {
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    }
  });

  it("a redirect with a streamed body is refused, as fetch refuses it", async () => {
    await scripted([{ text: "x" }]);
    const f = await front("redirect");
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify({ model: "m", max_tokens: 1, messages: [{ role: "user", content: "hi" }] })));
        c.close();
      },
    });
    await expect(nodeFetch(`${f.url}/v1/messages`, { method: "POST", body, duplex: "half" } as RequestInit)).rejects.toMatchObject({
      message: "fetch failed",
      cause: { message: expect.stringMatching(/cannot be sent twice/) },
    });
  });
});

describe("which client a yoke process uses", () => {
  it("Yoke's own without proxy variables, Node's fetch with one or when asked; a bad choice is refused", () => {
    expect(providerFetch({})).toBeTypeOf("function");
    for (const v of ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "ALL_PROXY", "no_proxy"]) expect(providerFetch({ [v]: "http://proxy:3128" })).toBeUndefined();
    expect(providerFetch({ HTTPS_PROXY: " " })).toBeTypeOf("function");
    expect(providerFetch({ YOKE_HTTP_CLIENT: "fetch" })).toBeUndefined();
    expect(providerFetch({ YOKE_HTTP_CLIENT: "node", HTTPS_PROXY: "http://proxy:3128" })).toBeTypeOf("function");
    expect(() => providerFetch({ YOKE_HTTP_CLIENT: "curl" })).toThrow(HttpClientChoiceError);
    expect(() => providerFetch({ YOKE_HTTP_CLIENT: "curl" })).toThrow(/use "node".*or "fetch"/);
  });
});
