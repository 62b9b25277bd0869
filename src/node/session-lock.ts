/**
 * One writer per session log: an exclusive lock file beside it (`<id>.lock`) that names the
 * holder (pid, host, who, since). A lock whose holder is gone is stale and taken over: on the same
 * machine a dead pid (or a pid reused by another process) says so at once; otherwise the holder's
 * heartbeat — it touches the file every HEARTBEAT_MS — having stopped for STALE_MS does. So a
 * `kill -9`, a crash or a reboot never leaves a session locked for good.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";

/** Who holds a session's lock, as shown to a second opener. */
export interface LockHolder {
  pid: number;
  host: string;
  /** "yoke run", "yoke resume", "VS Code"… */
  owner: string;
  /** ISO time the lock was taken. */
  since: string;
}

/** The lock file's content. */
interface LockRecord extends LockHolder {
  token: string;
  /** Linux: the holder's start time (field 22 of /proc/PID/stat), to tell a reused pid. */
  procStart?: string;
  /** Linux: boot id and pid namespace; pids are comparable only within both. */
  boot?: string;
  pidns?: string;
}

/** How often a holder touches its lock file. */
export const HEARTBEAT_MS = 15_000;
/** A lock not touched for this long, whose holder cannot be checked by pid, is stale. */
export const STALE_MS = 120_000;
/** A lock file that cannot be parsed (not written by Yoke, or damaged) is stale after this. */
const UNREADABLE_STALE_MS = 10_000;
/** A `.break` guard older than this was left by a process that died while breaking a lock. */
const GUARD_STALE_MS = 10_000;

export class SessionLockedError extends Error {
  constructor(
    readonly sessionId: string,
    readonly holder: LockHolder,
  ) {
    super(`session ${sessionId} is in use by ${describeHolder(holder)}`);
    this.name = "SessionLockedError";
  }
}

/** "yoke resume (pid 4242 on devbox, since 14:02:11)". */
export function describeHolder(h: LockHolder): string {
  const since = new Date(h.since);
  const when = Number.isNaN(since.getTime()) ? h.since : since.toTimeString().slice(0, 8);
  return `${h.owner} (pid ${h.pid} on ${h.host}, since ${when})`;
}

// --- this process ---

interface Identity {
  host: string;
  boot?: string;
  pidns?: string;
  procStart?: string;
}

let me: Identity | undefined;

function identity(): Identity {
  if (me) return me;
  const boot = readTrimmed("/proc/sys/kernel/random/boot_id");
  let pidns: string | undefined;
  try {
    pidns = fs.readlinkSync("/proc/self/ns/pid");
  } catch {
    pidns = undefined;
  }
  const start = procInfo(process.pid)?.start;
  me = { host: os.hostname(), ...(boot ? { boot } : {}), ...(pidns ? { pidns } : {}), ...(start ? { procStart: start } : {}) };
  return me;
}

function readTrimmed(path: string): string | undefined {
  try {
    return fs.readFileSync(path, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Linux: the process's state and start time; undefined when there is no such process or no /proc. */
function procInfo(pid: number): { state: string; start: string } | undefined {
  const text = readTrimmed(`/proc/${pid}/stat`);
  if (!text) return undefined;
  // "PID (comm) S ppid …": comm may hold spaces and parentheses, so split after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19];
  return state && start ? { state, start } : undefined;
}

const hasProc = (() => {
  try {
    return fs.statSync("/proc/self/stat").isFile();
  } catch {
    return false;
  }
})();

/** "dead", "alive", or "other" (the pid runs a different process than the one that took the lock). */
function pidStatus(pid: number, procStart: string | undefined): "dead" | "alive" | "other" {
  if (!Number.isInteger(pid) || pid <= 0) return "dead";
  if (hasProc) {
    const info = procInfo(pid);
    if (!info) return "dead";
    if (info.state === "Z" || info.state === "X") return "dead";
    if (procStart !== undefined) return info.start === procStart ? "alive" : "other";
    return "alive";
  }
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? "alive" : "dead";
  }
}

/** Whether the holder named by a lock file is still there. */
function isLive(rec: LockRecord, mtimeMs: number): boolean {
  const self = identity();
  const fresh = Date.now() - mtimeMs < STALE_MS;
  const sameMachine = rec.host === self.host && rec.boot === self.boot && rec.pidns === self.pidns;
  if (!sameMachine) return fresh;
  const status = pidStatus(rec.pid, rec.procStart);
  if (status !== "alive") return false;
  // The pid is that very process (Linux: same start time): live, even if stopped (Ctrl+Z) for long.
  if (rec.procStart !== undefined && hasProc) return true;
  // A pid we cannot tell from a reused one: its heartbeat decides.
  return fresh;
}

// --- the lock file ---

type Probe = { state: "free" } | { state: "live"; holder: LockHolder; text: string; thisProcess: boolean } | { state: "stale"; text: string };

function parseRecord(text: string): LockRecord | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockRecord>;
    if (typeof v.pid === "number" && typeof v.host === "string" && typeof v.token === "string") {
      return { owner: "another process", since: "", ...v } as LockRecord;
    }
  } catch {
    // not a lock Yoke wrote (or cut short): judged by its age below
  }
  return undefined;
}

function probe(path: string): Probe {
  let text: string;
  let mtimeMs: number;
  try {
    text = fs.readFileSync(path, "utf8");
    mtimeMs = fs.statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { state: "free" };
    throw err;
  }
  const rec = parseRecord(text);
  if (!rec) {
    if (Date.now() - mtimeMs < UNREADABLE_STALE_MS) {
      return { state: "live", holder: { pid: 0, host: "?", owner: "an unknown process", since: new Date(mtimeMs).toISOString() }, text, thisProcess: false };
    }
    return { state: "stale", text };
  }
  if (isLive(rec, mtimeMs)) {
    const self = identity();
    const thisProcess = rec.pid === process.pid && rec.host === self.host && rec.boot === self.boot && rec.pidns === self.pidns;
    return { state: "live", holder: { pid: rec.pid, host: rec.host, owner: rec.owner, since: rec.since }, text, thisProcess };
  }
  return { state: "stale", text };
}

/** Creates `path` with `text` only if it does not exist, never showing a half-written file. */
function createExclusive(path: string, text: string): boolean {
  const tmp = `${path}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  fs.writeFileSync(tmp, text, { flag: "wx" });
  try {
    fs.linkSync(tmp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // NFS may report a link that was made as failed: the temp file's link count tells.
    if (fs.statSync(tmp).nlink === 2) return true;
    if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS" || code === "EXDEV") {
      // No hard links on this file system: O_EXCL (a reader may see it empty for an instant).
      try {
        fs.writeFileSync(path, text, { flag: "wx" });
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw e;
      }
    }
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * Removes a stale lock, unless someone changed it meanwhile. Two processes breaking the same lock
 * take turns through a guard folder, so neither removes a fresh lock the other has just made.
 * False when another process is breaking it right now.
 */
function breakStale(path: string, staleText: string): boolean {
  const guard = `${path}.break`;
  try {
    fs.mkdirSync(guard);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const st = fs.statSync(guard, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > GUARD_STALE_MS) fs.rmSync(guard, { recursive: true, force: true });
    return false;
  }
  try {
    let now: string | undefined;
    try {
      now = fs.readFileSync(path, "utf8");
    } catch {
      now = undefined;
    }
    if (now === staleText) fs.rmSync(path, { force: true });
    return true;
  } finally {
    fs.rmSync(guard, { recursive: true, force: true });
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Locks held in this process, by path: told when another part of this process takes one over.
 * The lock is per process; within one, a later opener wins (the store's seen-size check keeps an
 * earlier one, e.g. a session abandoned by a crashed panel in a test, from writing out of order).
 */
const inProcess = new Map<string, { token: string; onLost: () => void }>();

/** Takes the lock at `path` for `owner`; a stale lock (or one of this very process) is taken over. `onLost` is called if it is taken over later. */
export function acquireLock(path: string, owner: string, onLost: () => void = () => {}): { ok: true; token: string } | { ok: false; holder: LockHolder } {
  const self = identity();
  const token = randomUUID();
  const record: LockRecord = {
    pid: process.pid,
    host: self.host,
    owner,
    since: new Date().toISOString(),
    token,
    ...(self.procStart ? { procStart: self.procStart } : {}),
    ...(self.boot ? { boot: self.boot } : {}),
    ...(self.pidns ? { pidns: self.pidns } : {}),
  };
  const text = JSON.stringify(record) + "\n";
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createExclusive(path, text)) {
      const before = inProcess.get(path);
      inProcess.set(path, { token, onLost });
      if (before && before.token !== token) before.onLost();
      return { ok: true, token };
    }
    const p = probe(path);
    if (p.state === "live" && !p.thisProcess) return { ok: false, holder: p.holder };
    if (p.state !== "free" && !breakStale(path, p.text)) pause(20);
  }
  const p = probe(path);
  return { ok: false, holder: p.state === "live" ? p.holder : { pid: 0, host: "?", owner: "another process breaking a stale lock", since: new Date().toISOString() } };
}

/** The live holder of the lock at `path`, if any: a stale lock, or one of this process, counts as none. */
export function lockHolder(path: string): LockHolder | undefined {
  const p = probe(path);
  return p.state === "live" && !p.thisProcess ? p.holder : undefined;
}

/** Whether the lock at `path` is still the one taken with `token`. */
export function holdsLock(path: string, token: string): boolean {
  try {
    return parseRecord(fs.readFileSync(path, "utf8"))?.token === token;
  } catch {
    return false;
  }
}

/** The heartbeat: marks the lock as alive. */
export function touchLock(path: string): void {
  const now = new Date();
  try {
    fs.utimesSync(path, now, now);
  } catch {
    // gone: the next holdsLock() says so
  }
}

/** Releases the lock taken with `token` (never someone else's). */
export function releaseLock(path: string, token: string): void {
  if (inProcess.get(path)?.token === token) inProcess.delete(path);
  if (holdsLock(path, token)) fs.rmSync(path, { force: true });
}
