/**
 * firejail (Linux, second backend): the same policy as bwrap with firejail's options. The home
 * folder is replaced by an empty one (--private) or, when the workspace or listed paths are in
 * it, by one holding only those (--whitelist).
 */
import { spawnSync } from "node:child_process";
import { isWithin, resolvePolicy, which, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";

/**
 * Outside home, only /tmp is whitelisted (it becomes a tmpfs holding just those paths); elsewhere
 * a whitelist would hide the rest of its top folder (seen with /var/tmp), so paths there are only
 * made read-write or read-only.
 */
const WHITELIST_ROOTS = ["/tmp"];

export function firejailArgs(p: ResolvedPolicy, req: Pick<WrapRequest, "cwd" | "network">): string[] {
  // --deterministic-shutdown: end the sandbox (and what the command left running) when the command exits, as bwrap does.
  const args = ["--quiet", "--noprofile", "--deterministic-exit-code", "--deterministic-shutdown", "--read-only=/"];
  const visible = [{ path: p.workspace, mode: "rw" as const }, ...p.paths];
  const inHome = visible.filter((v) => p.home !== "/" && isWithin(v.path, p.home));
  if (inHome.length === 0) args.push("--private");
  const tmpWs = visible.filter((v) => isWithin(v.path, "/tmp"));
  if (tmpWs.length === 0) args.push("--private-tmp");
  for (const v of visible) {
    const whitelisted = inHome.includes(v) || WHITELIST_ROOTS.some((r) => isWithin(v.path, r));
    if (whitelisted) args.push(`--whitelist=${v.path}`);
    args.push(v.mode === "rw" ? `--read-write=${v.path}` : `--read-only=${v.path}`);
  }
  if (req.network === "off") args.push("--net=none");
  return args;
}

export function probeFirejail(): string {
  const bin = which("firejail");
  if (!bin) {
    throw new SandboxUnavailableError(
      "The firejail sandbox is not available: firejail is not installed. Install it (Debian/Ubuntu: sudo apt-get install firejail), or choose bwrap.",
    );
  }
  const r = spawnSync(bin, ["--quiet", "--noprofile", "--net=none", "true"], { encoding: "utf8", timeout: 15_000 });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit status ${r.status}`).trim();
    throw new SandboxUnavailableError(`firejail is installed (${bin}) but cannot create a sandbox here: ${why}`);
  }
  return bin;
}

export function createFirejailBackend(policy: SandboxPolicy): SandboxBackend {
  const bin = probeFirejail();
  const p = resolvePolicy(policy);
  return {
    name: "firejail",
    networkToggle: true,
    helpers: ["firejail"],
    wrap: (req) => ({ file: bin, args: [...firejailArgs(p, req), `--private-cwd=${req.cwd}`, "--", ...req.argv] }),
  };
}
