/** Sandbox backends: each wraps a command's argv so that it runs confined. */
import type { NetworkMode, SandboxName } from "../../../core/commands/types";

export interface SandboxPath {
  /** Absolute path (a leading "~/" means the home folder). */
  path: string;
  mode: "ro" | "rw";
}

/** What the sandbox lets commands see: the same for every command of a session. */
export interface SandboxPolicy {
  /** Absolute workspace folder: read-write. */
  workspace: string;
  /** The home folder to hide (default: os.homedir()). */
  home?: string;
  /** Exceptions: paths (usually under home) made visible read-only or read-write. */
  paths?: SandboxPath[];
}

export interface WrapRequest {
  /** The command to run, e.g. ["bash", "-c", "npm test"]. */
  argv: string[];
  /** Absolute working folder. */
  cwd: string;
  network: NetworkMode;
  /** The runner's id of the command (unique per session). */
  id: string;
}

export interface WrappedCommand {
  file: string;
  args: string[];
}

export interface SandboxBackend {
  readonly name: SandboxName;
  /** Can the network be turned on per command? */
  readonly networkToggle: boolean;
  /** A warning the UI shows persistently while this backend is in use. */
  readonly warning?: string;
  /**
   * Names of helper processes between us and the command (bwrap). They must not get soft
   * signals (they would die at once and SIGKILL the command); the root process is one of them.
   */
  readonly helpers: readonly string[];
  wrap(req: WrapRequest): WrappedCommand;
  /** Extra step to stop a command (docker: remove its container). */
  stop?(req: WrapRequest): Promise<void>;
}

/** The requested sandbox cannot be used here; the message says what to install or choose. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}
