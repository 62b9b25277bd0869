/**
 * Resource limits of each command: CPU time, file size and data memory per process (rlimits,
 * inherited by everything the command starts and impossible to raise again), and the number of
 * processes of the command (RLIMIT_NPROC where the kernel counts per command, plus a watchdog in
 * the runner that stops the whole command when it reaches the limit — root is not held by
 * RLIMIT_NPROC, and without a user namespace the kernel counts all of the user's processes).
 */
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { basename } from "node:path";
import type { SandboxLimits } from "./sandbox/types";

export interface ResolvedLimits {
  cpuSeconds: number;
  fileSizeMb: number;
  memoryMb: number;
  processes: number;
  tmpMb: number;
}

/**
 * Defaults chosen not to get in the way of installs and builds: an hour of CPU per process, files
 * up to 150 MB (the largest files npm packages ship are native binaries of about 130 MB), half the
 * machine's memory per process (2 to 8 GB), 2048 processes and threads, 1 GB per private
 * temporary folder.
 */
export function defaultLimits(): ResolvedLimits {
  const half = Math.floor(totalmem() / 2 / 1024 / 1024);
  return { cpuSeconds: 3600, fileSizeMb: 150, memoryMb: Math.max(2048, Math.min(8192, half)), processes: 2048, tmpMb: 1024 };
}

/** The settings over the defaults; 0 turns a limit off. Bad values (negative, not numbers) are errors. */
export function resolveLimits(s: SandboxLimits | undefined): ResolvedLimits {
  const d = defaultLimits();
  const out = { ...d };
  for (const key of Object.keys(d) as Array<keyof ResolvedLimits>) {
    const v = s?.[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new Error(`sandbox.limits.${key} must be a number of ${key === "cpuSeconds" ? "seconds" : key === "processes" ? "processes" : "MB"} (0 for no limit); got ${JSON.stringify(v)}`);
    }
    out[key] = Math.floor(v);
  }
  return out;
}

/** The hard limits of this process (Linux), to never ask for more than is allowed. */
function currentHard(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const line of readFileSync("/proc/self/limits", "utf8").split("\n").slice(1)) {
      const m = /^(.+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
      if (m) out.set(m[1]!.trim(), m[3] === "unlimited" ? Infinity : Number(m[3]));
    }
  } catch {
    // not Linux
  }
  return out;
}

/** Tasks (processes and threads) running on the machine now, from /proc/loadavg. */
function tasksNow(): number {
  try {
    const f = readFileSync("/proc/loadavg", "utf8").split(" ")[3] ?? "";
    return Number(f.split("/")[1]) || 0;
  } catch {
    return 0;
  }
}

export interface PreludeOptions {
  /** Does each command get its own user namespace (the kernel then counts processes per command)? */
  ownUserNamespace: boolean;
  /** Running as root (RLIMIT_NPROC does not hold root; the watchdog does). */
  root: boolean;
}

/**
 * Shell commands that set the limits, put before the command line (bash syntax: -f and -d in
 * KiB). Each `ulimit` sets the soft and the hard limit; when asking for more than the current hard
 * limit fails, the lower limit already in place stays, which is as safe.
 */
export function limitPrelude(l: ResolvedLimits, shell: string, o: PreludeOptions): string {
  if (basename(shell) !== "bash") return "";
  const hard = currentHard();
  const cap = (name: string, v: number) => Math.min(v, hard.get(name) ?? Infinity);
  const parts: string[] = [];
  if (l.cpuSeconds > 0) parts.push(`ulimit -t ${cap("Max cpu time", l.cpuSeconds)}`);
  if (l.fileSizeMb > 0) parts.push(`ulimit -f ${Math.floor(cap("Max file size", l.fileSizeMb * 1024 * 1024) / 1024)}`);
  if (l.memoryMb > 0) parts.push(`ulimit -d ${Math.floor(cap("Max data size", l.memoryMb * 1024 * 1024) / 1024)}`);
  if (l.processes > 0 && !o.root) {
    // Without a user namespace of its own, the kernel counts every task of this user: allow what runs now on top.
    const n = o.ownUserNamespace ? l.processes : tasksNow() + l.processes;
    parts.push(`ulimit -u ${cap("Max processes", n)}`);
  }
  return parts.length ? `${parts.map((p) => `${p} 2>/dev/null`).join("; ")}; ` : "";
}

/** What the result says when the runner stopped a command at a limit. */
export type LimitName = "processes";
