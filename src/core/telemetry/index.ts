/**
 * OpenTelemetry traces of a session in the GenAI semantic conventions, built from the session log
 * as it is written (ExtensionApi.onEvent), so every span has the times the log has:
 *
 * - `invoke_agent yoke` (internal): one per prompt of the user, until the run is done, failed or
 *   was stopped; carries the conversation id, provider, model and the summed token usage;
 * - `chat {model}` (client), child of the turn: one per model request, from `thinking` to the
 *   assistant message, with usage, finish reason, the model that answered (it names the span when
 *   it is not the session's model: architect mode's editor, a fallback), and error.type when it
 *   failed;
 * - `execute_tool {tool}` (internal), child of the turn: from the call's start to its result;
 *   a call refused before it ran is a span of no length with `yoke.tool.outcome` "not_run".
 *
 * No prompt, answer, argument or tool output is put on a span (they may hold secrets); only names,
 * ids, counts and outcomes. Off unless the host configures an exporter (setting
 * `telemetry.otlpEndpoint`).
 */
import type { SessionEvent } from "../events";
import type { Extension } from "../extensions/types";
import type { Attributes, SpanTracer, TraceSpan } from "./types";

export type { Attributes, SpanTracer, TraceSpan } from "./types";
export const TELEMETRY_EXTENSION = "telemetry";

/** The `gen_ai.provider.name` of a Yoke provider id (an OpenAI-compatible server speaks OpenAI's API). */
export function genAiProviderName(provider: string): string {
  if (provider === "openai-compatible") return "openai";
  return provider;
}

function serverOf(baseUrl: string | undefined): Attributes {
  if (!baseUrl) return {};
  try {
    const u = new URL(baseUrl);
    const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : u.protocol === "http:" ? 80 : undefined;
    return { "server.address": u.hostname, ...(port ? { "server.port": port } : {}) };
  } catch {
    return {};
  }
}

const ms = (e: SessionEvent) => {
  const t = Date.parse(e.ts);
  return Number.isFinite(t) ? t : Date.now();
};

export function telemetryExtension(tracer: SpanTracer): Extension {
  return {
    name: TELEMETRY_EXTENSION,
    setup(api) {
      const session = api.session;
      const start = session.events().find((e) => e.type === "session_start");
      const base = start?.type === "session_start" ? start.baseUrl : undefined;
      const common = (): Attributes => ({
        "gen_ai.conversation.id": session.id,
        "gen_ai.provider.name": genAiProviderName(session.provider),
        "yoke.provider": session.provider,
      });
      let turn: { span: TraceSpan; input: number; output: number; requests: number; tools: number } | undefined;
      let chat: { span: TraceSpan; model: string } | undefined;
      /** The chat span's assistant message arrived: its end time, waiting for the usage event. */
      let answered: number | undefined;
      const tools = new Map<string, TraceSpan>();

      const endChat = (at: number) => {
        chat?.span.end(at);
        chat = undefined;
        answered = undefined;
      };
      const startTurn = (at: number) => {
        turn = {
          span: tracer.startSpan("invoke_agent yoke", {
            kind: "internal",
            startMs: at,
            attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "yoke", "gen_ai.request.model": session.model, ...common() },
          }),
          input: 0,
          output: 0,
          requests: 0,
          tools: 0,
        };
      };
      const endTurn = (at: number, outcome: string, detail?: string) => {
        if (answered !== undefined) endChat(answered);
        if (chat) {
          chat.span.setError(outcome === "error" ? "error" : outcome, detail);
          endChat(at);
        }
        for (const [, s] of tools) {
          s.setAttributes({ "yoke.tool.outcome": "unfinished" });
          s.end(at);
        }
        tools.clear();
        if (!turn) return;
        turn.span.setAttributes({
          "gen_ai.usage.input_tokens": turn.input,
          "gen_ai.usage.output_tokens": turn.output,
          "yoke.requests": turn.requests,
          "yoke.tool_calls": turn.tools,
          "yoke.outcome": outcome,
        });
        if (outcome === "error") turn.span.setError("error", detail);
        turn.span.end(at);
        turn = undefined;
      };

      const observe = (e: SessionEvent) => {
        const at = ms(e);
        if (answered !== undefined && e.type !== "usage") endChat(answered);
        switch (e.type) {
          case "user_message":
            if (!turn && (e.from === undefined || e.from === "user")) startTurn(at);
            return;
          case "status":
            if (e.state === "thinking" && !chat) {
              if (!turn) startTurn(at);
              turn!.requests++;
              const model = session.model;
              chat = {
                model,
                span: tracer.startSpan(`chat ${model}`, {
                  kind: "client",
                  parent: turn!.span,
                  startMs: at,
                  attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": model, ...common(), ...serverOf(base) },
                }),
              };
            } else if (e.state === "done" || e.state === "error" || e.state === "cancelled") {
              endTurn(at, e.state, e.detail);
            }
            return;
          case "assistant_message":
            if (!chat) return;
            chat.span.setAttributes({ "gen_ai.response.finish_reasons": [e.stopReason ?? "unknown"], "yoke.tool_calls": e.toolCalls.length });
            answered = at;
            return;
          case "usage": {
            if (turn) {
              turn.input += e.usage.inputTokens;
              turn.output += e.usage.outputTokens;
            }
            if (!chat) return;
            // Another model answered than the session started with (architect mode's editor, a fallback).
            if (e.model !== chat.model) {
              chat.span.updateName(`chat ${e.model}`);
              chat.span.setAttributes({ "gen_ai.request.model": e.model, "yoke.session_model": chat.model });
            }
            chat.span.setAttributes({
              "gen_ai.response.model": e.model,
              "gen_ai.usage.input_tokens": e.usage.inputTokens,
              "gen_ai.usage.output_tokens": e.usage.outputTokens,
              "gen_ai.usage.cache_read.input_tokens": e.usage.cacheReadTokens,
              "gen_ai.usage.cache_creation.input_tokens": e.usage.cacheWriteTokens,
              ...(e.costUsd !== undefined ? { "yoke.cost_usd": e.costUsd } : {}),
            });
            endChat(answered ?? at);
            return;
          }
          case "fallback":
            chat?.span.setAttributes({ "yoke.fallback.from": e.from, "yoke.fallback.to": e.to });
            return;
          case "error":
            if (chat) {
              chat.span.setError(e.code ?? "error", e.message);
              endChat(at);
            }
            return;
          case "tool_call": {
            if (!turn) startTurn(at);
            turn!.tools++;
            tools.get(e.callId)?.end(at);
            tools.set(e.callId, toolSpan(e.name, e.callId, at));
            return;
          }
          case "tool_result": {
            let span = tools.get(e.callId);
            tools.delete(e.callId);
            if (!span) {
              if (!turn) startTurn(at);
              turn!.tools++;
              span = toolSpan(e.name, e.callId, at);
              span.setAttributes({ "yoke.tool.outcome": "not_run" });
            } else {
              span.setAttributes({ "yoke.tool.outcome": e.interrupted ? "interrupted" : e.isError ? "error" : "ok" });
            }
            if (e.isError) span.setError(e.interrupted ? "interrupted" : "tool_error");
            span.end(at);
            return;
          }
          default:
            return;
        }
      };
      const toolSpan = (name: string, callId: string, at: number) =>
        tracer.startSpan(`execute_tool ${name}`, {
          kind: "internal",
          parent: turn?.span,
          startMs: at,
          attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.id": callId, "gen_ai.tool.type": "function", "gen_ai.conversation.id": session.id },
        });

      const sub = api.onEvent(observe);
      api.on("session.end", ({ reason }) => {
        if (turn) endTurn(Date.now(), "ended", reason);
      });
      return sub;
    },
  };
}
