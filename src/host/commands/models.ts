// Which models "Yoke: Switch Model" offers (pure): the current one, yoke.fallbackModels of the same
// provider, and what the provider's server lists — each once, with where it comes from.
import { parseFallbackSpec } from "../../core/fallback";

export interface ModelChoice {
  model: string;
  /** "current", "fallback", "offered by the server". */
  sources: string[];
}

export function modelChoices(opts: { provider: string; current: string; fallbackModels: readonly unknown[]; available: readonly string[] }): ModelChoice[] {
  const out = new Map<string, ModelChoice>();
  const add = (model: string, source: string) => {
    const m = model.trim();
    if (!m) return;
    const c = out.get(m) ?? { model: m, sources: [] };
    if (!c.sources.includes(source)) c.sources.push(source);
    out.set(m, c);
  };
  add(opts.current, "current");
  for (const f of opts.fallbackModels) {
    if (typeof f !== "string" || !f.trim()) continue;
    // "provider:model" of another provider would need that provider's settings: not offered here.
    const spec = parseFallbackSpec(f);
    if (!spec.provider || spec.provider === opts.provider) add(spec.model, "fallback");
  }
  for (const a of opts.available) add(a, "offered by the server");
  return [...out.values()];
}
