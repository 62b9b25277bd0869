/**
 * The Node CommandRunner: one per session. Spawns commands itself (never through a terminal's
 * shell integration), inside the chosen sandbox, keeps every byte of output in the session's
 * log folder, and stops whatever is still running when the session ends or Node exits.
 */
import type { ProcessLauncher } from "./launcher";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { filterEnv } from "../../core/commands/env";
import { READ_ONLY_GIT_UNSET, readOnlyGitEnv } from "../../core/commands/git-env";
import type { OutputLimits } from "../../core/commands/output";
import type { CommandRequest, CommandRunner, NetworkMode, RunnerInfo, RunningCommand } from "../../core/commands/types";
import type { Disposable } from "../../core/ports";
import { fdHygieneDegraded } from "./fd-hygiene";
import { externalDiffConfigured } from "./git-external-diff";
import { defaultLimits, limitPrelude, type ResolvedLimits } from "./limits";
import { CGROUP_PREFIX, PidsCgroup, pidsCgroupParent } from "./pids-cgroup";
import { killMarked, killTree, startReaper } from "./process-tree";
import { loadPty } from "./pty";
import { NodeRunningCommand } from "./running-command";
import { isWithin, real, which } from "./sandbox/paths";
import type { SandboxBackend } from "./sandbox/types";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
export const KILL_GRACE_MS = 2_000;

export interface NodeCommandRunnerOptions {
  /** Workspace root: commands run inside it. */
  workspace: string;
  /** Folder for the full output logs (one file per command), e.g. in the session folder. */
  logDir: string;
  sandbox: SandboxBackend;
  /** Shell that runs the command line with `-c` (default: bash, else sh). */
  shell?: string;
  /** Use a pseudo-terminal when available (default true). */
  pty?: boolean;
  /** Base environment (default process.env); only allowlisted variables are kept (core/commands/env.ts). */
  env?: Record<string, string | undefined>;
  /** Variable names (or `*` patterns) the user lets through, whatever they are (`sandbox.allowEnv`). */
  allowEnv?: string[];
  /** Variables the user sets for every command (`sandbox.env`). */
  setEnv?: Record<string, string>;
  /** Resource limits of each command (default: defaultLimits()). */
  limits?: ResolvedLimits;
  /** Where protected paths that commands create are moved (default: <logDir>/quarantine). */
  quarantineDir?: string;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  killGraceMs?: number;
  /** Network of commands (default "off"); "on" for all, or per command via networkCommands. */
  network?: NetworkMode;
  networkCommands?: string[];
  outputLimits?: Partial<OutputLimits>;
  cols?: number;
  rows?: number;
  /** Starts each command's process somewhere else (`yoke acp`: the editor's terminal); default: spawned here. */
  launcher?: ProcessLauncher;
}

/** Variables that keep commands from waiting on a pager or a prompt. */
const NON_INTERACTIVE: Record<string, string> = {
  PAGER: "cat",
  GIT_PAGER: "cat",
  MANPAGER: "cat",
  SYSTEMD_PAGER: "",
  GIT_TERMINAL_PROMPT: "0",
  DEBIAN_FRONTEND: "noninteractive",
};

/** Commands still running, in every runner: killed synchronously when Node exits. */
const live = new Set<NodeRunningCommand>();
let exitHook = false;

function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const cmd of live) {
      const t = cmd.target;
      if (t && !cmd.result) killTree(t);
      if (!cmd.result) killMarked(cmd.marker);
      if (!cmd.result) cmd.killCgroup();
    }
  });
}

export interface NodeCommandRunner extends CommandRunner {
  /** Kills what runs and closes the logs. */
  dispose(): Promise<void>;
  /** Variable names removed from the environment of commands. */
  readonly removedEnv: string[];
  /** The limits every command runs under. */
  readonly limits: ResolvedLimits;
  /** What the sandbox cannot enforce here (from the backend, and the limits). */
  readonly degraded: readonly string[];
  /** Where protected paths that commands create are moved. */
  readonly quarantineDir: string;
}

export function createNodeCommandRunner(opts: NodeCommandRunnerOptions): NodeCommandRunner {
  const workspace = real(opts.workspace);
  const ptyWanted = opts.pty ?? true;
  // A launcher's terminal is its own (the editor's); the runner reads what it prints as one stream.
  // node-pty (a native module, with child_process and tty) is loaded by the first command, not at start.
  let ptyLoaded: boolean | undefined;
  const usePty = () => (ptyLoaded ??= ptyWanted && !opts.launcher && loadPty().pty !== undefined);
  const shell = opts.shell ?? (which("bash") ? "bash" : "sh");
  const sandbox = opts.sandbox;
  // The commands' environment: the environment as it is now, filtered when the first command needs it.
  const baseEnv = { ...(opts.env ?? process.env) };
  let scrubbedEnv: ReturnType<typeof filterEnv> | undefined;
  const scrubbed = () => (scrubbedEnv ??= filterEnv(baseEnv, { allow: opts.allowEnv ?? [], ...(opts.setEnv ? { set: opts.setEnv } : {}) }));
  const limits = opts.limits ?? defaultLimits();
  const root = process.getuid?.() === 0;
  const prelude = limitPrelude(limits, shell, { ownUserNamespace: sandbox.ownUserNamespace === true, root });
  const degraded = [...(sandbox.degraded ?? [])];
  const fdDegraded = fdHygieneDegraded();
  if (fdDegraded) degraded.push(fdDegraded);
  if (!prelude && (limits.cpuSeconds || limits.fileSizeMb || limits.memoryMb || limits.processes)) {
    degraded.push(`the resource limits need bash, and commands run with ${shell}: only the process-count watchdog applies`);
  }
  // The kernel holds each command at its process limit where a pids cgroup can be made; root
  // needs it most (RLIMIT_NPROC does not hold root).
  const cgroupParent = limits.processes > 0 ? pidsCgroupParent() : null;
  const withCgroup = (name: string) => {
    const cgroup = cgroupParent ? PidsCgroup.create(name, limits.processes) : undefined;
    return cgroup ? { cgroup } : {};
  };
  if (root && limits.processes > 0 && !cgroupParent) {
    degraded.push("running as root with no pids cgroup to use: the process limit is held by the runner's watchdog only, after the fact");
  }
  const quarantineDir = opts.quarantineDir ?? join(opts.logDir, "quarantine");
  const runnerMarker = randomBytes(6).toString("hex");
  let reaper: ReturnType<typeof startReaper> | null = null;
  const info: RunnerInfo = {
    sandbox: sandbox.name,
    ...(sandbox.warning ? { warning: sandbox.warning } : {}),
    networkToggle: sandbox.networkToggle,
    network: sandbox.name === "none" ? "on" : (opts.network ?? "off"),
    networkCommands: opts.networkCommands ?? [],
    defaultTimeoutMs: opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxTimeoutMs: opts.maxTimeoutMs ?? MAX_TIMEOUT_MS,
    get pty() {
      return usePty();
    },
  };
  const commands = new Map<string, NodeRunningCommand>();
  const startListeners = new Set<(cmd: RunningCommand) => void>();
  let next = 1;
  let dirReady = false;

  installExitHook();

  /** Protected paths approved for writing by commands running now: not quarantined by the others. */
  const approvedNow = new Map<string, string[]>();
  const approvedElsewhere = (self: string) => (path: string) => {
    for (const [id, paths] of approvedNow) if (id !== self && paths.some((a) => path === a || path.startsWith(a + "/") || a.startsWith(path + "/"))) return true;
    return false;
  };

  const runner: NodeCommandRunner = {
    info,
    get removedEnv() {
      return scrubbed().removed;
    },
    limits,
    degraded,
    quarantineDir,
    start(req: CommandRequest): RunningCommand {
      const cwd = real(req.cwd);
      if (!isWithin(cwd, workspace)) {
        throw new Error(`The working folder ${req.cwd} is outside the workspace (${workspace}).`);
      }
      if (!dirReady) {
        mkdirSync(opts.logDir, { recursive: true });
        dirReady = true;
      }
      const id = `c${next++}`;
      // The reaper kills what is left of this runner's commands when Node ends, however it ends.
      if (reaper === null) reaper = startReaper(runnerMarker, cgroupParent ? join(cgroupParent, `${CGROUP_PREFIX}${runnerMarker}-`) : undefined);
      const inherited = scrubbed().env;
      const env: Record<string, string> = {
        ...inherited,
        ...NON_INTERACTIVE,
        ...(usePty() ? { TERM: inherited.TERM && inherited.TERM !== "dumb" ? inherited.TERM : "xterm-256color" } : {}),
        YOKE_SANDBOX: sandbox.name,
        ...req.env,
      };
      if (req.confine?.readOnly) {
        for (const name of READ_ONLY_GIT_UNSET) delete env[name];
        Object.assign(env, readOnlyGitEnv(env, { externalDiff: externalDiffConfigured(cwd, env) }));
      }
      const writable = req.confine?.readOnly ? [] : (req.confine?.writable ?? []).map((p) => real(p));
      if (writable.length) approvedNow.set(id, writable);
      const cmd = new NodeRunningCommand({
        id,
        req: { ...req, cwd, network: sandbox.name === "none" ? "on" : req.network },
        shell,
        env,
        logPath: join(opts.logDir, `${id}.log`),
        sandbox,
        usePty: usePty(),
        cols: opts.cols ?? 160,
        rows: opts.rows ?? 48,
        graceMs: opts.killGraceMs ?? KILL_GRACE_MS,
        ...(opts.outputLimits ? { limits: opts.outputLimits } : {}),
        marker: `${runnerMarker}:${id}`,
        prelude,
        maxTasks: limits.processes,
        ...withCgroup(`${runnerMarker}-${id}`),
        quarantineDir: join(quarantineDir, id),
        approvedElsewhere: approvedElsewhere(id),
        ...(opts.launcher ? { launcher: opts.launcher } : {}),
      });
      cmd.onExit(() => approvedNow.delete(id));
      commands.set(id, cmd);
      if (!cmd.result) {
        live.add(cmd);
        cmd.onExit(() => live.delete(cmd));
      }
      for (const l of startListeners) {
        try {
          l(cmd);
        } catch {
          // a listener's failure must not stop the command
        }
      }
      return cmd;
    },
    get: (id) => commands.get(id),
    list: () => [...commands.values()],
    async killAll() {
      await Promise.all([...commands.values()].filter((c) => !c.result).map((c) => c.kill()));
    },
    onDidStart(listener): Disposable {
      startListeners.add(listener);
      return { dispose: () => startListeners.delete(listener) };
    },
    async dispose() {
      await runner.killAll();
      killMarked(`${runnerMarker}:`, true);
      for (const c of commands.values()) c.dispose();
      reaper?.stdin?.end();
      reaper = undefined;
    },
  };
  return runner;
}
