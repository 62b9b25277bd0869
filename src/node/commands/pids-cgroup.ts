/**
 * A pids cgroup per command: the kernel's own count of the command's processes and threads,
 * enforced at fork (fork fails past `pids.max`) for every user, root included — RLIMIT_NPROC does
 * not hold root, so without it only the runner's watchdog stands between a root fork bomb and the
 * machine. What the cgroup holds cannot leave it (the sandbox sees /sys read-only), so it also
 * finds what `setsid` and a cleared environment hid from the marker.
 *
 * Used where this process may create a child of its own cgroup with the pids controller: cgroup
 * v1's `pids` hierarchy, or v2 where `pids` is (or can be) enabled for children. Elsewhere
 * `createPidsCgroup` returns undefined and the watchdog alone applies.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Prefix of the cgroups Yoke creates (`yoke-<runner marker>-<command id>`). */
export const CGROUP_PREFIX = "yoke-";

interface Mount {
  root: string;
  point: string;
  v2: boolean;
}

function mounts(): Mount[] {
  let text: string;
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return [];
  }
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const f = left.split(" ");
    const [fstype, , superOpts = ""] = right.split(" ");
    const unescape = (s: string) => s.replace(/\\(\d{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (fstype === "cgroup" && superOpts.split(",").includes("pids")) out.push({ root: unescape(f[3]!), point: unescape(f[4]!), v2: false });
    else if (fstype === "cgroup2") out.push({ root: unescape(f[3]!), point: unescape(f[4]!), v2: true });
  }
  return out;
}

/** The folder of this process's own cgroup in a mount, from /proc/self/cgroup. */
function ownDir(m: Mount, lines: string[]): string | undefined {
  const entry = lines.map((l) => l.split(":")).find((p) => (m.v2 ? p[0] === "0" && p[1] === "" : p[1]?.split(",").includes("pids")));
  if (!entry) return undefined;
  const path = entry.slice(2).join(":");
  const rel = m.root === "/" ? path : path === m.root || path.startsWith(m.root + "/") ? path.slice(m.root.length) : undefined;
  return rel === undefined ? undefined : join(m.point, rel);
}

let parentDir: string | null | undefined;

/** Where this process can create pids cgroups, or null (found once). */
export function pidsCgroupParent(): string | null {
  if (parentDir !== undefined) return parentDir;
  parentDir = null;
  if (process.platform !== "linux") return parentDir;
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n").filter(Boolean);
  } catch {
    return parentDir;
  }
  // v1's pids hierarchy first: no rule against processes in inner cgroups there.
  for (const m of mounts().sort((a, b) => Number(a.v2) - Number(b.v2))) {
    const dir = ownDir(m, lines);
    if (!dir || !existsSync(join(dir, "cgroup.procs"))) continue;
    if (m.v2) {
      try {
        const enabled = readFileSync(join(dir, "cgroup.subtree_control"), "utf8").split(/\s+/);
        if (!enabled.includes("pids")) writeFileSync(join(dir, "cgroup.subtree_control"), "+pids");
      } catch {
        continue;
      }
    }
    const probe = join(dir, `${CGROUP_PREFIX}probe-${process.pid}`);
    try {
      mkdirSync(probe);
      const ok = existsSync(join(probe, "pids.max"));
      rmdirSync(probe);
      if (!ok) continue;
    } catch {
      continue;
    }
    parentDir = dir;
    break;
  }
  return parentDir;
}

export class PidsCgroup {
  private constructor(readonly dir: string) {}

  /** A cgroup named `name` that holds at most `max` tasks, or undefined where none can be made. */
  static create(name: string, max: number): PidsCgroup | undefined {
    const parent = pidsCgroupParent();
    if (!parent || !(max > 0)) return undefined;
    const dir = join(parent, `${CGROUP_PREFIX}${name.replace(/[^A-Za-z0-9_-]/g, "-")}`);
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pids.max"), String(max));
      return new PidsCgroup(dir);
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // not made
      }
      return undefined;
    }
  }

  /**
   * The command line that enters the cgroup, then runs `file args`: the process moves itself in
   * before it runs anything, so that nothing it starts is outside. If it cannot, it does not run.
   */
  wrap(file: string, args: readonly string[]): { file: string; args: string[] } {
    // A program that is not there fails as spawning it would, not as the wrapper's exit status.
    const found = file.includes("/") ? existsSync(file) : (process.env.PATH ?? "").split(":").some((d) => d && existsSync(join(d, file)));
    if (!found) throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: "ENOENT" });
    const script = 'echo $$ > "$0/cgroup.procs" 2>/dev/null || { echo "yoke sandbox: could not enter the process-limit cgroup $0; the command did not run" >&2; exit 126; }; exec "$@"';
    return { file: "/bin/sh", args: ["-c", script, this.dir, file, ...args] };
  }

  /** Tasks in the cgroup now (processes and threads). */
  current(): number {
    try {
      return Number(readFileSync(join(this.dir, "pids.current"), "utf8").trim()) || 0;
    } catch {
      return 0;
    }
  }

  /** Processes in the cgroup now. */
  procs(): number[] {
    try {
      return readFileSync(join(this.dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /**
   * Stops everything in the cgroup: no more forks (pids.max 0), cgroup.kill where the kernel has
   * it, else SIGKILL to each process until none is left (at most 2 s). Returns how many were left.
   */
  killAll(): number {
    try {
      writeFileSync(join(this.dir, "pids.max"), "0");
    } catch {
      // gone already
    }
    try {
      if (existsSync(join(this.dir, "cgroup.kill"))) writeFileSync(join(this.dir, "cgroup.kill"), "1");
    } catch {
      // older kernel
    }
    const deadline = Date.now() + 2000;
    let left = this.procs();
    while (left.length > 0 && Date.now() < deadline) {
      for (const pid of left) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }
      left = this.procs();
    }
    return left.length;
  }

  /** Removes the cgroup once it is empty (a later call, or the runner's reaper, retries). */
  remove(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch {
      return !existsSync(this.dir);
    }
  }
}
