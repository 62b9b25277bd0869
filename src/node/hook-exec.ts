/**
 * Runs hook commands as Claude Code does: in the user's environment, outside the model's
 * command sandbox (hooks are code the user or a trusted workspace chose), in the workspace
 * folder, the payload JSON on stdin. Shell form runs `bash -c COMMAND` (or PowerShell with
 * `shell: "powershell"`); exec form (`args`) spawns the program directly. Each hook gets its own
 * process group, so a timeout or an abort stops everything it started.
 *
 * A hook that cannot start is reported as such (`cannotStart`), not as an ordinary failure: the
 * program is missing or not executable (spawn error, exit 126/127 from the shell) or the command
 * line is not valid bash (checked with `bash -n` before it runs, once per command line), so a
 * syntax error is never mistaken for a hook's deliberate exit 2.
 */
import { withoutProviderSecrets } from "./settings/secret-env";
import { spawn } from "node:child_process";
import type { HookCommandRequest, HookCommandResult, HookCommandRunner } from "../core/hooks/types";

/** Per stream: the first MAX_HEAD bytes and the last MAX_TAIL bytes are kept. */
const MAX_HEAD = 1024 * 1024;
const MAX_TAIL = 64 * 1024;
const KILL_GRACE_MS = 2000;
const SYNTAX_CHECK_MS = 10_000;

export interface NodeHookRunnerOptions {
  /** The bash to run shell-form hooks with (default `bash` from PATH). */
  bash?: string;
  /** The PowerShell for `shell: "powershell"` (default pwsh, or powershell.exe on Windows). */
  powershell?: string;
}

/** Keeps the head and the tail of a stream, counting what falls in between. */
class Capture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  push(d: Buffer): void {
    if (this.headBytes < MAX_HEAD) {
      const take = d.subarray(0, MAX_HEAD - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      d = d.subarray(take.length);
    }
    if (d.length === 0) return;
    this.tail.push(d);
    this.tailBytes += d.length;
    while (this.tailBytes - this.tail[0]!.length >= MAX_TAIL) {
      const first = this.tail.shift()!;
      this.tailBytes -= first.length;
      this.dropped += first.length;
    }
  }

  text(): string {
    const head = Buffer.concat(this.head).toString("utf8");
    if (this.tail.length === 0) return head;
    const tail = Buffer.concat(this.tail).toString("utf8");
    return this.dropped ? `${head}\n[… ${this.dropped} bytes of hook output dropped …]\n${tail}` : head + tail;
  }
}

interface Spawned {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: NodeJS.ErrnoException;
}

function runProcess(file: string, args: string[], req: HookCommandRequest, signal?: AbortSignal): Promise<Spawned> {
  return new Promise((resolve) => {
    const windows = process.platform === "win32";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { cwd: req.cwd, env: { ...withoutProviderSecrets(process.env), ...req.env }, detached: !windows, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    } catch (err) {
      resolve({ exitCode: null, stdout: "", stderr: "", timedOut: false, error: err as NodeJS.ErrnoException });
      return;
    }
    const out = new Capture();
    const errs = new Capture();
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
    const timer =
      req.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            stop();
          }, req.timeoutMs);
    const onAbort = () => stop();
    if (signal?.aborted) stop();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const finish = (exitCode: number | null, error?: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ exitCode, stdout: out.text(), stderr: errs.text(), timedOut, error });
    };
    child.stdout!.on("data", (d: Buffer) => out.push(d));
    child.stderr!.on("data", (d: Buffer) => errs.push(d));
    child.on("error", (err) => finish(null, err));
    child.on("close", (code) => finish(code));
    // A background process the hook left behind may hold the pipes open: do not wait for it.
    child.on("exit", (code) => setTimeout(() => finish(code), 250).unref());
    child.stdin!.on("error", () => {
      /* the hook did not read its input */
    });
    child.stdin!.end(req.stdin);
  });
}

function spawnProblem(err: NodeJS.ErrnoException, file: string, cwd: string): string {
  if (err.code === "ENOENT") return `${file} was not found (or the folder ${cwd} does not exist): ${err.message}`;
  if (err.code === "EACCES") return `${file} is not executable: ${err.message}`;
  return err.message;
}

export function createNodeHookRunner(opts: NodeHookRunnerOptions = {}): HookCommandRunner {
  const bash = opts.bash ?? "bash";
  const powershell = opts.powershell ?? (process.platform === "win32" ? "powershell.exe" : "pwsh");
  /** Command line → bash -n's complaint ("" when it is valid). */
  const syntax = new Map<string, string>();

  const checkSyntax = async (command: string, req: HookCommandRequest): Promise<{ problem?: string; cannotStart?: string }> => {
    const known = syntax.get(command);
    if (known !== undefined) return { problem: known || undefined };
    const r = await runProcess(bash, ["-n", "-c", command], { ...req, stdin: "", timeoutMs: SYNTAX_CHECK_MS });
    if (r.error) return { cannotStart: spawnProblem(r.error, bash, req.cwd) };
    const problem = r.exitCode === 0 || r.timedOut ? "" : r.stderr.trim().split("\n").slice(0, 3).join(" ") || `bash -n exited ${r.exitCode}`;
    if (syntax.size > 200) syntax.clear();
    syntax.set(command, problem);
    return { problem: problem || undefined };
  };

  return {
    async run(req, signal): Promise<HookCommandResult> {
      const exec = req.args !== undefined;
      const ps = !exec && req.shell === "powershell";
      if (!exec && !ps) {
        const check = await checkSyntax(req.command, req);
        if (check.cannotStart) return { exitCode: null, stdout: "", stderr: "", timedOut: false, cannotStart: check.cannotStart };
        if (check.problem) return { exitCode: 2, stdout: "", stderr: check.problem, timedOut: false, cannotStart: `the command is not valid bash: ${check.problem}` };
      }
      const file = exec ? req.command : ps ? powershell : bash;
      const args = exec ? req.args! : ps ? ["-NoProfile", "-NonInteractive", "-Command", req.command] : ["-c", req.command];
      const r = await runProcess(file, args, req, signal);
      const result: HookCommandResult = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut };
      if (r.error) {
        result.error = r.error.message;
        result.cannotStart = spawnProblem(r.error, file, req.cwd);
      } else if (!exec && (r.exitCode === 127 || r.exitCode === 126)) {
        const first = r.stderr.trim().split("\n")[0]?.trim();
        result.cannotStart = `${r.exitCode === 127 ? "command not found" : "not executable"} (exit status ${r.exitCode})${first ? `: ${first}` : ""}`;
      }
      return result;
    },
  };
}
