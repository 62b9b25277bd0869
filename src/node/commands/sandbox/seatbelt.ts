/**
 * macOS: sandbox-exec with a generated Seatbelt profile. Writes only to the workspace, the
 * temporary folders and listed read-write paths; the home folder unreadable except listed
 * paths and the workspace; no network unless asked. (Later rules win in a Seatbelt profile.)
 */
import { existsSync } from "node:fs";
import { resolvePolicy, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

function str(p: string): string {
  return `"${p.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(p: ResolvedPolicy, req: Pick<WrapRequest, "network">, tmpDirs: string[] = ["/private/tmp", "/private/var/folders"]): string {
  const lines = ["(version 1)", "(allow default)"];
  if (p.home !== "/") {
    lines.push(`(deny file-read* file-write* (subpath ${str(p.home)}))`);
  }
  const readable = [p.workspace, ...p.paths.map((x) => x.path)];
  lines.push(`(allow file-read* ${readable.map((x) => `(subpath ${str(x)})`).join(" ")})`);
  const writable = [p.workspace, ...p.paths.filter((x) => x.mode === "rw").map((x) => x.path), ...tmpDirs];
  lines.push("(deny file-write*)");
  lines.push(
    `(allow file-write* ${writable.map((x) => `(subpath ${str(x)})`).join(" ")} (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`,
  );
  if (req.network === "off") lines.push("(deny network*)");
  return lines.join("\n") + "\n";
}

export function createSeatbeltBackend(policy: SandboxPolicy): SandboxBackend {
  if (process.platform !== "darwin" || !existsSync(SANDBOX_EXEC)) {
    throw new SandboxUnavailableError("The sandbox-exec sandbox is only available on macOS (/usr/bin/sandbox-exec). On Linux use bwrap.");
  }
  const p = resolvePolicy(policy);
  return {
    name: "sandbox-exec",
    networkToggle: true,
    helpers: [],
    wrap: (req) => ({ file: SANDBOX_EXEC, args: ["-p", seatbeltProfile(p, req), ...req.argv] }),
  };
}
