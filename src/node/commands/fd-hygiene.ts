/**
 * Descriptor hygiene: nothing but stdin, stdout and stderr reaches a command. Node (libuv) opens
 * its own descriptors close-on-exec, but a descriptor Yoke *inherited* without close-on-exec (from
 * the shell or the extension host that started it, or a test harness) is passed on to every
 * child, and bwrap passes it on again: to the command, and to its own init process (PID 1 in the
 * sandbox, whose /proc/1/fd the command can read). A descriptor open on a folder the sandbox hides
 * (the home) then gives it back: `/proc/self/fd/N/.ssh/id_rsa`, `/proc/1/fd/N/.bashrc`.
 *
 * So the sandbox launch starts with a close step: a bash that closes every descriptor above 2 and
 * then execs the rest of the launch (the pids cgroup wrapper, bwrap or firejail, the command).
 * Nothing of the launch chain needs another descriptor (bwrap's own --info-fd/--args are not used).
 */
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { which } from "./sandbox/paths";
import { findHostProgram, findOnTrustedPath, registerAgentWritable, trustedSearchDir } from "../host-programs";

/** Closes every descriptor above 2 (listed in /proc/$$/fd), then runs "$@". */
export const CLOSE_FDS_SCRIPT = 'for f in /proc/$$/fd/*; do f=${f##*/}; if ((f > 2)) && [[ -L /proc/$$/fd/$f ]]; then exec {f}>&-; fi; done; unset f; exec "$@"';

let bash: string | null | undefined;

/** The absolute bash the close step runs with (null: none on this machine). */
export function closerShell(): string | null {
  if (bash === undefined) bash = findHostProgram("bash") ?? null;
  return bash;
}

/**
 * The launch `file args` preceded by the close step; unchanged (with `degraded` set) when there is
 * no bash to run it.
 */
export function withClosedFds(line: { file: string; args: string[] }): { file: string; args: string[] } {
  const sh = closerShell();
  if (!sh) return line;
  // --norc: a bash whose stdin is a socket (Node's stdio pipes are socket pairs) and whose SHLVL is
  // unset would otherwise read ~/.bashrc, on the host, before every launch (bash's SSH_SOURCE_BASHRC).
  // -p (privileged mode): the environment is the launched program's (an MCP server's configured
  // `env`, which a repository's .mcp.json writes), and bash would otherwise source BASH_ENV, import
  // functions (BASH_FUNC_exec%% replaces the script's `exec`) and apply SHELLOPTS, BASHOPTS, CDPATH
  // and GLOBIGNORE from it — code run on the host by a server whose command line was approved.
  return { file: sh, args: ["--norc", "--noprofile", "-p", "-c", CLOSE_FDS_SCRIPT, "yoke-close-fds", line.file, ...line.args] };
}

/** What cannot be enforced without the close step (for RunnerInfo/degraded), or undefined. */
export function fdHygieneDegraded(): string | undefined {
  return closerShell() ? undefined : "there is no bash to close inherited file descriptors before the sandbox starts: descriptors Yoke inherited reach commands";
}

/**
 * What bash puts into the environment of a program it execs: with `env`, each is given back as it
 * was, or removed. SHELLOPTS, BASHOPTS, PS4 and IFS present in the environment are exported with
 * bash's own values (privileged mode, or bash itself, ignores the given ones).
 */
const SHELL_ADDED = ["PWD", "SHLVL", "_", "SHELLOPTS", "BASHOPTS", "PS4", "IFS"] as const;

/**
 * A program started outside the sandbox (an MCP stdio server, a hook the user runs on the host)
 * preceded by the close step too, when the program is found (on `env.PATH`, or by its path from
 * `cwd`): a program that is not found is started as it is, so the spawn error still says so.
 * The program gets exactly `env` (the environment it is spawned with): what the close step's bash
 * adds (PWD, SHLVL) is taken back by `env -u`, or set to the value `env` has.
 */
export function hostLaunchWithClosedFds(file: string, args: string[], env: Readonly<Record<string, string | undefined>>, cwd: string): { file: string; args: string[] } {
  if (process.platform === "win32") return { file, args };
  // A bare name from a trusted PATH entry first (host-programs.ts): a workspace folder on PATH
  // would otherwise supply a planted program of the same name, run here on the host.
  // The launch's folder (the workspace, for an MCP server or a hook) counts as the agent's.
  registerAgentWritable(cwd);
  if (!file.includes("/") && !file.startsWith("-") && !file.includes("=")) {
    // Only when the name would be found in such a folder first (otherwise it starts as the user wrote it).
    const first = which(file, env.PATH ?? "");
    if (first && !trustedSearchDir(dirname(first))) file = findOnTrustedPath(file, env.PATH ?? "") ?? file;
  }
  const found = file.includes("/") ? existsSync(resolve(cwd, file)) : which(file, env.PATH ?? "") !== undefined;
  const envBin = which("env", "/usr/bin:/bin");
  // A name env would read as an option or an assignment: started as it is.
  if (!found || !envBin || file.startsWith("-") || file.includes("=")) return { file, args };
  // Every -u before the first NAME=VALUE: env reads no option after an assignment.
  const restore = [...SHELL_ADDED.filter((n) => env[n] === undefined).flatMap((n) => ["-u", n]), ...SHELL_ADDED.filter((n) => env[n] !== undefined).map((n) => `${n}=${env[n]}`)];
  return withClosedFds({ file: envBin, args: [...restore, file, ...args] });
}
