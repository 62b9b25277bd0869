/**
 * The provider API keys Yoke holds, kept out of what the repository can run: hooks and MCP servers
 * get the user's environment without them (a committed SessionStart hook or a project MCP server
 * must not read the key that pays for the model). A server the user's own configuration defines
 * may name one in its `env` (then it is passed, as written there).
 */

/** The variables every provider Yoke speaks reads its key from. */
const KNOWN = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "YOKE_API_KEY"];

const names = new Set<string>(KNOWN);
const values = new Set<string>();

/** Records a key Yoke read (`--api-key-env VAR`, a settings file's key variable), by name and value. */
export function registerProviderSecret(name: string | undefined, value?: string): void {
  if (name) names.add(name);
  if (value && value.length >= 8) values.add(value);
}

/** The names of the variables kept out (for messages and tests). */
export function providerSecretNames(): string[] {
  return [...names];
}

/** `env` without the provider keys: their variables, and any variable holding one of their values. */
export function withoutProviderSecrets(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const secret = new Set(values);
  for (const n of names) if (env[n] && env[n]!.length >= 8) secret.add(env[n]!);
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || names.has(k) || secret.has(v)) continue;
    out[k] = v;
  }
  return out;
}
