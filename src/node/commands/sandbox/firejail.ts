/**
 * firejail (Linux, second backend): the mount plan of plan.ts in firejail's options. Every
 * capability dropped, no new privileges, firejail's seccomp filter, no new namespaces, a minimal
 * /dev (no disks: root could read them raw), the file system read-only except the workspace and
 * listed read-write paths. The user's home is replaced by an empty one (--private) or one holding
 * only the visible paths (--whitelist); other homes, /run, system secrets, host sockets and the
 * paths the rules deny are blacklisted (unreadable). A folder is made a mount point by mounting
 * it read-only then read-write again, so that what it holds cannot be renamed away.
 *
 * Differences from bwrap: hidden paths are unreadable (EACCES) rather than empty; the private
 * temporary folders are not size-limited; firejail always hides the real home of the user (from
 * the password database), whatever $HOME says.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { buildMountPlan, hostFacts, type HostFacts, type MountPlan } from "./plan";
import { isWithin, real, resolvePolicy, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";
import { findHostProgram } from "../../host-programs";

/**
 * Outside home, only /tmp and /var/tmp are whitelisted (each becomes a tmpfs holding just those
 * paths, which is what a private temporary folder should be); elsewhere a whitelist would hide
 * the rest of its top folder, so paths there are only made read-write or read-only.
 */
const WHITELIST_ROOTS = ["/tmp", "/var/tmp"];

/** Blacklists every entry of `dir` except the ones leading to a path in `keep`. */
function blacklistExcept(dir: string, keep: string[], out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const child = join(dir, name);
    const inside = keep.filter((k) => isWithin(k, child));
    if (inside.length === 0) out.push(`--blacklist=${child}`);
    else if (!inside.includes(child)) blacklistExcept(child, inside, out);
  }
}

export interface FirejailContext {
  /** The user's real home (firejail's --private replaces it). */
  userHome: string;
  root: boolean;
  /** The entries of / that are not symbolic links (read from / when not given). */
  topEntries?: string[];
}

/** Entries of / other than symbolic links (those lead to one of the others). */
function topEntries(): string[] {
  try {
    return readdirSync("/", { withFileTypes: true })
      .filter((d) => !d.isSymbolicLink())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/**
 * The read-only part of the file system for a user other than root. `--read-only=/` would be
 * simplest, but it bind-mounts / onto itself, and the kernel refuses a new user namespace to a
 * process whose root is not its mount namespace's root: firejail's --noroot then goes on without
 * one, and the process limit counts all of the user's processes instead of the command's. So each
 * entry of / is made read-only instead; / itself is root's and not writable without capabilities.
 * /proc is firejail's own, /run's entries are blacklisted by the plan, /tmp is a private tmpfs.
 */
function readOnlyTop(names: string[]): string[] {
  return names.filter((n) => !["proc", "run", "tmp"].includes(n)).map((n) => `--read-only=/${n}`);
}

export function firejailArgs(p: ResolvedPolicy, plan: MountPlan, req: Pick<WrapRequest, "cwd" | "network">, ctx: FirejailContext): string[] {
  // --deterministic-shutdown: end the sandbox (and what the command left running) when the command exits, as bwrap does.
  const args = ["--quiet", "--noprofile", "--deterministic-exit-code", "--deterministic-shutdown"];
  args.push("--caps.drop=all", "--nonewprivs", "--seccomp", "--restrict-namespaces", "--private-dev");
  if (ctx.root) args.push("--read-only=/");
  else args.push("--noroot", ...readOnlyTop(ctx.topEntries ?? topEntries()));
  const visible = plan.mounts.filter((m) => m.op === "ro" || m.op === "rw").map((m) => m.path);
  const userHome = ctx.userHome;
  const inHome = visible.filter((v) => userHome !== "/" && isWithin(v, userHome));
  if (inHome.length === 0) args.push("--private");
  const inTmp = visible.filter((v) => isWithin(v, "/tmp"));
  if (inTmp.length === 0) args.push("--private-tmp");
  for (const v of visible) {
    if (inHome.includes(v) || WHITELIST_ROOTS.some((r) => isWithin(v, r))) args.push(`--whitelist=${v}`);
  }
  for (const m of plan.mounts) {
    switch (m.op) {
      case "tmpfs": {
        // The user's home and /tmp are firejail's own (--private, --private-tmp); other folders are blacklisted.
        if (m.tag === "tmp" || m.path === userHome) break;
        // firejail's own state (/run/firejail) and the user's private home stay.
        const keep = [...visible, userHome, "/run/firejail"].filter((v) => isWithin(v, m.path) && v !== m.path);
        if (keep.length === 0) args.push(`--blacklist=${m.path}`);
        else blacklistExcept(m.path, keep, args);
        break;
      }
      case "hide":
        args.push(`--blacklist=${m.path}`);
        break;
      case "ro":
        args.push(`--read-only=${m.path}`);
        break;
      case "rw":
        // Mounted read-only first, so that read-write makes it a mount point of its own (it cannot be renamed).
        if (m.tag === "ancestor") args.push(`--read-only=${m.path}`);
        args.push(`--read-write=${m.path}`);
        break;
    }
  }
  if (req.network === "off") args.push("--net=none");
  return args;
}

let probed: { bin: string; ownUserNamespace: boolean } | undefined;

const HARDENING = ["--quiet", "--noprofile", "--caps.drop=all", "--nonewprivs", "--seccomp", "--restrict-namespaces", "--private-dev", "--net=none"];

/**
 * Finds firejail and checks it can make the hardened sandbox here. For a user other than root it
 * also checks that --noroot gives the command a user namespace of its own (the kernel then counts
 * the process limit per command): where user namespaces are off, firejail warns and goes on without.
 */
export function probeFirejail(): { bin: string; ownUserNamespace: boolean } {
  const bin = findHostProgram("firejail");
  if (!bin) {
    throw new SandboxUnavailableError("The firejail sandbox is not available: firejail is not installed. Install it (Debian/Ubuntu: sudo apt-get install firejail), or choose bwrap.");
  }
  if (probed?.bin === bin) return probed;
  const r = spawnSync(bin, [...HARDENING, "true"], { encoding: "utf8", timeout: 15_000 });
  if (r.status !== 0) {
    const why = (r.stderr || r.error?.message || `exit status ${r.status}`).trim();
    throw new SandboxUnavailableError(`firejail is installed (${bin}) but cannot create a hardened sandbox here: ${why}`);
  }
  let ownUserNamespace = false;
  if (process.getuid?.() !== 0) {
    // In the first user namespace uid_map maps all ids ("0 0 4294967295"); in one of its own, only this user.
    const u = spawnSync(bin, [...HARDENING, "--noroot", ...readOnlyTop(topEntries()), "cat", "/proc/self/uid_map"], { encoding: "utf8", timeout: 15_000 });
    const map = (u.stdout ?? "").trim().split(/\s+/);
    ownUserNamespace = u.status === 0 && map.length >= 3 && map[2] !== "4294967295";
  }
  probed = { bin, ownUserNamespace };
  return probed;
}

export function createFirejailBackend(policy: SandboxPolicy): SandboxBackend {
  // The policy first: its writable folders are never searched for firejail (host-programs.ts).
  const p = resolvePolicy(policy);
  const { bin, ownUserNamespace } = probeFirejail();
  const root = process.getuid?.() === 0;
  let userHome: string;
  try {
    userHome = real(userInfo().homedir);
  } catch {
    userHome = p.home;
  }
  let facts: HostFacts | undefined;
  return {
    name: "firejail",
    networkToggle: true,
    helpers: ["firejail"],
    pidNamespace: true,
    ownUserNamespace,
    degraded: [
      "firejail cannot size-limit its private temporary folders (the file size limit still applies)",
      ...(root || ownUserNamespace ? [] : ["no user namespace for the sandbox (firejail --noroot is not available here): the process limit counts all of this user's processes"]),
    ],
    wrap: (req) => {
      facts ??= hostFacts(p.home);
      const plan = buildMountPlan(
        {
          policy: p,
          ...(req.confine ? { confine: req.confine } : {}),
          ...(req.searchPath !== undefined ? { searchPath: req.searchPath } : {}),
          cwd: req.cwd,
          ...(policy.protection ? { protection: policy.protection() } : {}),
        },
        facts,
      );
      return {
        file: bin,
        args: [...firejailArgs(p, plan, req, { userHome, root }), `--private-cwd=${req.cwd}`, "--", ...req.argv],
        guards: plan.guards,
        env: { TMPDIR: "/tmp", ...plan.env },
      };
    },
  };
}
