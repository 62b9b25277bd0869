/**
 * The MCP server processes Yoke started, in a registry file in Yoke's storage, so servers left
 * behind by a window or a CLI run that crashed are found and stopped at the next start.
 *
 * Every server runs in its own process group (spawned detached: pgid = pid). An entry records the
 * pid, the owner (the Yoke process) and both processes' start times and command lines; an orphan
 * is killed only when the pid still belongs to the very process recorded (same start time; for the
 * owner the same command line too) and its owner is gone — a pid reused by an unrelated process is
 * never touched.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { hostProgram } from "../host-programs";

export interface ProcessIdentity {
  pid: number;
  /** Start time as the OS reports it (Linux: clock ticks since boot; elsewhere `ps lstart`). */
  start: string;
  cmdline: string;
}

export interface RegistryEntry {
  server: string;
  child: ProcessIdentity;
  owner: ProcessIdentity;
  /** The server's marker (SERVER_MARKER's value in its environment): what left its group carries it too. */
  marker?: string;
}

/**
 * Every stdio server starts with `YOKE_MCP_SERVER=<random per start>` in its environment, and
 * everything it starts inherits it — also what leaves its process group (`setsid`, a double-fork
 * daemon, `nohup … &` under setsid), which the group's signals never reach. Stopping a server
 * stops the processes carrying its marker too (Linux: /proc/PID/environ, processes of Yoke's own
 * uid only), as background agents do with YOKE_AGENT (src/node/background/registry.ts).
 *
 * What escapes it: a process started with an environment that drops the marker (`env -i`,
 * `sudo`, a service manager's fresh environment), one that overwrites its own environment block,
 * one that changed its uid. cgroups would hold those too, but need root or a delegated cgroup
 * (systemd user slices); without /proc (macOS, Windows) only the group is stopped.
 */
export const SERVER_MARKER = "YOKE_MCP_SERVER";

/** The process ids in /proc, as names (none where /proc cannot be read). */
function procNames(): string[] {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

export function newServerMarker(): string {
  return randomBytes(12).toString("hex");
}

/** Linux: live processes of this uid whose environment carries `SERVER_MARKER=marker` (never this process). */
export function markedProcesses(marker: string): number[] {
  if (process.platform !== "linux" || !/^[0-9a-f]{8,}$/.test(marker)) return [];
  const want = `${SERVER_MARKER}=${marker}`;
  const uid = process.getuid?.();
  const out: number[] = [];
  for (const name of procNames()) {
    if (Number(name) === process.pid) continue;
    try {
      if (uid !== undefined && statSync(`/proc/${name}`).uid !== uid) continue;
      if (!readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(want)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") out.push(Number(name));
    } catch {
      /* gone, or not readable */
    }
  }
  return out;
}

function signalEach(pids: number[], signal: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {
      /* gone */
    }
  }
}

/** SIGTERM to every process carrying the marker, wait, then SIGKILL until none is left (a dying one may have started another). */
export async function stopMarked(marker: string | undefined, graceMs = 1000): Promise<void> {
  if (!marker) return;
  const first = markedProcesses(marker);
  if (first.length === 0) return;
  signalEach(first, "SIGTERM");
  if (await waitFor(() => markedProcesses(marker).length === 0, graceMs)) return;
  for (let i = 0; i < 20; i++) {
    const left = markedProcesses(marker);
    if (left.length === 0) return;
    signalEach(left, "SIGKILL");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The same at once, for a process that is exiting: SIGKILL, a few rounds. */
export function killMarkedNow(marker: string): void {
  for (let i = 0; i < 5; i++) {
    const left = markedProcesses(marker);
    if (left.length === 0) return;
    signalEach(left, "SIGKILL");
  }
}

/** Identity of a live process, or undefined when there is none (or it cannot be read). */
export function processIdentity(pid: number): ProcessIdentity | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Field 22 (starttime) after the parenthesised command name, which may hold spaces.
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "").split("\0").join(" ");
      if (rest[0] === "Z") return undefined; // a zombie is already dead
      return { pid, start: rest[19] ?? "", cmdline };
    } catch {
      return undefined;
    }
  }
  try {
    const out = execFileSync(hostProgram("ps"), ["-o", "lstart=,command=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (!out) return undefined;
    // lstart is a fixed 24-character date: "Tue Dec  1 13:25:51 2026".
    return { pid, start: out.slice(0, 24), cmdline: out.slice(24).trim() };
  } catch {
    return undefined;
  }
}

/**
 * The very process recorded: same pid and start time, and — unless `execs` — the same command line.
 * A server's process execs on its way (the descriptor close step's bash, then env, then the server:
 * fd-hygiene.ts), so its command line when recorded is not its command line later; pid and start
 * time (which exec keeps) identify it.
 */
function same(a: ProcessIdentity | undefined, b: ProcessIdentity, execs = false): boolean {
  return !!a && a.pid === b.pid && a.start === b.start && (execs || a.cmdline === b.cmdline);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals a whole process group (falls back to the process alone where groups do not exist). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === "win32" ? pid : -pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Whether any process of the group is left (where groups do not exist: the process). */
export function groupAlive(pgid: number): boolean {
  return alive(process.platform === "win32" ? pgid : -pgid);
}

async function waitFor(gone: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (!gone()) {
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

/**
 * Stops a server's whole process group in the order the MCP specification gives for stdio: close
 * its input (`endInput`, when the server is our child) and wait for it to exit, then SIGTERM and
 * wait, then SIGKILL. Whatever the server started in its group (a helper left running, a
 * grandchild of a server that crashed) gets the same signals, even when the server itself is
 * already gone.
 */
export async function stopGroup(pid: number, graceMs = 2000, endInput?: () => void): Promise<void> {
  if (endInput) {
    endInput();
    await waitFor(() => !alive(pid), graceMs);
  }
  if (!groupAlive(pid)) return;
  signalGroup(pid, "SIGTERM");
  if (await waitFor(() => !groupAlive(pid), graceMs)) return;
  signalGroup(pid, "SIGKILL");
  await waitFor(() => !groupAlive(pid), 1000);
}

/**
 * Linux: the live processes of group `pgid` that started at or after `since` (clock ticks since
 * boot). A group id stays taken while any member lives, so these are what is left of a recorded
 * server whose leader is gone; elsewhere: none found (the leader alone is reaped).
 */
function groupMembersSince(pgid: number, since: string): number[] {
  if (process.platform !== "linux" || !/^\d+$/.test(since)) return [];
  const out: number[] = [];
  for (const name of procNames()) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // rest[0] state, rest[2] pgrp, rest[19] starttime
      if (rest[0] !== "Z" && Number(rest[2]) === pgid && BigInt(rest[19] ?? "0") >= BigInt(since)) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

export class ProcessRegistry {
  private readonly self: ProcessIdentity;

  constructor(private readonly file: string) {
    this.self = processIdentity(process.pid) ?? { pid: process.pid, start: "", cmdline: "" };
  }

  private read(): RegistryEntry[] {
    try {
      const v = JSON.parse(readFileSync(this.file, "utf8")) as { entries?: RegistryEntry[] };
      return Array.isArray(v.entries) ? v.entries.filter((e) => e && e.child && e.owner && Number.isInteger(e.child.pid)) : [];
    } catch {
      return [];
    }
  }

  private write(entries: RegistryEntry[]): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ entries }, null, 1));
    renameSync(tmp, this.file);
  }

  /** Records a server this process started (call right after spawn). */
  add(server: string, pid: number, marker?: string): void {
    const child = processIdentity(pid);
    if (!child) return;
    this.write([...this.read().filter((e) => e.child.pid !== pid), { server, child, owner: this.self, ...(marker ? { marker } : {}) }]);
  }

  remove(pid: number): void {
    const entries = this.read();
    const kept = entries.filter((e) => !(e.child.pid === pid && e.owner.pid === this.self.pid));
    if (kept.length !== entries.length) this.write(kept);
  }

  /**
   * Stops the servers whose Yoke process is gone; drops entries of processes that are gone (or are
   * now something else). Returns what was killed.
   */
  async reapOrphans(): Promise<RegistryEntry[]> {
    const entries = this.read();
    if (entries.length === 0) return [];
    const keep: RegistryEntry[] = [];
    const orphans: RegistryEntry[] = [];
    for (const e of entries) {
      const child = processIdentity(e.child.pid);
      const ownerAlive = same(processIdentity(e.owner.pid), e.owner);
      if (same(child, e.child, true)) {
        if (ownerAlive) keep.push(e);
        else orphans.push(e);
        continue;
      }
      // The server is gone (its input closed when its owner died), or its pid is another process now.
      // What it started may live on in its group or, having left it, carry its marker: stopped too
      // once the owner is gone; kept on record while the owner lives.
      const marked = e.marker ? markedProcesses(e.marker).length > 0 : false;
      if (child && !marked) continue;
      if (!child && !marked && groupMembersSince(e.child.pid, e.child.start).length === 0) continue;
      if (ownerAlive) keep.push(e);
      else orphans.push(e);
    }
    // A pid that is another process now is not signalled (its group may be that process's): only what carries the marker.
    await Promise.all(orphans.map(async (e) => (same(processIdentity(e.child.pid), e.child, true) || !processIdentity(e.child.pid) ? stopGroup(e.child.pid, 1000) : undefined)));
    await Promise.all(orphans.map((e) => stopMarked(e.marker, 1000)));
    this.write([...keep, ...this.read().filter((e) => !entries.some((o) => o.child.pid === e.child.pid && o.child.start === e.child.start))]);
    return orphans;
  }
}
