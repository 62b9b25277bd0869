/**
 * The turn loop of one send() or continue(): model turn → tool calls → turn.after → … until the
 * model asks for no tool and no extension keeps it going, the turn limit, an error, a stop or
 * the user's Stop.
 */
import type { ToolCallRecord } from "../events";
import type { TurnAfterInput } from "../extensions/types";
import { ProviderError } from "../providers/types";
import { unansweredToolCalls } from "../session/projection";
import { LoopStop, type LoopContext } from "./context";
import { modelTurn } from "./model-turn";
import { resumeToolCall, runToolCall } from "./tool-call";

/** Extensions may keep the agent going after it wanted to finish at most this many times per message. */
export const MAX_CONTINUATIONS = 3;

/** Records a result for every call of the last assistant message that has none. */
export function closeUnanswered(ctx: LoopContext, output: string): void {
  for (const call of unansweredToolCalls(ctx.sessionLog.events)) {
    ctx.append({ type: "tool_result", callId: call.id, name: call.name, output, isError: true, durationMs: 0 });
  }
}

/**
 * After a crash: a call that had started (`tool_call` logged, no result) is recorded as
 * interrupted and never re-run; calls that had not started run on continue(), gated again.
 */
export function recordInterrupted(ctx: LoopContext): void {
  for (const call of unansweredToolCalls(ctx.sessionLog.events)) {
    if (!call.started || resumable(ctx, call)) continue;
    ctx.append({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      output: `The session was interrupted while ${call.name} was running, so its result is unknown. It was not run again: check its effects (e.g. read the files it would change) before retrying.`,
      isError: true,
      durationMs: 0,
      interrupted: true,
    });
  }
}

/** A started call its tool can continue from what it recorded (a change still under review). */
function resumable(ctx: LoopContext, call: { id: string; name: string }): boolean {
  return ctx.registry.get(call.name)?.resumable?.(call.id, ctx.sessionLog.events) ?? false;
}

/** Calls of the last assistant message an interruption left without a result that continue() takes up. */
export function leftoverCalls(ctx: LoopContext): Array<{ id: string; name: string; started: boolean }> {
  return unansweredToolCalls(ctx.sessionLog.events).filter((c) => !c.started || resumable(ctx, c));
}

/**
 * Calls left by an interruption: unstarted ones run now, through the gate again; started ones
 * their tool can resume go on (a pending review is shown again and its decision is the result).
 */
async function runLeftovers(ctx: LoopContext, signal: AbortSignal): Promise<void> {
  const leftover = leftoverCalls(ctx);
  if (leftover.length === 0) return;
  const msg = [...ctx.sessionLog.events].reverse().find((e) => e.type === "assistant_message");
  const calls = msg?.type === "assistant_message" ? msg.toolCalls.filter((c) => leftover.some((l) => l.id === c.id)) : [];
  for (const call of calls) {
    if (leftover.find((l) => l.id === call.id)?.started) await resumeToolCall(ctx, call, signal);
    else await runToolCall(ctx, call, signal);
  }
  ctx.sessionLog.sync();
}

async function afterTurn(ctx: LoopContext, input: TurnAfterInput, signal: AbortSignal) {
  let stop: string | undefined;
  let nudge: { text: string; from: "hook" | "extension" } | undefined;
  for (const o of await ctx.extensions.run("turn.after", input, { signal })) {
    const r = o.result;
    if (!r) continue;
    if (r.stop !== undefined && stop === undefined) {
      stop = r.stop;
      ctx.append({ type: "extension", name: o.extension, point: "turn.after", outcome: "stopped", detail: r.stop });
    }
    if (r.nudge !== undefined && nudge === undefined) {
      nudge = { text: r.nudge, from: r.by ?? "extension" };
      ctx.append({ type: "extension", name: o.extension, point: "turn.after", outcome: "nudged" });
    }
  }
  return { stop, nudge };
}

/** The calls in order, adjacent calls of a concurrent tool (ToolDefinition.concurrent) in one batch. */
function batches(ctx: LoopContext, calls: readonly ToolCallRecord[]): ToolCallRecord[][] {
  const out: ToolCallRecord[][] = [];
  let open: ToolCallRecord[] | undefined;
  for (const call of calls) {
    if (ctx.registry.get(call.name)?.concurrent) {
      if (!open) out.push((open = []));
      open.push(call);
    } else {
      open = undefined;
      out.push([call]);
    }
  }
  return out;
}

/** Runs a batch's calls together; every call settles before the first failure (a stop, the user's Stop) is thrown. */
async function runBatch(ctx: LoopContext, batch: readonly ToolCallRecord[], signal: AbortSignal): Promise<void> {
  if (batch.length === 1) return runToolCall(ctx, batch[0]!, signal);
  const settled = await Promise.allSettled(batch.map((call) => runToolCall(ctx, call, signal)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

export async function runTurns(ctx: LoopContext, signal: AbortSignal, leftovers: boolean): Promise<void> {
  const { maxTurns } = ctx.limits;
  try {
    if (leftovers) await runLeftovers(ctx, signal);
    let continued = 0;
    for (let turn = 0; turn < maxTurns; turn++) {
      const reply = await modelTurn(ctx, turn, signal);
      const final = reply.toolCalls.length === 0;
      if (!final) {
        for (const batch of batches(ctx, reply.toolCalls)) await runBatch(ctx, batch, signal);
        ctx.sessionLog.sync();
      }
      const after = await afterTurn(ctx, { turn, text: reply.text, toolCalls: reply.toolCalls, final, continued }, signal);
      if (after.stop !== undefined) {
        closeUnanswered(ctx, `Not run: the session was stopped (${after.stop}).`);
        ctx.setState("done", after.stop);
        return;
      }
      if (after.nudge !== undefined && (!final || continued < MAX_CONTINUATIONS)) {
        if (final) continued++;
        ctx.append({ type: "user_message", text: after.nudge.text, from: after.nudge.from });
        continue;
      }
      if (final) {
        ctx.setState("done");
        return;
      }
    }
    ctx.append({ type: "error", message: `Stopped after ${maxTurns} model turns without finishing (max turns). Send a message to continue.`, code: "max_turns" });
    ctx.setState("error", "max turns reached");
  } catch (err) {
    if (err instanceof LoopStop) {
      closeUnanswered(ctx, `Not run: the session was stopped (${err.reason}).`);
      ctx.setState("done", err.reason);
      return;
    }
    if (signal.aborted) {
      closeUnanswered(ctx, "Not run: the user stopped the agent before this call ran.");
      ctx.setState("cancelled", "stopped by the user");
      return;
    }
    const message = err instanceof ProviderError ? err.message : `Internal error: ${err instanceof Error ? err.message : String(err)}`;
    ctx.log.error("agent loop failed", err);
    ctx.append({ type: "error", message, code: err instanceof ProviderError ? err.kind : "internal", retryable: err instanceof ProviderError ? err.retryable : false });
    ctx.setState("error", message);
  }
}
