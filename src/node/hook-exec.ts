/**
 * Runs hook commands: `sh -c COMMAND` in the workspace folder, the payload JSON on stdin, in its
 * own process group so a timeout or abort kills everything it started.
 */
import { spawn } from "node:child_process";
import type { HookCommandRunner } from "../core/hooks/types";

const MAX_OUTPUT = 1024 * 1024;
const KILL_GRACE_MS = 2000;

export interface NodeHookRunnerOptions {
  shell?: string;
  /** Confines each hook command (the session's sandbox): argv in, the program to spawn out. */
  wrap?: (argv: string[], cwd: string) => { file: string; args: string[] };
}

export function createNodeHookRunner(opts: NodeHookRunnerOptions = {}): HookCommandRunner {
  return {
    run(req, signal) {
      return new Promise((resolve) => {
        const windows = process.platform === "win32";
        const argv = [opts.shell ?? "/bin/sh", "-c", req.command];
        const wrapped = !windows && opts.wrap ? opts.wrap(argv, req.cwd) : { file: argv[0]!, args: argv.slice(1) };
        const child = spawn(windows ? req.command : wrapped.file, windows ? [] : wrapped.args, {
          cwd: req.cwd,
          env: { ...process.env, ...req.env },
          detached: !windows,
          shell: windows,
          stdio: ["pipe", "pipe", "pipe"],
        });
        let stdout = "";
        let stderr = "";
        let timedOut = false;
        let settled = false;
        const killGroup = (sig: NodeJS.Signals) => {
          try {
            if (!windows && child.pid) process.kill(-child.pid, sig);
            else child.kill(sig);
          } catch {
            /* already gone */
          }
        };
        const stop = () => {
          killGroup("SIGTERM");
          setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, req.timeoutMs);
        const onAbort = () => stop();
        signal?.addEventListener("abort", onAbort, { once: true });
        const finish = (exitCode: number | null, error?: string) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve({ exitCode, stdout, stderr, timedOut, error });
        };
        child.stdout.on("data", (d: Buffer) => {
          if (stdout.length < MAX_OUTPUT) stdout += d.toString("utf8");
        });
        child.stderr.on("data", (d: Buffer) => {
          if (stderr.length < MAX_OUTPUT) stderr += d.toString("utf8");
        });
        child.on("error", (err) => finish(null, err.message));
        child.on("close", (code) => finish(code));
        // A background process the hook left behind may hold the pipes open: do not wait for it.
        child.on("exit", (code) => setTimeout(() => finish(code), 250).unref());
        child.stdin.on("error", () => {
          /* the hook did not read its input */
        });
        child.stdin.end(req.stdin);
      });
    },
  };
}
