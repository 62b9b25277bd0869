import { describe, expect, it } from "vitest";
import { toAnthropicMessages } from "../../../src/core/providers/anthropic-messages";
import { pairToolResults } from "../../../src/core/providers/conversation";
import { toOpenAiMessages } from "../../../src/core/providers/openai";
import type { ChatRequest, ModelMessage } from "../../../src/core/providers/types";

const interrupted: ModelMessage[] = [
  { role: "user", text: "run both" },
  {
    role: "assistant",
    text: "",
    toolCalls: [
      { id: "a", name: "grep", input: { pattern: "x" } },
      { id: "b", name: "glob", input: { pattern: "*" } },
    ],
  },
  { role: "tool", callId: "a", name: "grep", content: "no matches", isError: false },
  { role: "user", text: "stop, do something else" },
];
const req = (messages: ModelMessage[]): ChatRequest => ({ system: "", messages, tools: [] });

describe("pairToolResults", () => {
  it("adds an error result for a call that has none, right after the results it has", () => {
    const out = pairToolResults(interrupted);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(out[3]).toEqual({ role: "tool", callId: "b", name: "glob", content: "No result: the tool call was interrupted before it finished.", isError: true });
  });

  it("turns a result without a call into user text", () => {
    const out = pairToolResults([{ role: "tool", callId: "zz", name: "read_file", content: "abc", isError: false }]);
    expect(out).toEqual([{ role: "user", text: "[result of read_file]\nabc" }]);
  });
});

describe("wire mappings", () => {
  it("puts a user message after tool results into the same Anthropic user turn, results first", () => {
    const msgs = toAnthropicMessages(req(interrupted));
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(msgs[2].content.map((b) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(msgs[1].content.map((b) => b.type)).toEqual(["tool_use", "tool_use"]);
  });

  it("sends a raw-string tool input back as given to OpenAI and as an object to Anthropic", () => {
    const messages: ModelMessage[] = [
      { role: "user", text: "x" },
      { role: "assistant", text: "", toolCalls: [{ id: "a", name: "read_file", input: "{bad json" }] },
      { role: "tool", callId: "a", name: "read_file", content: "Arguments were not valid JSON", isError: true },
    ];
    const o = toOpenAiMessages(req(messages));
    expect(o[1]).toMatchObject({ tool_calls: [{ function: { arguments: "{bad json" } }] });
    const a = toAnthropicMessages(req(messages));
    expect(a[1].content[0]).toMatchObject({ type: "tool_use", input: {} });
    expect(a[2].content[0]).toMatchObject({ type: "tool_result", is_error: true });
  });

  it("drops an empty assistant turn for Anthropic and keeps roles alternating", () => {
    const msgs = toAnthropicMessages(
      req([
        { role: "user", text: "a" },
        { role: "assistant", text: "  ", toolCalls: [] },
        { role: "user", text: "b" },
      ]),
    );
    expect(msgs).toHaveLength(1);
    expect(msgs[0].content.map((b) => (b as { text: string }).text)).toEqual(["a", "b"]);
  });
});
