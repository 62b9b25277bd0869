/** Anthropic Messages responses as Anthropic sends them (SSE events and whole JSON). */
import { splitJson, splitText } from "./split";
import type { ScriptedTurn, WireContext } from "./types";

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
}

const toolId = (ctx: WireContext, i: number) => `toolu_scripted_${ctx.n}_${i}`;
const stopReason = (turn: ScriptedTurn) => (turn.toolCalls?.length ? "tool_use" : "end_turn");
const signature = (ctx: WireContext) => `scripted-signature-${ctx.n}`;

function startUsage(ctx: WireContext) {
  return {
    input_tokens: ctx.usage.input,
    output_tokens: 1,
    cache_creation_input_tokens: ctx.usage.cacheWrite,
    cache_read_input_tokens: ctx.usage.cacheRead,
  };
}

/** The events of a streamed message, message_start to message_stop. */
export function anthropicEvents(turn: ScriptedTurn, ctx: WireContext): SseEvent[] {
  const out: SseEvent[] = [];
  const ev = (event: string, data: Record<string, unknown>) => out.push({ event, data: { type: event, ...data } });
  ev("message_start", {
    message: {
      id: `msg_scripted_${ctx.n}`,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage(ctx),
    },
  });
  out.push({ event: "ping", data: { type: "ping" } });
  let index = 0;
  const block = (start: unknown, deltas: unknown[]) => {
    ev("content_block_start", { index, content_block: start });
    for (const delta of deltas) ev("content_block_delta", { index, delta });
    ev("content_block_stop", { index });
    index++;
  };
  if (turn.reasoning) {
    block({ type: "thinking", thinking: "", signature: "" }, [
      ...splitText(turn.reasoning).map((thinking) => ({ type: "thinking_delta", thinking })),
      { type: "signature_delta", signature: signature(ctx) },
    ]);
  }
  if (turn.text)
    block(
      { type: "text", text: "" },
      splitText(turn.text).map((text) => ({ type: "text_delta", text })),
    );
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const pieces = splitJson(JSON.stringify(call.input ?? {}));
    block(
      { type: "tool_use", id: toolId(ctx, i), name: call.name, input: {} },
      pieces.map((partial_json) => ({ type: "input_json_delta", partial_json })),
    );
  }
  ev("message_delta", { delta: { stop_reason: stopReason(turn), stop_sequence: null }, usage: { output_tokens: ctx.usage.output } });
  ev("message_stop", {});
  return out;
}

/** A whole (non-streamed) message. */
export function anthropicMessage(turn: ScriptedTurn, ctx: WireContext): unknown {
  const content: unknown[] = [];
  if (turn.reasoning) content.push({ type: "thinking", thinking: turn.reasoning, signature: signature(ctx) });
  if (turn.text) content.push({ type: "text", text: turn.text });
  for (const [i, call] of (turn.toolCalls ?? []).entries()) content.push({ type: "tool_use", id: toolId(ctx, i), name: call.name, input: call.input ?? {} });
  return {
    id: `msg_scripted_${ctx.n}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: stopReason(turn),
    stop_sequence: null,
    usage: { ...startUsage(ctx), output_tokens: ctx.usage.output },
  };
}

/** The default error body for a status, in Anthropic's shape. */
export function anthropicErrorBody(status: number, message: string): unknown {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return { type: "error", error: { type: types[status] ?? "api_error", message } };
}
