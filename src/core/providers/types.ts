/** The one interface every model provider implements. */
import type { ImagePart, NewEvent, Usage } from "../events";

export type { ImagePart } from "../events";

export type ProviderId = "anthropic" | "openai" | "openai-compatible" | "vscode-lm" | "scripted";

/** A message of the conversation as the core projects it from the event log. */
export type ModelMessage =
  | { role: "user"; text: string; images?: ImagePart[] }
  | { role: "assistant"; text: string; toolCalls: Array<{ id: string; name: string; input: unknown }> }
  | { role: "tool"; callId: string; name: string; content: string; isError: boolean; images?: ImagePart[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /**
   * The tool may be offered as a freeform tool (a custom tool with a grammar) by a provider whose
   * API has them: the model then sends the text of `argument` unwrapped, and the provider yields
   * the call's input as `{[argument]: text}`. Providers without them ignore this.
   */
  freeform?: { argument: string; syntax: "lark" | "regex"; definition: string; offer?: "always" };
}

export interface ChatRequest {
  /** Stable for the whole session so provider prompt caches hit. */
  system: string;
  messages: ModelMessage[];
  /** Stable for the whole session (same order, same text). */
  tools: ToolSpec[];
  /**
   * Whether the model must, may or must not call one of `tools` (default: may). Only an MCP server's
   * sampling request sets it (its `toolChoice`); the session's own requests leave it unset.
   */
  toolChoice?: "auto" | "required" | "none";
  maxOutputTokens?: number;
  /**
   * How much reasoning the model puts into its answer (a custom command's or skill's `effort`, as
   * Claude Code's levels). Anthropic: `output_config.effort`; OpenAI and compatible servers:
   * `reasoning_effort` (`max` as `xhigh`); the VS Code language model API has no such setting. A
   * model that refuses it answers without it (once refused, it is not sent again). Unset: the
   * provider's default.
   */
  effort?: Effort;
  signal?: AbortSignal;
}

/**
 * A 400 that may be the server refusing the effort field: it names the field, or says an extra or
 * unknown field was sent without naming it (pydantic's "Extra inputs are not permitted"). Kept
 * narrow: an unrelated 400 that matches costs one more request and the effort for the session.
 * Only a request that sent the field is asked again without it.
 */
export const EFFORT_REFUSAL = /reasoning|effort|output_config|extra[ _](?:inputs?|fields?|forbidden)/i;

/** Claude Code's effort levels (the models offer some of them). */
export const EFFORT_LEVELS = ["low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORT_LEVELS)[number];

export type ProviderEvent =
  | { type: "text_delta"; text: string }
  | { type: "reasoning_delta"; text: string }
  /** A complete tool call; `input` is the parsed JSON object, or the raw string when it did not parse. */
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "usage"; usage: Usage }
  /** Something for the session log (a fallback chain switching model, a provider breaker opening); not part of the answer. */
  | { type: "log"; event: NewEvent }
  /** Last event. stopReason: "end_turn" | "tool_use" | "max_tokens" | another provider-specific reason. */
  | { type: "done"; stopReason: string };

export type ProviderErrorKind = "auth" | "not_found" | "context_length" | "rate_limit" | "overloaded" | "server" | "network" | "bad_request" | "aborted";

/** A provider failure, classified so the loop can retry and the user can be told what to do. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
    /** From a `retry-after` / `retry-after-ms` header. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
  get retryable(): boolean {
    return this.kind === "rate_limit" || this.kind === "overloaded" || this.kind === "server" || this.kind === "network";
  }
}

export interface Provider {
  readonly id: ProviderId;
  /** The model that answers (a fallback chain: the one that answered last). */
  readonly model: string;
  /** It retries failed requests itself (a fallback chain retries each model): the loop adds no retries. */
  readonly ownRetries?: boolean;
  /** Streams one model response. Throws ProviderError. Never retries by itself. */
  stream(req: ChatRequest): AsyncIterable<ProviderEvent>;
}

/**
 * A fetch-compatible function the provider SDKs send their requests with (their `fetch` option).
 * Undefined: the SDKs' default, the global `fetch`. The Node hosts choose it (src/node/http-client).
 */
export type ProviderFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ProviderConfig {
  provider: ProviderId;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** Use the non-streaming endpoint (some servers stream badly); the result is still yielded as events. */
  stream?: boolean;
  maxOutputTokens?: number;
  /** Extra headers for gateways. */
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Name of the environment variable the key comes from, quoted in "key rejected" messages. */
  apiKeyEnv?: string;
  /** The HTTP client the SDK uses (absent: the global `fetch`). */
  fetch?: ProviderFetch;
}

/** The log's note when a model refused the request's effort level (it answers without one). */
export function effortRefusedNote(model: string, effort: Effort, why: string): ProviderEvent {
  return {
    type: "log",
    event: {
      type: "extension",
      name: "provider",
      point: "request",
      outcome: "decided",
      detail: `effort ${effort} not applied: ${model} refused it (${why.slice(0, 200)}); it answers at its default level`,
    },
  };
}
