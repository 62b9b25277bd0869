/**
 * bubblewrap (Linux, the default). Each command gets a new user namespace with every capability
 * dropped and no nested user namespaces, so root inside cannot remount, unmount, chroot, mknod or
 * write host sysctls; new PID, IPC, UTS and cgroup namespaces; no network unless asked; a new
 * session; death with its parent. The file system is the host's, read-only, with the mounts of
 * the plan (plan.ts): private size-limited temporary folders, every home hidden, system secrets
 * and host sockets hidden, the workspace writable except its protected paths, the paths the
 * permission rules deny hidden.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir, release, tmpdir } from "node:os";
import { join } from "node:path";
import { buildMountPlan, hostFacts, type HostFacts, type MountPlan } from "./plan";
import { resolvePolicy, type ResolvedPolicy } from "./paths";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy, type WrapRequest } from "./types";
import { findHostProgram } from "../../host-programs";

/** What this bwrap supports (older versions lack some options). */
export interface BwrapFeatures {
  /** --unshare-user works here (the user namespace that drops root's power). */
  userns: boolean;
  /** --disable-userns (bwrap >= 0.8). */
  disableUserns: boolean;
  /** --size before --tmpfs (bwrap >= 0.7). */
  size: boolean;
  /** --unshare-cgroup-try. */
  cgroup: boolean;
}

export const FULL_FEATURES: BwrapFeatures = { userns: true, disableUserns: true, size: true, cgroup: true };

/** The hardening options: namespaces, capabilities, session. */
export function bwrapHardening(f: BwrapFeatures, network: "on" | "off"): string[] {
  const args: string[] = [];
  if (f.userns) args.push("--unshare-user");
  if (f.userns && f.disableUserns) args.push("--disable-userns");
  args.push("--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc", "--unshare-uts");
  if (f.cgroup) args.push("--unshare-cgroup-try");
  if (network === "off") args.push("--unshare-net");
  args.push("--new-session", "--die-with-parent");
  return args;
}

/** The bwrap file-system options of a mount plan. */
export function bwrapMountArgs(plan: MountPlan, f: BwrapFeatures = FULL_FEATURES): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"];
  for (const m of plan.mounts) {
    switch (m.op) {
      case "tmpfs":
        if (f.size && m.sizeMb) args.push("--size", String(m.sizeMb * 1024 * 1024));
        args.push("--tmpfs", m.path);
        break;
      case "hide":
        if (m.dir) {
          // An empty private folder nobody may enter (mode 0: without capabilities, root is held too).
          // Its owner could chmod it back, to find it empty; what is written there is lost with the command.
          // (A read-only remount would cost a mountinfo parse per folder in bwrap.)
          if (f.size) args.push("--size", String(64 * 1024));
          args.push("--perms", "0000", "--tmpfs", m.path);
        } else {
          // A denied program: in its place, a script that says why it does not run (exit status 126, "cannot execute").
          args.push("--ro-bind", m.denied ? deniedProgramStub(m.denied) : "/dev/null", m.path);
        }
        break;
      case "ro":
        // Protected paths must be mounted, or the command must not start; listed paths (and a sibling removed since) may be missing.
        args.push(m.tag === "path" || m.tag === "needed" || m.tag === "sibling" ? "--ro-bind-try" : "--ro-bind", m.path, m.path);
        break;
      case "rw":
        args.push(m.tag === "path" ? "--bind-try" : "--bind", m.path, m.path);
        break;
    }
  }
  // /dev read-only last (its own mount points were made above), so that nothing fills it.
  args.push("--remount-ro", "/dev");
  return args;
}

/** The bwrap arguments (before the command's argv) for a policy and a request. */
export function bwrapArgs(
  p: ResolvedPolicy,
  req: Pick<WrapRequest, "cwd" | "network" | "confine" | "searchPath">,
  facts: HostFacts,
  opts: { features?: BwrapFeatures; protection?: SandboxPolicy["protection"]; tmpMb?: number } = {},
): { args: string[]; plan: MountPlan } {
  const f = opts.features ?? FULL_FEATURES;
  const plan = buildMountPlan(
    {
      policy: p,
      ...(req.confine ? { confine: req.confine } : {}),
      ...(req.searchPath !== undefined ? { searchPath: req.searchPath } : {}),
      cwd: req.cwd,
      ...(opts.protection ? { protection: opts.protection() } : {}),
      ...(opts.tmpMb === undefined ? {} : { tmpMb: opts.tmpMb }),
    },
    facts,
  );
  return { args: [...bwrapHardening(f, req.network), ...bwrapMountArgs(plan, f), "--chdir", req.cwd], plan };
}

let stubDir: string | undefined;
const stubs = new Map<string, string>();

/**
 * A script (on the host, in a private folder of this process) that takes a denied program's place:
 * it prints which rule forbids it and exits 126. Without it the command would see "Permission denied".
 */
export function deniedProgramStub(d: { name: string; rule: string; list?: "deny" | "ask" }): string {
  const key = `${d.name}\0${d.rule}\0${d.list ?? "deny"}`;
  const have = stubs.get(key);
  if (have) return have;
  stubDir ??= mkdtempSync(join(tmpdir(), "yoke-denied-"));
  const file = join(stubDir, `${stubs.size}-${d.name.replace(/[^A-Za-z0-9_.+-]/g, "_")}`);
  const text =
    d.list === "ask"
      ? `yoke: ${d.name} needs the user's approval (the permission rule ${d.rule} asks before it runs), so it cannot start inside another program; run it as a command of its own and the user will be asked.`
      : `yoke: ${d.name} is denied by the permission rule ${d.rule}; the sandbox does not let any command start it.`;
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' '${text.replace(/'/g, `'\\''`)}' >&2\nexit 126\n`, { mode: 0o555 });
  chmodSync(file, 0o555);
  stubs.set(key, file);
  return file;
}

let probed: Probed | undefined;

function tryRun(bin: string, args: string[]): string | undefined {
  const r = spawnSync(bin, [...args, "true"], { encoding: "utf8", timeout: 10_000 });
  return r.status === 0 ? undefined : (r.stderr || r.error?.message || `exit status ${r.status}`).trim();
}

type Probed = { bin: string; features: BwrapFeatures; degraded: string[] };

/** Where a successful probe is kept between processes: the user's cache folder (never a shared one). */
function probeCacheFile(): string {
  const base = process.env.XDG_CACHE_HOME && process.env.XDG_CACHE_HOME.startsWith("/") ? process.env.XDG_CACHE_HOME : join(homedir(), ".cache");
  return join(base, "yoke", "bwrap-probe.json");
}

/** A day: past that the probe runs again even when nothing it depends on changed. */
const PROBE_CACHE_MS = 24 * 3600_000;

/**
 * What the probe's outcome depends on: the binary (path, inode, size, time), the kernel, this
 * user, this process's capabilities (a container), and the sysctls that allow user namespaces.
 * Any change makes the probe run again.
 */
function probeKey(bin: string): string | undefined {
  try {
    const st = statSync(bin);
    const read = (f: string) => {
      try {
        return readFileSync(f, "utf8").trim();
      } catch {
        return "-";
      }
    };
    const caps = /^CapEff:\s*(\S+)/m.exec(read("/proc/self/status"))?.[1] ?? "-";
    const sysctls = ["/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces", "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"].map(read);
    return JSON.stringify([bin, st.ino, st.size, st.mtimeMs, release(), process.getuid?.(), caps, ...sysctls]);
  } catch {
    return undefined;
  }
}

/** The cached probe for this key, if the file is this user's own, not writable by others, and fresh. */
function cachedProbe(key: string): Probed | undefined {
  try {
    const file = probeCacheFile();
    const st = statSync(file);
    if (st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0 || Date.now() - st.mtimeMs > PROBE_CACHE_MS) return undefined;
    const c = JSON.parse(readFileSync(file, "utf8")) as { key?: string; probed?: Probed };
    return c.key === key && c.probed ? c.probed : undefined;
  } catch {
    return undefined;
  }
}

function storeProbe(key: string, value: Probed): void {
  try {
    const file = probeCacheFile();
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ key, probed: value }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // No cache: the next process probes again.
  }
}

/**
 * Checks that bwrap exists and can create a hardened sandbox here; throws with what to do if not.
 * The probe runs bwrap two or more times (tens of milliseconds, and a fork of this process each):
 * a success is kept in the user's cache folder for the next process (see probeKey), so a
 * session's start-up usually reads a file instead. A failure is never cached.
 */
export function probeBwrap(): Probed {
  const bin = findHostProgram("bwrap");
  if (!bin) {
    throw new SandboxUnavailableError(
      "The bwrap sandbox is not available: bubblewrap is not installed. Install it (Debian/Ubuntu: sudo apt-get install bubblewrap; " +
        "Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or choose another backend.",
    );
  }
  if (probed?.bin === bin) return probed;
  const key = probeKey(bin);
  const cached = key ? cachedProbe(key) : undefined;
  if (cached?.bin === bin) {
    probed = cached;
    return probed;
  }
  const help = spawnSync(bin, ["--help"], { encoding: "utf8", timeout: 10_000 }).stdout ?? "";
  const features: BwrapFeatures = {
    userns: true,
    disableUserns: help.includes("--disable-userns"),
    size: help.includes("--size"),
    cgroup: help.includes("--unshare-cgroup-try"),
  };
  const degraded: string[] = [];
  if (!features.disableUserns) degraded.push("this bwrap has no --disable-userns (0.8+): commands may create nested user namespaces (mounts stay locked in them)");
  if (!features.size) degraded.push("this bwrap has no --size (0.7+): the private temporary folders are not size-limited (the file size limit still applies)");
  const base = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  let why = tryRun(bin, [...bwrapHardening(features, "off"), ...base]);
  if (why && features.disableUserns) {
    features.disableUserns = false;
    why = tryRun(bin, [...bwrapHardening(features, "off"), ...base]);
    if (!why) degraded.push("--disable-userns does not work here: commands may create nested user namespaces (mounts stay locked in them)");
  }
  if (why) {
    const first = why;
    features.userns = false;
    why = tryRun(bin, [...bwrapHardening(features, "off"), ...base]);
    if (!why) {
      degraded.push(`no user namespace for the sandbox (${first}): capabilities are still dropped, but the process limit counts all of this user's processes`);
    }
  }
  if (why) {
    throw new SandboxUnavailableError(
      `bwrap is installed (${bin}) but cannot create a sandbox here: ${why}. Unprivileged user namespaces may be disabled ` +
        "(check sysctl kernel.unprivileged_userns_clone, or the AppArmor restriction kernel.apparmor_restrict_unprivileged_userns on Ubuntu 24.04+), " +
        "or this is a container without the needed privileges.",
    );
  }
  probed = { bin, features, degraded };
  if (key) storeProbe(key, probed);
  return probed;
}

export function createBwrapBackend(policy: SandboxPolicy): SandboxBackend {
  // The policy first: its writable folders are never searched for bwrap (host-programs.ts).
  const p = resolvePolicy(policy);
  const { bin, features, degraded } = probeBwrap();
  let facts: HostFacts | undefined;
  return {
    name: "bwrap",
    networkToggle: true,
    helpers: ["bwrap"],
    pidNamespace: true,
    ownUserNamespace: features.userns,
    degraded,
    wrap: (req) => {
      facts ??= hostFacts(p.home);
      const { args, plan } = bwrapArgs(p, req, facts, {
        features,
        ...(policy.protection ? { protection: policy.protection } : {}),
        ...(policy.limits?.tmpMb === undefined ? {} : { tmpMb: policy.limits.tmpMb }),
      });
      return { file: bin, args: [...args, "--", ...req.argv], guards: plan.guards, env: { TMPDIR: "/tmp", ...plan.env } };
    },
  };
}
