import { describe, expect, it } from "vitest";
import { classifyFailure, type FailureContext, parseRetryAfter } from "../../../src/core/providers/errors";

const ctx: FailureContext = { providerName: "Anthropic", baseUrl: "https://api.anthropic.com", model: "claude-opus-4-6", hasKey: true };

describe("parseRetryAfter", () => {
  it("reads seconds, milliseconds and HTTP dates", () => {
    expect(parseRetryAfter({ headers: { "Retry-After": "7" } })).toBe(7000);
    expect(parseRetryAfter({ headers: { "retry-after": "1.5" } })).toBe(1500);
    expect(parseRetryAfter({ headers: { "retry-after-ms": "120", "retry-after": "9" } })).toBe(120);
    const now = Date.parse("2026-11-30T01:00:00Z");
    expect(parseRetryAfter({ headers: new Headers({ "retry-after": "Mon, 30 Nov 2026 01:00:30 GMT" }) }, now)).toBe(30_000);
  });

  it("ignores a missing or unreadable header", () => {
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter({ headers: { "retry-after": "soon" } })).toBeUndefined();
  });
});

describe("classifyFailure", () => {
  it("classifies overloaded errors sent inside a stream", () => {
    const err = classifyFailure({ body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }, ctx);
    expect(err.kind).toBe("overloaded");
    expect(err.retryable).toBe(true);
  });

  it("recognises llama.cpp and vLLM context errors", () => {
    const o = { ...ctx, providerName: "the OpenAI-compatible server" };
    expect(classifyFailure({ status: 400, body: { error: { message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" } } }, o).kind).toBe(
      "context_length",
    );
    expect(classifyFailure({ status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens" } } }, o).kind).toBe("context_length");
  });

  it("says the request was cancelled for an abort", () => {
    const err = classifyFailure({ transport: "aborted" }, ctx);
    expect(err.kind).toBe("aborted");
    expect(err.message).toBe("the request was cancelled");
  });

  it("names the URL and the timeout for a timeout", () => {
    const err = classifyFailure({ transport: "timeout" }, { ...ctx, timeoutMs: 30_000 });
    expect(err.kind).toBe("network");
    expect(err.message).toBe("the request to https://api.anthropic.com timed out after 30 s: is the server running and responsive?");
  });

  it("quotes the server's own message for other 4xx errors", () => {
    const err = classifyFailure({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "tools.0.name: invalid" } } }, ctx);
    expect(err.kind).toBe("bad_request");
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('Anthropic rejected the request (HTTP 400) (Anthropic said: "tools.0.name: invalid")');
  });

  it("does not retry a 429 that means the quota is used up", () => {
    const body = { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", code: "insufficient_quota" } };
    const err = classifyFailure({ status: 429, body }, { ...ctx, providerName: "OpenAI" });
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("OpenAI says the account has no quota left (HTTP 429): check the plan and billing of this API key");
  });

  it("treats 403 as auth and 429 as rate_limit", () => {
    expect(classifyFailure({ status: 403 }, ctx).kind).toBe("auth");
    const rl = classifyFailure({ status: 429, headers: { "retry-after": "4" } }, ctx);
    expect(rl.kind).toBe("rate_limit");
    expect(rl.retryAfterMs).toBe(4000);
    expect(rl.message).toContain("Anthropic rate limit reached (HTTP 429): wait a moment and try again");
  });
});
