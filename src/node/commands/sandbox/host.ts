/**
 * Facts about this machine the sandbox mounts depend on: every home folder, the system files that
 * hold secrets, the folders that hold sockets and a bounded scan for the sockets elsewhere. Looked
 * up once per process (sockets: at most once a minute).
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { join } from "node:path";
import { isWithin } from "./paths";

function realDir(p: string): string | undefined {
  try {
    const r = realpathSync(p);
    return statSync(r).isDirectory() ? r : undefined;
  } catch {
    return undefined;
  }
}

/** Trees that are never a person's home, whatever /etc/passwd says (system accounts use them). */
const NOT_HOMES = ["/", "/bin", "/sbin", "/usr", "/lib", "/lib64", "/etc", "/dev", "/proc", "/sys", "/run", "/var/run", "/nonexistent", "/var/empty"];

function passwdEntries(): Array<{ uid: number; home: string }> {
  try {
    return readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .map((line) => line.split(":"))
      .filter((f) => f.length >= 7)
      .map((f) => ({ uid: Number(f[2]), home: f[5]! }));
  } catch {
    return [];
  }
}

/** UID_MIN..UID_MAX of /etc/login.defs (1000..60000 by default): the accounts of people. */
function humanUidRange(): [number, number] {
  let min = 1000;
  let max = 60000;
  try {
    const defs = readFileSync("/etc/login.defs", "utf8");
    const m1 = /^\s*UID_MIN\s+(\d+)/m.exec(defs);
    const m2 = /^\s*UID_MAX\s+(\d+)/m.exec(defs);
    if (m1) min = Number(m1[1]);
    if (m2) max = Number(m2[1]);
  } catch {
    // defaults
  }
  return [min, max];
}

/**
 * Every home folder to hide: /root, /home, the given home (often $HOME), this user's home in the
 * password database (when $HOME points elsewhere) and the homes of root and of people's accounts.
 * Real paths of existing folders, without system trees, shortest first.
 */
export function homeFolders(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const candidates = ["/root", "/home", home, env.HOME ?? "", safeHomedir()];
  const [min, max] = humanUidRange();
  const me = safeUid();
  for (const e of passwdEntries()) {
    if (e.uid === 0 || e.uid === me || (e.uid >= min && e.uid <= max)) candidates.push(e.home);
  }
  const dirs = new Set<string>();
  for (const c of candidates) {
    if (!c || !c.startsWith("/")) continue;
    const r = realDir(c);
    if (!r || NOT_HOMES.includes(r)) continue;
    dirs.add(r);
  }
  // Nested ones are kept: the plan needs to know a home inside the workspace, even one inside another home.
  return [...dirs].sort((a, b) => a.length - b.length);
}

function safeHomedir(): string {
  try {
    return userInfo().homedir;
  } catch {
    return homedir();
  }
}

function safeUid(): number {
  return typeof process.getuid === "function" ? process.getuid() : -1;
}

/**
 * System files that hold secrets. Unreadable for ordinary users already, but root (in a container,
 * CI) owns them and reads them without any capability, so the sandbox hides them for everyone.
 */
const SYSTEM_SECRET_PATHS = [
  "/etc/shadow",
  "/etc/shadow-",
  "/etc/gshadow",
  "/etc/gshadow-",
  "/etc/security/opasswd",
  "/etc/ssl/private",
  "/etc/krb5.keytab",
  "/etc/NetworkManager/system-connections",
  "/etc/wireguard",
  "/etc/kubernetes",
  "/var/lib/kubelet",
  "/etc/rancher",
  "/var/lib/rancher",
  "/var/lib/docker",
  "/var/lib/containerd",
  "/var/lib/containers",
  "/etc/docker/key.json",
  "/var/lib/sss",
  "/etc/sssd",
  "/etc/ipsec.secrets",
  "/etc/ppp/chap-secrets",
  "/etc/ppp/pap-secrets",
  "/etc/cups/ssl",
  "/etc/libvirt/secrets",
  "/var/lib/libvirt",
  "/etc/letsencrypt",
  "/var/lib/postgresql",
  "/var/lib/mysql",
  // kernel internals that root could read through /sys
  "/sys/kernel/debug",
  "/sys/kernel/tracing",
  "/sys/kernel/security",
  "/sys/firmware/efi/efivars",
  "/sys/fs/bpf",
];

export interface SecretPath {
  path: string;
  dir: boolean;
}

let secretsCache: SecretPath[] | undefined;

/** The system secret paths that exist here (files and folders), plus the SSH host keys. */
export function systemSecrets(): SecretPath[] {
  if (secretsCache) return secretsCache;
  const out: SecretPath[] = [];
  const add = (p: string) => {
    try {
      const st = lstatSync(p);
      if (st.isSymbolicLink()) return;
      out.push({ path: p, dir: st.isDirectory() });
    } catch {
      // absent
    }
  };
  for (const p of SYSTEM_SECRET_PATHS) add(p);
  try {
    for (const name of readdirSync("/etc/ssh")) if (/_key$/.test(name)) add(join("/etc/ssh", name));
  } catch {
    // no /etc/ssh
  }
  secretsCache = out;
  return out;
}

/** Folders that hold sockets and runtime state, replaced by empty private ones: /run (and /var/run when it is not a link to it). */
export function runtimeFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const out = new Set<string>();
  for (const p of ["/run", "/var/run", "/var/lock", env.XDG_RUNTIME_DIR ?? ""]) {
    if (!p.startsWith("/")) continue;
    const r = realDir(p);
    if (r && r !== "/" && !r.startsWith("/proc") && !r.startsWith("/dev")) out.add(r);
  }
  const list = [...out].sort((a, b) => a.length - b.length);
  return list.filter((d, i) => !list.slice(0, i).some((o) => isWithin(d, o)));
}

/**
 * Files commands need that may live in a hidden folder (e.g. /etc/resolv.conf -> /run/systemd/resolve/stub-resolv.conf):
 * their real paths, to expose read-only again.
 */
export function neededFiles(): string[] {
  const out: string[] = [];
  for (const p of ["/etc/resolv.conf", "/etc/hosts", "/etc/localtime", "/etc/mtab", "/etc/machine-id"]) {
    try {
      const r = realpathSync(p);
      if (r !== p && !r.startsWith("/proc/")) out.push(r);
    } catch {
      // absent
    }
  }
  return out;
}

let socketCache: { at: number; paths: string[] } | undefined;
const SOCKET_TTL_MS = 1_000;

/** Paths of the unix sockets bound in this network namespace (/proc/net/unix), absolute ones only. */
function boundSocketPaths(): string[] {
  if (socketCache && Date.now() - socketCache.at < SOCKET_TTL_MS) return socketCache.paths;
  const paths = new Set<string>();
  try {
    for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
      // Num RefCount Protocol Flags Type St Inode Path — the path may hold spaces.
      const m = /^\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+\s(.+)$/.exec(line);
      if (m && m[1]!.startsWith("/")) paths.add(m[1]!);
    }
  } catch {
    // not Linux
  }
  socketCache = { at: Date.now(), paths: [...paths] };
  return socketCache.paths;
}

/**
 * Unix sockets bound on this machine (in Node's network namespace, from /proc/net/unix: wherever
 * they are, however deep) that still exist as sockets and lie outside `skip` (the hidden folders,
 * the workspace and listed paths). Looked up again for every command (cached for a second).
 * Not found: sockets bound with a relative path, and sockets bound in another network namespace
 * (a container's) whose file is visible here.
 */
export function hostSockets(skip: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of boundSocketPaths()) {
    if (skip.some((s) => isWithin(p, s))) continue;
    try {
      if (lstatSync(p).isSocket()) out.push(p);
    } catch {
      // gone, or not visible to us
    }
  }
  return out;
}

/** For tests: forget the cached facts. */
export function resetHostFacts(): void {
  secretsCache = undefined;
  socketCache = undefined;
}

/** Does the path exist (without following a final symbolic link)? */
export function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
