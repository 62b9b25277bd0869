/**
 * The environment of commands, by allowlist: a command gets the variables a shell and the usual
 * toolchains need (PATH, HOME, LANG, TERM, JAVA_HOME, GOPATH, VIRTUAL_ENV...) and the ones the
 * user names (`sandbox.allowEnv`, `sandbox.env`); everything else is dropped. A name is never
 * matched as a prefix unless its pattern ends in `*`; matching is case-insensitive.
 *
 * Two checks apply even to allowlisted names (unless the user named the variable): a name that
 * looks like a secret (`*_TOKEN`, `*_PASSWORD`, `*_KEY`...), and a value that carries a password
 * (`https://user:pass@host`, as proxies and package indexes often do).
 */

/**
 * Variables commands get by default. `*` matches any run of characters. Paths, locale, terminal
 * and toolchain locations only: nothing here names a credential, a socket or code to preload.
 */
export const ALLOWED_ENV_PATTERNS: readonly string[] = [
  // shell and user
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "HOSTNAME",
  "TMPDIR",
  "TZ",
  // locale
  "LANG",
  "LANGUAGE",
  "LC_*",
  // terminal and colours
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "COLUMNS",
  "LINES",
  // XDG base folders (not XDG_RUNTIME_DIR: it holds agent and bus sockets, and is hidden)
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "XDG_CONFIG_DIRS",
  "XDG_DATA_DIRS",
  // certificates (paths)
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  // proxies (dropped when the value carries a password)
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  // continuous integration marker (test runners change behaviour on it)
  "CI",
  // git identity (the home folder, and so ~/.gitconfig, is hidden in the sandbox)
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  // JVM
  "JAVA_HOME",
  "JDK_HOME",
  "JRE_HOME",
  "GRADLE_HOME",
  "GRADLE_USER_HOME",
  "MAVEN_HOME",
  "M2_HOME",
  "KOTLIN_HOME",
  "SCALA_HOME",
  "SBT_HOME",
  "ANDROID_HOME",
  "ANDROID_SDK_ROOT",
  "ANDROID_NDK_HOME",
  "ANDROID_NDK_ROOT",
  // Go
  "GOPATH",
  "GOROOT",
  "GOBIN",
  "GOCACHE",
  "GOMODCACHE",
  "GOTOOLCHAIN",
  "GO111MODULE",
  "GOFLAGS",
  "GOPROXY",
  "GOPRIVATE",
  "GONOPROXY",
  "GONOSUMDB",
  "GONOSUMCHECK",
  "GOSUMDB",
  "CGO_ENABLED",
  // Rust
  "CARGO_HOME",
  "RUSTUP_HOME",
  "RUSTUP_TOOLCHAIN",
  "CARGO_TARGET_DIR",
  "RUSTFLAGS",
  "RUST_BACKTRACE",
  // Node
  "NVM_DIR",
  "NVM_BIN",
  "NVM_INC",
  "NODE_PATH",
  "NODE_ENV",
  "VOLTA_HOME",
  "PNPM_HOME",
  "BUN_INSTALL",
  "DENO_DIR",
  "DENO_INSTALL",
  "FNM_DIR",
  "COREPACK_HOME",
  // Python
  "PYENV_ROOT",
  "PYENV_VERSION",
  "VIRTUAL_ENV",
  "VIRTUAL_ENV_PROMPT",
  "CONDA_PREFIX",
  "CONDA_DEFAULT_ENV",
  "CONDA_EXE",
  "CONDA_PYTHON_EXE",
  "CONDA_SHLVL",
  "MAMBA_ROOT_PREFIX",
  "PYTHONPATH",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONUNBUFFERED",
  "PYTHONIOENCODING",
  "PIPX_HOME",
  "POETRY_HOME",
  "UV_CACHE_DIR",
  "UV_PYTHON",
  // Ruby, PHP, .NET, Haskell, Lean, others
  "RBENV_ROOT",
  "GEM_HOME",
  "GEM_PATH",
  "RUBY_VERSION",
  "COMPOSER_HOME",
  "DOTNET_ROOT",
  "DOTNET_CLI_TELEMETRY_OPTOUT",
  "NUGET_PACKAGES",
  "GHCUP_INSTALL_BASE_PREFIX",
  "STACK_ROOT",
  "ELAN_HOME",
  "SDKMAN_DIR",
  "ASDF_DIR",
  "ASDF_DATA_DIR",
  "MISE_DATA_DIR",
  "NIX_PATH",
  "NIX_PROFILES",
  // C and C++ builds
  "CC",
  "CXX",
  "CPP",
  "LD",
  "AR",
  "CFLAGS",
  "CXXFLAGS",
  "CPPFLAGS",
  "LDFLAGS",
  "PKG_CONFIG_PATH",
  "CMAKE_PREFIX_PATH",
  "LIBRARY_PATH",
  "CPATH",
  "C_INCLUDE_PATH",
  "CPLUS_INCLUDE_PATH",
  "LD_LIBRARY_PATH",
  "MAKEFLAGS",
  // manuals
  "MANPATH",
  "INFOPATH",
];

/**
 * Names of secrets. They are dropped even when an allowlist pattern matches (e.g. a toolchain
 * variable), unless the user names them in `sandbox.allowEnv`.
 */
export const SECRET_ENV_PATTERNS: readonly string[] = [
  "*KEY",
  "*KEYS",
  "*APIKEY",
  "*TOKEN",
  "*TOKENS",
  "*SECRET",
  "*SECRETS",
  "*SECRET_*",
  "*PASSWORD*",
  "*PASSWD*",
  "*PASS",
  "*PWD",
  "*PASSPHRASE",
  "*CREDENTIAL",
  "*CREDENTIALS",
  "*_AUTH",
  "*_AUTH_*",
  "*COOKIE",
  "*SESSION",
  "*SESSION_*",
  "*_PAT",
  "*_SK",
  "*DSN",
  "*WEBHOOK*",
  "AWS_*",
  "AZURE_*",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GCLOUD_*",
  "GH_*",
  "GITHUB_*",
  "GITLAB_*",
  "ANTHROPIC_*",
  "OPENAI_*",
  "NPM_CONFIG_*",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "GPG_AGENT_INFO",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "VSCODE_*",
  "DOCKER_AUTH_CONFIG",
  "*DATABASE_URL",
  "OP_*",
  "BW_*",
];

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "i");
}

/** One expression for a list of globs (one compile, one test per name), made on first use. */
function anyOf(globs: readonly string[]): () => RegExp {
  let re: RegExp | undefined;
  return () => (re ??= new RegExp(`^(?:${globs.map((g) => globToRegExp(g).source.slice(1, -1)).join("|")})$`, "i"));
}

const ALLOWED_RE = anyOf(ALLOWED_ENV_PATTERNS);
const SECRET_RE = anyOf(SECRET_ENV_PATTERNS);

/** Is this variable name a secret by the default rules? */
export function isSecretEnvName(name: string): boolean {
  return SECRET_RE().test(name);
}

/** Is this name on the default allowlist (secret-looking names excepted)? */
export function isAllowedEnvName(name: string): boolean {
  return ALLOWED_RE().test(name) && !isSecretEnvName(name);
}

/** A URL with user information (`https://user:pass@host`, `https://TOKEN@host`). */
const URL_WITH_USERINFO = /[a-z][a-z0-9+.-]*:\/\/[^\s/@]+@[^\s/@]/i;
/** `user:password@host` without a scheme, as curl accepts for proxies. */
const BARE_USER_PASSWORD = /(^|[\s,;="'(])[^\s/:@,;]+:[^\s/@,;]+@[^\s/@]/;

/** Does this value carry a credential (a URL with user information, or user:password@host)? */
export function valueHasCredential(value: string): boolean {
  return URL_WITH_USERINFO.test(value) || BARE_USER_PASSWORD.test(value);
}

export interface EnvFilterOptions {
  /** Names or `*` patterns the user lets through, whatever they are (`sandbox.allowEnv`). */
  allow?: readonly string[];
  /** Values the user sets for commands (`sandbox.env`); they win over the inherited ones. */
  set?: Readonly<Record<string, string>>;
}

export interface ScrubbedEnv {
  env: Record<string, string>;
  /** Names that were dropped, sorted. */
  removed: string[];
}

/**
 * Variables commands never get, even when the user allows or sets them: the permission gate reads
 * command lines as GNU programs parse them by default (options after operands are still options),
 * and `POSIXLY_CORRECT` makes GNU getopt stop at the first operand (`cat src/a.js -n` would read a
 * file named `-n`). Dropping it keeps the gate's reading true; the only cost of dropping it when
 * the person wanted it is GNU's usual parsing (issue 18, session 20). A command line that sets it
 * itself (`POSIXLY_CORRECT=1 cmd`, `export POSIXLY_CORRECT`) asks at the gate.
 */
export const NEVER_PASSED_ENV: readonly string[] = ["POSIXLY_CORRECT"];

/**
 * The environment commands start from: the allowlisted variables of `env`, those the user allows
 * by name, and those the user sets. Everything else is dropped and listed in `removed`; so are
 * NEVER_PASSED_ENV, whoever names them.
 */
export function filterEnv(env: Record<string, string | undefined>, opts: EnvFilterOptions = {}): ScrubbedEnv {
  const allowed = (opts.allow ?? []).map(globToRegExp);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (NEVER_PASSED_ENV.includes(name)) {
      removed.push(name);
      continue;
    }
    if (opts.set && Object.prototype.hasOwnProperty.call(opts.set, name)) continue;
    const userAllowed = allowed.some((re) => re.test(name));
    if (userAllowed || (isAllowedEnvName(name) && !valueHasCredential(value))) out[name] = value;
    else removed.push(name);
  }
  for (const [name, value] of Object.entries(opts.set ?? {})) {
    if (typeof value !== "string") continue;
    if (NEVER_PASSED_ENV.includes(name)) {
      if (!removed.includes(name)) removed.push(name);
    } else out[name] = value;
  }
  return { env: out, removed: removed.sort() };
}

/** @deprecated kept for callers of the old name: the same as `filterEnv(env, { allow })`. */
export function scrubEnv(env: Record<string, string | undefined>, allow: readonly string[] = []): ScrubbedEnv {
  return filterEnv(env, { allow });
}
