/**
 * A tool that must run as a task (MCP tasks, `execution.taskSupport: "required"`): tools/call with
 * a task asked for, then tasks/get until the task ends, then tasks/result — the SDK's requests, our
 * loop. The SDK's own loop (callToolStream) waits the server's `pollInterval` as it is, on a timer
 * nothing can stop: a server asking to be polled again in 2^31 ms kept `yoke run` from exiting long
 * after the call had timed out (red team B, session 17). Here each wait is bounded
 * (TASK_POLL_MAX_MS) and ends when the call is stopped (the user's Stop, its timeout), and a stopped
 * call's task is cancelled on the server (tasks/cancel, not waited for).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, CreateTaskResultSchema, type GetTaskResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpCallResult } from "../../core/mcp/types";

/** The longest a poll waits, whatever the server's `pollInterval` (and the shortest, so a server cannot have it spin). */
export const TASK_POLL_MAX_MS = 5_000;
export const TASK_POLL_MIN_MS = 100;

export interface TaskCallOptions {
  signal: AbortSignal;
  timeout: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeout?: number;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
}

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

/** Waits `ms`, or until `signal` aborts (then throws its reason); the timer never outlives the wait. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      resolve();
    };
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

export function taskPollDelay(pollInterval: number | undefined): number {
  const asked = typeof pollInterval === "number" && Number.isFinite(pollInterval) ? pollInterval : 1_000;
  return Math.min(TASK_POLL_MAX_MS, Math.max(TASK_POLL_MIN_MS, asked));
}

export async function callToolAsTask(client: Client, tool: string, args: Record<string, unknown>, options: TaskCallOptions, onStatus: (task: GetTaskResult) => void): Promise<McpCallResult> {
  const created = await client.request({ method: "tools/call", params: { name: tool, arguments: args } }, CreateTaskResultSchema, { ...options, task: {} });
  const taskId = created.task.taskId;
  let task: GetTaskResult = created.task;
  try {
    for (;;) {
      if (TERMINAL.has(task.status)) break;
      // input_required: tasks/result carries the server's requests (elicitation, sampling) and waits for the end.
      if (task.status === "input_required") return (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options)) as McpCallResult;
      await pause(taskPollDelay(task.pollInterval), options.signal);
      task = await client.experimental.tasks.getTask(taskId, options);
      onStatus(task);
    }
  } catch (err) {
    if (options.signal.aborted) void client.experimental.tasks.cancelTask(taskId, { timeout: TASK_POLL_MAX_MS }).catch(() => undefined);
    throw err;
  }
  if (task.status === "completed") return (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options)) as McpCallResult;
  throw new Error(`the task ${task.status === "failed" ? "failed" : "was cancelled"}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
}
