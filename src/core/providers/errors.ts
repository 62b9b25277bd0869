/**
 * Turns SDK and HTTP failures into ProviderErrors whose messages tell the user what to do.
 * SDK-neutral: each provider first reduces its SDK's error to a FailureInfo.
 */
import { ProviderError, type ProviderErrorKind } from "./types";

/** A provider failure reduced to what classification needs. */
export interface FailureInfo {
  /** HTTP status; undefined for connection failures and errors sent inside a stream. */
  status?: number;
  /** Response headers (any object with `get`, or a plain record). */
  headers?: { get(name: string): string | null } | Record<string, string | undefined>;
  /** Parsed error body: OpenAI `{error: {...}}` / its inner object, or Anthropic `{type: "error", error: {...}}`. */
  body?: unknown;
  message?: string;
  /** What the SDK knew before any HTTP status existed. */
  transport?: "aborted" | "timeout" | "connection";
}

/** Who was asked: names and URLs quoted in the messages. */
export interface FailureContext {
  /** "Anthropic", "OpenAI", "the OpenAI-compatible server". */
  providerName: string;
  baseUrl: string;
  model: string;
  /** Environment variable the key is read from, for the auth hint. */
  apiKeyEnv?: string;
  /** False when no key was configured (a placeholder was sent). */
  hasKey?: boolean;
  timeoutMs?: number;
}

const CONTEXT_PATTERNS =
  /context_length_exceeded|maximum context length|context length|context window|prompt is too long|exceed(?:s|ed)? (?:the )?(?:available )?context|exceed_context_size|input length and `?max_tokens`? exceed|too many tokens/i;

/** The error's text and type/code, wherever the server put them. */
function details(info: FailureInfo): { text: string; type?: string; code?: string } {
  const body = info.body as Record<string, unknown> | string | undefined;
  if (typeof body === "string") return { text: body };
  const inner = (body && typeof body.error === "object" && body.error ? body.error : body) as Record<string, unknown> | undefined;
  const text = typeof inner?.message === "string" ? inner.message : (info.message ?? "");
  const type = typeof inner?.type === "string" ? inner.type : undefined;
  const code = typeof inner?.code === "string" ? inner.code : typeof inner?.code === "number" ? String(inner.code) : undefined;
  return { text: text.trim(), type, code };
}

function header(info: FailureInfo, name: string): string | undefined {
  const h = info.headers;
  if (!h) return undefined;
  if (typeof (h as { get?: unknown }).get === "function") return (h as { get(n: string): string | null }).get(name) ?? undefined;
  const rec = h as Record<string, string | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  return key ? rec[key] : undefined;
}

/** Milliseconds from `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(info: FailureInfo, now = Date.now()): number | undefined {
  const ms = header(info, "retry-after-ms");
  if (ms !== undefined && ms.trim() !== "" && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = header(info, "retry-after")?.trim();
  if (!ra) return undefined;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.round(Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function said(ctx: FailureContext, text: string): string {
  return text ? ` (${ctx.providerName} said: ${JSON.stringify(text.length > 300 ? text.slice(0, 300) + "…" : text)})` : "";
}

function kindOf(info: FailureInfo, d: ReturnType<typeof details>): ProviderErrorKind {
  const s = info.status;
  const tag = `${d.type ?? ""} ${d.code ?? ""}`;
  if (info.transport === "aborted") return "aborted";
  if (info.transport === "timeout" || info.transport === "connection") return "network";
  if (CONTEXT_PATTERNS.test(`${tag} ${d.text}`) && (s === undefined || s === 400 || s === 413 || s === 422)) return "context_length";
  if (s === 401 || s === 403 || /authentication_error|permission_error|invalid_api_key/.test(tag)) return "auth";
  if (s === 404 || /not_found_error|model_not_found/.test(tag)) return "not_found";
  if (s === 429 || /rate_limit/.test(tag)) return "rate_limit";
  if (s === 529 || /overloaded/.test(tag)) return "overloaded";
  if ((s !== undefined && s >= 500) || /api_error|server_error/.test(tag)) return "server";
  if (s === undefined) return "server";
  return "bad_request";
}

/** A ProviderError with a message that says what happened and what to do. */
export function classifyFailure(info: FailureInfo, ctx: FailureContext): ProviderError {
  const d = details(info);
  const kind = kindOf(info, d);
  const status = info.status;
  const http = status !== undefined ? ` (HTTP ${status})` : "";
  const env = ctx.apiKeyEnv ?? (ctx.providerName === "Anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  if (/insufficient_quota|billing/.test(`${d.type ?? ""} ${d.code ?? ""}`)) {
    const text = `${ctx.providerName} says the account has no quota left${http}: check the plan and billing of this API key${said(ctx, d.text)}`;
    return new ProviderError("bad_request", text, status);
  }
  let message: string;
  switch (kind) {
    case "aborted":
      message = "the request was cancelled";
      break;
    case "network":
      message =
        info.transport === "timeout"
          ? `the request to ${ctx.baseUrl} timed out${ctx.timeoutMs ? ` after ${ctx.timeoutMs < 1000 ? `${ctx.timeoutMs} ms` : `${Math.round(ctx.timeoutMs / 1000)} s`}` : ""}: is the server running and responsive?`
          : `could not reach ${ctx.baseUrl}: is the server running?${info.message ? ` (${info.message})` : ""}`;
      break;
    case "auth":
      message =
        ctx.hasKey === false
          ? `no API key is set for ${ctx.providerName} at ${ctx.baseUrl}${http}: set it with "Yoke: Set API Key" or the ${env} environment variable${said(ctx, d.text)}`
          : `the API key was rejected by ${ctx.providerName} at ${ctx.baseUrl}${http}: set it with "Yoke: Set API Key" or the ${env} environment variable${said(ctx, d.text)}`;
      break;
    case "not_found": {
      const hint = ctx.providerName !== "Anthropic" && !/\/v\d+\/?$/.test(ctx.baseUrl) ? ` (OpenAI-compatible servers usually need a base URL ending in /v1)` : "";
      message = `model "${ctx.model}" or URL not found at ${ctx.baseUrl}${http}: check the model name and the base URL${hint}${said(ctx, d.text)}`;
      break;
    }
    case "context_length":
      message = `the conversation is too long for model "${ctx.model}"'s context window: compact the session or start a new one${said(ctx, d.text)}`;
      break;
    case "rate_limit":
      message = `${ctx.providerName} rate limit reached${http}: wait a moment and try again${said(ctx, d.text)}`;
      break;
    case "overloaded":
      message = `${ctx.providerName} is overloaded${http}: try again in a moment${said(ctx, d.text)}`;
      break;
    case "server":
      message = `${ctx.providerName} at ${ctx.baseUrl} failed with a server error${http}: try again${said(ctx, d.text)}`;
      break;
    default:
      message = `${ctx.providerName} rejected the request${http}${said(ctx, d.text)}`;
  }
  return new ProviderError(kind, message, status, parseRetryAfter(info));
}

/** The error classes both official SDKs export (same hierarchy in `openai` and `@anthropic-ai/sdk`). */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error;
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

function causeCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (typeof e.code === "string" && /^E[A-Z]+/.test(e.code)) return e.code;
  }
  return undefined;
}

/** Reduces whatever an SDK call threw to a FailureInfo (`sdk` undefined: the SDK did not load, so nothing it threw). */
export function sdkFailureInfo(err: unknown, sdk: SdkErrorClasses | undefined, signal?: AbortSignal): FailureInfo {
  const e = err as { name?: string; message?: string; status?: number; headers?: FailureInfo["headers"]; error?: unknown };
  if (signal?.aborted || (sdk && err instanceof sdk.APIUserAbortError) || e?.name === "AbortError") return { transport: "aborted" };
  if (sdk && err instanceof sdk.APIConnectionTimeoutError) return { transport: "timeout" };
  if (sdk && err instanceof sdk.APIConnectionError) return { transport: "connection", message: causeCode(err) ?? e.message };
  if (sdk && err instanceof sdk.APIError) return { status: e.status, headers: e.headers, body: e.error, message: e.message };
  const code = causeCode(err);
  if (code) return { transport: "connection", message: code };
  if (e?.name === "TypeError" && /fetch failed|terminated|network/i.test(e.message ?? "")) return { transport: "connection", message: e.message };
  return { message: e?.message ?? String(err) };
}
