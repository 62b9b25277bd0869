/**
 * The `subagents` settings key (proposed for contract section 4): `{maxDepth, maxConcurrent, maxTurns}`.
 * `maxDepth`: how deep sub-agents may nest (1: only the user's session starts them; default 2).
 * `maxConcurrent`: sub-agents of one session running at once, more wait in order (default 3).
 * `maxTurns`: model turns a sub-agent may take (default: the session's).
 */
export interface SubagentSettings {
  maxDepth: number;
  maxConcurrent: number;
  maxTurns?: number;
}

export const DEFAULT_SUBAGENT_SETTINGS: SubagentSettings = { maxDepth: 2, maxConcurrent: 3 };

const LIMITS = { maxDepth: [0, 5], maxConcurrent: [1, 16], maxTurns: [1, 500] } as const;

/** Parses the key; a bad field is reported and falls back to its default (the others still apply). */
export function parseSubagentSettings(value: unknown, where = "subagents"): { settings: SubagentSettings; problems: string[] } {
  const settings: SubagentSettings = { ...DEFAULT_SUBAGENT_SETTINGS };
  const problems: string[] = [];
  if (value === undefined || value === null) return { settings, problems };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { settings, problems: [`${where} must be an object like {"maxDepth": 2, "maxConcurrent": 3}; the defaults apply`] };
  }
  for (const [key, x] of Object.entries(value as Record<string, unknown>)) {
    if (!(key in LIMITS)) {
      problems.push(`${where}.${key} is not a setting (known: ${Object.keys(LIMITS).join(", ")}); it was ignored`);
      continue;
    }
    const [min, max] = LIMITS[key as keyof typeof LIMITS];
    if (typeof x !== "number" || !Number.isInteger(x) || x < min || x > max) {
      problems.push(`${where}.${key} must be a whole number from ${min} to ${max} (got ${JSON.stringify(x)}); the default applies`);
      continue;
    }
    settings[key as keyof typeof LIMITS] = x;
  }
  return { settings, problems };
}
