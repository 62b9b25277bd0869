/**
 * Finding and signalling every process a command started: its process group plus all
 * descendants (found through /proc on Linux, `ps` elsewhere), so that children which moved to
 * another session (bwrap --new-session, setsid) are reached too.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";

interface ProcInfo {
  ppid: number;
  pgrp: number;
  comm: string;
  zombie: boolean;
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
        table.set(Number(name), { ppid: Number(fields[1]), pgrp: Number(fields[2]), comm, zombie: fields[0] === "Z" });
      } catch {
        // the process ended while we looked
      }
    }
    return table;
  }
  try {
    const out = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat=,comm="], { encoding: "utf8" });
    for (const line of out.split("\n")) {
      const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
      if (m) {
        table.set(Number(m[1]), { ppid: Number(m[2]), pgrp: Number(m[3]), comm: m[5]!.split("/").pop()!, zombie: m[4]!.startsWith("Z") });
      }
    }
  } catch {
    // no ps: only the process group is reachable
  }
  return table;
}

/** Live descendants of `root` (not including it), with their command names. */
export function descendants(root: number): Array<{ pid: number; comm: string }> {
  const table = readProcTable();
  const children = new Map<number, number[]>();
  for (const [pid, info] of table) {
    if (!children.has(info.ppid)) children.set(info.ppid, []);
    children.get(info.ppid)!.push(pid);
  }
  const out: Array<{ pid: number; comm: string }> = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const info = table.get(pid)!;
    if (!info.zombie) out.push({ pid, comm: info.comm });
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
  const tree = descendants(t.root).map((p) => p.pid);
  send(-t.root, "SIGKILL");
  send(t.root, "SIGKILL");
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
