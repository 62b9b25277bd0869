/**
 * A repository's object files, checked around a command. Commands may write `.git/objects`
 * (git's ordinary work adds objects there), but git never rewrites an object it has and never
 * checks a hash when it reads one: a command that replaces the file of an existing object (or
 * plants one under the name of content the user will fetch later) changes what the user's next
 * `git checkout` — and a checkpoint restore — writes. So the object files are listed before the
 * command, and each new or changed one is verified when it ends: a loose object must inflate to
 * content whose hash is its name, a pack and its index must carry the checksum their names give,
 * and every object of the pack must hash to the name its index gives it (`git verify-pack`: an index
 * with valid checksums can still map a trusted name to other content). A multi-pack index is an
 * index git trusts without checking it against the packs; git works without one, so a new or
 * changed one is taken away. What fails is quarantined (git then reports the object missing
 * instead of using it).
 */
import { spawnSync } from "node:child_process";
import { closeSync, constants as C, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type * as Zlib from "node:zlib";
import { hostProgram, hostSearchDirs } from "../host-programs";

// node:zlib is loaded on first use (not by every process that loads this module: `yoke run` before
// its first request; docs/benchmarks.md, "Session 20: start20").
// eslint-disable-next-line @typescript-eslint/no-require-imports
const inflateSync = (...args: Parameters<typeof Zlib.inflateSync>): Buffer => (require("node:zlib") as typeof Zlib).inflateSync(...args);

export interface ObjectFileStat {
  ino: number;
  size: number;
  mtimeMs: number;
  /** When the inode last changed (a write, chmod, rename or link): no process can set it back. */
  ctimeMs: number;
}

/** Object files looked at when a command ends, at most (a store larger than this is not checked past it, and says so nowhere: 2 M loose objects is far past what git keeps loose). */
const OBJECT_FILES_WALK_MAX = 2_000_000;

/** More object files than this (git packs loose objects past 6,700 by default): not listed, so no guard (listing and checking 7,000 costs about 0.2 s per command); the restore still hashes what it writes. */
export const OBJECT_FILES_MAX = 10_000;
/** A loose object larger than this once inflated is not verified (reported as unverifiable). */
const LOOSE_MAX_BYTES = 512 * 1024 * 1024;

const FAN = /^[0-9a-f]{2}$/;
const LOOSE = /^[0-9a-f]{38}$|^[0-9a-f]{62}$/;
const PACK = /^pack-([0-9a-f]{40}|[0-9a-f]{64})\.(pack|idx)$/;
/** A multi-pack index (and the incremental ones of newer git): object name -> pack and offset, read unchecked. */
const MIDX = /^multi-pack-index$|^multi-pack-index\.d$/;
/** How long git may take to verify a pack's objects against its index (a pack that takes longer is kept unverified). */
const VERIFY_PACK_TIMEOUT_MS = 300_000;

/** The object files under `objects` (loose objects and packs with their indexes), relative names to stat; undefined past OBJECT_FILES_MAX. */
export function listObjectFiles(objects: string, max = OBJECT_FILES_MAX): Map<string, ObjectFileStat> | undefined {
  const out = new Map<string, ObjectFileStat>();
  const add = (rel: string): boolean => {
    try {
      const st = lstatSync(join(objects, rel));
      // Anything but a folder: a link or a FIFO in an object's place is as wrong as other content.
      if (!st.isDirectory()) out.set(rel, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs });
    } catch {
      /* gone meanwhile */
    }
    return out.size <= max;
  };
  let top: string[];
  try {
    top = readdirSync(objects);
  } catch {
    return out;
  }
  for (const d of top) {
    if (d === "pack") {
      for (const n of safeList(join(objects, d))) {
        if (n === "multi-pack-index.d") {
          for (const m of safeList(join(objects, d, n))) if (!add(`pack/${n}/${m}`)) return undefined;
        } else if ((PACK.test(n) || MIDX.test(n)) && !add(`pack/${n}`)) return undefined;
      }
    } else if (FAN.test(d)) {
      for (const n of safeList(join(objects, d))) if (LOOSE.test(n) && !add(`${d}/${n}`)) return undefined;
    }
  }
  return out;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The object files that are new or changed since `before` (or, given `since`, whose inode changed
 * at or after that time: a new file, a rewrite, a chmod, a rename all set the change time, which no
 * process can set back) and do not verify, each with why. With `since`, nothing needs listing
 * before the command, and no number of files a command adds takes the check away.
 * (Files removed are not reported: a missing object makes git fail, not lie.)
 */
export function alteredObjectFiles(objects: string, before: ReadonlyMap<string, ObjectFileStat>, since?: number): Array<{ rel: string; why: string }> {
  const now = listObjectFiles(objects, since === undefined ? OBJECT_FILES_MAX : OBJECT_FILES_WALK_MAX);
  if (!now) return [];
  const out: Array<{ rel: string; why: string }> = [];
  for (const [rel, st] of now) {
    if (since !== undefined) {
      if (st.ctimeMs < since) continue;
    } else {
      const was = before.get(rel);
      if (was && was.ino === st.ino && was.size === st.size && was.mtimeMs === st.mtimeMs) continue;
    }
    const why = verify(objects, rel);
    if (why) out.push({ rel, why });
  }
  return out;
}

/** Undefined when the object file is what its name says; else why not. */
export function verify(objects: string, rel: string): string | undefined {
  let fd: number;
  try {
    // Never following a link, never blocking on a FIFO put in its place.
    fd = openSync(join(objects, rel), C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (err) {
    return `it could not be opened (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return "it is not a regular file";
    if (rel.startsWith("pack/multi-pack-index")) return "it is a multi-pack index, which git reads without checking it against the packs (git works without it, and rebuilds it on request)";
    const pack = PACK.exec(rel.slice(rel.indexOf("/") + 1));
    if (rel.startsWith("pack/") && pack) return verifyPack(fd, st.size, pack[1]!, pack[2] as "pack" | "idx") ?? (pack[2] === "idx" ? verifyPackObjects(join(objects, rel)) : undefined);
    if (st.size > LOOSE_MAX_BYTES) return "it is larger than any object Yoke verifies";
    const name = rel.replace("/", "");
    let body: Buffer;
    try {
      body = inflateSync(readRange(fd, 0, st.size), { maxOutputLength: LOOSE_MAX_BYTES });
    } catch {
      return "it is not a compressed git object";
    }
    const hash = createHash(name.length === 64 ? "sha256" : "sha1")
      .update(body)
      .digest("hex");
    return hash === name ? undefined : "its content is not the content whose hash is its name";
  } finally {
    closeSync(fd);
  }
}

/** A pack (or its index) ends with the checksum of what precedes it; a pack is named after its checksum, and its index holds that checksum before its own. */
function verifyPack(fd: number, size: number, name: string, kind: "pack" | "idx"): string | undefined {
  const len = name.length / 2;
  if (size < 2 * len) return "it is too short to be a pack file";
  const hash = createHash(len === 32 ? "sha256" : "sha1");
  const chunk = 1 << 20;
  for (let at = 0; at < size - len; at += chunk) hash.update(readRange(fd, at, Math.min(chunk, size - len - at)));
  const own = readRange(fd, size - len, len).toString("hex");
  if (hash.digest("hex") !== own) return "its content does not match its own checksum";
  const packSum = kind === "pack" ? own : readRange(fd, size - 2 * len, len).toString("hex");
  return packSum === name ? undefined : "its checksum is not the one its name gives";
}

/**
 * Does every object of the pack hash to the name its index gives it? Git's own check (`git
 * verify-pack`), run outside any repository with no configuration but git's defaults. A check
 * that cannot finish (git missing, too slow) is not a failure: the pack is kept and said so.
 */
function verifyPackObjects(idx: string): string | undefined {
  const r = spawnSync(hostProgram("git"), ["verify-pack", idx], {
    cwd: "/",
    env: { PATH: hostSearchDirs().join(":") || "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: "/", LC_ALL: "C" },
    encoding: "utf8",
    timeout: VERIFY_PACK_TIMEOUT_MS,
    maxBuffer: 1 << 20,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (r.error || r.status === null) return undefined;
  return r.status === 0 ? undefined : `its index gives objects names their content does not hash to (git verify-pack: ${(r.stderr || "").trim().split("\n")[0] || `exit status ${r.status}`})`;
}

function readRange(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, start + got);
    if (n <= 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}
