/** Runs real git for the background agents' worktrees (no shell; output captured). */
import { execFile } from "node:child_process";
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
