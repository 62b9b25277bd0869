/**
 * SessionStore over `<dir>/<id>.jsonl` files: synchronous appends on a kept-open descriptor, one
 * writer per log. A store writes a log only while it holds the log's lock (session-lock.ts; taken
 * on the first append, or up front with lock()), and only if the log is as it last saw it — so two
 * processes never interleave lines in one log, and a writer whose view is out of date (another
 * process continued the session meanwhile) is refused instead of appending events out of order.
 */
import * as fs from "node:fs";
import * as nodePath from "node:path";
import type { SessionStore } from "../core/ports";
import { sessionLogPath } from "./session-location";
import { HEARTBEAT_MS, SessionLockedError, acquireLock, holdsLock, lockHolder, releaseLock, touchLock, type LockHolder } from "./session-lock";

export { SessionLockedError, describeHolder, type LockHolder } from "./session-lock";
export { canonicalFolder, defaultSessionDir, importSessions, legacyCliSessionDir, migrateLegacySessions, resolveSessionDir, sessionLogPath, sessionsRoot, workspaceKey } from "./session-location";

const MAX_OPEN = 32;
const VALID_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** The log changed (another process wrote to it) since this store read it: reopen it first. */
export class SessionChangedError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} was continued elsewhere since it was opened here: open it again to see what changed`);
    this.name = "SessionChangedError";
  }
}

export interface FileSessionStoreOptions {
  /** Who writes through this store, as a second opener is told: "yoke run", "VS Code". */
  owner?: string;
  /** A view only: appends are refused (e.g. the panel's history reading other processes' logs). */
  readOnly?: boolean;
}

export interface SessionEntry {
  id: string;
  mtimeMs: number;
  size: number;
}

export interface FileSessionStore extends SessionStore {
  readonly dir: string;
  /** Takes the session's write lock (idempotent); refused while another live process holds it. */
  lock(id: string): { ok: true } | { ok: false; holder: LockHolder };
  /** Releases the lock; the next append takes it again. */
  unlock(id: string): void;
  /** The live process, other than this store, that holds the session's lock. */
  holder(id: string): LockHolder | undefined;
  /** Whether another process wrote the log since this store last read or wrote it. */
  changedOnDisk(id: string): boolean;
  /** Sessions with their log's size and time, newest first. */
  entries(): SessionEntry[];
  /** The log's size in bytes now; -1 when there is none. */
  size(id: string): number;
  /**
   * Deletes a session: its log, its spilled results and its lock — refused (SessionLockedError)
   * while another live process holds its lock. The caller makes sure it is not running here.
   */
  remove(id: string): void;
  /** Releases every lock and closes every file. */
  dispose(): void;
}

function checkId(id: string): void {
  if (!VALID_ID.test(id) || id.length > 200) {
    throw new Error(`Invalid session id ${JSON.stringify(id)}: use letters, digits, ".", "_" and "-" only.`);
  }
}

const VALID_BLOB_KEY = /^[A-Za-z0-9_-]{1,120}$/;

function checkBlobKey(key: string): void {
  if (!VALID_BLOB_KEY.test(key)) throw new Error(`Invalid blob key ${JSON.stringify(key)}: use letters, digits, "_" and "-" only (at most 120).`);
}

/** Stores holding locks, released when the process exits (a crash or kill -9 leaves a stale lock instead). */
const liveStores = new Set<{ dispose(): void }>();
let exitHook = false;

export function createFileSessionStore(dir: string, opts: FileSessionStoreOptions = {}): FileSessionStore {
  const owner = opts.owner ?? "yoke";
  const fds = new Map<string, number>();
  /** Locks held: the token they were taken with. */
  const held = new Map<string, string>();
  /** Locks another process took over (ours had gone stale, e.g. after a long sleep). */
  const lost = new Set<string>();
  /** Bytes of each log as this store last read or wrote it. */
  const known = new Map<string, number>();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let lastBeat = Date.now();
  const file = (id: string) => sessionLogPath(dir, id);
  const lockFile = (id: string) => nodePath.join(dir, `${id}.lock`);
  /** Large data of a session (spilled tool results): `<dir>/<id>.blobs/<key>.txt`. */
  const blobDir = (id: string) => nodePath.join(dir, `${id}.blobs`);

  function beat(): void {
    lastBeat = Date.now();
    for (const [id, token] of held) {
      if (holdsLock(lockFile(id), token)) touchLock(lockFile(id));
      else lost.add(id);
    }
  }

  function closeFd(id: string): void {
    const fd = fds.get(id);
    if (fd === undefined) return;
    fds.delete(id);
    fs.closeSync(fd);
  }

  function fdFor(id: string): number {
    let fd = fds.get(id);
    if (fd !== undefined) return fd;
    fs.mkdirSync(dir, { recursive: true });
    if (fds.size >= MAX_OPEN) {
      const oldest = fds.keys().next();
      if (!oldest.done) closeFd(oldest.value);
    }
    fd = fs.openSync(file(id), "a+");
    fds.set(id, fd);
    return fd;
  }

  /** Checks the log is as this store saw it; on opening, a log whose last line was torn gets its newline. */
  function checkUnchanged(id: string, fd: number, opened: boolean): void {
    const size = fs.fstatSync(fd).size;
    const seen = known.get(id);
    if (seen === undefined) known.set(id, size);
    else if (seen !== size) throw new SessionChangedError(id);
    if (opened && size > 0) {
      const last = Buffer.alloc(1);
      fs.readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) {
        fs.writeSync(fd, "\n");
        known.set(id, size + 1);
      }
    }
  }

  const store: FileSessionStore = {
    dir,
    lock(id) {
      checkId(id);
      if (opts.readOnly) throw new Error("this session store is read-only");
      if (held.has(id) && !lost.has(id)) return { ok: true };
      lost.delete(id);
      held.delete(id);
      fs.mkdirSync(dir, { recursive: true });
      const r = acquireLock(lockFile(id), owner, () => lost.add(id));
      if (!r.ok) return r;
      held.set(id, r.token);
      if (!heartbeat) {
        lastBeat = Date.now();
        heartbeat = setInterval(beat, HEARTBEAT_MS);
        heartbeat.unref?.();
      }
      liveStores.add(store);
      if (!exitHook) {
        exitHook = true;
        process.once("exit", () => {
          for (const s of liveStores) s.dispose();
        });
      }
      return { ok: true };
    },
    unlock(id) {
      closeFd(id);
      const token = held.get(id);
      held.delete(id);
      lost.delete(id);
      if (token) releaseLock(lockFile(id), token);
      if (held.size === 0 && heartbeat) {
        clearInterval(heartbeat);
        heartbeat = undefined;
      }
    },
    holder(id) {
      if (!VALID_ID.test(id) || (held.has(id) && !lost.has(id))) return undefined;
      return lockHolder(lockFile(id));
    },
    changedOnDisk(id) {
      const seen = known.get(id);
      if (seen === undefined || !VALID_ID.test(id)) return false;
      const st = fs.statSync(file(id), { throwIfNoEntry: false });
      return (st?.size ?? 0) !== seen;
    },
    append(id, line) {
      checkId(id);
      if (line.includes("\n")) throw new Error("SessionStore.append: a log line must not contain a newline.");
      if (opts.readOnly) throw new Error("this session store is read-only");
      // After a long pause (sleep, SIGSTOP) the heartbeat is late: check the lock is still ours first.
      if (held.size > 0 && Date.now() - lastBeat > 2 * HEARTBEAT_MS) beat();
      if (lost.has(id)) throw new SessionLockedError(id, lockHolder(lockFile(id)) ?? { pid: 0, host: "?", owner: "another process", since: "" });
      const r = store.lock(id);
      if (!r.ok) throw new SessionLockedError(id, r.holder);
      const data = Buffer.from(line + "\n", "utf8");
      const opened = !fds.has(id);
      const fd = fdFor(id);
      checkUnchanged(id, fd, opened);
      let off = 0;
      while (off < data.length) off += fs.writeSync(fd, data, off, data.length - off);
      known.set(id, (known.get(id) ?? 0) + data.length);
    },
    sync(id) {
      checkId(id);
      const fd = fds.get(id);
      if (fd !== undefined) fs.fsyncSync(fd);
    },
    read(id) {
      checkId(id);
      let buf: Buffer;
      try {
        buf = fs.readFileSync(file(id));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw e;
      }
      known.set(id, buf.length);
      const text = buf.toString("utf8");
      if (text === "") return [];
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      return lines;
    },
    entries() {
      let names: string[];
      try {
        names = fs.readdirSync(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw e;
      }
      const out: SessionEntry[] = [];
      for (const n of names) {
        if (!n.endsWith(".jsonl") || !VALID_ID.test(n.slice(0, -6))) continue;
        const st = fs.statSync(nodePath.join(dir, n), { throwIfNoEntry: false });
        if (st?.isFile()) out.push({ id: n.slice(0, -6), mtimeMs: st.mtimeMs, size: st.size });
      }
      return out.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    },
    list() {
      return store.entries().map((e) => e.id);
    },
    size(id) {
      if (!VALID_ID.test(id)) return -1;
      return fs.statSync(file(id), { throwIfNoEntry: false })?.size ?? -1;
    },
    exists(id) {
      if (!VALID_ID.test(id)) return false;
      return fs.existsSync(file(id));
    },
    writeBlob(id, key, data) {
      checkId(id);
      checkBlobKey(key);
      if (opts.readOnly) throw new Error("this session store is read-only");
      const folder = blobDir(id);
      fs.mkdirSync(folder, { recursive: true });
      const target = nodePath.join(folder, `${key}.txt`);
      const tmp = `${target}.${process.pid}.tmp`;
      // Written whole then renamed: a reader never sees half a blob; "wx" refuses a second writer of the tmp.
      fs.writeFileSync(tmp, data, { encoding: "utf8", flag: "wx" });
      try {
        fs.linkSync(tmp, target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new Error(`blob ${key} of session ${id} already exists`, { cause: e });
        throw e;
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    },
    readBlob(id, key) {
      checkId(id);
      checkBlobKey(key);
      try {
        return fs.readFileSync(nodePath.join(blobDir(id), `${key}.txt`), "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw e;
      }
    },
    remove(id) {
      checkId(id);
      if (opts.readOnly) throw new Error("this session store is read-only");
      // Taken first: a writer elsewhere keeps its session, and none can start while it goes.
      const r = store.lock(id);
      if (!r.ok) throw new SessionLockedError(id, r.holder);
      try {
        closeFd(id);
        fs.rmSync(file(id), { force: true });
        fs.rmSync(blobDir(id), { recursive: true, force: true });
        // Background agents' results kept for it (src/node/background/hand-back.ts).
        fs.rmSync(nodePath.join(dir, `${id}.handback`), { recursive: true, force: true });
        known.delete(id);
      } finally {
        store.unlock(id);
      }
    },
    dispose() {
      for (const id of [...held.keys()]) {
        try {
          store.unlock(id);
        } catch {
          // a lock that cannot be removed goes stale with this process
        }
      }
      for (const id of [...fds.keys()]) closeFd(id);
      liveStores.delete(store);
    },
  };
  return store;
}
