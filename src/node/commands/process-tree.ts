/**
 * Finding and signalling every process a command started: its process group plus all
 * descendants (found through /proc on Linux, `ps` elsewhere), so that children which moved to
 * another session (bwrap --new-session, setsid) are reached too.
 *
 * Processes that left the tree (setsid plus a double fork reparents them to init) are found by
 * the marker every command carries in its environment, `YOKE_RUN=<runner>:<command>`: it is
 * inherited through fork, exec, setsid, nohup and disown. A reaper process per runner kills what
 * still carries the runner's marker when Node dies, however it dies.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { hostProgram, hostSearchDirs } from "../host-programs";

interface ProcInfo {
  ppid: number;
  pgrp: number;
  comm: string;
  zombie: boolean;
  /** Tasks of the process (threads, the main one included). */
  threads: number;
}

function readProcTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  if (existsSync("/proc/self/stat")) {
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const close = stat.lastIndexOf(")");
        const comm = stat.slice(stat.indexOf("(") + 1, close);
        const fields = stat.slice(close + 2).split(" ");
        table.set(Number(name), { ppid: Number(fields[1]), pgrp: Number(fields[2]), comm, zombie: fields[0] === "Z", threads: Number(fields[17]) || 1 });
      } catch {
        // the process ended while we looked
      }
    }
    return table;
  }
  try {
    const out = execFileSync(hostProgram("ps"), ["-A", "-o", "pid=,ppid=,pgid=,stat=,comm="], { encoding: "utf8" });
    for (const line of out.split("\n")) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
      if (m) {
        table.set(Number(m[1]), { ppid: Number(m[2]), pgrp: Number(m[3]), comm: m[5]!.split("/").pop()!, zombie: m[4]!.startsWith("Z"), threads: 1 });
      }
    }
  } catch {
    // no ps: only the process group is reachable
  }
  return table;
}

/** Live descendants of `root` (not including it), with their command names and thread counts. */
export function descendants(root: number, table = readProcTable()): Array<{ pid: number; comm: string; threads: number }> {
  const children = new Map<number, number[]>();
  for (const [pid, info] of table) {
    if (!children.has(info.ppid)) children.set(info.ppid, []);
    children.get(info.ppid)!.push(pid);
  }
  const out: Array<{ pid: number; comm: string; threads: number }> = [];
  const queue = [...(children.get(root) ?? [])];
  for (let i = 0; i < queue.length; i++) {
    const pid = queue[i]!;
    const info = table.get(pid)!;
    if (!info.zombie) out.push({ pid, comm: info.comm, threads: info.threads });
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Is the process alive (a zombie counts as gone)? */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Does any live (non-zombie) process of the group remain? */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // Zombies answer kill(-pgid, 0) until something reaps them, which in a container may take a while.
  for (const info of readProcTable().values()) if (info.pgrp === pgid && !info.zombie) return true;
  return false;
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export interface TreeTarget {
  /** The spawned process (session/group leader). */
  root: number;
  /**
   * Names of sandbox helper processes (bwrap) that must not get soft signals: they would die at
   * once and SIGKILL the rest. When there are helpers, the root is one of them.
   */
  helpers: readonly string[];
}

/**
 * Sends a soft signal (SIGINT, SIGTERM) to the command's own processes: the group of the root
 * and every descendant, sandbox helpers excepted. Returns the pids signalled.
 */
export function signalTree(t: TreeTarget, signal: NodeJS.Signals): number[] {
  const pids: number[] = [];
  const tree = descendants(t.root);
  const rootIsHelper = t.helpers.length > 0;
  if (!rootIsHelper) send(-t.root, signal);
  for (const p of tree) {
    if (t.helpers.includes(p.comm)) continue;
    send(p.pid, signal);
    pids.push(p.pid);
  }
  return pids;
}

/** SIGKILL to the group, the root and every descendant (helpers included), plus pids seen before. */
export function killTree(t: TreeTarget, seen: readonly number[] = []): void {
  // The group and the root first: atomic in the kernel, before a fork bomb can grow while we look.
  send(-t.root, "SIGKILL");
  send(t.root, "SIGKILL");
  const tree = descendants(t.root).map((p) => p.pid);
  for (const pid of new Set([...tree, ...seen])) send(pid, "SIGKILL");
}

/** SIGTERM, then SIGKILL after `graceMs` if anything is left; resolves when all are gone (or after grace + 1 s). */
export async function terminateTree(t: TreeTarget, graceMs: number): Promise<void> {
  const seen = [t.root, ...descendants(t.root).map((p) => p.pid)];
  seen.push(...signalTree(t, "SIGTERM"));
  const anyAlive = () => groupAlive(t.root) || seen.some(isAlive);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!anyAlive()) return;
    await new Promise((r) => setTimeout(r, 40));
  }
  killTree(t, seen);
  const hard = Date.now() + 1000;
  while (Date.now() < hard && anyAlive()) await new Promise((r) => setTimeout(r, 40));
}

/** The environment variable that marks every process a command starts. */
export const MARKER_VAR = "YOKE_RUN";

/**
 * Live processes whose environment carries `YOKE_RUN=<marker>` (exactly, or as a prefix when
 * `prefix` is set). Linux only (/proc/PID/environ); processes of other users are not readable.
 * `onFound` is called as each one is found (to stop it before looking further).
 */
export function markedProcesses(marker: string, prefix = false, onFound?: (pid: number) => void): number[] {
  if (!existsSync("/proc/self/environ")) return [];
  const needle = Buffer.from(`${MARKER_VAR}=${marker}${prefix ? "" : "\0"}`);
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue;
    }
    const at = env.indexOf(needle);
    if (at < 0 || (at > 0 && env[at - 1] !== 0)) continue;
    if (!isAlive(pid)) continue;
    onFound?.(pid);
    out.push(pid);
  }
  return out;
}

/**
 * Stops every process carrying the marker: each is sent SIGSTOP as soon as it is found (a stopped
 * process cannot fork), then all get SIGKILL; again until a pass finds none (at most 5 s).
 * Returns how many were signalled.
 */
export function killMarked(marker: string, prefix = false): number {
  let total = 0;
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const pids = markedProcesses(marker, prefix, (pid) => send(pid, "SIGSTOP"));
    if (pids.length === 0) break;
    total += pids.length;
    for (const pid of pids) send(pid, "SIGKILL");
  }
  return total;
}

let childrenFiles: boolean | undefined;

/** Does this kernel list children in /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)? */
function hasChildrenFiles(): boolean {
  childrenFiles ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
  return childrenFiles;
}

/**
 * Tasks (processes and threads) of a command, counted up to `max` (the count stops there, so that
 * a fork bomb costs no more to look at than the limit). The tree is walked through
 * /proc/PID/task/TID/children, which costs what the tree holds, not what the machine runs. With
 * `group`, the processes of its process group that left the tree (a fork bomb's parents exit and
 * their children go to init) are counted too, from the whole process table.
 */
export function countTasks(root: number, max = Infinity, opts: { group?: boolean } = {}): number {
  let n = 0;
  const seen = new Set<number>();
  if (hasChildrenFiles()) {
    const queue = [root];
    for (let i = 0; i < queue.length && n < max; i++) {
      const pid = queue[i]!;
      let tids: string[];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      n += tids.length;
      seen.add(pid);
      for (const tid of tids) {
        try {
          for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ")) if (c) queue.push(Number(c));
        } catch {
          // gone
        }
      }
    }
  } else {
    const table = readProcTable();
    const tree = descendants(root, table);
    for (const p of tree) seen.add(p.pid);
    seen.add(root);
    n = (table.get(root)?.threads ?? 1) + tree.reduce((a, p) => a + p.threads, 0);
  }
  if (opts.group && n < max) {
    for (const [pid, info] of readProcTable()) {
      if (info.pgrp === root && !seen.has(pid) && !info.zombie) n += info.threads;
      if (n >= max) break;
    }
  }
  return n;
}

/** Tells a reaper to kill `pid`'s process group too when it wakes (`alive`), or no longer (the process ended). */
export function tellReaper(reaper: ChildProcess | undefined | null, pid: number | undefined, alive: boolean): void {
  if (!reaper?.stdin || !pid || reaper.stdin.destroyed) return;
  try {
    reaper.stdin.write(`${alive ? "" : "-"}${pid}\n`);
  } catch {
    // The reaper is gone: nothing to tell.
  }
}

/**
 * Starts the reaper of a runner: a small shell process, detached, that waits for its standard
 * input to close (Node closed it on dispose, or died) and then kills every process still
 * carrying the runner's marker. Undefined where /proc is missing (macOS).
 */
export function startReaper(runnerMarker: string, cgroupPrefix?: string): ChildProcess | undefined {
  if (!existsSync("/proc/self/environ") || !existsSync("/bin/sh")) return undefined;
  const needle = `${MARKER_VAR}=${runnerMarker}:`;
  // The runner's cgroups (`<prefix><id>`): what is in them is killed, then they are removed.
  const cgroups = cgroupPrefix
    ? `for d in '${cgroupPrefix.replace(/'/g, "'\\''")}'*; do [ -d "$d" ] || continue; echo 0 > "$d/pids.max" 2>/dev/null; ` +
      'j=0; while [ $j -lt 20 ] && [ -s "$d/cgroup.procs" ]; do kill -KILL $(cat "$d/cgroup.procs") 2>/dev/null; sleep 0.1; j=$((j+1)); done; rmdir "$d" 2>/dev/null; done; '
    : "";
  // Its input: nothing but "PID" / "-PID" lines (tellReaper) until it closes. Then the process
  // groups of the pids still listed are killed first: a process that went through a setuid program
  // (firejail) hides its environment from its own user, so the marker does not find it (sbx18: a
  // confined hook outlived a SIGKILLed `yoke run` as a user with firejail); killing firejail's own
  // process ends its PID namespace, and everything in it.
  const script =
    'pids=" "; while read -r l; do case "$l" in -[0-9]*) pids=$(printf "%s" "$pids" | sed "s/ ${l#-} / /");; [0-9]*) pids="$pids$l ";; esac; done; ' +
    'for p in $pids; do kill -KILL -"$p" "$p" 2>/dev/null; done; ' +
    cgroups +
    "i=0; while [ $i -lt 20 ]; do " +
    `pids=$(grep -lsaF '${needle}' /proc/[0-9]*/environ 2>/dev/null | sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p'); ` +
    '[ -z "$pids" ] && exit 0; kill -STOP $pids 2>/dev/null; kill -KILL $pids 2>/dev/null; sleep 0.1; i=$((i+1)); done';
  try {
    const child = spawn("/bin/sh", ["-c", script], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      // Not a folder the agent writes (host-programs.ts): sed, grep, cat and sleep here ran a
      // planted copy on the host when Yoke exited (red team 22-gate, workspace bin on PATH).
      env: { PATH: hostSearchDirs().join(":") || "/usr/bin:/bin" },
    });
    child.on("error", () => undefined);
    child.stdin!.on("error", () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return child;
  } catch {
    return undefined;
  }
}
