/**
 * The models a provider's server lists — OpenAI and OpenAI-compatible servers (`GET /v1/models`:
 * Ollama, LM Studio, vLLM, llama.cpp, OpenRouter) and Anthropic's Models API — through the
 * providers' own SDK clients. Bounded (at most `limit` names, a short timeout, no retries) and
 * cached per server and key for a few minutes, so every session of a process asks once. Never
 * throws: a provider that cannot list (vscode-lm, a server without the route) gives no names and
 * says why.
 */
import { AnthropicProvider } from "./anthropic";
import { OpenAiProvider } from "./openai";
import type { ProviderConfig } from "./types";

export interface ListedModels {
  ids: string[];
  /** Why there are none (no list offered, the server refused, it did not answer in time). */
  problem?: string;
}

export const LIST_MODELS_LIMIT = 200;
const TIMEOUT_MS = 5_000;
const TTL_MS = 5 * 60_000;

const cache = new Map<string, { at: number; listed: Promise<ListedModels> }>();

/** The provider's listed models (cached); `now` for tests. */
export function listModels(config: Pick<ProviderConfig, "provider" | "baseUrl" | "apiKey" | "headers" | "fetch">, opts: { limit?: number; now?: () => number } = {}): Promise<ListedModels> {
  const now = (opts.now ?? Date.now)();
  const limit = Math.max(1, Math.min(opts.limit ?? LIST_MODELS_LIMIT, LIST_MODELS_LIMIT));
  const key = JSON.stringify([config.provider, config.baseUrl ?? "", config.apiKey ?? "", config.headers ?? {}, limit]);
  const hit = cache.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.listed;
  const listed = fetchList(config, limit);
  cache.set(key, { at: now, listed });
  // A failure is not kept for long: the next session asks again.
  void listed.then((r) => {
    if (r.problem && cache.get(key)?.listed === listed) cache.delete(key);
  });
  return listed;
}

async function fetchList(config: Pick<ProviderConfig, "provider" | "baseUrl" | "apiKey" | "headers" | "fetch">, limit: number): Promise<ListedModels> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  const full: ProviderConfig = { provider: config.provider, model: "-", baseUrl: config.baseUrl, apiKey: config.apiKey, headers: config.headers, timeoutMs: TIMEOUT_MS, fetch: config.fetch };
  let provider: AnthropicProvider | OpenAiProvider;
  if (config.provider === "anthropic") provider = new AnthropicProvider(full);
  else if (config.provider === "openai" || (config.provider === "openai-compatible" && config.baseUrl)) provider = new OpenAiProvider(full);
  else return { ids: [], problem: `the provider ${config.provider} offers no model list` };
  try {
    const ids = await provider.listModels(limit, signal);
    return { ids: [...new Set(ids.filter((id) => id.length < 300))] };
  } catch (err) {
    return { ids: [], problem: `the server's model list could not be read (${err instanceof Error ? err.message : String(err)})` };
  }
}
