/** Provider over the official `@anthropic-ai/sdk` client (Anthropic, or a gateway at baseUrl). */
import type Anthropic from "@anthropic-ai/sdk";
import type { Usage } from "../events";
import { toAnthropicMessages, toAnthropicSystem, toAnthropicTools } from "./anthropic-messages";
import { parseArguments } from "./conversation";
import { classifyFailure, type FailureContext, sdkFailureInfo } from "./errors";
import { type ChatRequest, type Provider, type ProviderConfig, type ProviderEvent, ProviderError, EFFORT_REFUSAL, effortRefusedNote } from "./types";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com";
const DEFAULT_MAX_TOKENS = 16_000;

/**
 * The SDK is loaded on the first request, not with this module: in the bundles it is a file of its
 * own (dist/anthropic-sdk.js, esbuild.mjs), so a session on another provider, or a command that
 * calls no model, never compiles it.
 */
let sdk: Promise<typeof Anthropic> | undefined;
function loadSdk(): Promise<typeof Anthropic> {
  sdk ??= import("@anthropic-ai/sdk").then((m) => m.default);
  return sdk;
}

type RawUsage = Partial<Record<"input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens", number | null>>;

/** Adds the non-null fields of `u` to an accumulated Usage (message_delta repeats totals, so it overwrites). */
function mergeUsage(into: Usage, u: RawUsage | null | undefined): void {
  if (!u) return;
  if (u.input_tokens != null) into.inputTokens = u.input_tokens;
  if (u.output_tokens != null) into.outputTokens = u.output_tokens;
  if (u.cache_read_input_tokens != null) into.cacheReadTokens = u.cache_read_input_tokens;
  if (u.cache_creation_input_tokens != null) into.cacheWriteTokens = u.cache_creation_input_tokens;
}

/** Anthropic Messages over `@anthropic-ai/sdk`, with prompt-cache breakpoints; errors are thrown as classified ProviderErrors. */
export class AnthropicProvider implements Provider {
  readonly id = "anthropic" as const;
  readonly model: string;
  /** Made on the first request (the SDK loads then); its class checks the errors the SDK throws. */
  private client?: { api: Anthropic; sdk: typeof Anthropic };
  private readonly ctx: FailureContext;
  /** Lowered when the server names the model's output limit. */
  private maxTokensCap = Number.POSITIVE_INFINITY;
  /** The model refused `output_config.effort` once: it is not sent again. */
  private effortRefused = false;

  constructor(private readonly config: ProviderConfig) {
    this.model = config.model;
    const baseURL = config.baseUrl ?? ANTHROPIC_BASE_URL;
    this.ctx = {
      providerName: "Anthropic",
      baseUrl: baseURL,
      model: config.model,
      apiKeyEnv: config.apiKeyEnv,
      hasKey: Boolean(config.apiKey),
      timeoutMs: config.timeoutMs,
    };
  }

  /** The models the Models API lists (GET /v1/models), at most `limit`. */
  async listModels(limit: number, signal?: AbortSignal): Promise<string[]> {
    const out: string[] = [];
    for await (const m of (await this.api()).models.list({ limit: Math.min(limit, 1000) }, { signal, maxRetries: 0 })) {
      if (typeof m.id === "string" && m.id) out.push(m.id);
      if (out.length >= limit) break;
    }
    return out;
  }

  private async api(): Promise<Anthropic> {
    if (!this.client) {
      const Sdk = await loadSdk();
      const api = new Sdk({
        apiKey: this.config.apiKey || "no-key",
        baseURL: this.ctx.baseUrl,
        maxRetries: 0,
        timeout: this.config.timeoutMs ?? 600_000,
        defaultHeaders: this.config.headers,
        ...(this.config.fetch ? { fetch: this.config.fetch } : {}),
      });
      this.client ??= { api, sdk: Sdk };
    }
    return this.client.api;
  }

  private params(req: ChatRequest) {
    const system = toAnthropicSystem(req.system);
    return {
      model: this.model,
      max_tokens: Math.min(req.maxOutputTokens ?? this.config.maxOutputTokens ?? DEFAULT_MAX_TOKENS, this.maxTokensCap),
      messages: toAnthropicMessages(req),
      ...(system ? { system } : {}),
      ...(req.tools.length ? { tools: toAnthropicTools(req.tools) } : {}),
      ...(req.tools.length && req.toolChoice ? { tool_choice: { type: req.toolChoice === "required" ? ("any" as const) : req.toolChoice } } : {}),
      ...(req.effort && !this.effortRefused ? { output_config: { effort: req.effort } } : {}),
    };
  }

  async *stream(req: ChatRequest): AsyncIterable<ProviderEvent> {
    let yielded = false;
    try {
      for await (const e of this.config.stream === false ? this.complete(req) : this.streamed(req)) {
        yielded = true;
        yield e;
      }
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      const failure = classifyFailure(sdkFailureInfo(err, this.client?.sdk, req.signal), this.ctx);
      // "max_tokens: 16000 > 8192, which is the maximum allowed ...": ask once more within the model's limit.
      const limit = /max_tokens: \d+ > (\d+)/.exec(failure.message);
      if (!yielded && failure.kind === "bad_request" && limit && Number(limit[1]) < this.maxTokensCap) {
        this.maxTokensCap = Number(limit[1]);
        yield* this.stream(req);
        return;
      }
      // A model without effort levels: it answers without one (said in the log), and is not sent one again.
      if (!yielded && failure.kind === "bad_request" && req.effort && !this.effortRefused && EFFORT_REFUSAL.test(failure.message)) {
        this.effortRefused = true;
        yield effortRefusedNote(this.model, req.effort, failure.message);
        yield* this.stream(req);
        return;
      }
      throw failure;
    }
  }

  private async *streamed(req: ChatRequest): AsyncIterable<ProviderEvent> {
    const stream = await (await this.api()).messages.create({ ...this.params(req), stream: true }, { signal: req.signal });
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const tools = new Map<number, { id: string; name: string; json: string; input: unknown }>();
    let stop = "end_turn";
    let sawUsage = false;
    let complete = false;
    for await (const ev of stream) {
      switch (ev.type) {
        case "message_start":
          sawUsage = true;
          mergeUsage(usage, ev.message.usage);
          break;
        case "content_block_start":
          if (ev.content_block.type === "tool_use") {
            const b = ev.content_block;
            tools.set(ev.index, { id: b.id, name: b.name, json: "", input: b.input });
          }
          break;
        case "content_block_delta": {
          const d = ev.delta;
          if (d.type === "text_delta" && d.text) yield { type: "text_delta", text: d.text };
          else if (d.type === "thinking_delta" && d.thinking) yield { type: "reasoning_delta", text: d.thinking };
          else if (d.type === "input_json_delta") {
            const t = tools.get(ev.index);
            if (t) t.json += d.partial_json;
          }
          break;
        }
        case "content_block_stop": {
          const t = tools.get(ev.index);
          if (t) {
            tools.delete(ev.index);
            yield { type: "tool_call", id: t.id, name: t.name, input: t.json ? parseArguments(t.json) : (t.input ?? {}) };
          }
          break;
        }
        case "message_delta":
          // Some gateways end without message_stop; a stop_reason is as good.
          if (ev.delta.stop_reason) {
            stop = ev.delta.stop_reason;
            complete = true;
          }
          sawUsage = true;
          mergeUsage(usage, ev.usage);
          break;
        case "message_stop":
          complete = true;
          break;
      }
    }
    // The SDK ends an aborted stream quietly; a cut-off answer must not look complete.
    if (req.signal?.aborted) throw new ProviderError("aborted", "the request was cancelled");
    if (!complete) {
      throw new ProviderError("network", `the response from ${this.ctx.baseUrl} ended before the message was complete: try again`);
    }
    if (sawUsage) yield { type: "usage", usage };
    yield { type: "done", stopReason: stop };
  }

  private async *complete(req: ChatRequest): AsyncIterable<ProviderEvent> {
    const msg = await (await this.api()).messages.create({ ...this.params(req), stream: false }, { signal: req.signal });
    for (const b of msg.content) {
      if (b.type === "thinking" && b.thinking) yield { type: "reasoning_delta", text: b.thinking };
      else if (b.type === "text" && b.text) yield { type: "text_delta", text: b.text };
      else if (b.type === "tool_use") yield { type: "tool_call", id: b.id, name: b.name, input: b.input ?? {} };
    }
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    mergeUsage(usage, msg.usage);
    yield { type: "usage", usage };
    yield { type: "done", stopReason: msg.stop_reason ?? "end_turn" };
  }
}
