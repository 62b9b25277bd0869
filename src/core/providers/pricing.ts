/**
 * What a request cost, from published list prices (USD per million tokens, checked 2026-11).
 * Unknown models have no price: the UI then shows tokens only. Long-context surcharges and
 * batch discounts are not modelled.
 */
import type { Usage } from "../events";

/** USD per million tokens. `cacheWrite` is the 5-minute cache write (Anthropic); OpenAI has none. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const p = (input: number, output: number, cacheRead: number, cacheWrite = input): ModelPrice => ({ input, output, cacheRead, cacheWrite });

/** Keyed by model-name prefix; the longest matching prefix wins, so dated variants match. */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  // Anthropic
  "claude-opus-5-5": p(4, 20, 0.2, 5),
  "claude-opus-5": p(5, 25, 0.5, 6.25),
  "claude-opus-4": p(5, 25, 0.5, 6.25), // 4.5 and later
  "claude-opus-4-1": p(15, 75, 1.5, 18.75),
  "claude-opus-4-0": p(15, 75, 1.5, 18.75),
  "claude-opus-4-20250514": p(15, 75, 1.5, 18.75),
  "claude-sonnet-5-5": p(2, 10, 0.1, 2.5),
  "claude-sonnet-5": p(2, 10, 0.2, 2.5),
  "claude-sonnet-4": p(3, 15, 0.3, 3.75),
  "claude-3-7-sonnet": p(3, 15, 0.3, 3.75),
  "claude-haiku-5-5": p(0.1, 0.5, 0.01, 0.125),
  "claude-haiku-4": p(1, 5, 0.1, 1.25),
  "claude-3-5-haiku": p(0.8, 4, 0.08, 1),
  // OpenAI (cached input is the cache-read price)
  "gpt-5.4": p(2.5, 15, 0.25),
  "gpt-5.4-mini": p(0.75, 4.5, 0.075),
  "gpt-5.4-nano": p(0.2, 1.25, 0.02),
  "gpt-5.2": p(1.75, 14, 0.175),
  "gpt-5.2-pro": p(21, 168, 21),
  "gpt-5.1": p(1.25, 10, 0.125),
  "gpt-5": p(1.25, 10, 0.125),
  "gpt-5-mini": p(0.25, 2, 0.025),
  "gpt-5-nano": p(0.05, 0.4, 0.005),
  "gpt-5-pro": p(15, 120, 15),
  "gpt-4.1": p(2, 8, 0.5),
  "gpt-4.1-mini": p(0.4, 1.6, 0.1),
  "gpt-4.1-nano": p(0.1, 0.4, 0.025),
  "gpt-4o": p(2.5, 10, 1.25),
  "gpt-4o-mini": p(0.15, 0.6, 0.075),
  o1: p(15, 60, 7.5),
  o3: p(2, 8, 0.5),
  "o3-pro": p(20, 80, 20),
  "o3-mini": p(1.1, 4.4, 0.55),
  "o4-mini": p(1.1, 4.4, 0.275),
};

/** Strips gateway prefixes ("anthropic/", "us.anthropic.") and writes Claude versions with dashes. */
function normalize(model: string): string {
  let m = model.trim().toLowerCase();
  m = m.slice(m.lastIndexOf("/") + 1);
  m = m.replace(/^(?:[a-z]{2,6}\.)?(?:anthropic|openai)\./, "");
  if (m.startsWith("claude-")) m = m.replace(/(\d)\.(\d)/g, "$1-$2");
  return m;
}

/** The longest key of `table` the model name starts with (at a name boundary), or undefined. */
export function matchModel(model: string, table: Readonly<Record<string, unknown>>): string | undefined {
  const m = normalize(model);
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (!m.startsWith(key)) continue;
    const next = m.charAt(key.length);
    if (next !== "" && !"-:@[".includes(next)) continue;
    if (!best || key.length > best.length) best = key;
  }
  return best;
}

/** The price of a model, or undefined when it is not in the table. */
export function priceOf(model: string): ModelPrice | undefined {
  const best = matchModel(model, PRICES);
  return best ? PRICES[best] : undefined;
}

/** USD for one request; undefined for models without a known price. */
export function costOf(model: string, usage: Usage): number | undefined {
  const price = priceOf(model);
  if (!price) return undefined;
  const cost = usage.inputTokens * price.input + usage.outputTokens * price.output + (usage.cacheReadTokens ?? 0) * price.cacheRead + (usage.cacheWriteTokens ?? 0) * price.cacheWrite;
  return cost / 1_000_000;
}
