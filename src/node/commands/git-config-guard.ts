/**
 * `.git/config` and `.gitmodules` under a `git submodule add|init|update|sync|deinit|set-url|
 * set-branch|absorbgitdirs` command (confine.gitLinked, core/protected-paths.ts
 * isGitLinkedWork). Both are protected paths: the sandbox lets such a command write them
 * (git writes `config.lock` and renames it into place, so a read-only mount cannot stay), and
 * compares what the file says — read by git itself, includes not followed — with what it said
 * before. Only `submodule.<name>.<key>` entries git's submodule commands write may have been added,
 * changed or removed; any other change (core.fsmonitor, core.hooksPath, alias.*, include.*, a
 * `!command` update, an `ext::` or option-like URL, a name that climbs out with `..`), a file git
 * cannot read, a link or anything but a regular file puts the whole file back as it was, and what
 * the command left is kept in the quarantine folder.
 */
import { execFileSync } from "node:child_process";
import { closeSync, constants as C, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { hostProgram, hostSearchDirs } from "../host-programs";

const MAX_BYTES = 1024 * 1024;

export type GitConfigFile = "config" | "gitmodules";

/** What the file held before the command: its bytes and entries (`key\nvalue`), or null when it did not exist. */
export interface GitConfigSnapshot {
  bytes: Buffer;
  entries: string[];
}

/** The file's bytes when it is a regular file of at most 1 MB (opened without following a link); "absent"; or "other". */
function readBytes(path: string): Buffer | "absent" | "other" {
  let fd: number;
  try {
    fd = openSync(path, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "other";
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_BYTES) return "other";
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n <= 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The entries of a configuration text as git reads it (no includes), or undefined when git cannot read it. */
function entriesOf(bytes: Buffer): string[] | undefined {
  try {
    const out = execFileSync(hostProgram("git"), ["config", "--file", "-", "--no-includes", "--list", "--null"], {
      cwd: "/",
      input: bytes,
      encoding: "utf8",
      timeout: 10_000,
      maxBuffer: 8 * MAX_BYTES,
      stdio: ["pipe", "pipe", "ignore"],
      env: { PATH: hostSearchDirs().join(":") || "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent", LC_ALL: "C" },
    });
    return out
      .split("\0")
      .filter(Boolean)
      .map((item) => (item.includes("\n") ? item : `${item}\ntrue`));
  } catch {
    return undefined;
  }
}

/** The file as it is before the command (undefined: not a regular file git can read; the door stays shut). */
export function snapshotGitConfig(path: string): GitConfigSnapshot | null | undefined {
  const bytes = readBytes(path);
  if (bytes === "absent") return null;
  if (bytes === "other") return undefined;
  const entries = entriesOf(bytes);
  return entries ? { bytes, entries } : undefined;
}

const KEYS: Record<GitConfigFile, RegExp> = {
  // git submodule init/update/sync/set-url/set-branch/deinit write url, active, update, branch…
  config: /^submodule\.(.+)\.(url|active|update|branch|fetchrecursesubmodules|ignore|shallow)$/,
  // git submodule add/set-url/set-branch write path, url, branch (and a user may keep the others there).
  gitmodules: /^submodule\.(.+)\.(path|url|update|branch|fetchrecursesubmodules|ignore|shallow)$/,
};

/** Why one added, changed or removed entry is not one git's submodule commands write (undefined: it is). */
function entryProblem(file: GitConfigFile, entry: string): string | undefined {
  const nl = entry.indexOf("\n");
  const key = entry.slice(0, nl);
  const value = entry.slice(nl + 1);
  const m = KEYS[file].exec(key);
  if (!m) return key;
  const [, name, sub] = m;
  // A submodule name that climbs out of .git/modules (CVE-2018-11235) names another git folder.
  if (name!.split("/").includes("..") || name!.includes("\\")) return `${key} (a name with ..)`;
  if (sub === "update" && value.trimStart().startsWith("!")) return `${key}=${value} (a command)`;
  if (sub === "url" && (value.startsWith("-") || /^\s*ext::/i.test(value))) return `${key}=${value} (a URL git would run as a command or option)`;
  return undefined;
}

/** What changed in the file that git's submodule commands do not write; [] when nothing did. */
export function gitConfigProblems(path: string, file: GitConfigFile, before: GitConfigSnapshot | null): string[] {
  const bytes = readBytes(path);
  if (bytes === "absent") return [];
  if (bytes === "other") return [`${basename(path)} is not a regular file of at most 1 MB`];
  if (before && bytes.equals(before.bytes)) return [];
  const after = entriesOf(bytes);
  if (!after) return [`git cannot read ${basename(path)} as written`];
  const was = [...(before?.entries ?? [])];
  const changed: string[] = [];
  for (const e of after) {
    const i = was.indexOf(e);
    if (i >= 0) was.splice(i, 1);
    else changed.push(e);
  }
  changed.push(...was);
  const bad = new Set<string>();
  for (const e of changed) {
    const why = entryProblem(file, e);
    if (why) bad.add(why);
  }
  return [...bad];
}

/**
 * Puts the file back as it was (written beside it and renamed into place, or removed when it did
 * not exist), keeping what the command left at `keepDir/<name>`. Returns where it was kept.
 */
export function restoreGitConfig(path: string, before: GitConfigSnapshot | null, keepDir: string): string {
  const keptAt = join(keepDir, path.includes("/.git/") ? ".git" : "", basename(path));
  mkdirSync(dirname(keptAt), { recursive: true });
  const now = readBytes(path);
  if (now instanceof Buffer) writeFileSync(keptAt, now);
  else if (now === "other") {
    // A link, a folder, a FIFO…: moved out whole (or removed when it cannot be).
    try {
      renameSync(path, keptAt);
    } catch {
      rmSync(path, { recursive: true, force: true });
    }
  }
  if (before) {
    const tmp = join(dirname(path), `.${basename(path)}.yoke-${process.pid}`);
    rmSync(tmp, { force: true });
    writeFileSync(tmp, before.bytes, { flag: "wx", mode: 0o644 });
    renameSync(tmp, path);
  } else rmSync(path, { recursive: true, force: true });
  return keptAt;
}
