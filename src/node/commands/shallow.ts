/**
 * `.git/shallow`: git takes every commit it lists as having no parents. git's shallow fetches write
 * it (a commit whose parents were not fetched), so it cannot be read-only; but a line a command adds
 * for a commit whose parents ARE in the store is a lie that changes what the user's git writes — a
 * planted `HEAD` makes `git revert HEAD` delete every file of the tree and `git show HEAD` show the
 * whole tree as the commit's change (red team round 7; the commit-graph's class). When a command
 * ends, such lines are taken out (the file rewritten beside itself and renamed into place; an empty
 * file removed, as git does) and kept in the quarantine folder.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readRegular } from "./packed-refs";
import { dirname, join } from "node:path";
import { hostProgram, hostSearchDirs } from "../host-programs";

const LINE = /^[0-9a-f]{40}$|^[0-9a-f]{64}$/;
const MAX_BYTES = 16 * 1024 * 1024;

/** The commit names `.git/shallow` lists now ([] when there is none or it is not a regular file). */
export function shallowLines(path: string): string[] {
  const text = readRegular(path, MAX_BYTES);
  return text === undefined ? [] : text.split("\n").filter((l) => LINE.test(l));
}

/**
 * The lines added since `before` that name a commit whose parents are all in the store (git's own
 * `cat-file`, with no configuration but the repository's, which commands cannot write).
 */
export function falseShallowLines(path: string, before: readonly string[]): string[] {
  const added = shallowLines(path).filter((l) => !before.includes(l));
  if (!added.length) return [];
  const gitDir = dirname(path);
  const git = (args: string[], input?: string) =>
    spawnSync(hostProgram("git"), ["--git-dir", gitDir, ...args], {
      cwd: "/",
      input,
      encoding: "utf8",
      timeout: 60_000,
      maxBuffer: 64 << 20,
      env: { PATH: hostSearchDirs().join(":") || "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_CEILING_DIRECTORIES: "/", LC_ALL: "C" },
    });
  const out: string[] = [];
  for (const sha of added) {
    const c = git(["cat-file", "commit", sha]);
    // Not a commit in the store: git's fetch names commits it wrote; nothing to check it against, so kept.
    if (c.status !== 0) continue;
    const parents = [...c.stdout.split("\n\n")[0]!.matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1]!);
    if (!parents.length) continue;
    const have = git(["cat-file", "--batch-check=%(objectname)"], parents.join("\n") + "\n");
    if (have.status === 0 && !/ missing$/m.test(have.stdout)) out.push(sha);
  }
  return out;
}

/** Takes `lines` out of `.git/shallow`; returns where they were kept, or undefined when there was nothing to take. */
export function stripShallowLines(path: string, lines: readonly string[], keepDir: string): string | undefined {
  const text = readRegular(path, MAX_BYTES);
  if (text === undefined || !lines.length) return undefined;
  const kept = text.split("\n").filter((l) => l && !lines.includes(l));
  const keptAt = join(keepDir, ".git", "shallow.false-lines");
  mkdirSync(dirname(keptAt), { recursive: true });
  writeFileSync(keptAt, lines.join("\n") + "\n");
  if (!kept.length) rmSync(path, { force: true });
  else {
    const tmp = `${path}.yoke-${process.pid}`;
    writeFileSync(tmp, kept.join("\n") + "\n");
    renameSync(tmp, path);
  }
  return keptAt;
}
