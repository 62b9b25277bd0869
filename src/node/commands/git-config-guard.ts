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
import { randomBytes } from "node:crypto";
import { closeSync, constants as C, fstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  return problemsOf(readBytes(path), basename(path), file, before);
}

function problemsOf(bytes: Buffer | "absent" | "other", name: string, file: GitConfigFile, before: GitConfigSnapshot | null): string[] {
  if (bytes === "absent") return [];
  if (bytes === "other") return [`${name} is not a regular file of at most 1 MB`];
  if (before && bytes.equals(before.bytes)) return [];
  const after = entriesOf(bytes);
  if (!after) return [`git cannot read ${name} as written`];
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

/**
 * The private copy of `.git/config` a git submodule command works on (the git door,
 * confine.gitSubmodule). The command never writes the repository's own `.git/config` (a read-only
 * mount point, as for any other command): it runs with `GIT_COMMON_DIR` naming a scratch folder in
 * `.git` that holds a copy of the file and a link to every other entry of `.git` (objects, refs,
 * modules, hooks…, so git finds the repository's own), and git writes its `config.lock` there and
 * renames it onto the copy. When the command has ended (nothing of it runs any more), the copy is
 * checked — read by git itself, as for the door before — and only a copy whose changes are
 * `submodule.<name>.*` entries git's submodule commands write is renamed into place. The user's own
 * git (VS Code's polls `git status`) never reads a state nobody checked; a wrong guess about what
 * can run inside the door (a hook of a submodule, a planted program) can do no harm there.
 */
export interface GitConfigCopy {
  /** The scratch folder (`.git/yoke-door-XXXXXX`), the command's `GIT_COMMON_DIR`. */
  dir: string;
  /** The copy the command sees and writes (`<dir>/config`). */
  copy: string;
}

/** Names a scratch folder of the door takes in `.git` (left behind only if Yoke itself was killed). */
export const DOOR_DIR_PREFIX = "yoke-door-";

/**
 * Entries of `.git` the copy's folder links to although they may not exist yet (git creates them
 * through the link, in the repository's own `.git`): submodules' git folders, packed refs, shallow.
 */
const LINK_EVEN_IF_MISSING = ["modules", "packed-refs", "shallow", "objects", "refs"];
/** Entries that are the working tree's own (read from the command's `.git`, not GIT_COMMON_DIR) or the copy. */
const NOT_LINKED = new Set(["config", "HEAD", "index"]);

/** Makes the scratch folder holding the private copy of `<git>/config` (its bytes: `snapshot`). */
export function makeGitConfigCopy(git: string, snapshot: GitConfigSnapshot): GitConfigCopy {
  const dir = mkdtempSync(join(git, DOOR_DIR_PREFIX));
  try {
    const copy = join(dir, "config");
    writeFileSync(copy, snapshot.bytes, { flag: "wx", mode: 0o644 });
    const names = new Set([...readdirSync(git), ...LINK_EVEN_IF_MISSING]);
    for (const name of names) {
      if (NOT_LINKED.has(name) || name.startsWith(DOOR_DIR_PREFIX)) continue;
      symlinkSync(join(git, name), join(dir, name));
    }
    return { dir, copy };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** What publishing the copy did: nothing changed, written into place, or kept out (why, and where the copy was kept). */
export type GitConfigPublished = { kind: "unchanged" } | { kind: "written" } | { kind: "refused"; why: string; keptAt?: string };

/**
 * When the command has ended: checks the copy and renames it into place (`path`, the repository's
 * `.git/config`), or keeps it out. Refused: anything but submodule entries changed, the copy is not
 * a regular file git can read, or the repository's own file changed meanwhile (the user's own
 * `git config`: never overwritten). A refused copy is kept at `keepDir/.git/config`. The scratch
 * folder is removed either way.
 */
export function publishGitConfigCopy(path: string, before: GitConfigSnapshot, c: GitConfigCopy, keepDir: string): GitConfigPublished {
  try {
    const bytes = readBytes(c.copy);
    if (bytes instanceof Buffer && bytes.equals(before.bytes)) return { kind: "unchanged" };
    const keep = (): string | undefined => {
      if (!(bytes instanceof Buffer)) return undefined;
      const keptAt = join(keepDir, ".git", "config");
      mkdirSync(dirname(keptAt), { recursive: true });
      writeFileSync(keptAt, bytes);
      return keptAt;
    };
    const problems = bytes === "absent" ? ["the command removed config"] : problemsOf(bytes, "config", "config", before);
    if (problems.length) {
      const keptAt = keep();
      return { kind: "refused", why: `it set ${problems.slice(0, 5).join(", ")}${problems.length > 5 ? ` and ${problems.length - 5} more` : ""}`, ...(keptAt ? { keptAt } : {}) };
    }
    const now = readBytes(path);
    if (!(now instanceof Buffer) || !now.equals(before.bytes)) {
      const keptAt = keep();
      return { kind: "refused", why: "the repository's .git/config changed while the command ran (it was not overwritten)", ...(keptAt ? { keptAt } : {}) };
    }
    // Written beside it under a name nobody can guess, and renamed into place: git reads the old file or the checked one.
    const tmp = join(dirname(path), `.config.yoke-${randomBytes(8).toString("hex")}`);
    writeFileSync(tmp, bytes as Buffer, { flag: "wx", mode: 0o644 });
    try {
      renameSync(tmp, path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    return { kind: "written" };
  } finally {
    rmSync(c.dir, { recursive: true, force: true });
  }
}
