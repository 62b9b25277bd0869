/**
 * How a session (and `yoke sandbox exec`) gets its command runner: the user's `sandbox` settings
 * (~/.yoke/settings.json or the VS Code user settings `yoke.sandbox`) plus what the permission
 * rules require (`protection`) -> backend checked -> runner logging into the session folder.
 * Throws SandboxUnavailableError (with what to install) when the chosen backend is missing, and
 * SandboxSettingsError when a setting is malformed (never a silent default).
 */
import { join } from "node:path";
import type { NetworkMode } from "../../core/commands/types";
import { resolveLimits } from "./limits";
import { createNodeCommandRunner, type NodeCommandRunner, type NodeCommandRunnerOptions } from "./runner";
import { createSandbox, SANDBOX_CHOICES, type SandboxChoice } from "./sandbox/create";
import { SandboxUnavailableError, type SandboxLimits, type SandboxPath, type SandboxProtection } from "./sandbox/types";
import { warmProgramIndex } from "./sandbox/program-copies";
import type { ProcessLauncher } from "./launcher";

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
  /** Environment variables let through by name or `*` pattern, beyond the default allowlist (core/commands/env.ts). */
  allowEnv?: string[];
  /** Environment variables set for every command: {"NODE_OPTIONS": "--max-old-space-size=4096"}. */
  env?: Record<string, string>;
  /** Resource limits of each command (0 turns one off). */
  limits?: SandboxLimits;
  /** Default foreground timeout, seconds (120). */
  timeoutS?: number;
  /** Largest timeout_s a command may ask for, seconds (600). */
  maxTimeoutS?: number;
  /** Run commands on a pseudo-terminal when available (default true). */
  pty?: boolean;
  dockerImage?: string;
  /** Expose the PATH folders under the hidden home read-only (nvm, pyenv, cargo...). Default true. */
  exposeToolchains?: boolean;
  /**
   * Run the settings' command hooks in this sandbox too (default "on": what a hook processes was
   * written by the agent); "off" runs them on the host as Claude Code does (hook-sandbox.ts).
   */
  hooks?: "on" | "off";
}

/**
 * A malformed `sandbox` setting: the message names the key and what is expected. Like a missing
 * backend, it means no command runs (never a silent default).
 */
export class SandboxSettingsError extends SandboxUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = "SandboxSettingsError";
  }
}

export interface SessionRunnerOptions {
  workspace: string;
  /** The session folder (e.g. beside `<session-dir>/<id>.jsonl`). */
  sessionDir: string;
  sessionId: string;
  settings?: SandboxSettings;
  env?: Record<string, string | undefined>;
  /** What the permission rules hide and keep read-only, asked for every command (the gate's view). */
  protection?: () => SandboxProtection;
  /** A view that is refreshed before each command (the runner's prepare()); wins over `protection`. */
  protectionView?: ProtectionView;
  /** Who starts the commands (launcher.ts); default: the runner spawns them. */
  launcher?: ProcessLauncher | undefined;
}

/** Log folder of a session's commands: `<sessionDir>/<sessionId>.commands/`. */
export function commandLogDir(sessionDir: string, sessionId: string): string {
  return join(sessionDir, `${sessionId}.commands`);
}

/** Checks the shape of the settings a user wrote; throws SandboxSettingsError with what is wrong. */
export function checkSandboxSettings(s: SandboxSettings): void {
  const fail = (msg: string) => {
    throw new SandboxSettingsError(`sandbox settings: ${msg}`);
  };
  if (s.backend !== undefined && !SANDBOX_CHOICES.includes(s.backend)) fail(`"backend" must be one of ${SANDBOX_CHOICES.join(", ")}; got ${JSON.stringify(s.backend)}`);
  if (s.network !== undefined && s.network !== "on" && s.network !== "off") fail(`"network" must be "on" or "off"; got ${JSON.stringify(s.network)}`);
  if (s.hooks !== undefined && s.hooks !== "on" && s.hooks !== "off") fail(`"hooks" must be "on" (hooks run in the sandbox) or "off" (on the host); got ${JSON.stringify(s.hooks)}`);
  const strings = (key: "networkCommands" | "allowEnv") => {
    const v = s[key];
    if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== "string"))) fail(`"${key}" must be a list of strings`);
  };
  strings("networkCommands");
  strings("allowEnv");
  if (s.env !== undefined && (typeof s.env !== "object" || s.env === null || Array.isArray(s.env) || Object.values(s.env).some((v) => typeof v !== "string"))) {
    fail(`"env" must be an object of strings, e.g. {"NAME": "value"}`);
  }
  if (s.paths !== undefined && (!Array.isArray(s.paths) || s.paths.some((p) => !p || typeof p.path !== "string" || (p.mode !== "ro" && p.mode !== "rw")))) {
    fail(`"paths" must be a list of {"path": "...", "mode": "ro" | "rw"}`);
  }
  if (s.limits !== undefined && (typeof s.limits !== "object" || s.limits === null || Array.isArray(s.limits))) fail(`"limits" must be an object`);
  try {
    resolveLimits(s.limits);
  } catch (err) {
    fail((err as Error).message);
  }
}

/** The runner options of the settings (shared by sessions and `yoke sandbox exec`). */
export function runnerOptionsFromSettings(s: SandboxSettings): Omit<NodeCommandRunnerOptions, "workspace" | "logDir" | "sandbox"> {
  checkSandboxSettings(s);
  return {
    limits: resolveLimits(s.limits),
    ...(s.allowEnv ? { allowEnv: s.allowEnv } : {}),
    ...(s.env ? { setEnv: s.env } : {}),
    ...(s.network ? { network: s.network } : {}),
    ...(s.networkCommands ? { networkCommands: s.networkCommands } : {}),
    ...(s.timeoutS ? { defaultTimeoutMs: s.timeoutS * 1000 } : {}),
    ...(s.maxTimeoutS ? { maxTimeoutMs: s.maxTimeoutS * 1000 } : {}),
    ...(s.pty === undefined ? {} : { pty: s.pty }),
  };
}

/** The sandbox backend of the settings, with the permission side's protection. */
export function sandboxFromSettings(workspace: string, s: SandboxSettings, protection?: () => SandboxProtection, backend?: SandboxChoice) {
  checkSandboxSettings(s);
  return createSandbox(backend ?? s.backend ?? "auto", {
    workspace,
    ...(s.paths ? { paths: s.paths } : {}),
    ...(s.dockerImage ? { dockerImage: s.dockerImage } : {}),
    ...(s.exposeToolchains === undefined ? {} : { exposeToolchains: s.exposeToolchains }),
    ...(protection ? { protection } : {}),
    limits: resolveLimits(s.limits),
  });
}

export function createSessionCommandRunner(opts: SessionRunnerOptions): NodeCommandRunner {
  const s = opts.settings ?? {};
  const view = opts.protectionView;
  const sandbox = sandboxFromSettings(opts.workspace, s, view ? view.current : opts.protection);
  const runner = createNodeCommandRunner({
    workspace: opts.workspace,
    logDir: commandLogDir(opts.sessionDir, opts.sessionId),
    sandbox,
    ...(opts.env ? { env: opts.env } : {}),
    ...runnerOptionsFromSettings(s),
    ...(opts.launcher ? { launcher: opts.launcher } : {}),
  });
  return view ? Object.assign(runner, { prepare: view.refresh }) : runner;
}

/**
 * The permission rules' view for the sandbox, kept current: refreshed before each command (the
 * rules or the files they cover may have changed), read synchronously when the command is wrapped.
 * A refresh that fails keeps the last view and says so; the protected workspace paths are
 * read-only whatever the view holds (the mount plan adds them itself).
 */
export function protectionView(load: () => Promise<SandboxProtection>, log?: { warn(m: string): void }): ProtectionView {
  let view: SandboxProtection = { hide: [], readOnly: [] };
  return {
    current: () => view,
    async refresh() {
      try {
        view = await load();
        // Copies of the denied programs are found through an index of the program folders: made
        // here, off the event loop, before the command that needs it is wrapped (program-copies.ts).
        if (view.programs?.length) await warmProgramIndex().catch(() => undefined);
      } catch (err) {
        log?.warn(`the sandbox could not read the permission rules' paths (${err instanceof Error ? err.message : String(err)}); using the last view`);
      }
    },
  };
}

export interface ProtectionView {
  current(): SandboxProtection;
  refresh(): Promise<void>;
}
