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
