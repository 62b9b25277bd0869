/**
 * Bench section "providers": the provider layer over the real SDKs against the scripted server
 * on loopback: time to the first text delta, stream throughput, and how fast a cancel lands.
 */
import { createProvider } from "../core/providers/create";
import type { ChatRequest, Provider, ProviderConfig } from "../core/providers/types";
import { startScriptedLlmServer } from "../demo/scripted-llm-server";
import { providerFetch } from "../node/http-client/provider-fetch";
import type { ScriptedTurn } from "../demo/types";
import type { BenchMetric, BenchSection } from "./types";

const RUNS = 15;
const LONG_TEXT = Array.from({ length: 4000 }, (_, i) => `word${i}`).join(" ");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const request = (signal?: AbortSignal): ChatRequest => ({ system: "bench", messages: [{ role: "user", text: "hi" }], tools: [], signal });

async function firstDeltaMs(provider: Provider): Promise<number> {
  const started = performance.now();
  let first = 0;
  for await (const e of provider.stream(request())) if (!first && e.type === "text_delta") first = performance.now() - started;
  return first;
}

async function throughput(provider: Provider): Promise<number> {
  const started = performance.now();
  let deltas = 0;
  for await (const e of provider.stream(request())) if (e.type === "text_delta") deltas++;
  return deltas / ((performance.now() - started) / 1000);
}

async function cancelMs(provider: Provider): Promise<number> {
  const controller = new AbortController();
  let abortedAt = 0;
  setTimeout(() => {
    abortedAt = performance.now();
    controller.abort();
  }, 50);
  try {
    for await (const e of provider.stream(request(controller.signal))) void e;
  } catch {
    return performance.now() - abortedAt;
  }
  throw new Error("the hanging stream ended without an error");
}

async function measure(format: "openai" | "anthropic"): Promise<BenchMetric[]> {
  const server = await startScriptedLlmServer({ script: (): ScriptedTurn => ({ text: "hello there" }) });
  // The HTTP client a `yoke` process would use here (src/node/http-client/provider-fetch.ts).
  const fetch = providerFetch();
  const config = (s: { openaiBaseUrl: string; anthropicBaseUrl: string }): ProviderConfig =>
    format === "openai"
      ? { provider: "openai-compatible", model: "bench", baseUrl: s.openaiBaseUrl, fetch }
      : { provider: "anthropic", model: "bench", baseUrl: s.anthropicBaseUrl, apiKey: "bench", fetch };
  try {
    const provider = createProvider(config(server));
    await firstDeltaMs(provider); // warm-up
    const ttft: number[] = [];
    for (let i = 0; i < RUNS; i++) ttft.push(await firstDeltaMs(provider));

    const longServer = await startScriptedLlmServer({ script: () => ({ text: LONG_TEXT }) });
    const rate = await throughput(createProvider(config(longServer))).finally(() => longServer.close());

    const hangServer = await startScriptedLlmServer({ script: () => ({ text: "x", hang: true }) });
    const hanging = createProvider(config(hangServer));
    const cancels: number[] = [];
    for (let i = 0; i < 5; i++) cancels.push(await cancelMs(hanging));
    await hangServer.close();
    return [
      { name: `${format}: time to first text delta (median of ${RUNS})`, value: +median(ttft).toFixed(2), unit: "ms" },
      { name: `${format}: text deltas per second (2,000-delta answer)`, value: Math.round(rate), unit: "deltas/s" },
      { name: `${format}: cancel to error, hanging stream (median of 5)`, value: +median(cancels).toFixed(2), unit: "ms" },
    ];
  } finally {
    await server.close();
  }
}

export async function bench(): Promise<BenchSection> {
  return {
    section: "providers",
    method:
      "Real `openai` and `@anthropic-ai/sdk` clients through Yoke's providers against the scripted LLM server on 127.0.0.1 " +
      "(no chunk delay): first-delta latency, streaming rate of a long answer, and the time from abort() to the thrown 'aborted' error.",
    metrics: [...(await measure("openai")), ...(await measure("anthropic"))],
  };
}
