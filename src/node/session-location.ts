/**
 * Where the sessions of a workspace folder live: `~/.yoke/sessions/<workspace-key>/`, the same
 * folder for the panel and the CLI (both compute it here, on the machine the folder is on — in a
 * Remote-SSH, WSL or dev container window that is the remote's home, where the extension host and
 * the terminal's `yoke` both run).
 *
 * The key is `<folder name>-<hash of the canonical path>`: readable, bounded in length, and two
 * folders never share one. The canonical path is the real path (symlinks resolved), case-folded
 * when the folder's file system ignores case, so every way of naming one folder gives one key.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { homedir } from "node:os";
import * as nodePath from "node:path";

const NAME_MAX = 40;

/** `~/.yoke/sessions`: the root of every workspace's store. */
export function sessionsRoot(home: string = homedir()): string {
  return nodePath.join(home, ".yoke", "sessions");
}

/** A session's event log in a session folder: `<dir>/<id>.jsonl` (the one place this name is built). */
export function sessionLogPath(dir: string, id: string): string {
  return nodePath.join(dir, `${id}.jsonl`);
}

/**
 * The session folder a host uses: a configured one (`~` expands to the home folder), else the
 * workspace folder's shared store, else `fallback` (a window without a folder on disk).
 */
export function resolveSessionDir(opts: { configured?: string; folder?: string; fallback: () => string; home?: string }): string {
  const home = opts.home ?? homedir();
  if (opts.configured) return nodePath.resolve(opts.configured.replace(/^~(?=$|[\\/])/, home));
  return opts.folder !== undefined ? defaultSessionDir(opts.folder, opts.home) : opts.fallback();
}

/** The default session folder of a workspace folder. */
export function defaultSessionDir(folder: string, home?: string): string {
  return nodePath.join(sessionsRoot(home), workspaceKey(folder));
}

/** `tidewatch-3f9c2a1b7d4e6f80`: the folder's name (for people) and a hash of its canonical path. */
export function workspaceKey(folder: string): string {
  const canonical = canonicalFolder(folder);
  const hash = createHash("sha256").update(canonical, "utf8").digest("hex").slice(0, 16);
  const base = nodePath.basename(canonical.replace(/[\\/]+$/, ""));
  const name = base
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .toLowerCase()
    .slice(0, NAME_MAX)
    .replace(/[-.]+$/, "");
  return `${name || (base ? "folder" : "root")}-${hash}`;
}

/**
 * The path that names a folder however it was reached: absolute, symlinks resolved (a missing
 * folder keeps its resolved path), Unicode NFC where the file system ignores normalisation
 * (macOS, Windows), lower case where it ignores case.
 */
export function canonicalFolder(folder: string): string {
  let p = nodePath.resolve(folder);
  try {
    p = fs.realpathSync.native(p);
  } catch {
    // does not exist (yet): its resolved path names it
  }
  if (process.platform === "win32") p = nodePath.win32.normalize(p).replace(/^\\\\\?\\/, "");
  if (process.platform === "darwin" || process.platform === "win32") p = p.normalize("NFC");
  if (p.length > 1) p = p.replace(/[\\/]+$/, "");
  return ignoresCase(p) ? p.toLowerCase() : p;
}

/**
 * Whether the file system holding `path` ignores case: the path with one component's case
 * swapped reaches the same file. A path without letters cannot be told apart by case anyway.
 */
function ignoresCase(path: string): boolean {
  const parts = path.split(/([\\/]+)/);
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    const swapped = swapCase(part);
    if (swapped === part) continue;
    const variant = [...parts.slice(0, i), swapped, ...parts.slice(i + 1)].join("");
    try {
      // lstat: a case-swapped symlink beside the folder must not pass for the folder itself.
      const a = fs.lstatSync(path, { bigint: true });
      const b = fs.lstatSync(variant, { bigint: true });
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return false;
    }
  }
  return false;
}

function swapCase(s: string): string {
  let out = "";
  for (const ch of s) {
    const up = ch.toUpperCase();
    out += up === ch ? ch.toLowerCase() : up;
  }
  return out;
}

/** The folder the CLI used before the shared store (`~/.yoke/sessions/<slug of the path>`). */
export function legacyCliSessionDir(folder: string, home?: string): string {
  const slug = nodePath
    .resolve(folder)
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^-+/, "");
  return nodePath.join(sessionsRoot(home), slug || "root");
}

export interface ImportResult {
  /** Session ids moved into the shared store. */
  moved: string[];
  /** Sessions left where they were, and why. */
  skipped: Array<{ id: string; reason: string }>;
}

const LOG = /^([A-Za-z0-9_][A-Za-z0-9._-]*)\.jsonl$/;

/**
 * Moves the sessions of an old store (`from`) into the shared one, each to the store of the folder
 * its own `session_start` names (so an old folder that mixed several workspaces is split
 * correctly). A session whose folder cannot be read, or whose id the destination already has,
 * stays where it is. The log's command output folder moves with it; an
 * emptied old folder is removed. Safe to run from two processes at once.
 */
export function importSessions(from: string, opts: { home?: string } = {}): ImportResult {
  const result: ImportResult = { moved: [], skipped: [] };
  let names: string[];
  try {
    names = fs.readdirSync(from);
  } catch {
    return result;
  }
  for (const name of names) {
    const m = LOG.exec(name);
    if (!m) continue;
    const id = m[1]!;
    const src = nodePath.join(from, name);
    const cwd = sessionFolderOf(src);
    if (!cwd) {
      result.skipped.push({ id, reason: "its log does not say which folder it belongs to" });
      continue;
    }
    const to = defaultSessionDir(cwd, opts.home);
    if (nodePath.resolve(to) === nodePath.resolve(from)) continue;
    try {
      fs.mkdirSync(to, { recursive: true });
      if (!moveNoReplace(src, nodePath.join(to, name))) {
        result.skipped.push({ id, reason: `${to} already has a session ${id}` });
        continue;
      }
      const commands = nodePath.join(from, `${id}.commands`);
      if (fs.existsSync(commands)) moveFolder(commands, nodePath.join(to, `${id}.commands`));
      result.moved.push(id);
    } catch (err) {
      result.skipped.push({ id, reason: (err as Error).message });
    }
  }
  try {
    fs.rmdirSync(from); // only when empty
  } catch {
    // something is left (a skipped session, other files): keep the folder
  }
  return result;
}

/**
 * The one legacy migration: when `legacy` (an old store: the CLI's per-path folder, a VS Code
 * window's storage) is not `dir` and still exists, its sessions move to the shared store
 * (importSessions). Undefined when there was nothing to move.
 */
export function migrateLegacySessions(legacy: string, dir: string, opts: { home?: string } = {}): ImportResult | undefined {
  if (nodePath.resolve(legacy) === nodePath.resolve(dir) || !fs.existsSync(legacy)) return undefined;
  return importSessions(legacy, opts);
}

/** The `cwd` of a log's first line (its `session_start`), read without reading the whole log. */
function sessionFolderOf(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    const buf = Buffer.alloc(64 * 1024);
    let pos = 0;
    // The first line carries the system prompt: allow a few MiB before giving up.
    while (pos < 8 * 1024 * 1024) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      const nl = buf.subarray(0, n).indexOf(0x0a);
      chunks.push(Buffer.from(buf.subarray(0, nl < 0 ? n : nl)));
      pos += n;
      if (nl >= 0) break;
    }
    const first = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type?: unknown; cwd?: unknown };
    return first.type === "session_start" && typeof first.cwd === "string" && first.cwd ? first.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Moves a file, never over an existing one; false when `to` exists. */
function moveNoReplace(from: string, to: string): boolean {
  // link + unlink: atomic and refuses to replace, unlike rename.
  try {
    fs.linkSync(from, to);
    fs.rmSync(from, { force: true });
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    if (code === "ENOENT") throw new Error("it was moved meanwhile", { cause: err });
    if (code !== "EXDEV" && code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw err;
  }
  // Another file system, or no hard links: copy beside the target, then claim the name.
  const tmp = `${to}.${process.pid}.import`;
  fs.copyFileSync(from, tmp);
  try {
    fs.copyFileSync(tmp, to, fs.constants.COPYFILE_EXCL);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  fs.rmSync(from, { force: true });
  return true;
}

function moveFolder(from: string, to: string): void {
  if (fs.existsSync(to)) return;
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    fs.cpSync(from, to, { recursive: true, errorOnExist: true, force: false });
    fs.rmSync(from, { recursive: true, force: true });
  }
}
