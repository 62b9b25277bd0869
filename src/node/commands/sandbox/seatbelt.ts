/**
 * macOS: sandbox-exec with a generated Seatbelt profile. Writes only to the workspace, the
 * temporary folders and listed read-write paths (none for a read-only command); the homes
 * unreadable except listed paths and the workspace; the protected paths of the writable folders
 * not writable; the paths the rules deny unreadable; no network unless asked. Seatbelt rules are
 * paths, so a protected path that does not exist yet cannot be created either. Later rules win.
 */
import { existsSync } from "node:fs";
import { PROTECTED_WORKSPACE_PATHS } from "../../../core/protected-paths";
import { isWithin, resolvePolicy, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type SandboxProtection, type WrapRequest } from "./types";

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

function str(p: string): string {
  return `"${p.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** A path and everything under it. */
function both(p: string): string {
  return `(literal ${str(p)}) (subpath ${str(p)})`;
}

export function seatbeltProfile(
  p: ResolvedPolicy,
  req: Pick<WrapRequest, "network" | "confine">,
  tmpDirs: string[] = ["/private/tmp", "/private/var/folders"],
  protection?: SandboxProtection,
): string {
  const readOnly = req.confine?.readOnly === true;
  const lines = ["(version 1)", "(allow default)"];
  const homes = [p.home, "/Users", "/var/root", "/private/var/root"].filter((h, i, a) => h !== "/" && a.indexOf(h) === i);
  lines.push(`(deny file-read* file-write* ${homes.map((h) => `(subpath ${str(h)})`).join(" ")})`);
  const readable = [p.workspace, ...p.paths.map((x) => x.path)];
  lines.push(`(allow file-read* ${readable.map((x) => `(subpath ${str(x)})`).join(" ")})`);
  const writableRoots = readOnly ? [] : [p.workspace, ...p.paths.filter((x) => x.mode === "rw").map((x) => x.path)];
  const writable = [...writableRoots, ...tmpDirs];
  lines.push("(deny file-write*)");
  lines.push(`(allow file-write* ${writable.map((x) => `(subpath ${str(x)})`).join(" ")} (literal "/dev/null") (literal "/dev/zero") (regex #"^/dev/tty") (regex #"^/dev/fd/"))`);
  const approved = readOnly ? [] : (req.confine?.writable ?? []);
  const guarded: string[] = [];
  for (const root of writableRoots) {
    for (const e of PROTECTED_WORKSPACE_PATHS) {
      const abs = `${root}/${e.path}`;
      if (!approved.some((a) => isWithin(abs, a) || isWithin(a, abs))) guarded.push(abs);
    }
  }
  for (const ro of protection?.readOnly ?? []) if (!approved.some((a) => isWithin(ro, a) || isWithin(a, ro))) guarded.push(ro);
  if (guarded.length) lines.push(`(deny file-write* ${guarded.map(both).join(" ")})`);
  const hidden = protection?.hide ?? [];
  if (hidden.length) lines.push(`(deny file-read* file-write* ${hidden.map(both).join(" ")})`);
  // Programs the deny rules forbid (`Bash(rm:*)`): no command may start them.
  const programs = (protection?.programs ?? [])
    .filter((d) => (d.list ?? "deny") === "deny" || req.confine?.unreviewed)
    .flatMap((d) => (d.name.startsWith("/") ? [d.name] : ["/bin", "/usr/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/opt/homebrew/bin"].map((dir) => `${dir}/${d.name}`)));
  if (programs.length) lines.push(`(deny process-exec ${programs.map((x) => `(literal ${str(x)})`).join(" ")})`);
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
    degraded: ["sandbox-exec has no PID namespace and macOS has no /proc: a process that leaves the command's process group (setsid) can outlive it"],
    wrap: (req) => ({ file: SANDBOX_EXEC, args: ["-p", seatbeltProfile(p, req, undefined, policy.protection?.()), ...req.argv] }),
  };
}
