/**
 * The Node CommandRunner: one per session. Spawns commands itself (never through a terminal's
 * shell integration), inside the chosen sandbox, keeps every byte of output in the session's
 * log folder, and stops whatever is still running when the session ends or Node exits.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { scrubEnv } from "../../core/commands/env";
import type { OutputLimits } from "../../core/commands/output";
import type { CommandRequest, CommandRunner, NetworkMode, RunnerInfo, RunningCommand } from "../../core/commands/types";
import type { Disposable } from "../../core/ports";
import { killTree } from "./process-tree";
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
  /** Base environment (default process.env); secrets are removed unless allowed. */
  env?: Record<string, string | undefined>;
  /** Secret variable names (or `*` patterns) the user lets through. */
  allowEnv?: string[];
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  killGraceMs?: number;
  /** Network of commands (default "off"); "on" for all, or per command via networkCommands. */
  network?: NetworkMode;
  networkCommands?: string[];
  outputLimits?: Partial<OutputLimits>;
  cols?: number;
  rows?: number;
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
    }
  });
}

export interface NodeCommandRunner extends CommandRunner {
  /** Kills what runs and closes the logs. */
  dispose(): Promise<void>;
  /** Variable names removed from the environment of commands. */
  readonly removedEnv: string[];
}

export function createNodeCommandRunner(opts: NodeCommandRunnerOptions): NodeCommandRunner {
  const workspace = real(opts.workspace);
  const ptyWanted = opts.pty ?? true;
  const usePty = ptyWanted && loadPty().pty !== undefined;
  const shell = opts.shell ?? (which("bash") ? "bash" : "sh");
  const sandbox = opts.sandbox;
  const scrubbed = scrubEnv(opts.env ?? process.env, opts.allowEnv ?? []);
  const info: RunnerInfo = {
    sandbox: sandbox.name,
    ...(sandbox.warning ? { warning: sandbox.warning } : {}),
    networkToggle: sandbox.networkToggle,
    network: sandbox.name === "none" ? "on" : (opts.network ?? "off"),
    networkCommands: opts.networkCommands ?? [],
    defaultTimeoutMs: opts.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxTimeoutMs: opts.maxTimeoutMs ?? MAX_TIMEOUT_MS,
    pty: usePty,
  };
  const commands = new Map<string, NodeRunningCommand>();
  const startListeners = new Set<(cmd: RunningCommand) => void>();
  let next = 1;
  let dirReady = false;

  installExitHook();

  const runner: NodeCommandRunner = {
    info,
    removedEnv: scrubbed.removed,
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
      const env: Record<string, string> = {
        ...scrubbed.env,
        ...NON_INTERACTIVE,
        ...(usePty ? { TERM: scrubbed.env.TERM && scrubbed.env.TERM !== "dumb" ? scrubbed.env.TERM : "xterm-256color" } : {}),
        YOKE_SANDBOX: sandbox.name,
        ...req.env,
      };
      const cmd = new NodeRunningCommand({
        id,
        req: { ...req, cwd, network: sandbox.name === "none" ? "on" : req.network },
        shell,
        env,
        logPath: join(opts.logDir, `${id}.log`),
        sandbox,
        usePty,
        cols: opts.cols ?? 160,
        rows: opts.rows ?? 48,
        graceMs: opts.killGraceMs ?? KILL_GRACE_MS,
        ...(opts.outputLimits ? { limits: opts.outputLimits } : {}),
      });
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
      for (const c of commands.values()) c.dispose();
    },
  };
  return runner;
}
