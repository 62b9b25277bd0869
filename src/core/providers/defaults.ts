/** The model used when none is configured (the CLI's --model, the extension's yoke.model). */
import type { ProviderId } from "./types";

export const DEFAULT_MODELS: Readonly<Partial<Record<ProviderId, string>>> = {
  anthropic: "claude-sonnet-5",
  openai: "gpt-5.1",
};
