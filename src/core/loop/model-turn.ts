/** One model request: request.prepare, the provider stream, and the assistant message it logs. */
import type { ToolCallRecord, Usage } from "../events";
import type { ContextMessage } from "../extensions/types";
import { costOf } from "../providers/pricing";
import { retryNotice, withRetries } from "../providers/retry";
import { ProviderError } from "../providers/types";
import { projectConversation } from "../session/projection";
import { childController, seconds, type LoopContext } from "./context";
import { submitPrompt } from "./prompt";

export interface ModelReply {
  text: string;
  toolCalls: ToolCallRecord[];
}

/** Context the extensions append before a request, logged so later requests carry it at the same place. */
async function prepare(ctx: LoopContext, turn: number, signal: AbortSignal): Promise<void> {
  if (!ctx.extensions.has("request.prepare")) return;
  const messages = projectConversation(ctx.sessionLog.events);
  const add = (m: ContextMessage) => {
    if (m.text.trim()) ctx.append({ type: "context", source: m.source, text: m.text, ...(m.persist ? { persist: true } : {}) });
  };
  for (const out of await ctx.extensions.run("request.prepare", { turn, messages }, { signal })) {
    for (const m of out.result?.append ?? []) add(m);
    // Messages the user typed while the agent worked (steering), each through prompt.submit.
    for (const u of out.result?.user ?? []) if (u.text.trim() && (await submitPrompt(ctx, u.text, [], { running: true }))) for (const m of u.context ?? []) add(m);
  }
}

export async function modelTurn(ctx: LoopContext, turn: number, signal: AbortSignal): Promise<ModelReply> {
  await prepare(ctx, turn, signal);
  try {
    return await request(ctx, signal);
  } catch (err) {
    // Too long for the model: compact (an extension decides how) and try once more.
    if (err instanceof ProviderError && err.kind === "context_length" && !signal.aborted && ctx.onContextOverflow && (await ctx.onContextOverflow(signal))) {
      return await request(ctx, signal);
    }
    throw err;
  }
}

async function request(ctx: LoopContext, signal: AbortSignal): Promise<ModelReply> {
  ctx.setState("thinking");
  const idleMs = ctx.limits.thinkingIdleMs;
  const { controller: request, release } = childController(signal);
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let idleExpired = false;
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleExpired = true;
      request.abort(new DOMException("provider idle timeout", "TimeoutError"));
    }, idleMs);
  };
  // A provider that retries by itself (a fallback chain) reports its retries as `log` events.
  const provider = ctx.provider.ownRetries
    ? ctx.provider
    : withRetries(ctx.provider, {
        ...ctx.limits.retry,
        onRetry: ({ error: err, attempt, delayMs }) => {
          ctx.log.warn(`provider ${err.kind} (${err.message}); retry ${attempt} in ${delayMs} ms`);
          ctx.append(retryNotice(err, attempt, delayMs));
          armIdle();
        },
      });
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCallRecord[] = [];
  let usage: Usage | undefined;
  let stopReason: string | undefined;
  const started = Date.now();
  armIdle();
  const messages = projectConversation(ctx.sessionLog.events);
  const tools = ctx.registry.specs();
  const effort = ctx.effort();
  if (ctx.extensions.has("request.sent")) await ctx.extensions.run("request.sent", { model: ctx.provider.model, system: ctx.system, tools, messages }, { signal });
  try {
    for await (const ev of provider.stream({ system: ctx.system, messages, tools, ...(effort ? { effort } : {}), signal: request.signal })) {
      armIdle();
      switch (ev.type) {
        case "text_delta":
          text += ev.text;
          ctx.emitDelta({ type: "text", text: ev.text });
          break;
        case "reasoning_delta":
          reasoning += ev.text;
          ctx.emitDelta({ type: "reasoning", text: ev.text });
          break;
        case "tool_call":
          toolCalls.push({ id: ev.id, name: ev.name, input: ev.input, ...summaryOf(ctx, ev.name, ev.input) });
          break;
        case "usage":
          usage = ev.usage;
          break;
        case "done":
          stopReason = ev.stopReason;
          break;
        case "log":
          ctx.append(ev.event);
          break;
      }
    }
  } catch (err) {
    if (signal.aborted) {
      // Keep what the user already saw: the partial answer is part of the record.
      if (text || reasoning) ctx.append({ type: "assistant_message", text, reasoning: reasoning || undefined, toolCalls: [], stopReason: "cancelled" });
      throw err;
    }
    if (idleExpired) {
      throw new ProviderError("network", `No response from ${ctx.provider.id} (${ctx.provider.model}) for ${seconds(idleMs)} s; the request was abandoned. Send a message to try again.`);
    }
    throw err;
  } finally {
    clearTimeout(idleTimer);
    release();
  }
  ctx.log.info(`model turn: ${Date.now() - started} ms, ${toolCalls.length} tool call(s), stop=${stopReason ?? "?"}`);
  ctx.append({ type: "assistant_message", text, reasoning: reasoning || undefined, toolCalls, stopReason });
  if (usage) ctx.append({ type: "usage", usage, model: ctx.provider.model, costUsd: costOf(ctx.provider.model, usage) });
  return { text, toolCalls };
}

function summaryOf(ctx: LoopContext, name: string, input: unknown): { summary?: string } {
  const summary = ctx.registry.summarize(name, input);
  return summary ? { summary } : {};
}
