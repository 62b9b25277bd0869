/**
 * One command run by the Node runner: spawned by us in its own process group (on a
 * pseudo-terminal or on pipes), wrapped by the sandbox, its output fanned out to the log
 * file, the bounded model view and live listeners.
 */
import { RepositoryWatch } from "./repository-watch";
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, constants as fsConstants, lstatSync, openSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { OutputBounder, type OutputLimits } from "../../core/commands/output";
import type { BoundedOutput, CommandRequest, CommandResult, NetworkMode, OutputPage, QuarantinedPath, RunningCommand } from "../../core/commands/types";
import type { Disposable } from "../../core/ports";
import { withClosedFds } from "./fd-hygiene";
import { CommandLog } from "./log-file";
import { countTasks, groupAlive, isAlive, killMarked, killTree, markedProcesses, MARKER_VAR, signalTree, terminateTree, type TreeTarget } from "./process-tree";
import type { PidsCgroup } from "./pids-cgroup";
import { GuardWatch, sweepGuards } from "./quarantine";
import type { IPty } from "./pty";
import { withExactEnv, type LaunchedProcess, type ProcessLauncher } from "./launcher";
import { loadPty } from "./pty";
import type { GuardedPath, SandboxBackend, WrapRequest } from "./sandbox/types";

/** After a pty command exits, its output must be quiet this long before the stream is closed. */
const PTY_QUIET_MS = 10;

/** Raw output kept in memory for a mirror that attaches late. */
const REPLAY_CHARS = 256 * 1024;

/** How often the process-count watchdog looks. */
const WATCHDOG_MS = 100;
/**
 * While a command runs, the repositories it may have created are looked for on this schedule (the
 * last look is when it ends): at least this often apart, and 20 times as long as the last walk
 * took, so the walks cost at most 5% of a core. It narrows the time a born repository's planted
 * configuration is there for a host program (VS Code's git extension opens a new `.git` within a second).
 */
const REPOSITORY_SCAN_MIN_MS = 1000;
const REPOSITORY_SCAN_FACTOR = 20;

export interface CommandSpawnSpec {
  id: string;
  req: CommandRequest;
  shell: string;
  env: Record<string, string>;
  logPath: string;
  sandbox: SandboxBackend;
  usePty: boolean;
  cols: number;
  rows: number;
  graceMs: number;
  limits?: Partial<OutputLimits>;
  /** Marker of this command's processes (YOKE_RUN=<marker>), e.g. "r1a2b3:c4". */
  marker: string;
  /** Shell commands run before the command line (the resource limits). */
  prelude?: string;
  /** Stop the command when it reaches this many processes and threads (0: no watchdog). */
  maxTasks?: number;
  /** The pids cgroup the command runs in (the kernel holds it at `maxTasks`), where one could be made. */
  cgroup?: PidsCgroup;
  /** Where protected paths the command creates are moved. */
  quarantineDir: string;
  /** Is this path approved for writing by another command running now (so not to be quarantined)? */
  approvedElsewhere?: (path: string) => boolean;
  /** Starts the process somewhere else (the editor's terminal); default: spawned here. */
  launcher?: ProcessLauncher;
}

/**
 * What the model is told about protected paths, once the command ended: a move that failed while
 * the command ran (it was re-creating the path at that moment) is not reported as "still there"
 * when the path is gone now — a later sweep's own entry says how it ended.
 */
function settledQuarantine(list: readonly QuarantinedPath[]): QuarantinedPath[] {
  return list.filter((q) => {
    if (!q.error || q.movedTo) return true;
    try {
      lstatSync(q.path);
      return true;
    } catch {
      return false;
    }
  });
}

/** The process of a set whose parent is not in it (the first a launcher started), if there is one. */
function rootOf(pids: number[]): number | undefined {
  if (pids.length === 0) return undefined;
  const set = new Set(pids);
  for (const pid of pids) {
    try {
      // The parent is the 4th field of /proc/PID/stat, after the command name in parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!set.has(ppid)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function signalName(sig: number | string | null | undefined): string | null {
  if (sig === null || sig === undefined || sig === 0) return null;
  if (typeof sig === "string") return sig;
  const entry = Object.entries(constants.signals).find(([, n]) => n === sig);
  return entry ? entry[0] : `signal ${sig}`;
}

export class NodeRunningCommand implements RunningCommand {
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly background: boolean;
  readonly network: NetworkMode;
  readonly startedAt = Date.now();
  readonly mode: "pty" | "pipe";
  readonly logPath: string;
  private _result: CommandResult | undefined;
  private readonly log: CommandLog;
  private readonly bounder: OutputBounder;
  private readonly dataListeners = new Set<(chunk: string) => void>();
  private readonly exitListeners = new Set<(r: CommandResult) => void>();
  private replay: string[] = [];
  private replayChars = 0;
  private pid: number | undefined;
  private child: ChildProcess | undefined;
  private term: IPty | undefined;
  private launched: LaunchedProcess | undefined;
  private timedOut = false;
  private cancelled = false;
  private interrupted = false;
  private stray = false;
  private stopping: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly done: Promise<CommandResult>;
  private resolveDone!: (r: CommandResult) => void;
  private readonly wrapReq: WrapRequest;
  private readonly guards: readonly GuardedPath[];
  private guardWatch: GuardWatch | undefined;
  private readonly quarantined: QuarantinedPath[] = [];
  private readonly quarantineSeen = new Set<string>();
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private repositoryTimer: ReturnType<typeof setTimeout> | undefined;
  private repositoryWatch: RepositoryWatch | undefined;
  private limitHit: CommandResult["limitExceeded"];
  private readonly onAbort = () => {
    if (this._result) return;
    this.cancelled = true;
    void this.stop();
  };

  constructor(private readonly spec: CommandSpawnSpec) {
    const { req } = spec;
    this.id = spec.id;
    this.command = req.command;
    this.cwd = req.cwd;
    this.background = req.background;
    this.network = req.network;
    this.logPath = spec.logPath;
    this.log = new CommandLog(spec.logPath);
    this.bounder = new OutputBounder(spec.limits);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    // On pipes, stderr is sent into the stdout pipe first thing, so that the two stay in the order written.
    const script = `${spec.prelude ?? ""}${spec.usePty ? req.command : `exec 2>&1; ${req.command}`}`;
    this.wrapReq = {
      argv: [spec.shell, "-c", script],
      cwd: req.cwd,
      network: req.network,
      id: spec.id,
      ...(req.confine ? { confine: req.confine } : {}),
      ...(spec.env.PATH !== undefined ? { searchPath: spec.env.PATH } : {}),
    };
    this.mode = spec.usePty ? "pty" : "pipe";
    this.guards = [];
    let wrapped;
    try {
      wrapped = spec.sandbox.wrap(this.wrapReq);
      this.guards = wrapped.guards ?? [];
      const env = { ...spec.env, ...wrapped.env, [MARKER_VAR]: spec.marker };
      // Only stdin, stdout and stderr reach the launch chain (fd-hygiene.ts).
      const line = withClosedFds(spec.cgroup ? spec.cgroup.wrap(wrapped.file, wrapped.args) : wrapped);
      if (spec.launcher) this.spawnLaunched(spec.launcher, line.file, line.args, env);
      else if (spec.usePty) this.spawnPty(line.file, line.args, env);
      else this.spawnPipes(line.file, line.args, env);
    } catch (err) {
      this.finish(null, null, err instanceof Error ? err.message : String(err));
      return;
    }
    if (this.guards.length > 0) this.guardWatch = new GuardWatch(this.guards, () => this.sweep());
    if (this.guards.some((g) => g.before.kind === "repositories")) {
      this.scheduleRepositoryScan(REPOSITORY_SCAN_MIN_MS);
      // Between the walks: a repository is checked as soon as its .git appears or changes (repository-watch.ts).
      const targets = this.guards.flatMap((g) =>
        g.before.kind === "repositories" && !this.spec.approvedElsewhere?.(g.path) ? [{ root: g.path, since: g.before.since, known: g.before.known, approved: g.before.approved ?? [] }] : [],
      );
      this.repositoryWatch = new RepositoryWatch(targets, (t, findings) => {
        if (this._result) return;
        const found: GuardedPath[] = findings.map((f) => ({ path: f.path, root: t.root, why: f.why, before: { kind: "none" } }));
        this.quarantined.push(...sweepGuards(found, this.spec.quarantineDir, this.quarantineSeen, false));
      });
    }
    if (spec.maxTasks && spec.maxTasks > 0) {
      this.watchdog = setInterval(() => this.checkTasks(), WATCHDOG_MS);
      this.watchdog.unref();
    }
    if (!req.background && req.timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        if (this._result) return;
        this.timedOut = true;
        void this.stop();
      }, req.timeoutMs);
    }
    if (req.signal) {
      if (req.signal.aborted) this.onAbort();
      else req.signal.addEventListener("abort", this.onAbort, { once: true });
    }
  }

  get result(): CommandResult | undefined {
    return this._result;
  }

  /** The marker of this command's processes. */
  get marker(): string {
    return this.spec.marker;
  }

  /** The process tree target (for the runner's exit hook). */
  get target(): TreeTarget | undefined {
    return this.pid === undefined ? undefined : { root: this.pid, helpers: this.spec.sandbox.helpers };
  }

  onData(listener: (chunk: string) => void, opts?: { replay?: boolean }): Disposable {
    if (opts?.replay) for (const chunk of this.replay) listener(chunk);
    this.dataListeners.add(listener);
    return { dispose: () => this.dataListeners.delete(listener) };
  }

  onExit(listener: (result: CommandResult) => void): Disposable {
    if (this._result) {
      listener(this._result);
      return { dispose() {} };
    }
    this.exitListeners.add(listener);
    return { dispose: () => this.exitListeners.delete(listener) };
  }

  wait(): Promise<CommandResult> {
    return this.done;
  }

  async kill(): Promise<void> {
    if (this._result) return;
    this.cancelled = true;
    await this.stop();
    await this.done;
  }

  interrupt(): void {
    const t = this.target;
    if (!t || this._result) return;
    this.interrupted = true;
    signalTree(t, "SIGINT");
  }

  async outputSince(since: number, limits?: { maxLines?: number; maxBytes?: number }): Promise<OutputPage> {
    return this.log.read(since, limits?.maxLines ?? 400, limits?.maxBytes ?? 30_000);
  }

  bounded(): BoundedOutput {
    return this.bounder.snapshot();
  }

  resize(cols: number, rows: number): void {
    if (this.term && !this._result) this.term.resize(Math.max(1, cols), Math.max(1, rows));
  }

  /** Closes the log's read handle (the runner calls it when the session ends). */
  dispose(): void {
    this.log.dispose();
  }

  /** Quarantines what appeared at the guarded paths (skipping paths another running command may write). */
  private sweep(final = false): void {
    const guards = this.spec.approvedElsewhere ? this.guards.filter((g) => !this.spec.approvedElsewhere!(g.path)) : this.guards;
    if (guards.length === 0) return;
    this.quarantined.push(...sweepGuards(guards, this.spec.quarantineDir, this.quarantineSeen, final));
  }

  /** Looks for repositories the running command created (new-repositories.ts), then again later. */
  private scheduleRepositoryScan(ms: number): void {
    this.repositoryTimer = setTimeout(() => {
      if (this._result) return;
      const started = performance.now();
      const guards = this.guards.filter((g) => (g.before.kind === "repositories" || g.before.kind === "references") && !this.spec.approvedElsewhere?.(g.path));
      this.quarantined.push(...sweepGuards(guards, this.spec.quarantineDir, this.quarantineSeen, false, true));
      this.scheduleRepositoryScan(Math.max(REPOSITORY_SCAN_MIN_MS, (performance.now() - started) * REPOSITORY_SCAN_FACTOR));
    }, ms);
    this.repositoryTimer.unref();
  }

  /** The watchdog: a command that reaches its process limit is stopped at once, all of it. */
  private checkTasks(): void {
    const t = this.target;
    if (!t || this._result || this.limitHit) return;
    // RLIMIT_NPROC holds the command just under the limit (bwrap's own processes count), so stop a little before it.
    const max = this.spec.maxTasks!;
    const threshold = max - Math.max(4, Math.floor(max / 50));
    const cg = this.spec.cgroup;
    // The cgroup's count is the kernel's, and costs one read however many processes there are.
    const n = cg ? cg.current() : countTasks(t.root, threshold, { group: !this.spec.sandbox.pidNamespace });
    if (n < threshold) return;
    this.limitHit = { limit: "processes", max };
    this.cancelled = true;
    if (this.timer) clearTimeout(this.timer);
    cg?.killAll();
    killTree(t);
    killMarked(this.spec.marker);
    void this.stop();
  }

  /** Kills whatever is left in the command's cgroup (the runner's exit hook). */
  killCgroup(): void {
    this.spec.cgroup?.killAll();
  }

  private spawnPty(file: string, args: string[], env: Record<string, string>): void {
    const { pty } = loadPty();
    if (!pty) throw new Error("the pseudo-terminal module is not available");
    const term = pty.spawn(file, args, {
      name: this.spec.env.TERM ?? "xterm-256color",
      cols: this.spec.cols,
      rows: this.spec.rows,
      cwd: this.spec.req.cwd,
      env,
    });
    this.term = term;
    this.pid = term.pid;
    let lastData = Date.now();
    let dataCount = 0;
    term.onData((data) => {
      lastData = Date.now();
      dataCount++;
      this.handle(Buffer.from(data, "utf8"), data);
    });
    term.onExit(({ exitCode, signal }) => {
      void this.onProcessExit(signal ? null : exitCode, signalName(signal));
    });
    // On Linux the last output of a fast-exiting command can be lost when the terminal hangs up
    // (node-pty issues #85, #726). Holding the terminal's other end open until the process is
    // gone and the output has gone quiet makes every byte reach us; closing it then ends the stream.
    const ptsName = (term as unknown as { ptsName?: string }).ptsName;
    if (!ptsName || process.platform !== "linux") return;
    let slave: number | undefined;
    try {
      slave = openSync(ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
    } catch {
      return;
    }
    const pid = term.pid;
    // node-pty destroys its stream 200 ms after the exit if it has not closed, dropping unread
    // output when our event loop was busy; while we hold the terminal, that destroy waits for us.
    const stream = (term as unknown as { _socket?: { destroy?: (...a: unknown[]) => unknown } })._socket;
    const destroy = stream?.destroy;
    let destroyWanted = false;
    if (stream && typeof destroy === "function") {
      stream.destroy = (...a: unknown[]) => {
        if (slave !== undefined) {
          destroyWanted = true;
          return stream;
        }
        return destroy.apply(stream, a);
      };
    }
    const release = () => {
      if (slave !== undefined) closeSync(slave);
      slave = undefined;
      // Closing our end makes the stream end by itself; the deferred destroy is a backstop.
      if (destroyWanted && stream && destroy) setTimeout(() => destroy.apply(stream, []), 1000).unref();
    };
    // Once the process is gone, wait until several event-loop turns in a row (each with an I/O
    // poll that reads the terminal) brought no output, and at least PTY_QUIET_MS passed.
    let quietTurns = 0;
    let seen = dataCount;
    const settle = () => {
      if (dataCount !== seen || Date.now() - lastData < PTY_QUIET_MS) {
        seen = dataCount;
        quietTurns = 0;
      } else if (++quietTurns >= 3) {
        return release();
      }
      setTimeout(() => setImmediate(settle), 1);
    };
    const poll = setInterval(() => {
      if (slave === undefined) return clearInterval(poll);
      if (isAlive(pid)) return;
      clearInterval(poll);
      seen = dataCount;
      setImmediate(settle);
    }, 5);
  }

  private spawnPipes(file: string, args: string[], env: Record<string, string>): void {
    const child = spawn(file, args, {
      cwd: this.spec.req.cwd,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.pid = child.pid;
    const out = new StringDecoder("utf8");
    const err = new StringDecoder("utf8");
    child.stdout!.on("data", (b: Buffer) => this.handle(b, out.write(b)));
    child.stderr!.on("data", (b: Buffer) => this.handle(b, err.write(b)));
    child.on("error", (e) => {
      if (this.pid === undefined) this.finish(null, null, e.message);
    });
    child.on("exit", (code, sig) => void this.onProcessExit(code, signalName(sig)));
  }

  /**
   * Another program starts the process (launcher.ts): with exactly this environment (`env -i`: the
   * launcher's own variables, credentials included, do not reach it), behind the same closer and
   * sandbox. Its pid is found by the marker in that environment, so the tree kill, the watchdog and
   * the stray check work as for a process spawned here.
   */
  private spawnLaunched(launcher: ProcessLauncher, file: string, args: string[], env: Record<string, string>): void {
    const line = withExactEnv(file, args, env, [MARKER_VAR]);
    let proc: LaunchedProcess;
    try {
      proc = launcher.launch(line.file, line.args, { cwd: this.spec.req.cwd, env: { [MARKER_VAR]: this.spec.marker }, id: this.id });
    } catch (err) {
      line.cleanup();
      throw err;
    }
    proc.onExit(() => line.cleanup());
    this.launched = proc;
    if (proc.pid !== undefined) this.pid = proc.pid;
    else this.findLaunchedPid();
    proc.onOutput((raw, text) => this.handle(raw, text));
    proc.onExit((code, sig) => void this.onProcessExit(code, sig));
  }

  /** The launched process's pid: the marked process whose parent is not marked (looked for until it exits). */
  private findLaunchedPid(): void {
    const look = () => {
      if (this.pid !== undefined || this._result) return;
      const marked = markedProcesses(this.spec.marker);
      const root = rootOf(marked);
      if (root !== undefined) this.pid = root;
      else setTimeout(look, 10).unref();
    };
    look();
  }

  private handle(raw: Buffer, text: string): void {
    if (this._result) return;
    this.log.write(raw);
    if (!text) return;
    this.bounder.push(text);
    this.replay.push(text);
    this.replayChars += text.length;
    while (this.replayChars > REPLAY_CHARS && this.replay.length > 1) this.replayChars -= this.replay.shift()!.length;
    for (const l of this.dataListeners) {
      try {
        l(text);
      } catch {
        // a listener's failure must not stop the capture
      }
    }
  }

  private stop(): Promise<void> {
    const t = this.target;
    if (!t) {
      // A launched process not found yet: the launcher ends it, and the marker finds what it started.
      if (this.launched) {
        this.launched.kill();
        killMarked(this.spec.marker);
      }
      return Promise.resolve();
    }
    this.stopping ??= (async () => {
      await Promise.all([terminateTree(t, this.spec.graceMs), this.spec.sandbox.stop?.(this.wrapReq)]);
      // What left the tree (setsid and a double fork) still carries the marker, and is still in the cgroup.
      killMarked(this.spec.marker);
      this.spec.cgroup?.killAll();
    })();
    return this.stopping;
  }

  private async onProcessExit(code: number | null, signal: string | null): Promise<void> {
    if (this._result) return;
    const t = this.target;
    // Processes the command left behind (e.g. `server &`, or detached with setsid): stopped, so nothing outlives it.
    const leftInCgroup = () => (this.spec.cgroup?.procs().length ?? 0) > 0;
    if (t && !this.stopping && (t.helpers.length === 0 ? groupAlive(t.root) || markedProcesses(this.spec.marker).length > 0 || leftInCgroup() : false)) {
      this.stray = true;
      await this.stop();
    } else if (this.stopping) {
      await this.stopping;
    }
    await this.drain();
    this.finish(code, signal);
  }

  /** Waits for the last output after the process exited (pipes: until they close, at most 1 s). */
  private async drain(): Promise<void> {
    const child = this.child;
    if (child) {
      if (child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve();
        }, 1000);
        child.once("close", () => {
          clearTimeout(t);
          resolve();
        });
      });
      return;
    }
    // pty: node-pty reports the exit only after its stream closed, so all output is in.
  }

  private finish(code: number | null, signal: string | null, error?: string): void {
    if (this._result) return;
    if (this.timer) clearTimeout(this.timer);
    if (this.watchdog) clearInterval(this.watchdog);
    if (this.repositoryTimer) clearTimeout(this.repositoryTimer);
    this.repositoryWatch?.close();
    this.guardWatch?.close();
    const cg = this.spec.cgroup;
    if (cg && !cg.remove()) {
      // Something of the command is still there: nothing outlives it.
      cg.killAll();
      cg.remove();
    }
    // Every process is gone now: the last look at the guarded paths.
    this.sweep(true);
    this.spec.req.signal?.removeEventListener("abort", this.onAbort);
    this.bounder.end();
    this.log.close();
    const result: CommandResult = {
      exitCode: error ? null : code,
      signal: error ? null : signal,
      timedOut: this.timedOut,
      cancelled: this.cancelled && !this.timedOut,
      durationMs: Date.now() - this.startedAt,
      ...(error ? { error } : {}),
      ...(this.stray ? { strayProcessesStopped: true } : {}),
      ...(this.interrupted && !this.timedOut && !this.cancelled ? { interrupted: true } : {}),
      ...(this.quarantined.length ? { quarantined: settledQuarantine(this.quarantined) } : {}),
      ...(this.limitHit ? { limitExceeded: this.limitHit } : {}),
    };
    this._result = result;
    this.resolveDone(result);
    for (const l of this.exitListeners) {
      try {
        l(result);
      } catch {
        // ignore listener failures
      }
    }
    this.exitListeners.clear();
    this.dataListeners.clear();
  }
}
