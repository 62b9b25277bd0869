/**
 * One tool call: validate → tool.before (extensions may rewrite the input, decide, add context,
 * stop) → the decision (gate, review, user) → run with its timeout and cancellation → tool.after
 * (extensions may observe or rewrite the result) → tool_result. Never throws except on
 * cancellation or an extension's stop.
 */
import type { ToolCallRecord } from "../events";
import type { ExtensionDecision, ToolBeforeInput } from "../extensions/types";
import type { ReviewMode } from "../review";
import { isToolError, type ToolContext, type ToolDefinition, type ToolOutput } from "../tools/types";
import { childController, LoopStop, seconds, type LoopContext } from "./context";
import { decideCall } from "./permission";

interface Before {
  args: unknown;
  decisions: ExtensionDecision[];
  context: string[];
  respond?: string;
}

/** tool.before: each handler sees the arguments as rewritten before it; rewrites are validated again. */
async function beforeCall(ctx: LoopContext, def: ToolDefinition, call: ToolCallRecord, args: unknown, signal: AbortSignal): Promise<Before | { error: string }> {
  const out: Before = { args, decisions: [], context: [] };
  let invalid: string | undefined;
  // Once a policy (a fail-closed handler: the permission engine) has decided, the input is fixed:
  // what runs is what was checked.
  let checkedBy: string | undefined;
  const late = new Set<string>();
  const outcomes = await ctx.extensions.run(
    "tool.before",
    { call, tool: def, args },
    {
      signal,
      next: async (input: ToolBeforeInput, result, from) => {
        if (result.args !== undefined && checkedBy) {
          late.add(from.extension);
          return input;
        }
        if (from.failClosed && result.decision) checkedBy = from.extension;
        if (result.args === undefined || invalid) return input;
        const checked = await ctx.registry.prepare(def.name, result.args, ctx.services.fs);
        if (!checked.ok) {
          invalid = checked.error;
          return input;
        }
        out.args = checked.args;
        return { ...input, args: checked.args };
      },
    },
  );
  for (const o of outcomes) {
    if (o.error !== undefined) {
      // A failed policy never lets the call through silently.
      if (o.failClosed) out.decisions.push({ decision: "ask", by: "extension", reason: `The permission check (${o.extension}) failed (${o.error}), so Yoke asks.` });
      continue;
    }
    const r = o.result;
    if (!r) continue;
    if (late.has(o.extension)) {
      ctx.append({
        type: "extension",
        name: o.extension,
        point: "tool.before",
        outcome: "error",
        callId: call.id,
        detail: `rewrote the input after ${checkedBy} had checked it; the rewrite was ignored`,
      });
    } else if (r.args !== undefined && !invalid) ctx.append({ type: "extension", name: o.extension, point: "tool.before", outcome: "rewrote_input", callId: call.id });
    if (r.decision) out.decisions.push(r.decision);
    if (r.context?.length) out.context.push(...r.context);
    if (r.respond !== undefined && out.respond === undefined) out.respond = r.respond;
    if (r.stop !== undefined) {
      ctx.append({ type: "extension", name: o.extension, point: "tool.before", outcome: "stopped", callId: call.id, detail: r.stop });
      throw new LoopStop(r.stop);
    }
  }
  if (invalid) return { error: `An extension changed the arguments of ${def.name} into invalid ones, so it was not run: ${invalid}` };
  return out;
}

/** tool.after: handlers may replace or extend the text the model is told. */
async function afterCall(ctx: LoopContext, def: ToolDefinition, call: ToolCallRecord, args: unknown, output: ToolOutput, durationMs: number, signal: AbortSignal): Promise<string> {
  if (!ctx.extensions.has("tool.after")) return output.text;
  let text = output.text;
  const appended: string[] = [];
  const outcomes = await ctx.extensions.run(
    "tool.after",
    { call, tool: def, args, output, durationMs },
    // A handler that rewrites the text replaces the output: the tool's `full` no longer stands for it.
    { signal, next: (input, r) => (r.text === undefined ? input : { ...input, output: { ...input.output, text: r.text, full: undefined } }) },
  );
  for (const o of outcomes) {
    if (!o.result) continue;
    if (o.result.text !== undefined && o.result.text !== text) {
      text = o.result.text;
      ctx.append({ type: "extension", name: o.extension, point: "tool.after", outcome: "rewrote_output", callId: call.id });
    }
    appended.push(...(o.result.append ?? []).filter((t) => t.trim()));
  }
  return appended.length ? `${text}\n\n${appended.join("\n\n")}` : text;
}

/** tool.invalid: handlers may append to the error of a call that could not run (fix hints). */
async function invalidCall(ctx: LoopContext, call: ToolCallRecord, tool: ToolDefinition | undefined, error: string, signal: AbortSignal): Promise<string> {
  if (!ctx.extensions.has("tool.invalid")) return error;
  const appended: string[] = [];
  for (const o of await ctx.extensions.run("tool.invalid", { call, tool, error }, { signal })) appended.push(...(o.result?.append ?? []).filter((t) => t.trim()));
  return appended.length ? `${error}\n\n${appended.join("\n\n")}` : error;
}

export async function runToolCall(ctx: LoopContext, call: ToolCallRecord, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  const result = (output: string, isError: boolean) => ctx.append({ type: "tool_result", callId: call.id, name: call.name, output, isError, durationMs: 0 });
  const def = ctx.registry.get(call.name);
  const checked = await ctx.registry.prepare(call.name, call.input, ctx.services.fs);
  if (!def || !checked.ok) {
    const error = checked.ok ? `Unknown tool "${call.name}".` : checked.error;
    result(await invalidCall(ctx, call, def, error, signal), true);
    return;
  }
  const before = await beforeCall(ctx, def, call, checked.args, signal);
  if ("error" in before) {
    result(before.error, true);
    return;
  }
  if (before.respond !== undefined) {
    result([before.respond, ...before.context].join("\n\n"), true);
    return;
  }
  const { args } = before;
  const decision = await decideCall(ctx, def, call, args, before.decisions, signal);
  if (decision.decision !== "allow") {
    result([decision.message, ...before.context].join("\n\n"), true);
    return;
  }
  // A change the user already approved (rule, mode or answer) is applied at once, still listed and revertable.
  const reviewMode: ReviewMode = decision.review ?? "auto";
  ctx.append({ type: "tool_call", callId: call.id, name: call.name, input: args });
  await execute(ctx, def, call, args, signal, { reviewMode, confine: decision.confine, context: before.context }, (toolCtx) => def.run(args, toolCtx));
}

/**
 * Takes up a call the session was interrupted in, which its tool can continue (a pending review
 * shown again after a window reload); its result is recorded as any call's.
 */
export async function resumeToolCall(ctx: LoopContext, call: ToolCallRecord, signal: AbortSignal): Promise<void> {
  const def = ctx.registry.get(call.name);
  const checked = ctx.registry.validate(call.name, call.input);
  const events = ctx.sessionLog.events;
  if (!def?.resume || !checked.ok) {
    ctx.append({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      output: `The session was interrupted while ${call.name} was running; it was not run again.`,
      isError: true,
      durationMs: 0,
      interrupted: true,
    });
    return;
  }
  // The call runs again (its card shows it running, not interrupted, while the review is back).
  ctx.append({ type: "tool_call", callId: call.id, name: call.name, input: checked.args });
  await execute(ctx, def, call, checked.args, signal, { reviewMode: "ask", context: [] }, async (toolCtx) => {
    const out = await def.resume!(toolCtx, events);
    return out ?? { text: `The session was interrupted while ${call.name} was running and it could not be taken up again. Check its effects before retrying.`, isError: true };
  });
}

type Run = (ctx: ToolContext) => Promise<ToolOutput>;

/** Runs a call that was allowed: timeout (none while a change waits for review), cancellation, tool.after, tool_result. */
async function execute(
  ctx: LoopContext,
  def: ToolDefinition,
  call: ToolCallRecord,
  args: unknown,
  signal: AbortSignal,
  how: { reviewMode: ReviewMode; confine?: ToolContext["confine"]; context: readonly string[] },
  run: Run,
): Promise<void> {
  const { reviewMode } = how;
  const result = (output: string, isError: boolean, durationMs = 0, out?: ToolOutput) => {
    const card = out && def.card ? safeCard(ctx, def, out) : undefined;
    ctx.append({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      output,
      isError,
      durationMs,
      ...(out?.meta === undefined ? {} : { meta: out.meta }),
      ...(card ? { card } : {}),
      ...(out?.images?.length ? { images: out.images } : {}),
    });
  };
  ctx.setState("waiting_tool", call.name);
  const started = Date.now();
  const { controller, release } = childController(signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A change under review waits for the user, not for the tool: no timeout then (Stop still works).
  const timeout = new Promise<never>((_, reject) => {
    if (reviewMode === "ask") return;
    timer = setTimeout(() => {
      reject(new TimeoutError(`${call.name} did not finish within ${seconds(def.timeoutMs)} s and was stopped.`));
      controller.abort(new DOMException("tool timeout", "TimeoutError"));
    }, def.timeoutMs);
  });
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  try {
    const toolCtx: ToolContext = {
      ...ctx.services,
      signal: controller.signal,
      sessionId: ctx.id,
      callId: call.id,
      readState: ctx.readState,
      reviewMode,
      ...(how.confine ? { confine: how.confine } : {}),
      record: (event) => void ctx.append(event),
    };
    const out = await Promise.race([run(toolCtx), timeout, aborted]);
    const duration = Date.now() - started;
    const text = await afterCall(ctx, def, call, args, out, duration, signal);
    result(how.context.length ? `${text}\n\n${how.context.join("\n\n")}` : text, out.isError ?? false, duration, out);
  } catch (err) {
    const duration = Date.now() - started;
    if (signal.aborted) {
      result(`Cancelled by the user after ${(duration / 1000).toFixed(1)} s; ${call.name} was stopped and its effects may be partial.`, true, duration);
      throw signal.reason;
    }
    if (err instanceof LoopStop) throw err;
    const failed: ToolOutput = {
      text: isToolError(err) || err instanceof TimeoutError ? err.message : `${call.name} failed with an internal error: ${err instanceof Error ? err.message : String(err)}`,
      isError: true,
    };
    if (!isToolError(err) && !(err instanceof TimeoutError)) ctx.log.error(`tool ${call.name} failed`, err);
    // Extensions see failures too (Claude's PostToolUseFailure).
    const text = await afterCall(ctx, def, call, args, failed, duration, signal).catch(() => failed.text);
    result(text, true, duration);
  } finally {
    clearTimeout(timer);
    release();
  }
}

class TimeoutError extends Error {}

function safeCard(ctx: LoopContext, def: ToolDefinition, out: ToolOutput) {
  try {
    return def.card?.(out);
  } catch (err) {
    ctx.log.warn(`${def.name}: card failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}
