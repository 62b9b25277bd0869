/**
 * Provider over the official `openai` client: OpenAI itself and any server that speaks the
 * Chat Completions API (Ollama, LM Studio, vLLM, llama.cpp, OpenRouter). A tool that declares a
 * freeform format is offered as a custom tool where this provider has them (OpenAI's own API and a
 * GPT-5 model, or the setting says always: docs/edits.md), else as a function tool.
 */
import type OpenAI from "openai";
import type { Usage } from "../events";
import { inputString, pairToolResults, parseArguments } from "./conversation";
import { createThinkSplitter } from "./think-tags";
import { classifyFailure, type FailureContext, sdkFailureInfo } from "./errors";
import { type ChatRequest, type ImagePart, type Provider, type ProviderConfig, type ProviderEvent, ProviderError, EFFORT_REFUSAL, effortRefusedNote } from "./types";

type Msg = OpenAI.Chat.ChatCompletionMessageParam;
type RawUsage = OpenAI.CompletionUsage | null | undefined;

export const OPENAI_BASE_URL = "https://api.openai.com/v1";

/**
 * The SDK is loaded on the first request, not with this module: in the bundles it is a file of its
 * own (dist/openai-sdk.js, esbuild.mjs), so a session on another provider, or a command that calls
 * no model, never compiles it.
 */
let sdk: Promise<typeof OpenAI> | undefined;
function loadSdk(): Promise<typeof OpenAI> {
  sdk ??= import("openai").then((m) => m.default);
  return sdk;
}

/** The text that opens the user message carrying the images of tool results (tool messages take text only). */
export const TOOL_IMAGES_NOTE = "Images returned by the tool calls above (Chat Completions tool messages take text only, so they come in this message):";

const imageParts = (images: readonly ImagePart[]): OpenAI.Chat.ChatCompletionContentPartImage[] =>
  images.map((i) => ({ type: "image_url", image_url: { url: `data:${i.mimeType};base64,${i.data}` } }));

/** The tools of a request this provider offers as freeform (custom) tools: name -> the argument their text is. */
export type FreeformTools = ReadonlyMap<string, string>;

/** The text a freeform tool's call carries: its argument when the input is an object holding it as a string. */
function freeformText(input: unknown, argument: string): string {
  if (typeof input === "string") return input;
  const v = input && typeof input === "object" ? (input as Record<string, unknown>)[argument] : undefined;
  return typeof v === "string" ? v : inputString(input);
}

/**
 * Chat Completions messages for a request: system first, tool results as `tool` messages. A tool
 * message is text only, so the images of a run of tool results follow it in one user message
 * (each named by its call), after the last tool message of the run. Calls of a tool offered as a
 * freeform tool go back as `custom` calls with their text (the API pairs calls with the tools
 * offered), whichever way the model sent them.
 */
export function toOpenAiMessages(req: ChatRequest, freeform: FreeformTools = new Map()): Msg[] {
  const out: Msg[] = req.system ? [{ role: "system", content: req.system }] : [];
  let toolImages: OpenAI.Chat.ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (toolImages.length) out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_NOTE }, ...toolImages] });
    toolImages = [];
  };
  for (const m of pairToolResults(req.messages)) {
    if (m.role !== "tool") flushImages();
    if (m.role === "user") out.push({ role: "user", content: m.images?.length ? [{ type: "text", text: m.text }, ...imageParts(m.images)] : m.text });
    else if (m.role === "tool") {
      out.push({ role: "tool", tool_call_id: m.callId, content: m.content });
      if (m.images?.length) toolImages.push({ type: "text", text: `${m.name} (call ${m.callId}):` }, ...imageParts(m.images));
    } else {
      const calls = m.toolCalls.map((c): OpenAI.Chat.ChatCompletionMessageToolCall => {
        const argument = freeform.get(c.name);
        if (argument !== undefined) return { id: c.id, type: "custom", custom: { name: c.name, input: freeformText(c.input, argument) } };
        return { id: c.id, type: "function", function: { name: c.name, arguments: inputString(c.input) } };
      });
      out.push({ role: "assistant", content: m.text || (calls.length ? null : ""), ...(calls.length ? { tool_calls: calls } : {}) });
    }
  }
  flushImages();
  return out;
}

/** Usage with cached prompt tokens split out, so inputTokens counts uncached input only. */
export function openAiUsage(u: NonNullable<RawUsage>): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: Math.max(0, (u.prompt_tokens ?? 0) - cached),
    outputTokens: u.completion_tokens ?? 0,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
  };
}

/** OpenAI finish reasons in the Anthropic-style vocabulary the loop sees. */
export function stopReason(finish: string | null | undefined, hasToolCalls: boolean): string {
  if (hasToolCalls) return "tool_use";
  if (finish === "length") return "max_tokens";
  if (finish === "stop" || !finish) return "end_turn";
  return finish;
}

function reasoningOf(x: unknown): string | undefined {
  const r = x as { reasoning_content?: unknown; reasoning?: unknown } | undefined;
  const v = r?.reasoning_content ?? r?.reasoning;
  return typeof v === "string" && v !== "" ? v : undefined;
}

interface PartialCall {
  id?: string;
  name: string;
  args: string;
  /** A custom (freeform) tool call: `args` is its text. */
  custom?: boolean;
}

/** A streamed tool-call fragment: the SDK types only `function` ones; custom ones carry `custom: {name, input}`. */
type CallFragment = { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: unknown }; custom?: { name?: string; input?: string } };

/**
 * Whether a model on OpenAI's own API has custom tools (freeform, with a grammar): the GPT-5 family
 * (OpenAI's GPT-5 guide lists gpt-5, gpt-5-mini and gpt-5-nano, on Chat Completions and Responses);
 * GPT-4.1 and the o-series have function tools only. A provider prefix (`openai/`) is ignored.
 */
export function hasCustomTools(model: string): boolean {
  return /^gpt-5/.test(model.toLowerCase().replace(/^.*\//, ""));
}

/**
 * The call a streamed fragment belongs to: by `index`, or, for servers that omit it and send
 * whole calls, a new call whenever a new id appears.
 */
function callFor(calls: PartialCall[], tc: { index?: number; id?: string }): PartialCall {
  if (typeof tc.index === "number") return (calls[tc.index] ??= { name: "", args: "" });
  const known = tc.id ? calls.find((c) => c?.id === tc.id) : calls[calls.length - 1];
  if (known) return known;
  const call: PartialCall = { name: "", args: "" };
  calls.push(call);
  return call;
}

/** A custom tool call's text as the tool's arguments: `{[argument]: text}` for a tool that declared it, else the text. */
function customInput(req: ChatRequest, name: string, text: string): unknown {
  const argument = req.tools.find((t) => t.name === name)?.freeform?.argument;
  return argument !== undefined ? { [argument]: text } : text;
}

/** Chat Completions over the `openai` client; errors are thrown as classified ProviderErrors. */
export class OpenAiProvider implements Provider {
  readonly id: "openai" | "openai-compatible";
  readonly model: string;
  /** Made on the first request (the SDK loads then); its class checks the errors the SDK throws. */
  private client?: { api: OpenAI; sdk: typeof OpenAI };
  private readonly ctx: FailureContext;
  /** Cleared when the server rejects `stream_options`. */
  private usageOption = true;
  /** The server refused `reasoning_effort` once: it is not sent again. */
  private effortRefused = false;

  constructor(private readonly config: ProviderConfig) {
    this.id = config.provider === "openai" ? "openai" : "openai-compatible";
    this.model = config.model;
    const baseURL = config.baseUrl ?? OPENAI_BASE_URL;
    this.ctx = {
      providerName: this.id === "openai" ? "OpenAI" : "the OpenAI-compatible server",
      baseUrl: baseURL,
      model: config.model,
      apiKeyEnv: config.apiKeyEnv,
      hasKey: Boolean(config.apiKey),
      timeoutMs: config.timeoutMs,
    };
  }

  /** The models the server lists (GET {baseUrl}/models), at most `limit`. */
  async listModels(limit: number, signal?: AbortSignal): Promise<string[]> {
    const out: string[] = [];
    for await (const m of (await this.api()).models.list({ signal, maxRetries: 0 })) {
      if (typeof m.id === "string" && m.id) out.push(m.id);
      if (out.length >= limit) break;
    }
    return out;
  }

  private async api(): Promise<OpenAI> {
    if (!this.client) {
      const Sdk = await loadSdk();
      const api = new Sdk({
        apiKey: this.config.apiKey || "no-key",
        baseURL: this.ctx.baseUrl,
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: this.config.timeoutMs ?? 600_000,
        defaultHeaders: this.config.headers,
        ...(this.config.fetch ? { fetch: this.config.fetch } : {}),
      });
      this.client ??= { api, sdk: Sdk };
    }
    return this.client.api;
  }

  /**
   * The request's tools this provider offers as custom tools: those that declare a freeform format,
   * when this is OpenAI's own API (provider "openai", not a compatible server: those reject tool
   * types they do not know) with a model that has them — or when the setting says always.
   */
  freeformTools(req: Pick<ChatRequest, "tools">): Map<string, string> {
    const out = new Map<string, string>();
    const capable = this.id === "openai" && hasCustomTools(this.model);
    for (const t of req.tools) if (t.freeform && (capable || t.freeform.offer === "always")) out.set(t.name, t.freeform.argument);
    return out;
  }

  private params(req: ChatRequest, freeform: FreeformTools) {
    const max = req.maxOutputTokens ?? this.config.maxOutputTokens;
    return {
      model: this.model,
      messages: toOpenAiMessages(req, freeform),
      ...(req.tools.length
        ? {
            tools: req.tools.map((t): OpenAI.Chat.ChatCompletionTool =>
              t.freeform && freeform.has(t.name)
                ? {
                    type: "custom",
                    custom: { name: t.name, description: t.description, format: { type: "grammar", grammar: { syntax: t.freeform.syntax, definition: t.freeform.definition } } },
                  }
                : { type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } },
            ),
          }
        : {}),
      ...(req.tools.length && req.toolChoice ? { tool_choice: req.toolChoice } : {}),
      // OpenAI's reasoning models refuse max_tokens; most compatible servers only know it.
      ...(max ? (this.id === "openai" ? { max_completion_tokens: max } : { max_tokens: max }) : {}),
      // OpenAI's levels stop at xhigh: Claude Code's max is the deepest there is.
      ...(req.effort && !this.effortRefused ? { reasoning_effort: req.effort === "max" ? ("xhigh" as const) : req.effort } : {}),
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
      // Some servers refuse stream_options: ask once more without it, and never again.
      if (!yielded && this.usageOption && failure.kind === "bad_request" && /stream_options/.test(failure.message)) {
        this.usageOption = false;
        yield* this.stream(req);
        return;
      }
      // A model or server without reasoning levels: it answers without one (said in the log), and is not sent one again.
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
    const freeform = this.freeformTools(req);
    const stream = await (
      await this.api()
    ).chat.completions.create({ ...this.params(req, freeform), stream: true, ...(this.usageOption ? { stream_options: { include_usage: true } } : {}) }, { signal: req.signal });
    const calls: PartialCall[] = [];
    let finish: string | null | undefined;
    let usage: RawUsage;
    const think = createThinkSplitter();
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta ?? {};
        const reasoning = reasoningOf(delta);
        if (reasoning) yield { type: "reasoning_delta", text: reasoning };
        if (delta.content) yield* think.push(delta.content);
        if (delta.refusal) yield { type: "text_delta", text: delta.refusal };
        for (const tc of (delta.tool_calls ?? []) as CallFragment[]) {
          const call = callFor(calls, tc);
          if (tc.id) call.id = tc.id;
          if (tc.type === "custom" || tc.custom) {
            call.custom = true;
            if (tc.custom?.name && !call.name) call.name = tc.custom.name;
            if (typeof tc.custom?.input === "string") call.args += tc.custom.input;
            continue;
          }
          if (tc.function?.name && !call.name) call.name = tc.function.name;
          const args: unknown = tc.function?.arguments;
          if (args) call.args += typeof args === "string" ? args : JSON.stringify(args);
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    }
    // The SDK ends an aborted stream quietly; a cut-off answer must not look complete.
    if (req.signal?.aborted) throw new ProviderError("aborted", "the request was cancelled");
    if (!finish) {
      throw new ProviderError("network", `the response from ${this.ctx.baseUrl} ended before the answer was complete (no finish_reason): try again`);
    }
    yield* think.flush();
    const complete = calls.filter((c) => c && c.name);
    for (const [i, c] of complete.entries()) {
      yield { type: "tool_call", id: c.id ?? `call_${i}_${Date.now().toString(36)}`, name: c.name, input: c.custom ? customInput(req, c.name, c.args) : parseArguments(c.args) };
    }
    if (usage) yield { type: "usage", usage: openAiUsage(usage) };
    yield { type: "done", stopReason: stopReason(finish, complete.length > 0) };
  }

  private async *complete(req: ChatRequest): AsyncIterable<ProviderEvent> {
    const res = await (await this.api()).chat.completions.create({ ...this.params(req, this.freeformTools(req)), stream: false }, { signal: req.signal });
    const choice = res.choices?.[0];
    const msg = choice?.message;
    const reasoning = reasoningOf(msg);
    if (reasoning) yield { type: "reasoning_delta", text: reasoning };
    if (msg?.content) {
      const think = createThinkSplitter();
      yield* [...think.push(msg.content), ...think.flush()];
    }
    if (msg?.refusal) yield { type: "text_delta", text: msg.refusal };
    const calls = (msg?.tool_calls ?? []).filter((c) => c.type === "function" || c.type === "custom");
    for (const [i, c] of calls.entries()) {
      const id = c.id || `call_${i}`;
      if (c.type === "custom") yield { type: "tool_call", id, name: c.custom.name, input: customInput(req, c.custom.name, c.custom.input ?? "") };
      else yield { type: "tool_call", id, name: c.function.name, input: parseArguments(c.function.arguments ?? "") };
    }
    if (res.usage) yield { type: "usage", usage: openAiUsage(res.usage) };
    yield { type: "done", stopReason: stopReason(choice?.finish_reason, calls.length > 0) };
  }
}
