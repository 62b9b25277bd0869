/**
 * Who starts a command's process. By default the runner spawns it itself (running-command.ts); a
 * front end may start it elsewhere — `yoke acp` in the editor's terminal (`terminal/create`), so
 * that the editor shows the command live. Whoever starts it, the command line is the same one the
 * runner would spawn: the sandbox's wrapper, behind the descriptor closer, with the environment the
 * runner chose and nothing else (`env -i`, the values read from a private file, never on the command
 * line), so everything docs/sandbox.md promises still holds.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LaunchedProcess {
  /** The process id, when the launcher knows it (else the runner finds the process by its marker). */
  readonly pid?: number;
  /** Output as it comes (stdout and stderr together, in order). */
  onOutput(listener: (raw: Buffer, text: string) => void): void;
  /** Called once, after the last output. */
  onExit(listener: (code: number | null, signal: string | null) => void): void;
  /** Ends the process (the runner also kills its tree by the marker). */
  kill(): void;
}

export interface ProcessLauncher {
  /** For the log and the result ("the editor's terminal"). */
  readonly label: string;
  launch(file: string, args: string[], opts: { cwd: string; env: Record<string, string>; id: string }): LaunchedProcess;
}

/** A name the shell can export (others are left out: no program of the sandbox's chain reads them). */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/**
 * The command line that starts `file args` with exactly `env` (not the launcher's environment).
 * The values are not on it: a command line is readable by every local user (/proc/PID/cmdline)
 * and is what an editor shows and logs for its terminal, while a command's environment may hold
 * a secret the user gave commands (`sandbox.env`, `sandbox.allowEnv`) — red team round 9. They
 * are written to a file only this user can read (a fresh 0700 folder, the file 0600), which the
 * shell reads and removes before it starts `file`; `cleanup` removes it in any case. `keep`: the
 * variables that stay on the line (the marker, which finds the process before it reads the file).
 */
export function withExactEnv(
  file: string,
  args: string[],
  env: Record<string, string>,
  keep: readonly string[] = [],
  envProgram = "/usr/bin/env",
  shell = "/bin/sh",
): { file: string; args: string[]; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-env-"));
  const envFile = join(dir, "env");
  const lines = Object.entries(env)
    .filter(([k]) => SHELL_NAME.test(k))
    .map(([k, v]) => `export ${k}=${quote(v)}\n`)
    .join("");
  writeFileSync(envFile, lines, { mode: 0o600, flag: "wx" });
  const pairs = keep.filter((k) => env[k] !== undefined && SHELL_NAME.test(k)).map((k) => `${k}=${env[k]}`);
  // $0 is the file: read it, remove it (and its folder), then become `file args`.
  const script = '. "$0" && rm -f "$0" && rmdir "${0%/*}" 2>/dev/null; exec "$@"';
  return {
    file: envProgram,
    args: ["-i", ...pairs, shell, "-c", script, envFile, file, ...args],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
