/** Model-facing texts about a command's end: exit code, duration, timeout, cancel, hints. */
import { formatBoundedOutput, formatDuration } from "./output";
import { looksLikeNetworkFailure, networkOffHint } from "./network";
import type { BoundedOutput, CommandResult, NetworkMode } from "./types";

export function timeoutText(timeoutMs: number, maxTimeoutMs: number): string {
  const s = Math.round(timeoutMs / 1000);
  const max = Math.round(maxTimeoutMs / 1000);
  return (
    `[Killed after ${s} s: the command did not finish within its timeout (timeout_s: ${s}), so it and its child processes were stopped. ` +
    `If it is a server, a watcher or another long-running job, run it with background: true and read its output with command_output; ` +
    `otherwise run it again with a longer timeout_s (at most ${max}).]`
  );
}

/** The closing line of a finished command. */
export function statusText(r: CommandResult, timeoutMs: number, maxTimeoutMs: number): string {
  const took = formatDuration(r.durationMs);
  if (r.error) return `[The command could not be started: ${r.error}]`;
  if (r.timedOut) return timeoutText(timeoutMs, maxTimeoutMs);
  if (r.cancelled) return `[Cancelled after ${took}: the command and its child processes were stopped.]`;
  if (r.interrupted) return `[Interrupted by the user (Ctrl+C) after ${took}; ${r.signal ? `signal ${r.signal}` : `exit code ${r.exitCode}`}.]`;
  if (r.signal) return `[Terminated by signal ${r.signal} after ${took}.]`;
  return `[Exit code ${r.exitCode} after ${took}.]`;
}

/** "exited with code 0 after 1.2 s", for command_output and kill_command. */
export function endedText(r: CommandResult): string {
  const took = formatDuration(r.durationMs);
  if (r.error) return `could not be started: ${r.error}`;
  if (r.timedOut) return `was killed at its timeout after ${took}`;
  if (r.cancelled) return `was stopped after ${took}`;
  if (r.interrupted) return `was interrupted by the user (Ctrl+C) after ${took}`;
  if (r.signal) return `was terminated by signal ${r.signal} after ${took}`;
  return `exited with code ${r.exitCode} after ${took}`;
}

export interface CommandReport {
  id: string;
  command: string;
  network: NetworkMode;
  result: CommandResult;
  output: BoundedOutput;
  timeoutMs: number;
  maxTimeoutMs: number;
}

/** The whole result text of a finished foreground command. */
export function formatCommandReport(rep: CommandReport): string {
  const output = formatBoundedOutput(rep.output, rep.id);
  const parts = [output, "", statusText(rep.result, rep.timeoutMs, rep.maxTimeoutMs)];
  if (rep.result.strayProcessesStopped) {
    parts.push(
      "[The command left processes running in the background (started with &); they were stopped when it exited. To keep a server running, start it with background: true.]",
    );
  }
  const failed = rep.result.exitCode !== 0 && !rep.result.cancelled && !rep.result.timedOut;
  if (failed && rep.network === "off") {
    const all = [...rep.output.head, ...rep.output.tail].join("\n");
    if (looksLikeNetworkFailure(rep.command, all)) parts.push(networkOffHint(rep.command));
  }
  return parts.join("\n");
}
