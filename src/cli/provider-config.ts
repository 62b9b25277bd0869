/** Turns CLI flags (and the environment) into a ProviderConfig; finds a model on keyless local servers. */
import { registerProviderSecret } from "../node/settings/secret-env";
import { HttpClientChoiceError, providerFetch } from "../node/http-client/provider-fetch";
import type { ProviderConfig, ProviderFetch, ProviderId } from "../core/providers/types";
import { DEFAULT_MODELS } from "../core/providers/defaults";
import { UsageError } from "./args";

const PROVIDERS: readonly ProviderId[] = ["anthropic", "openai", "openai-compatible", "vscode-lm"];
const DEFAULT_KEY_ENV: Partial<Record<ProviderId, string>> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  "openai-compatible": "OPENAI_API_KEY",
};

export interface ProviderFlags {
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  stream?: boolean;
}

export async function providerConfigFromFlags(flags: ProviderFlags, env: NodeJS.ProcessEnv = process.env): Promise<ProviderConfig> {
  const provider = (flags.provider ?? "anthropic") as ProviderId;
  if (!PROVIDERS.includes(provider)) throw new UsageError(`--provider must be one of ${PROVIDERS.join(", ")} (got "${flags.provider}")`);
  if (provider === "vscode-lm") throw new UsageError("--provider vscode-lm is only available inside VS Code (it uses VS Code's Language Model API)");
  if (provider === "openai-compatible" && !flags.baseUrl) {
    throw new UsageError("--provider openai-compatible needs --base-url, e.g. --base-url http://127.0.0.1:11434/v1 (Ollama)");
  }
  const keyEnv = flags.apiKeyEnv ?? DEFAULT_KEY_ENV[provider];
  const apiKey = keyEnv ? env[keyEnv] : undefined;
  registerProviderSecret(keyEnv, apiKey);
  if (flags.apiKeyEnv && !apiKey) throw new UsageError(`--api-key-env ${flags.apiKeyEnv}: that environment variable is not set`);
  if (!apiKey && provider !== "openai-compatible" && !flags.baseUrl) {
    throw new UsageError(`no API key for ${provider}: set ${keyEnv} (or name another variable with --api-key-env)`);
  }
  const fetch = httpClient(env);
  const model = flags.model ?? DEFAULT_MODELS[provider] ?? (await firstServerModel(flags.baseUrl!, apiKey, fetch ?? globalThis.fetch));
  return { provider, model, baseUrl: flags.baseUrl, apiKey, apiKeyEnv: keyEnv, stream: flags.stream ?? true, ...(fetch ? { fetch } : {}) };
}

/** The SDKs' HTTP client (src/node/http-client/provider-fetch.ts); a bad YOKE_HTTP_CLIENT is a usage error. */
function httpClient(env: NodeJS.ProcessEnv): ProviderFetch | undefined {
  try {
    return providerFetch(env);
  } catch (err) {
    throw err instanceof HttpClientChoiceError ? new UsageError(err.message) : err;
  }
}

/** Asks an OpenAI-compatible server for its models (GET /models) and takes the first. */
async function firstServerModel(baseUrl: string, apiKey: string | undefined, fetch: ProviderFetch): Promise<string> {
  const url = baseUrl.replace(/\/+$/, "") + "/models";
  try {
    const res = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(5000) });
    if (res.ok) {
      const body = (await res.json()) as { data?: Array<{ id?: string }> };
      const id = body.data?.find((m) => typeof m.id === "string")?.id;
      if (id) return id;
    }
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`--model not given and ${url} did not list any model: pass --model NAME`);
}
