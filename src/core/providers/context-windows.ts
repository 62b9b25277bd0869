/**
 * Context window sizes (input tokens a request may hold) per model, next to pricing.ts: the
 * compaction threshold is a share of these. Keyed by model-name prefix like PRICES; the longest
 * matching prefix wins. Unknown models get DEFAULT_CONTEXT_WINDOW (a conservative size most
 * current models exceed), so compaction starts early rather than late.
 */
import { matchModel } from "./pricing";

export const DEFAULT_CONTEXT_WINDOW = 128_000;

export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  // Anthropic (standard windows; the 1M beta is opt-in per request and not assumed)
  "claude-opus-5": 200_000,
  "claude-opus-4": 200_000,
  "claude-sonnet-5": 200_000,
  "claude-sonnet-4": 200_000,
  "claude-3-7-sonnet": 200_000,
  "claude-haiku-5": 200_000,
  "claude-haiku-4": 200_000,
  "claude-3-5-haiku": 200_000,
  // OpenAI
  "gpt-5.4": 400_000,
  "gpt-5.2": 400_000,
  "gpt-5.1": 400_000,
  "gpt-5": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  o1: 200_000,
  o3: 200_000,
  "o4-mini": 200_000,
  // Common local / open models (their servers' defaults are often smaller: set the model's window in the server)
  "qwen2.5-coder": 32_768,
  "qwen3-coder": 262_144,
  "deepseek-coder": 128_000,
  "llama3.1": 128_000,
  "llama3.2": 128_000,
  "gemini-2.5": 1_048_576,
};

/** The model's context window in tokens (DEFAULT_CONTEXT_WINDOW when the model is not in the table). */
export function contextWindowOf(model: string): { tokens: number; known: boolean } {
  const key = matchModel(model, CONTEXT_WINDOWS);
  return key ? { tokens: CONTEXT_WINDOWS[key]!, known: true } : { tokens: DEFAULT_CONTEXT_WINDOW, known: false };
}
