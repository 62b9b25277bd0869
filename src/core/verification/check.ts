/**
 * The configured check (`verification.command`): run in the session's sandbox with the same
 * confinement as run_command (the user's own command: workspace writable except protected paths;
 * one the repository configured: what the gate decided for it, read-only or only the writes it
 * analysed; network as the runner decides for that command), its output kept by the runner and readable with command_output.
 * The texts the model and the user are told about it live here too.
 */
import { networkFor } from "../commands/network";
import { formatBoundedOutput, formatDuration } from "../commands/output";
import type { CommandConfinement, CommandResult, CommandRunner } from "../commands/types";
import type { NewEvent } from "../events";

const SNIPPET_LINES = 20;
const SNIPPET_CHARS = 2_000;

export interface CheckRun {
  command: string;
  status: "passed" | "failed" | "error";
  result?: CommandResult;
  /** The runner's id of the command ("c3"). */
  id?: string;
  logPath?: string;
  /** The bounded output for the model (head and tail, with how to read the rest). */
  output: string;
  /** The last lines, for the event and the transcript. */
  snippet: string;
  durationMs: number;
  /** Why it could not run. */
  error?: string;
}

export async function runCheck(
  command: string,
  runner: CommandRunner | undefined,
  root: string,
  opts: { timeoutMs?: number; unavailable?: string; signal: AbortSignal; confine?: CommandConfinement },
): Promise<CheckRun> {
  if (!runner) {
    const why = opts.unavailable ?? "this host runs no commands";
    return { command, status: "error", output: "", snippet: "", durationMs: 0, error: `it could not run: ${why}` };
  }
  const info = runner.info;
  await runner.prepare?.();
  let cmd;
  try {
    cmd = runner.start({
      command,
      cwd: root,
      background: false,
      network: networkFor(command, info),
      timeoutMs: Math.min(opts.timeoutMs ?? info.defaultTimeoutMs, info.maxTimeoutMs),
      signal: opts.signal,
      // A command the repository configured: the confinement the gate gave the same run_command.
      ...(opts.confine ? { confine: opts.confine } : {}),
    });
  } catch (err) {
    return { command, status: "error", output: "", snippet: "", durationMs: 0, error: `it could not be started: ${err instanceof Error ? err.message : String(err)}` };
  }
  const result = await cmd.wait();
  if (opts.signal.aborted) throw opts.signal.reason;
  const bounded = cmd.bounded();
  const lines = [...bounded.head, ...bounded.tail];
  const snippet = lines.slice(-SNIPPET_LINES).join("\n").slice(-SNIPPET_CHARS);
  const base = { command, result, id: cmd.id, logPath: cmd.logPath, output: formatBoundedOutput(bounded, cmd.id), snippet, durationMs: result.durationMs };
  if (result.error) return { ...base, status: "error", error: `it could not be started: ${result.error}` };
  return { ...base, status: result.exitCode === 0 && !result.timedOut ? "passed" : "failed" };
}

/** "exit code 1 after 0.4 s", "killed after its timeout of 120 s"… */
export function outcomeText(run: CheckRun): string {
  const r = run.result;
  if (!r) return run.error ?? "did not run";
  const took = formatDuration(r.durationMs);
  if (r.timedOut) return `stopped after ${took}: it did not finish within its timeout`;
  if (r.limitExceeded) return `stopped after ${took} at the sandbox's limit of ${r.limitExceeded.max} processes`;
  if (r.signal) return `terminated by signal ${r.signal} after ${took}`;
  return `exit code ${r.exitCode} after ${took}`;
}

function where(run: CheckRun): string {
  return run.id ? `command ${run.id}${run.logPath ? `, full output in ${run.logPath}` : ""}` : "no output";
}

/** The nudge: the check failed, the agent is not done. */
export function failureNudge(run: CheckRun, attempt: number, max: number): string {
  const left = max - attempt;
  const next =
    left > 0
      ? `The check runs again when you finish (attempt ${attempt} of ${max}; after ${max} failed attempts the user decides how to go on).`
      : `This was the last attempt (${attempt} of ${max}): if the check fails again, the user decides how to go on.`;
  return [
    `The check \`${run.command}\` (verification.command, run in the sandbox before you may finish) failed: ${outcomeText(run)}. You are not done yet.`,
    `Find the cause in its output, fix it, and finish again. ${next} Do not change or skip the check itself to make it pass.`,
    "",
    `Output of command ${run.id}${run.id ? ` (read all of it with command_output {"id":"${run.id}"})` : ""}:`,
    run.output || "(no output)",
  ].join("\n");
}

/** Why the loop stopped: the check still fails after the allowed attempts; the user decides. */
export function exhaustedText(run: CheckRun, attempts: number): string {
  if (attempts === 0) {
    return (
      `The check \`${run.command}\` (verification.command) failed: ${outcomeText(run)} (${where(run)}). verification.maxReflections is 0, so it was not sent back to the model and Yoke stopped the agent. ` +
      `Decide how to go on: send a message to let the agent fix it, fix it yourself, or change verification.command.`
    );
  }
  return (
    `The check \`${run.command}\` (verification.command) still fails after ${attempts} attempt${attempts === 1 ? "" : "s"} to fix it, so Yoke stopped the agent: ` +
    `last run ${outcomeText(run)} (${where(run)}). Decide how to go on: send a message to let the agent try again, fix it yourself, or change verification.command.`
  );
}

/** The record of a check run (the evidence of the final answer). */
export function checkEvent(run: CheckRun, extra: { attempt?: number; maxReflections: number; message?: string }): NewEvent {
  return {
    type: "verification",
    kind: "check",
    status: run.status,
    source: "verification.command",
    command: run.command,
    ...(run.result ? { exitCode: run.result.exitCode } : {}),
    durationMs: run.durationMs,
    ...(run.id ? { outputRef: run.id } : {}),
    ...(run.logPath ? { logPath: run.logPath } : {}),
    ...(run.snippet ? { snippet: run.snippet } : {}),
    ...(extra.attempt !== undefined ? { attempt: extra.attempt } : {}),
    maxReflections: extra.maxReflections,
    ...(run.error || extra.message ? { message: [run.error ? `The check ${run.error}` : "", extra.message ?? ""].filter(Boolean).join(" ") } : {}),
  };
}
