// The vscode-lm provider against a stand-in for VS Code's Language Model API (vscode is not a
// module outside the extension host; the stand-in implements just the classes the provider uses).
import { describe, expect, it, vi } from "vitest";

vi.mock("vscode", () => {
  class LanguageModelTextPart {
    constructor(readonly value: string) {}
  }
  class LanguageModelToolCallPart {
    constructor(
      readonly callId: string,
      readonly name: string,
      readonly input: object,
    ) {}
  }
  class LanguageModelToolResultPart {
    constructor(
      readonly callId: string,
      readonly content: unknown[],
    ) {}
  }
  class LanguageModelChatMessage {
    constructor(
      readonly role: string,
      readonly content: unknown,
    ) {}
    static User(content: unknown) {
      return new LanguageModelChatMessage("user", content);
    }
    static Assistant(content: unknown) {
      return new LanguageModelChatMessage("assistant", content);
    }
  }
  class LanguageModelError extends Error {
    static NoPermissions = { name: "NoPermissions" };
    static NotFound = { name: "NotFound" };
    static Blocked = { name: "Blocked" };
    constructor(
      message: string,
      readonly code: string,
    ) {
      super(message);
    }
  }
  class CancellationError extends Error {}
  class CancellationTokenSource {
    token = { isCancellationRequested: false };
    cancel() {
      this.token.isCancellationRequested = true;
    }
    dispose() {}
  }
  const state: { models: Array<{ id: string; family: string; sendRequest: (...a: unknown[]) => unknown }> } = { models: [] };
  return {
    __state: state,
    LanguageModelTextPart,
    LanguageModelToolCallPart,
    LanguageModelToolResultPart,
    LanguageModelChatMessage,
    LanguageModelError,
    CancellationError,
    CancellationTokenSource,
    LanguageModelChatToolMode: { Auto: 1, Required: 2 },
    lm: {
      selectChatModels: async (sel: { id?: string; family?: string }) => state.models.filter((m) => (sel.id === undefined || m.id === sel.id) && (sel.family === undefined || m.family === sel.family)),
    },
  };
});

const vscode = (await import("vscode")) as unknown as {
  __state: { models: Array<{ id: string; family: string; sendRequest: (...a: never[]) => unknown }> };
  LanguageModelTextPart: new (v: string) => unknown;
  LanguageModelToolCallPart: new (id: string, name: string, input: object) => unknown;
  LanguageModelError: new (m: string, code: string) => Error;
};
const { createVscodeLmProvider, toLmMessages } = await import("../../../src/host/vscode-lm-provider");
const { ProviderError } = await import("../../../src/core/providers/types");

async function collect(iter: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of iter) out.push(e);
  return out;
}

const request = (signal?: AbortSignal) => ({
  system: "You are Yoke.",
  messages: [
    { role: "user" as const, text: "read a.ts" },
    { role: "assistant" as const, text: "", toolCalls: [{ id: "c1", name: "read_file", input: { path: "a.ts" } }] },
    { role: "tool" as const, callId: "c1", name: "read_file", content: "1#ZZ|x", isError: false },
  ],
  tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object" } }],
  signal,
});

describe("vscode-lm provider", () => {
  it("sends the system prompt first and tool results as user messages with result parts", () => {
    const msgs = toLmMessages("sys", request().messages) as unknown as Array<{ role: string; content: unknown }>;
    expect(msgs.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(msgs[0]!.content).toBe("sys");
    expect(msgs[2]!.content).toEqual([{ callId: "c1", name: "read_file", input: { path: "a.ts" } }]);
    expect(msgs[3]!.content).toEqual([{ callId: "c1", content: [{ value: "1#ZZ|x" }] }]);
  });

  it("streams text and tool calls and passes the tools to the model", async () => {
    let options: { tools?: Array<{ name: string }> } = {};
    vscode.__state.models = [
      {
        id: "copilot-gpt-4o",
        family: "gpt-4o",
        sendRequest: async (_m: unknown, o: typeof options) => {
          options = o;
          return {
            stream: (async function* () {
              yield new vscode.LanguageModelTextPart("Reading ");
              yield new vscode.LanguageModelToolCallPart("c2", "read_file", { path: "b.ts" });
            })(),
          };
        },
      },
    ];
    const events = await collect(createVscodeLmProvider("gpt-4o").stream(request()));
    expect(options.tools?.map((t) => t.name)).toEqual(["read_file"]);
    expect(events).toEqual([
      { type: "text_delta", text: "Reading " },
      { type: "tool_call", id: "c2", name: "read_file", input: { path: "b.ts" } },
      { type: "done", stopReason: "tool_use" },
    ]);
  });

  it("names the available models when the configured one is missing", async () => {
    vscode.__state.models = [{ id: "copilot-gpt-4o", family: "gpt-4o", sendRequest: async () => ({ stream: [] }) }];
    const err = await collect(createVscodeLmProvider("claude-9").stream(request())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as InstanceType<typeof ProviderError>).kind).toBe("not_found");
    expect((err as Error).message).toContain('No VS Code language model matches "claude-9". Available: copilot-gpt-4o');
  });

  it("classifies a refused permission as an auth error with a hint", async () => {
    vscode.__state.models = [{ id: "m", family: "m", sendRequest: async () => Promise.reject(new vscode.LanguageModelError("The user did not consent.", "NoPermissions")) }];
    const err = (await collect(createVscodeLmProvider("m").stream(request())).catch((e: unknown) => e)) as InstanceType<typeof ProviderError>;
    expect(err.kind).toBe("auth");
    expect(err.message).toContain("Allow Yoke to use this model");
  });

  it("counts usage with the model's tokenizer, each message once", async () => {
    const counts: unknown[] = [];
    const model = {
      id: "counting",
      family: "counting",
      vendor: "test",
      countTokens: async (x: unknown) => (counts.push(x), typeof x === "string" ? x.length : 10),
      sendRequest: async () => ({
        stream: (async function* () {
          yield new vscode.LanguageModelTextPart("abcdef");
        })(),
      }),
    };
    vscode.__state.models = [model];
    const provider = createVscodeLmProvider("counting");
    const events = await collect(provider.stream(request()));
    // 4 messages (system, user, assistant call, tool result) at 10 each; the answer "abcdef" is 6.
    expect(events).toContainEqual({ type: "usage", usage: { inputTokens: 40, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(counts).toHaveLength(5);
    const longer = { ...request(), messages: [...request().messages, { role: "user" as const, text: "and b.ts?" }] };
    const again = await collect(provider.stream(longer));
    expect(again).toContainEqual({ type: "usage", usage: { inputTokens: 50, outputTokens: 6, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    expect(counts).toHaveLength(7); // only the new message and the answer were counted
  });

  it("classifies a blocked request as a rate limit", async () => {
    vscode.__state.models = [{ id: "m", family: "m", sendRequest: async () => Promise.reject(new vscode.LanguageModelError("Quota exceeded.", "Blocked")) }];
    const err = (await collect(createVscodeLmProvider("m").stream(request())).catch((e: unknown) => e)) as InstanceType<typeof ProviderError>;
    expect(err.kind).toBe("rate_limit");
    expect(err.retryable).toBe(true);
  });

  it("reports an aborted request as aborted", async () => {
    const ctl = new AbortController();
    vscode.__state.models = [
      {
        id: "m",
        family: "m",
        sendRequest: async () => ({
          stream: (async function* () {
            yield new vscode.LanguageModelTextPart("partial");
            ctl.abort();
            yield new vscode.LanguageModelTextPart(" more");
          })(),
        }),
      },
    ];
    const err = (await collect(createVscodeLmProvider("m").stream(request(ctl.signal))).catch((e: unknown) => e)) as InstanceType<typeof ProviderError>;
    expect(err.kind).toBe("aborted");
  });
});
