/**
 * Files that ask before being touched even where the mode would allow it.
 *
 * - secret: credentials and keys; reading and writing them asks (except in bypassPermissions).
 * - protected (`protected: true`): code or configuration something runs later, outside any
 *   sandbox: the workspace paths of src/core/protected-paths.ts (git hooks and config, .vscode,
 *   .husky, .yoke, .claude...), agent settings, and the shell and git start-up files of the home
 *   folder. Writing one asks in every mode, bypassPermissions included, even with an allow rule.
 *   They are matched at any depth, which covers every workspace folder and additional directory:
 *   a nested repository's `.git/hooks`, a sub-project's `.envrc` or `.gitattributes` run code too.
 */
import { PROTECTED_WORKSPACE_PATHS, protectedEntry, protectedName } from "../protected-paths";
import { basenameOf } from "./posix-path";

export interface Sensitivity {
  /**
   * secret: reads and writes ask (credentials, keys, git internals); config: reads are fine, writes
   * ask in every mode (a protected path that holds no secret).
   */
  kind: "secret" | "config";
  why: string;
  /**
   * Set when writing it asks in every mode, bypassPermissions included: why (e.g. "git hooks run on
   * later git commands"). Always set for "config"; also for secrets that run code (`.git/hooks`, `.envrc`).
   */
  protected?: string;
}

/** Home folders that hold secrets (reading them asks or is denied). */
export const SECRET_HOME_DIRS = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker", ".password-store"];
/** Home files a shell, git or the desktop runs or reads for commands later. */
export const HOME_STARTUP = [
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".config/fish",
  ".gitconfig",
  ".config/git",
  // Package managers' user configuration: `script-shell`, `node-options`, `onload-script`, `yarnPath`… run
  // programs in every later install or script (npm config edit/set write ~/.npmrc: session 17, gate18).
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".bunfig.toml",
  ".config/pnpm",
  ".config/systemd",
  ".config/autostart",
  ".config/environment.d",
  ".pam_environment",
  ".xprofile",
  ".xinitrc",
];
const SECRET_NAMES =
  /^(\.env(\..*)?|\.envrc|credentials(\..*)?|\.credentials(\..*)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|id_(rsa|dsa|ecdsa|ed25519)(.*)?|.*\.(pem|key|p12|pfx|jks|keystore))$/;
const CONFIG_FILES = /(^|\/)(\.yoke\/settings(\.local)?\.json|\.claude\/settings(\.local)?\.json|\.vscode\/settings\.json|\.vscode\/mcp\.json|\.mcp\.json)$/;
const AGENT_SETTINGS = "it holds agent settings, which decide what Yoke may do";

/** `rest` is `name` or inside it (`name/…`). */
const under = (rest: string, name: string) => rest.startsWith(name) && (rest.length === name.length || rest.charCodeAt(name.length) === 47);

/** Why `abs` (absolute, resolved) is sensitive, or undefined. */
export function sensitivity(abs: string, home: string): Sensitivity | undefined {
  // Each home entry is `${home}/NAME`: within one only below `${home}/`, and then where the rest is
  // NAME or NAME/… (compared in place: this runs for every path a tool or guidance touches).
  if (abs.startsWith(`${home}/`)) {
    const rest = abs.slice(home.length + 1);
    for (const dir of SECRET_HOME_DIRS) {
      if (under(rest, dir)) return { kind: "secret", why: `inside ~/${dir}`, protected: `~/${dir} holds credentials and configuration` };
    }
    if (under(rest, ".yoke") || under(rest, ".claude")) return { kind: "config", why: "user agent settings", protected: AGENT_SETTINGS };
    for (const f of HOME_STARTUP) {
      if (under(rest, f)) return { kind: "config", why: `~/${f}`, protected: `~/${f} is read by shells, git or the desktop and can run programs` };
    }
  }
  const segments = abs.split("/");
  const name = basenameOf(abs);
  const listed = protectedAnywhere(segments);
  const guarded = listed ?? (name === ".git" ? "a .git file or folder decides which repository and configuration git uses" : undefined);
  const extra = guarded ? { protected: guarded } : {};
  if (segments.includes(".git")) {
    // Protected git internals (hooks, info, modules) are readable like other protected paths; a git
    // `config` and the rest of .git stay secrets to read (actions/checkout stores its token in config).
    if (listed && name !== "config") return { kind: "config", why: "git internals", protected: listed };
    return { kind: "secret", why: "git internals", ...extra };
  }
  if (SECRET_NAMES.test(name)) return { kind: "secret", why: name.startsWith(".env") ? "environment file" : "credentials or key file", ...extra };
  if (CONFIG_FILES.test(abs)) return { kind: "config", why: "agent settings", protected: AGENT_SETTINGS };
  if (guarded) return { kind: "config", why: "protected path", protected: guarded };
  return undefined;
}

/**
 * Why reading `abs` asks because it is a secret (credentials, keys, git internals such as the
 * token actions/checkout leaves in `.git/config`), or undefined. Case is folded too (a
 * case-insensitive file system opens `.ENV` for `.env`). What the session reads into the model's
 * context by itself — guidance files and their imports, output styles, custom commands — must not
 * be one: nobody is asked about those reads.
 */
export function secretToRead(abs: string, home = ""): string | undefined {
  const h = home || "/\0no-home";
  for (const p of new Set([abs, abs.toLowerCase()])) {
    const s = sensitivity(p, h);
    if (s?.kind === "secret") return s.why;
  }
  return undefined;
}

/** Why the path (segments of an absolute path) is protected, matched at any depth. */
function protectedAnywhere(segments: string[]): string | undefined {
  for (let i = 1; i < segments.length; i++) {
    if (!FIRST_SEGMENTS.has(segments[i]!)) continue;
    const entry = protectedEntry(segments.slice(i).join("/"));
    if (entry) return entry.why;
  }
  // A name protected by its pattern (`app.code-workspace`): what opening it runs does not depend on its folder.
  const last = segments[segments.length - 1];
  return last ? protectedName(last, segments.includes(".git"))?.why : undefined;
}
const FIRST_SEGMENTS = new Set(PROTECTED_WORKSPACE_PATHS.map((e) => e.path.split("/")[0]!));

/** Names a glob pattern could expand to that are sensitive (probed against globs in command arguments). */
export const SENSITIVE_PROBES = [".env", ".env.local", ".envrc", "credentials", "credentials.json", "id_rsa", "id_ed25519", "server.pem", "server.key", ".git/config", ".netrc", ".npmrc"];
