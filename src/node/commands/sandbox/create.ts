/**
 * Chooses and checks the sandbox backend. "auto" means bwrap (then firejail) on Linux and
 * sandbox-exec on macOS. A missing backend is an error that says what to install; Yoke never
 * falls back to running without a sandbox unless "none" was chosen explicitly.
 */
import { homedir } from "node:os";
import { createBwrapBackend } from "./bwrap";
import { createDockerBackend } from "./docker";
import { createFirejailBackend } from "./firejail";
import { createNoSandbox } from "./none";
import { toolchainPaths } from "./paths";
import { createSeatbeltBackend } from "./seatbelt";
import { SandboxUnavailableError, type SandboxBackend, type SandboxPolicy } from "./types";

export type SandboxChoice = "auto" | "bwrap" | "firejail" | "docker" | "sandbox-exec" | "none";

export const SANDBOX_CHOICES: readonly SandboxChoice[] = ["auto", "bwrap", "firejail", "docker", "sandbox-exec", "none"];

export interface SandboxOptions extends SandboxPolicy {
  /** Image for the docker backend. */
  dockerImage?: string;
  /** Expose PATH folders under the hidden home read-only (nvm, pyenv, cargo...). Default true. */
  exposeToolchains?: boolean;
  /** PATH used to find those folders (default process.env.PATH). */
  pathVar?: string;
}

export function createSandbox(choice: SandboxChoice, options: SandboxOptions): SandboxBackend {
  const opts = { ...options };
  if (options.exposeToolchains !== false) {
    const tools = toolchainPaths(options.home ?? homedir(), options.pathVar ?? process.env.PATH ?? "");
    opts.paths = [...tools, ...(options.paths ?? [])];
  }
  switch (choice) {
    case "bwrap":
      return createBwrapBackend(opts);
    case "firejail":
      return createFirejailBackend(opts);
    case "docker":
      return createDockerBackend(opts, opts.dockerImage);
    case "sandbox-exec":
      return createSeatbeltBackend(opts);
    case "none":
      return createNoSandbox();
    case "auto":
      return createAuto(opts);
    default:
      throw new SandboxUnavailableError(`Unknown sandbox backend "${String(choice)}". Choose one of: ${SANDBOX_CHOICES.join(", ")}.`);
  }
}

function createAuto(opts: SandboxOptions): SandboxBackend {
  if (process.platform === "darwin") return createSeatbeltBackend(opts);
  if (process.platform !== "linux") {
    throw new SandboxUnavailableError(`No sandbox backend is available on ${process.platform}. Use docker (with a running engine), or choose "none" explicitly to run commands without a sandbox.`);
  }
  const reasons: string[] = [];
  for (const make of [createBwrapBackend, createFirejailBackend]) {
    try {
      return make(opts);
    } catch (err) {
      if (!(err instanceof SandboxUnavailableError)) throw err;
      reasons.push(err.message);
    }
  }
  throw new SandboxUnavailableError(
    `No sandbox is available for commands, so none will run. Install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap), ` +
      `or choose "none" explicitly to run commands without a sandbox. Details: ${reasons.join(" | ")}`,
  );
}
