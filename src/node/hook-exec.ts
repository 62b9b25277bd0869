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
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { MARKER_VAR, startReaper, tellReaper } from "./commands/process-tree";
import { hostLaunchWithClosedFds } from "./commands/fd-hygiene";
import type { HookCommandRequest, HookCommandResult, HookCommandRunner } from "../core/hooks/types";
import { HOOK_OPT_OUT, quarantineLines, type HookSandbox } from "./hook-sandbox";

/** Per stream: the first MAX_HEAD bytes and the last MAX_TAIL bytes are kept. */
const MAX_HEAD = 1024 * 1024;
const MAX_TAIL = 64 * 1024;
const KILL_GRACE_MS = 2000;
const SYNTAX_CHECK_MS = 10_000;

/**
 * Every hook process carries `YOKE_RUN=<marker>:hN`, as commands do (process-tree.ts): when this
 * process dies, however it dies, a reaper kills what still carries it. firejail has no
 * die-with-parent, so a confined hook (and what it forked) kept running after a SIGKILL of
 * `yoke run`, as did a host hook's background child (red team 17-host).
 */
const HOOK_MARKER = `hooks-${process.pid}-${randomBytes(4).toString("hex")}`;
let reaper: ChildProcess | undefined | null = null;
let launched = 0;

export interface NodeHookRunnerOptions {
  /** The bash to run shell-form hooks with (default `bash` from PATH). */
  bash?: string;
  /** The PowerShell for `shell: "powershell"` (default pwsh, or powershell.exe on Windows). */
  powershell?: string;
  /**
   * Where hooks run confined (hook-sandbox.ts): a hook whose request says `sandbox: true` runs in
   * it. Without one, every hook runs on the host (as before; unit tests of the hook protocol).
   */
  sandbox?: HookSandbox;
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

function runProcess(file: string, args: string[], req: HookCommandRequest, signal?: AbortSignal, extraEnv?: Record<string, string>): Promise<Spawned> {
  return new Promise((resolve) => {
    const windows = process.platform === "win32";
    let child: ReturnType<typeof spawn>;
    try {
      const env: Record<string, string | undefined> = { ...withoutProviderSecrets(process.env), ...req.env, ...extraEnv };
      if (!windows) {
        if (reaper === null) reaper = startReaper(HOOK_MARKER);
        env[MARKER_VAR] = `${HOOK_MARKER}:h${++launched}`;
      }
      child = spawn(file, args, { cwd: req.cwd, env, detached: !windows, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
      // Its pid (and group) to the reaper while it runs: a confined hook under firejail hides the marker from the user's reaper.
      if (!windows) {
        const pid = child.pid;
        tellReaper(reaper, pid, true);
        child.on("exit", () => tellReaper(reaper, pid, false));
      }
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

/**
 * Did a confined hook's exit status 2 come from a missing or unreadable file rather than a
 * decision? (`python3 x.py` exits 2 when it cannot open x.py: not to be read as a block.)
 */
function missingFile(stderr: string): boolean {
  const first = stderr.trim().split("\n").slice(0, 3).join("\n");
  return /can't open file|No such file or directory|Permission denied|cannot open|Read-only file system/i.test(first);
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
      let launch: { file: string; args: string[]; env?: Record<string, string> } = { file, args };
      let confined: Awaited<ReturnType<HookSandbox["prepare"]>> | undefined;
      if (req.sandbox && opts.sandbox) {
        confined = await opts.sandbox.prepare([file, ...args], {
          command: req.command,
          ...(req.args ? { args: req.args } : {}),
          cwd: req.cwd,
          env: req.env ?? {},
          ...(req.fromUser ? { fromUser: true } : {}),
        });
        if ("unavailable" in confined) {
          // As run_command: no sandbox, nothing confined runs (never a silent fall back to the host).
          return {
            exitCode: null,
            stdout: "",
            stderr: "",
            timedOut: false,
            cannotStart: `it runs in the sandbox, as the session's commands do, and ${confined.unavailable}. ${HOOK_OPT_OUT}.`,
            ranIn: "none",
          };
        }
        if ("file" in confined) launch = confined;
      }
      const jail = confined && "file" in confined ? confined : undefined;
      // On the host too, only stdin, stdout and stderr reach the hook (the sandbox's launch closes the rest itself).
      if (!jail) launch = { ...launch, ...hostLaunchWithClosedFds(launch.file, launch.args, { ...withoutProviderSecrets(process.env), ...req.env, ...launch.env }, req.cwd) };
      const r = await runProcess(launch.file, launch.args, req, signal, launch.env);
      const quarantined = jail ? jail.finish() : [];
      const result: HookCommandResult = { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, timedOut: r.timedOut, ranIn: jail ? jail.backend : "host" };
      if (quarantined.length) result.stderr = [result.stderr.replace(/\n$/, ""), ...quarantineLines(quarantined)].filter(Boolean).join("\n") + "\n";
      if (r.error) {
        result.error = r.error.message;
        result.cannotStart = spawnProblem(r.error, file, req.cwd);
      } else if (r.exitCode === 127 || r.exitCode === 126 || (jail && r.exitCode === 2 && missingFile(r.stderr))) {
        if (!exec || jail) {
          const first = r.stderr.trim().split("\n")[0]?.trim();
          const what = r.exitCode === 127 ? "command not found" : r.exitCode === 126 ? "not executable" : "a file it needs was not found";
          result.cannotStart = `${what} (exit status ${r.exitCode})${first ? `: ${first}` : ""}`;
        }
      }
      if (jail && (r.timedOut || (r.exitCode !== 0 && r.exitCode !== 2) || result.cannotStart)) {
        // A confined hook that failed: say where it ran and how to run it on the host, in what the user sees.
        const note = `yoke: ${jail.confinement}. If that is why it failed: ${HOOK_OPT_OUT}.`;
        result.confinement = note;
        if (result.cannotStart) result.cannotStart += ` (${note.replace(/^yoke: /, "")})`;
        result.stderr = [result.stderr.replace(/\n$/, ""), note].filter(Boolean).join("\n") + "\n";
      }
      return result;
    },
  };
}
