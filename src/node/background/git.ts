/** Runs real git for the background agents' worktrees (no shell; output captured). */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { hostProgram } from "../host-programs";

export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** git with `args` in `cwd`; `env` adds variables (GIT_INDEX_FILE). Resolves with the exit status; never rejects for a non-zero one. */
export function git(cwd: string, args: string[], opts: { env?: Record<string, string>; input?: string; maxBuffer?: number } = {}): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      hostProgram("git"),
      // fsmonitor off: a worktree's configuration names a program that reading its index would run.
      ["-c", "core.fsmonitor=false", ...args],
      { cwd, env: { ...process.env, ...opts.env, GIT_TERMINAL_PROMPT: "0" }, maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (err && typeof (err as NodeJS.ErrnoException).code === "string") return reject(new Error(`git could not be run: ${err.message}`));
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** git that must succeed: its stdout, else an error with git's message. */
export async function gitOk(cwd: string, args: string[], opts: Parameters<typeof git>[2] = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw new Error(`git ${args[0]} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/**
 * The environment that turns off every filter driver git's configuration defines (`filter.NAME.clean`,
 * `smudge`, `process` emptied, `required` false: git then takes a file as it is), for Yoke's own git
 * on files an agent wrote. A driver is the person's program, but it runs on the host in the folder
 * of the files: `"python3" -m nbstripout` (what `nbstripout --install` writes) imported the agent's
 * `nbstripout.py` from its worktree, and a `scripts/clean.sh` driver runs the agent's copy of it
 * (red team B, session 23). Set through GIT_CONFIG_COUNT, which takes any name as it is.
 */
export async function filtersOffEnv(cwd: string): Promise<Record<string, string>> {
  const r = await git(cwd, ["config", "--name-only", "-z", "--get-regexp", "^filter\\."]);
  const names = new Set<string>();
  for (const key of r.stdout.split("\0")) {
    const dot = key.lastIndexOf(".");
    if (key.startsWith("filter.") && dot > "filter.".length) names.add(key.slice("filter.".length, dot));
  }
  const pairs = [...names].flatMap((n) => [
    [`filter.${n}.clean`, ""],
    [`filter.${n}.smudge`, ""],
    [`filter.${n}.process`, ""],
    [`filter.${n}.required`, "false"],
  ]);
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k!;
    env[`GIT_CONFIG_VALUE_${i}`] = v!;
  });
  return env;
}

/** `git diff` options for Yoke's own diffs of an agent's files: no external diff program, no textconv driver. */
export const DIFF_NO_PROGRAMS = ["--no-ext-diff", "--no-textconv"];

/**
 * The paths among `paths` that git would pass through a filter driver of the person's configuration
 * (a `filter` attribute naming a driver with a `clean` or `process` program: Git LFS, nbstripout,
 * git-crypt), each with the driver's name. Their attributes are read both as the agent's worktree
 * has them and as its base commit had them (an agent that drops `filter=lfs` from .gitattributes
 * does not make its binary an ordinary file). Runs no program: `git check-attr` only reads.
 * Yoke takes such files as they are (filtersOffEnv), so a commit of them is not what the person's
 * own `git add` would make: `--strategy merge` refuses them, `--strategy apply` writes them into the
 * person's tree, where their own git runs their filter.
 */
export async function filteredPaths(worktree: string, base: string, paths: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (!paths.length) return found;
  const r = await git(worktree, ["config", "-z", "--get-regexp", "^filter\\..*\\.(clean|process)$"]);
  const drivers = new Set<string>();
  for (const entry of r.stdout.split("\0")) {
    const nl = entry.indexOf("\n");
    const key = nl < 0 ? entry : entry.slice(0, nl);
    const value = nl < 0 ? "" : entry.slice(nl + 1);
    const dot = key.lastIndexOf(".");
    if (value.trim() && dot > "filter.".length) drivers.add(key.slice("filter.".length, dot));
  }
  if (!drivers.size) return found;
  const input = paths.join("\0") + "\0";
  const read = (out: string) => {
    const f = out.split("\0");
    for (let i = 0; i + 2 < f.length; i += 3) if (drivers.has(f[i + 2]!) && !found.has(f[i]!)) found.set(f[i]!, f[i + 2]!);
  };
  read(await gitOk(worktree, ["check-attr", "-z", "--stdin", "filter"], { input }));
  // The base's attributes: from its tree, through a private index (the worktree's own is not touched).
  const dir = mkdtempSync(nodePath.join(tmpdir(), "yoke-attr-"));
  try {
    const env = { GIT_INDEX_FILE: nodePath.join(dir, "index") };
    await gitOk(worktree, ["read-tree", base], { env });
    read(await gitOk(worktree, ["check-attr", "--cached", "-z", "--stdin", "filter"], { env, input }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return found;
}
