/** Builds the provider a ProviderConfig names. Retries are added by the caller (withRetries). */
import { AnthropicProvider } from "./anthropic";
import { OpenAiProvider } from "./openai";
import type { Provider, ProviderConfig } from "./types";

/** Thrown for a configuration that cannot work; the message says what to set. */
export class ProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProviderConfigError";
  }
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ProviderConfigError(`the base URL "${url}" is not a valid URL: use e.g. http://127.0.0.1:11434/v1`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ProviderConfigError(`the base URL "${url}" must start with http:// or https://`);
  }
}

export function createProvider(config: ProviderConfig): Provider {
  if (!config.model?.trim()) {
    throw new ProviderConfigError(`no model is set for provider "${config.provider}": set one with --model or the "yoke.model" setting`);
  }
  if (config.baseUrl) checkUrl(config.baseUrl);
  switch (config.provider) {
    case "anthropic":
      return new AnthropicProvider(config);
    case "openai":
      return new OpenAiProvider(config);
    case "openai-compatible":
      if (!config.baseUrl) {
        throw new ProviderConfigError(
          `provider "openai-compatible" needs a base URL: set --base-url or "yoke.baseUrl" (e.g. http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:1234/v1 for LM Studio)`,
        );
      }
      return new OpenAiProvider(config);
    case "vscode-lm":
      throw new ProviderConfigError(`provider "vscode-lm" is only available inside VS Code (the extension host creates it)`);
    default:
      throw new ProviderConfigError(`unknown provider "${String(config.provider)}": use anthropic, openai, openai-compatible or vscode-lm`);
  }
}
