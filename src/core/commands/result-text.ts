/** Model-facing texts about a command's end: exit code, duration, timeout, cancel, hints. */
import { formatBoundedOutput, formatDuration } from "./output";
import { looksLikeNetworkFailure, networkOffHint } from "./network";
import type { BoundedOutput, CommandResult, NetworkMode, QuarantinedPath } from "./types";

export function timeoutText(timeoutMs: number, maxTimeoutMs: number): string {
  const s = Math.round(timeoutMs / 1000);
  const max = Math.round(maxTimeoutMs / 1000);
  return (
    `[Killed after ${s} s: the command did not finish within its timeout (timeout_s: ${s}), so it and its child processes were stopped. ` +
    `If it is a server, a watcher or another long-running job, run it with background: true and read its output with command_output; ` +
    `otherwise run it again with a longer timeout_s (at most ${max}).]`
  );
}

/** Why a command stopped at a limit, for the model. */
export function limitText(r: CommandResult): string | undefined {
  const l = r.limitExceeded;
  if (!l) return undefined;
  return (
    `[Stopped after ${formatDuration(r.durationMs)}: the command reached ${l.max} processes and threads, the sandbox's limit, so all of it was stopped. ` +
    `If it really needs more (a large parallel build), the user can raise "sandbox.limits.processes" in ~/.yoke/settings.json; otherwise run fewer jobs at once.]`
  );
}

/**
 * What the model is told about protected paths a command created: moved out, and the user must
 * approve. What could not be moved is said to be still there (never claimed as moved).
 */
export function quarantineText(r: CommandResult): string | undefined {
  const q = r.quarantined;
  if (!q?.length) return undefined;
  const rel = (x: QuarantinedPath) => (x.path.startsWith(x.root + "/") ? x.path.slice(x.root.length + 1) : x.path);
  const moved = q
    .filter((x) => !x.error)
    .map((x) => {
      const where = x.movedTo ? `moved to ${x.movedTo}` : "removed";
      return x.restored ? `${rel(x)} (${x.why}): what replaced the symbolic link was ${where}, and the link put back` : `${rel(x)} (${x.why}): ${where}`;
    });
  const stuck = q.filter((x) => x.error).map((x) => `${rel(x)} (${x.why}): ${x.error}`);
  const parts: string[] = [];
  if (moved.length) {
    parts.push(
      `[The command created protected paths, which only the user can approve: ${moved.join("; ")}. ` +
        `They are not in the workspace. Do not try to write them another way; if they are needed, ask the user to approve writing them.]`,
    );
  }
  if (stuck.length) {
    parts.push(
      `[The command created protected paths that Yoke could NOT move out of the workspace: ${stuck.join("; ")}. ` +
        `They are still there. Tell the user, who must check and remove them; do not use or change them.]`,
    );
  }
  return parts.join("\n");
}

/** The closing line of a finished command. */
export function statusText(r: CommandResult, timeoutMs: number, maxTimeoutMs: number): string {
  const took = formatDuration(r.durationMs);
  if (r.error) return `[The command could not be started: ${r.error}]`;
  if (r.limitExceeded) return limitText(r)!;
  if (r.timedOut) return timeoutText(timeoutMs, maxTimeoutMs);
  if (r.cancelled) return `[Cancelled after ${took}: the command and its child processes were stopped.]`;
  if (r.interrupted) return `[Interrupted by the user (Ctrl+C) after ${took}; ${r.signal ? `signal ${r.signal}` : `exit code ${r.exitCode}`}.]`;
  if (r.signal) return `[Terminated by signal ${r.signal} after ${took}.]`;
  return `[Exit code ${r.exitCode} after ${took}.]`;
}

/** "exited with code 0 after 1.2 s", for command_output and kill_command. */
export function endedText(r: CommandResult): string {
  const took = formatDuration(r.durationMs);
  const moved = (r.quarantined ?? []).filter((x) => !x.error);
  const stuck = (r.quarantined ?? []).filter((x) => x.error);
  const q =
    (moved.length ? `; protected paths it created were moved out of the workspace (${moved.map((x) => x.movedTo ?? x.path).join(", ")}): only the user can approve writing them` : "") +
    (stuck.length ? `; protected paths it created could NOT be moved and are still in the workspace (${stuck.map((x) => x.path).join(", ")}): the user must check them` : "");
  return endedBase(r, took) + q;
}

function endedBase(r: CommandResult, took: string): string {
  if (r.error) return `could not be started: ${r.error}`;
  if (r.limitExceeded) return `was stopped after ${took} when it reached ${r.limitExceeded.max} processes and threads (sandbox.limits.processes)`;
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

/** A hint when a process of the command was stopped by the file size or CPU time limit. */
export function rlimitHint(r: CommandResult, output: string): string | undefined {
  if (r.signal === "SIGXFSZ" || r.exitCode === 128 + 25 || /File size limit exceeded/.test(output)) {
    return '[A process was stopped because a file it wrote reached the sandbox\'s file size limit. If such a large file is really needed, the user can raise "sandbox.limits.fileSizeMb" in ~/.yoke/settings.json.]';
  }
  if (r.signal === "SIGXCPU" || r.exitCode === 128 + 24 || /CPU time limit exceeded/.test(output)) {
    return '[A process was stopped because it used up the sandbox\'s CPU time limit. If it really needs more, the user can raise "sandbox.limits.cpuSeconds" in ~/.yoke/settings.json.]';
  }
  return undefined;
}

/**
 * Said when a command hit the sandbox's read-only file system: what is writable, and how the rest
 * is changed (run_command's description names the rules only briefly, so the detail comes here,
 * when it matters).
 */
export const READ_ONLY_HINT =
  "[Read-only file system: in the sandbox a command writes only in the workspace (and, when it was allowed for the files it names, only those), " +
  "never the workspace's files that run code later (.git/config, .git/hooks, .vscode, .husky, agent settings…): change those with edit_file, which asks the user. " +
  "For anything else, ask the user.]";

/** The whole result text of a finished foreground command. */
export function formatCommandReport(rep: CommandReport): string {
  const output = formatBoundedOutput(rep.output, rep.id);
  const parts = [output, "", statusText(rep.result, rep.timeoutMs, rep.maxTimeoutMs)];
  const quarantine = quarantineText(rep.result);
  if (quarantine) parts.push(quarantine);
  if (rep.result.strayProcessesStopped) {
    parts.push("[The command left processes running in the background (started with &); they were stopped when it exited. To keep a server running, start it with background: true.]");
  }
  const failed = rep.result.exitCode !== 0 && !rep.result.cancelled && !rep.result.timedOut && !rep.result.limitExceeded;
  const all = [...rep.output.head, ...rep.output.tail].join("\n");
  if (failed) {
    const hint = rlimitHint(rep.result, all);
    if (hint) parts.push(hint);
  }
  if (/Read-only file system/.test(all)) parts.push(READ_ONLY_HINT);
  if (failed && rep.network === "off") {
    if (looksLikeNetworkFailure(rep.command, all)) parts.push(networkOffHint(rep.command));
  }
  return parts.join("\n");
}
