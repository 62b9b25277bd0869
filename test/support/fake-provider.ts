/** A provider that replays scripted ProviderEvents (or errors) and records each request. */
import type { ChatRequest, Provider, ProviderEvent } from "../../src/core/providers/types";

export type FakeTurn = ProviderEvent[] | Error | ((req: ChatRequest) => AsyncIterable<ProviderEvent>);

export interface FakeProvider extends Provider {
  requests: ChatRequest[];
}

export function createFakeProvider(turns: FakeTurn[], model = "fake-model"): FakeProvider {
  const requests: ChatRequest[] = [];
  let i = 0;
  return {
    id: "openai-compatible",
    model,
    requests,
    async *stream(req: ChatRequest) {
      requests.push(structuredClone({ ...req, signal: undefined }));
      const turn = turns[i++];
      if (turn === undefined) throw new Error(`fake provider: no turn ${i}`);
      if (turn instanceof Error) throw turn;
      if (typeof turn === "function") {
        yield* turn(req);
        return;
      }
      for (const ev of turn) yield ev;
    },
  };
}

export function textTurn(text: string): ProviderEvent[] {
  return [
    { type: "text_delta", text: text.slice(0, Math.ceil(text.length / 2)) },
    { type: "text_delta", text: text.slice(Math.ceil(text.length / 2)) },
    { type: "usage", usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { type: "done", stopReason: "end_turn" },
  ];
}

export function toolTurn(...calls: Array<{ id: string; name: string; input: unknown }>): ProviderEvent[] {
  return [...calls.map((c) => ({ type: "tool_call" as const, ...c })), { type: "done", stopReason: "tool_use" }];
}
