import { afterEach, describe, expect, it } from "vitest";
import { createProvider } from "../../../src/core/providers/create";
import { createThinkSplitter } from "../../../src/core/providers/think-tags";
import type { ProviderEvent } from "../../../src/core/providers/types";
import { type ScriptedServer, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";
import { collectEvents, textOf, userRequest } from "../../support/llm";

function split(chunks: string[]): { reasoning: string; text: string } {
  const s = createThinkSplitter();
  const out = [...chunks.flatMap((c) => s.push(c)), ...s.flush()];
  const join = (t: ProviderEvent["type"]) => out.flatMap((e) => (e.type === t ? [(e as { text: string }).text] : [])).join("");
  return { reasoning: join("reasoning_delta"), text: join("text_delta") };
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("createThinkSplitter", () => {
  it("splits a leading <think> block out whatever the chunking", () => {
    const whole = "<think>Plan: read first.</think>\n\nHere is the answer.";
    for (let size = 1; size <= whole.length; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < whole.length; i += size) chunks.push(whole.slice(i, i + size));
      expect(split(chunks)).toEqual({ reasoning: "Plan: read first.", text: "Here is the answer." });
    }
  });

  it("leaves text alone when it does not start with <think>", () => {
    expect(split(["Use the ", "<think> tag ", "like this."])).toEqual({ reasoning: "", text: "Use the <think> tag like this." });
    expect(split(["<thi", "s is odd"])).toEqual({ reasoning: "", text: "<this is odd" });
  });

  it("keeps an unclosed think block as reasoning", () => {
    expect(split(["<think>still thinking", " </thi"])).toEqual({ reasoning: "still thinking </thi", text: "" });
  });

  it("turns <think> content from an OpenAI-compatible server into reasoning deltas", async () => {
    server = await startScriptedLlmServer({ script: [{ text: "<think>The user wants a greeting.</think>\n\nHello!" }] });
    const provider = createProvider({ provider: "openai-compatible", model: "qwen3", baseUrl: server.openaiBaseUrl });
    const events = await collectEvents(provider, userRequest("hi"));
    expect(textOf(events)).toBe("Hello!");
    expect(
      events
        .filter((e) => e.type === "reasoning_delta")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("The user wants a greeting.");
  });
});
