import { describe, expect, it } from "vitest";
import { createProvider, ProviderConfigError } from "../../../src/core/providers/create";
import { costOf, priceOf } from "../../../src/core/providers/pricing";

const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe("pricing", () => {
  it("matches dated and gateway-prefixed model names by prefix", () => {
    expect(priceOf("claude-haiku-4-5-20251001")).toMatchObject({ input: 1, output: 5 });
    expect(priceOf("anthropic/claude-sonnet-4.5")).toMatchObject({ input: 3, output: 15 });
    expect(priceOf("us.anthropic.claude-opus-4-1-20250805-v1:0")).toMatchObject({ input: 15, output: 75 });
    expect(priceOf("gpt-4o-mini-2024-07-18")).toMatchObject({ input: 0.15, output: 0.6 });
    expect(priceOf("gpt-5-mini")).toMatchObject({ input: 0.25 });
    expect(priceOf("openai/gpt-4.1")).toMatchObject({ input: 2, output: 8 });
  });

  it("prices the old and the new Opus tiers differently", () => {
    expect(costOf("claude-opus-4-20250514", usage)).toBe(90);
    expect(costOf("claude-opus-4-6", usage)).toBe(30);
  });

  it("counts cache reads and writes at their own prices", () => {
    const cost = costOf("claude-haiku-4-5", { inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 });
    expect(cost).toBeCloseTo(0.1 + 1.25, 10);
  });

  it("returns undefined for unknown and local models", () => {
    expect(costOf("llama3.1:8b", usage)).toBeUndefined();
    expect(costOf("gpt-oss-20b", usage)).toBeUndefined();
    expect(costOf("o3x", usage)).toBeUndefined();
  });
});

describe("createProvider", () => {
  it("builds each provider kind with its id and model", () => {
    expect(createProvider({ provider: "anthropic", model: "claude-opus-4-6" })).toMatchObject({ id: "anthropic", model: "claude-opus-4-6" });
    expect(createProvider({ provider: "openai", model: "gpt-5" })).toMatchObject({ id: "openai", model: "gpt-5" });
    expect(createProvider({ provider: "openai-compatible", model: "qwen", baseUrl: "http://127.0.0.1:11434/v1" }).id).toBe("openai-compatible");
  });

  it("asks for a base URL when openai-compatible has none", () => {
    expect(() => createProvider({ provider: "openai-compatible", model: "qwen" })).toThrow(ProviderConfigError);
    expect(() => createProvider({ provider: "openai-compatible", model: "qwen" })).toThrow(/needs a base URL: set --base-url/);
  });

  it("refuses vscode-lm outside the extension host and names the reason", () => {
    expect(() => createProvider({ provider: "vscode-lm", model: "copilot-gpt-4o" })).toThrow(/only available inside VS Code/);
  });

  it("refuses a malformed base URL and a missing model", () => {
    expect(() => createProvider({ provider: "openai", model: "gpt-5", baseUrl: "localhost:1234" })).toThrow(/must start with http/);
    expect(() => createProvider({ provider: "openai", model: "gpt-5", baseUrl: "not a url" })).toThrow(/not a valid URL/);
    expect(() => createProvider({ provider: "anthropic", model: " " })).toThrow(/no model is set/);
  });
});
