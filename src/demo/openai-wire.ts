/** OpenAI Chat Completions responses as OpenAI sends them (stream chunks and whole JSON). */
import { splitJson, splitText } from "./split";
import type { ScriptedTurn, WireContext } from "./types";

const CREATED = 1_700_000_000;

function usageJson(ctx: WireContext) {
  const prompt = ctx.usage.input + ctx.usage.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: ctx.usage.output,
    total_tokens: prompt + ctx.usage.output,
    prompt_tokens_details: { cached_tokens: ctx.usage.cacheRead },
  };
}

const callId = (ctx: WireContext, i: number) => `call_scripted_${ctx.n}_${i}`;
const finish = (turn: ScriptedTurn) => (turn.toolCalls?.length ? "tool_calls" : "stop");

/** The `data:` payloads of a streamed response, without the final [DONE]. */
export function openAiChunks(turn: ScriptedTurn, ctx: WireContext, includeUsage: boolean): unknown[] {
  const base = { id: `chatcmpl-scripted-${ctx.n}`, object: "chat.completion.chunk", created: CREATED, model: ctx.model, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const out: unknown[] = [chunk({ role: "assistant", content: "" })];
  const field = turn.reasoningField ?? "reasoning_content";
  for (const piece of splitText(turn.reasoning ?? "")) out.push(chunk({ [field]: piece }));
  for (const piece of splitText(turn.text ?? "")) out.push(chunk({ content: piece }));
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    if (call.custom) {
      const text = typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? "");
      if (turn.wholeToolCalls) {
        out.push(chunk({ tool_calls: [{ id: callId(ctx, i), type: "custom", custom: { name: call.name, input: text } }] }));
        continue;
      }
      out.push(chunk({ tool_calls: [{ index: i, id: callId(ctx, i), type: "custom", custom: { name: call.name, input: "" } }] }));
      for (const piece of splitJson(text, 16)) out.push(chunk({ tool_calls: [{ index: i, type: "custom", custom: { input: piece } }] }));
      continue;
    }
    if (turn.wholeToolCalls) {
      out.push(chunk({ tool_calls: [{ id: callId(ctx, i), type: "function", function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } }] }));
      continue;
    }
    out.push(chunk({ tool_calls: [{ index: i, id: callId(ctx, i), type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitJson(JSON.stringify(call.input ?? {}))) {
      out.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
    }
  }
  out.push(chunk({}, finish(turn)));
  if (includeUsage) out.push({ ...base, choices: [], usage: usageJson(ctx) });
  return out;
}

/** A whole (non-streamed) chat.completion. */
export function openAiCompletion(turn: ScriptedTurn, ctx: WireContext): unknown {
  const calls = (turn.toolCalls ?? []).map((c, i) =>
    c.custom
      ? { id: callId(ctx, i), type: "custom", custom: { name: c.name, input: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? "") } }
      : { id: callId(ctx, i), type: "function", function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) } },
  );
  const message: Record<string, unknown> = { role: "assistant", content: turn.text ?? (calls.length ? null : ""), refusal: null };
  if (turn.reasoning) message[turn.reasoningField ?? "reasoning_content"] = turn.reasoning;
  if (calls.length) message.tool_calls = calls;
  return {
    id: `chatcmpl-scripted-${ctx.n}`,
    object: "chat.completion",
    created: CREATED,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish(turn) }],
    usage: usageJson(ctx),
  };
}

/** The default error body for a status, in OpenAI's shape. */
export function openAiErrorBody(status: number, message: string): unknown {
  const type = status === 401 ? "invalid_request_error" : status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  const code = status === 401 ? "invalid_api_key" : status === 404 ? "model_not_found" : null;
  return { error: { message, type, param: null, code } };
}
