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
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  type CreateTaskResult,
  type GetTaskResult,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
import { InMemoryTaskStore, type CreateTaskOptions } from "@modelcontextprotocol/sdk/experimental/tasks";
import type { RequestTaskStore } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, JsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { MCP_CLIENT_REQUESTS_AT_ONCE, type McpCallResult } from "../../core/mcp/types";

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

/** The validators of the output schemas seen (compiled once per listed schema). */
let ajv: AjvJsonSchemaValidator | undefined;
const validators = new WeakMap<object, JsonSchemaValidator<unknown>>();

/**
 * A task's result checked against its tool's `outputSchema` as the SDK's callTool checks a plain
 * call's (the SDK's task calls check nothing): structured content is required unless the result is
 * an error, and must match; the same errors (McpError, the same messages).
 */
export function checkOutput(tool: string, result: McpCallResult, outputSchema: object | undefined): McpCallResult {
  if (!outputSchema) return result;
  if (!result.structuredContent && !result.isError) throw new McpError(ErrorCode.InvalidRequest, `Tool ${tool} has an output schema but did not return structured content`);
  if (!result.structuredContent) return result;
  let validate = validators.get(outputSchema);
  if (!validate) {
    ajv ??= new AjvJsonSchemaValidator();
    validate = ajv.getValidator(outputSchema as JsonSchemaType);
    validators.set(outputSchema, validate);
  }
  let verdict: ReturnType<JsonSchemaValidator<unknown>>;
  try {
    verdict = validate(result.structuredContent);
  } catch (err) {
    throw new McpError(ErrorCode.InvalidParams, `Failed to validate structured content: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!verdict.valid) throw new McpError(ErrorCode.InvalidParams, `Structured content does not match the tool's output schema: ${verdict.errorMessage}`);
  return result;
}

export async function callToolAsTask(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  options: TaskCallOptions,
  onStatus: (task: GetTaskResult) => void,
  outputSchema?: object,
): Promise<McpCallResult> {
  const created = await client.request({ method: "tools/call", params: { name: tool, arguments: args } }, CreateTaskResultSchema, { ...options, task: {} });
  const taskId = created.task.taskId;
  let task: GetTaskResult = created.task;
  let result: McpCallResult | undefined;
  try {
    for (;;) {
      if (TERMINAL.has(task.status)) break;
      // input_required: tasks/result carries the server's requests (elicitation, sampling) and waits for the end.
      if (task.status === "input_required") break;
      await pause(taskPollDelay(task.pollInterval), options.signal);
      task = await client.experimental.tasks.getTask(taskId, options);
      onStatus(task);
    }
    if (task.status !== "completed" && task.status !== "input_required") result = undefined;
    else result = (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options)) as McpCallResult;
  } catch (err) {
    if (options.signal.aborted) {
      void client.experimental.tasks.cancelTask(taskId, { timeout: TASK_POLL_MAX_MS }).catch(() => undefined);
      throw err;
    }
    throw new TaskTakenError(taskId, err);
  }
  if (!result) throw new Error(`the task ${task.status === "failed" ? "failed" : "was cancelled"}${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
  return checkOutput(tool, result, outputSchema);
}

/**
 * The server took the call (it made a task of it) and a later request about the task failed: the
 * call may have run, so it is not made again — not even when the failure is the 404 after which a
 * call that never reached the server is sent once more (red team P: a poll's 404 sent the call a
 * second time, and the tool ran twice).
 */
export class TaskTakenError extends Error {
  constructor(taskId: string, cause: unknown) {
    const msg = cause instanceof Error ? cause.message : String(cause);
    super(`${msg} (the server had taken the call as task ${taskId}: whether it ran is unknown, so it is not sent again)`, { cause });
  }
}

/** How long a task Yoke runs for a server is kept, at most (the server asks for its `ttl`). */
export const CLIENT_TASK_TTL_MAX_MS = 60 * 60_000;
/**
 * The most tasks Yoke keeps for one connection at once (working or ended, until their ttl or the
 * connection's end), and the most of them still working (each a question to the person or a
 * model request); a server asking for more is refused until some end or expire.
 */
export const CLIENT_TASKS_MAX = 256;
export const CLIENT_TASKS_WORKING_MAX = MCP_CLIENT_REQUESTS_AT_ONCE;

/**
 * The client side of MCP tasks: a server may ask for a sampling or an elicitation to run as a
 * task (`params.task`; server-everything's trigger-*-async tools). The SDK answers tasks/get,
 * tasks/result, tasks/list and tasks/cancel from this store; Yoke runs the request's own handler
 * (the same approval, form and model as a plain request) in the background, answers `{ task }` at
 * once, and stores the result when it ends. A task the server cancels stops its work (the
 * question is withdrawn); a failed one is stored as failed with the reason, which tasks/result
 * says as an error. Dropped (timers cleared, work stopped) when the connection closes.
 *
 * Bounded (red team H, session 18): the SDK's store keeps each task's whole request for its ttl, so
 * a server sending sampling requests as tasks with large messages had Yoke hold them for an hour
 * after answering (100 requests of 1 MB: 100 MB kept) — a task keeps only its method here; and at
 * most CLIENT_TASKS_MAX tasks are kept per connection (CLIENT_TASKS_WORKING_MAX of them working),
 * more are refused with a clear error.
 */
export class ClientTaskStore extends InMemoryTaskStore {
  private readonly work = new Map<string, AbortController>();
  private readonly failures = new Map<string, string>();

  override async createTask(taskParams: CreateTaskOptions, requestId: RequestId, request: Request, sessionId?: string): Promise<Task> {
    const kept = this.getAllTasks();
    // Failures of tasks the store has let go (their ttl ended) are let go too.
    if (this.failures.size) {
      const live = new Set(kept.map((t) => t.taskId));
      for (const id of this.failures.keys()) if (!live.has(id)) this.failures.delete(id);
    }
    if (kept.length >= CLIENT_TASKS_MAX)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Yoke keeps at most ${CLIENT_TASKS_MAX} tasks for a server at once and has ${kept.length} of this server's: ask again when some have expired (ask a shorter \`ttl\`)`,
      );
    const working = kept.filter((t) => t.status === "working" || t.status === "input_required").length;
    if (working >= CLIENT_TASKS_WORKING_MAX)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Yoke runs at most ${CLIENT_TASKS_WORKING_MAX} tasks for a server at once and ${working} of this server's are still working: ask again when some have ended`,
      );
    // Only the method: the request's params (a sampling request's messages) are not kept for the task's ttl.
    return super.createTask(taskParams, requestId, { method: request.method }, sessionId);
  }

  override async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === "cancelled") this.work.get(taskId)?.abort(new Error("the server cancelled the task"));
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const failed = this.failures.get(taskId);
    if (failed !== undefined) throw new McpError(ErrorCode.InternalError, failed);
    return super.getTaskResult(taskId, sessionId);
  }

  /** Starts `run` as a task of the request (`extra`): its `{ task }` now, its result stored when it ends. */
  async start(extra: { taskStore?: RequestTaskStore; taskRequestedTtl?: number }, run: (signal: AbortSignal) => Promise<Result>): Promise<CreateTaskResult> {
    const store = extra.taskStore;
    if (!store) throw new McpError(ErrorCode.InvalidRequest, "this client keeps no tasks for this request");
    const asked = extra.taskRequestedTtl;
    const task = await store.createTask({ ttl: typeof asked === "number" && asked > 0 ? Math.min(asked, CLIENT_TASK_TTL_MAX_MS) : CLIENT_TASK_TTL_MAX_MS });
    const ac = new AbortController();
    this.work.set(task.taskId, ac);
    void run(ac.signal)
      .then(
        (result) => store.storeTaskResult(task.taskId, "completed", result),
        (err: unknown) => {
          const why = err instanceof Error ? err.message : String(err);
          this.failures.set(task.taskId, why);
          return store.updateTaskStatus(task.taskId, "failed", why);
        },
      )
      // A task cancelled (or dropped) meanwhile takes no result: nothing to store.
      .catch(() => undefined)
      .finally(() => this.work.delete(task.taskId));
    return { task };
  }

  /** The connection closed: work still running stops, the tasks' timers are cleared. */
  dispose(): void {
    for (const ac of this.work.values()) ac.abort(new Error("the connection to the server closed"));
    this.work.clear();
    this.cleanup();
  }
}
