/**
 * The command-runner port: how the core starts shell commands. Yoke spawns every process
 * itself (never through a terminal's shell integration), inside a sandbox, and keeps all of
 * its output. The Node implementation lives in src/node/commands; hosts mirror a
 * RunningCommand into a terminal view through onData/onExit/interrupt.
 */
import type { Disposable } from "../disposable";

export type NetworkMode = "off" | "on";

/**
 * How the sandbox must confine one command, as the permission gate decided it. The runner enforces
 * it whatever the shell analysis concluded: a command the parser misread still cannot write.
 */
export interface CommandConfinement {
  /**
   * The command was allowed as read-only (a read-only command, or plan mode): the workspace is
   * mounted read-only and git runs with a configuration that cannot execute anything.
   */
  readOnly?: boolean;
  /** Protected paths (absolute) the user approved this command to write; every other protected path stays read-only. */
  writable?: string[];
  /**
   * The command was allowed for the writes the gate analysed (not by a rule covering the whole
   * command): these paths (absolute; files or folders, existing or not) are all it may write in the
   * workspace. The folder holding each stays writable for new files and rename-into-place, its other
   * entries read-only; what else appears there is quarantined when the command ends.
   */
  writes?: string[];
  /**
   * No rule and no person allowed this command: bypassPermissions mode did. The programs ask rules
   * name as a whole (`Bash(rm:*)`) cannot start in it, so a command the analysis misread cannot run
   * one without the user being asked.
   */
  unreviewed?: boolean;
  /**
   * The command line is exactly one `git submodule add|init|update|sync|deinit|…` or `git worktree
   * add|remove|move|prune|repair` (isGitLinkedWork in core/protected-paths.ts): the sandbox lets it
   * remove or rewrite the `.git` files of its submodules' and linked worktrees' folders (checked as
   * new repositories when it ends); a submodule line also gets gitSubmodule.
   */
  gitLinked?: boolean;
  /**
   * With gitLinked: the line is a `git submodule …` command, which writes `.git/config` and
   * `.gitmodules`. `.git/config` stays read-only: the command works on a private copy, checked and
   * renamed into place only when it has ended (node/commands/git-config-guard.ts). (A `git worktree`
   * line writes neither: both stay read-only for it.)
   */
  gitSubmodule?: boolean;
  /**
   * A plugin's own command or skill (its `!` lines): the plugin's installed folder, which the
   * sandbox shows read-only (the home stays hidden), so `${CLAUDE_PLUGIN_ROOT}/scripts/x.sh` runs.
   * Honoured only for a folder inside a home's plugin store.
   */
  pluginRoot?: string;
}

/** Names of the sandbox backends (contract section 3, `yoke sandbox exec --backend`). */
export type SandboxName = "bwrap" | "firejail" | "docker" | "sandbox-exec" | "none";

export interface CommandRequest {
  /** A shell command line, run with `bash -c` (or the configured shell). */
  command: string;
  /** Absolute working folder (inside the workspace). */
  cwd: string;
  /** Foreground only: stop the command after this long (default and maximum: RunnerInfo). */
  timeoutMs?: number;
  /** true: return at once and keep the process running until killed or the session ends. */
  background: boolean;
  network: NetworkMode;
  /** Extra environment variables, set after the environment allowlist (core/commands/env.ts). */
  env?: Record<string, string>;
  /** Aborting it stops the command (SIGTERM to the group, then SIGKILL). */
  signal?: AbortSignal;
  /** What the permission decision requires of the sandbox (default: workspace writable, protected paths read-only). */
  confine?: CommandConfinement;
}

export interface CommandResult {
  /** null when the process was ended by a signal or could not start. */
  exitCode: number | null;
  /** Name of the signal that ended the process (e.g. "SIGTERM"), or null. */
  signal: string | null;
  timedOut: boolean;
  /** Stopped by the signal of the request, kill(), or killAll(). */
  cancelled: boolean;
  durationMs: number;
  /** Why the process could not be started, when it could not. */
  error?: string;
  /** Processes the command left running (started with `&`) that were stopped when it exited. */
  strayProcessesStopped?: boolean;
  /** The user interrupted it (Ctrl+C in the terminal mirror: interrupt()) before it ended. */
  interrupted?: boolean;
  /** Protected paths the command created (or put a link in place of), moved out of the workspace. */
  quarantined?: QuarantinedPath[];
  /** The runner stopped the command at a limit: how many processes it had reached. */
  limitExceeded?: { limit: "processes"; max: number };
}

/** A protected path a command created, and where it went. */
export interface QuarantinedPath {
  /** Absolute path the command created. */
  path: string;
  /** The writable folder it is in (the workspace, or a listed path). */
  root: string;
  /** Why the path is protected. */
  why: string;
  /** Where it was moved (absent when there was nothing left to move). */
  movedTo?: string;
  /** The symbolic link that was there before was put back. */
  restored?: boolean;
  /** Moving it failed: it is still in place. */
  error?: string;
}

/** Lines of output as the model sees them: head and tail kept, the middle counted. */
export interface BoundedOutput {
  head: string[];
  tail: string[];
  /** Lines in all (a last line without a newline counts). */
  totalLines: number;
}

export interface OutputPage {
  /** Raw lines (ANSI codes and `\r` redraws still in), without their newline. */
  lines: string[];
  /** 1-based number of the first line returned. */
  from: number;
  /** Number of the last line returned (from - 1 when none). */
  to: number;
  totalLines: number;
  /** true when lines after `to` exist now. */
  more: boolean;
}

export interface RunningCommand {
  /** Short id the model uses: "c1", "c2"... */
  readonly id: string;
  readonly command: string;
  readonly cwd: string;
  readonly background: boolean;
  readonly network: NetworkMode;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  /** "pty" when the command runs on a pseudo-terminal (isatty is true), else "pipe". */
  readonly mode: "pty" | "pipe";
  /** The full raw output (with ANSI codes) is kept here. */
  readonly logPath: string;
  /** The result once the command has finished, else undefined. */
  readonly result: CommandResult | undefined;
  /**
   * Raw output chunks (colours and all) as they arrive; stdout and stderr are merged. With
   * `replay`, first the recent output already produced (up to 256 KB) is delivered at once.
   */
  onData(listener: (chunk: string) => void, opts?: { replay?: boolean }): Disposable;
  /** Called once when the command finishes (at once when it already has). */
  onExit(listener: (result: CommandResult) => void): Disposable;
  wait(): Promise<CommandResult>;
  /** SIGTERM to the command's processes, SIGKILL after a grace period; resolves when all are gone. */
  kill(): Promise<void>;
  /** SIGINT to the command's processes (Ctrl+C). */
  interrupt(): void;
  /** Lines from 1-based line `since`, read from the log file. */
  outputSince(since: number, limits?: { maxLines?: number; maxBytes?: number }): Promise<OutputPage>;
  /** The bounded, cleaned view of the output so far (ANSI and progress redraws removed). */
  bounded(): BoundedOutput;
  /** Resizes the pseudo-terminal (no-op in pipe mode). */
  resize(cols: number, rows: number): void;
}

/** What a runner is configured to do; the UI shows `warning` persistently when set. */
export interface RunnerInfo {
  sandbox: SandboxName;
  /** Shown by the UI while it applies (e.g. sandbox "none"). */
  warning?: string;
  /** Can the network be turned on for a single command? */
  networkToggle: boolean;
  /** Network of commands unless they match networkCommands. */
  network: NetworkMode;
  /** Command prefixes the user allows the network for (e.g. "npm install"). */
  networkCommands: string[];
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
  /** Commands run on a pseudo-terminal when it is available. */
  pty: boolean;
}

export interface CommandRunner {
  readonly info: RunnerInfo;
  /**
   * Brings what the sandbox enforces up to date before a command starts: the permission rules'
   * view of the file system (denied paths to hide, protected ones to keep read-only). Callers
   * await it before start(); a runner without such state has none.
   */
  prepare?(): Promise<void>;
  /** Starts a command. Throws when it cannot be started (e.g. cwd outside the workspace). */
  start(req: CommandRequest): RunningCommand;
  get(id: string): RunningCommand | undefined;
  /** Every command of this runner, oldest first, running or finished. */
  list(): RunningCommand[];
  /** Stops every running command (session end). */
  killAll(): Promise<void>;
  /** Called with each command as it starts (hosts open a terminal mirror here). */
  onDidStart(listener: (cmd: RunningCommand) => void): Disposable;
}
