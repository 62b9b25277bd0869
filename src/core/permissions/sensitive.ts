/** Files that ask before being touched even where the mode would allow it. */
import { basenameOf, isWithin } from "./posix-path";

export interface Sensitivity {
  /** secret: credentials and keys (reads and writes ask); config: agent settings (writes ask in every mode). */
  kind: "secret" | "config";
  why: string;
}

const SECRET_HOME_DIRS = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker", ".password-store"];
const SECRET_NAMES = /^(\.env(\..*)?|\.envrc|credentials(\..*)?|\.credentials(\..*)?|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|id_(rsa|dsa|ecdsa|ed25519)(.*)?|.*\.(pem|key|p12|pfx|jks|keystore))$/;
const CONFIG_FILES = /(^|\/)(\.yoke\/settings(\.local)?\.json|\.claude\/settings(\.local)?\.json|\.vscode\/settings\.json|\.vscode\/mcp\.json|\.mcp\.json)$/;

/** Why `abs` (absolute, resolved) is sensitive, or undefined. */
export function sensitivity(abs: string, home: string): Sensitivity | undefined {
  for (const dir of SECRET_HOME_DIRS) {
    if (isWithin(abs, `${home}/${dir}`)) return { kind: "secret", why: `inside ~/${dir}` };
  }
  if (isWithin(abs, `${home}/.yoke`) || isWithin(abs, `${home}/.claude`)) return { kind: "config", why: "user agent settings" };
  const segments = abs.split("/");
  if (segments.includes(".git")) return { kind: "secret", why: "git internals" };
  const name = basenameOf(abs);
  if (SECRET_NAMES.test(name)) return { kind: "secret", why: name.startsWith(".env") ? "environment file" : "credentials or key file" };
  if (CONFIG_FILES.test(abs)) return { kind: "config", why: "agent settings" };
  return undefined;
}

/** Names a glob pattern could expand to that are sensitive (probed against globs in command arguments). */
export const SENSITIVE_PROBES = [".env", ".env.local", ".envrc", "credentials", "credentials.json", "id_rsa", "id_ed25519", "server.pem", "server.key", ".git/config", ".netrc", ".npmrc"];
