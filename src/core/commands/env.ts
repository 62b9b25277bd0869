/**
 * Environment scrubbing: API keys, tokens and credential sockets are not passed to commands
 * unless the user allows them by name. Matching is on the variable name, case-insensitively.
 */

/** Name patterns of secrets (`*` matches any run of characters). */
export const SECRET_ENV_PATTERNS: readonly string[] = [
  "*_KEY",
  "*_KEYS",
  "*_APIKEY",
  "*_TOKEN",
  "*_TOKENS",
  "*_SECRET",
  "*_SECRETS",
  "*SECRET_*",
  "*_PASSWORD",
  "*_PASSWD",
  "*_PASSPHRASE",
  "*_CREDENTIALS",
  "*_AUTH",
  "*_COOKIE",
  "PASSWORD",
  "AWS_*",
  "AZURE_*",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GCLOUD_*",
  "GH_*",
  "GITHUB_TOKEN",
  "GITLAB_*TOKEN*",
  "ANTHROPIC_*",
  "OPENAI_*",
  "NPM_TOKEN",
  "NPM_CONFIG__AUTH*",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "VSCODE_GIT_*",
  "DOCKER_AUTH_CONFIG",
  "DATABASE_URL",
];

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "i");
}

const SECRET_RES = SECRET_ENV_PATTERNS.map(globToRegExp);

/** Is this variable name a secret by the default rules? */
export function isSecretEnvName(name: string): boolean {
  return SECRET_RES.some((re) => re.test(name));
}

export interface ScrubbedEnv {
  env: Record<string, string>;
  /** Names that were removed, sorted. */
  removed: string[];
}

/**
 * Removes secret variables. `allow` lists names (or `*` patterns) the user allows through;
 * a name is never matched by prefix unless the pattern says so.
 */
export function scrubEnv(env: Record<string, string | undefined>, allow: readonly string[] = []): ScrubbedEnv {
  const allowed = allow.map(globToRegExp);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretEnvName(name) && !allowed.some((re) => re.test(name))) {
      removed.push(name);
      continue;
    }
    out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}
