/**
 * Who starts a command's process. By default the runner spawns it itself (running-command.ts); a
 * front end may start it elsewhere — `yoke acp` in the editor's terminal (`terminal/create`), so
 * that the editor shows the command live. Whoever starts it, the command line is the same one the
 * runner would spawn: the sandbox's wrapper, behind the descriptor closer, with the environment the
 * runner chose and nothing else (`env -i`), so everything docs/sandbox.md promises still holds.
 */
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

/** The command line that starts `file args` with exactly `env` (not the launcher's environment). */
export function withExactEnv(file: string, args: string[], env: Record<string, string>, envProgram = "/usr/bin/env"): { file: string; args: string[] } {
  const pairs = Object.entries(env)
    .filter(([k]) => k !== "" && !k.includes("="))
    .map(([k, v]) => `${k}=${v}`);
  return { file: envProgram, args: ["-i", ...pairs, file, ...args] };
}
