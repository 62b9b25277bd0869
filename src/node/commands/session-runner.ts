/**
 * How a session gets its command runner: settings (`sandbox` in .yoke/settings.json or the
 * VS Code settings `yoke.sandbox.*`) -> backend checked -> runner logging into the session folder.
 * Throws SandboxUnavailableError (with what to install) when the chosen backend is missing.
 */
import { join } from "node:path";
import type { NetworkMode } from "../../core/commands/types";
import { createNodeCommandRunner, type NodeCommandRunner } from "./runner";
import { createSandbox, type SandboxChoice } from "./sandbox/create";
import type { SandboxPath } from "./sandbox/types";

/** The `sandbox` settings block (all optional). */
export interface SandboxSettings {
  /** Default "auto": bwrap, then firejail (Linux); sandbox-exec (macOS). "none" only when chosen. */
  backend?: SandboxChoice;
  /** Network for every command (default "off"). */
  network?: NetworkMode;
  /** Command prefixes that get the network (e.g. "npm install", "pip install"). */
  networkCommands?: string[];
  /** Paths made visible inside the hidden home (or elsewhere): [{path: "~/.npmrc", mode: "ro"}]. */
  paths?: SandboxPath[];
  /** Secret environment variables allowed through, by name. */
  allowEnv?: string[];
  /** Default foreground timeout, seconds (120). */
  timeoutS?: number;
  /** Largest timeout_s a command may ask for, seconds (600). */
  maxTimeoutS?: number;
  /** Run commands on a pseudo-terminal when available (default true). */
  pty?: boolean;
  dockerImage?: string;
  /** Expose the PATH folders under the hidden home read-only (nvm, pyenv, cargo...). Default true. */
  exposeToolchains?: boolean;
}

export interface SessionRunnerOptions {
  workspace: string;
  /** The session folder (e.g. beside `<session-dir>/<id>.jsonl`). */
  sessionDir: string;
  sessionId: string;
  settings?: SandboxSettings;
  env?: Record<string, string | undefined>;
}

/** Log folder of a session's commands: `<sessionDir>/<sessionId>.commands/`. */
export function commandLogDir(sessionDir: string, sessionId: string): string {
  return join(sessionDir, `${sessionId}.commands`);
}

export function createSessionCommandRunner(opts: SessionRunnerOptions): NodeCommandRunner {
  const s = opts.settings ?? {};
  const sandbox = createSandbox(s.backend ?? "auto", {
    workspace: opts.workspace,
    ...(s.paths ? { paths: s.paths } : {}),
    ...(s.dockerImage ? { dockerImage: s.dockerImage } : {}),
    ...(s.exposeToolchains === undefined ? {} : { exposeToolchains: s.exposeToolchains }),
  });
  return createNodeCommandRunner({
    workspace: opts.workspace,
    logDir: commandLogDir(opts.sessionDir, opts.sessionId),
    sandbox,
    ...(opts.env ? { env: opts.env } : {}),
    ...(s.allowEnv ? { allowEnv: s.allowEnv } : {}),
    ...(s.network ? { network: s.network } : {}),
    ...(s.networkCommands ? { networkCommands: s.networkCommands } : {}),
    ...(s.timeoutS ? { defaultTimeoutMs: s.timeoutS * 1000 } : {}),
    ...(s.maxTimeoutS ? { maxTimeoutMs: s.maxTimeoutS * 1000 } : {}),
    ...(s.pty === undefined ? {} : { pty: s.pty }),
  });
}
