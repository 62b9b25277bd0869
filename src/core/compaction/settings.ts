/** The `compaction` settings key (contract section 4): `threshold`, `strategy`, and the model of an LLM summary. */

export interface CompactionSettings {
  /** Share of the model's context window at which the context is compacted before a request (default 0.8). */
  threshold: number;
  /** "extractive" (default): scored sentences, no model call. "llm": a summary written by `model`. */
  strategy: "extractive" | "llm";
  /** The (cheaper) model of an LLM summary; default: the session's model. */
  model?: string;
}

export const DEFAULT_COMPACTION: CompactionSettings = { threshold: 0.8, strategy: "extractive" };

/** Reads the key as found in a settings file; what is wrong is said and the default used for it. */
export function parseCompactionSettings(raw: unknown): { settings: CompactionSettings; problems: string[] } {
  const settings: CompactionSettings = { ...DEFAULT_COMPACTION };
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { settings, problems };
  if (typeof raw !== "object" || Array.isArray(raw)) return { settings, problems: ['compaction: expected an object like {"threshold": 0.8, "strategy": "extractive"}'] };
  const r = raw as Record<string, unknown>;
  if (r.threshold !== undefined) {
    const t = r.threshold;
    if (typeof t === "number" && t > 0 && t <= 1) settings.threshold = t;
    else if (typeof t === "number" && t > 1 && t <= 100) settings.threshold = t / 100;
    else problems.push(`compaction.threshold: expected a share of the context window between 0 and 1 (e.g. 0.8), got ${JSON.stringify(t)}; using ${DEFAULT_COMPACTION.threshold}`);
  }
  if (r.strategy !== undefined) {
    if (r.strategy === "extractive" || r.strategy === "llm") settings.strategy = r.strategy;
    else problems.push(`compaction.strategy: expected "extractive" or "llm", got ${JSON.stringify(r.strategy)}; using "extractive"`);
  }
  if (r.model !== undefined) {
    if (typeof r.model === "string" && r.model.trim()) settings.model = r.model.trim();
    else problems.push(`compaction.model: expected a model name, got ${JSON.stringify(r.model)}`);
  }
  for (const k of Object.keys(r)) if (!["threshold", "strategy", "model"].includes(k)) problems.push(`compaction.${k}: unknown key (known: threshold, strategy, model)`);
  return { settings, problems };
}
