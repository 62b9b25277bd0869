/**
 * What an MCP server may ask of Yoke (the client side of MCP): sampling (`sampling/createMessage`
 * — the server wants the model to answer some messages) and elicitation (`elicitation/create` —
 * the server wants the user to fill in a form). Harness-neutral: the hub (src/node/mcp/hub.ts)
 * receives the requests through the SDK and hands them here as plain values.
 *
 * Sampling goes through the session's own provider and model (the server's `modelPreferences`
 * hints are shown, not followed: there is one model per session), is checked against the
 * permission rules as `McpSampling(<server>)` (a deny rule refuses, an allow rule answers without
 * asking), otherwise shown to and approved by the user (the approver: the panel's card, the
 * terminal's prompt; with no one to ask it is refused), bounded in output tokens, and its usage is
 * recorded as a `usage` event (with `sampling: <server>`) so the cost and the budgets count it.
 *
 * Elicitation goes to the host's form (the panel's form, the terminal's prompts); without one (a
 * headless run) the request is declined, and the server is told so.
 */
import type { ExtensionApi } from "../extensions/types";
import type { Approver, PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import type { ModelMessage, Provider } from "../providers/types";
import { costOf } from "../providers/pricing";
import type { Usage } from "../events";
import type { ToolIdentity } from "../tools/types";
import { answeredFields, elicitFields, type ElicitAnswer, type ElicitRequest } from "./elicitation";
import { z } from "zod";

/** Output tokens a server's sampling request may ask for, at most (its `maxTokens` is cut to this). */
export const MAX_SAMPLING_TOKENS = 4096;
/** Messages of a sampling request shown and sent, at most; characters of text per message (and of its system prompt). */
const MAX_SAMPLING_MESSAGES = 50;
const MAX_SAMPLING_TEXT = 100_000;

/** A sampling request as the hub passes it (MCP `CreateMessageRequest.params`, text only). */
export interface McpSamplingRequest {
  messages: Array<{ role: "user" | "assistant"; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
  /** `modelPreferences.hints[].name` (shown; the session's model answers). */
  modelHints?: string[];
}

/** What Yoke answers (MCP `CreateMessageResult`, text). */
export interface McpSamplingResult {
  model: string;
  text: string;
  stopReason: "endTurn" | "maxTokens" | string;
}

/** A server asks the user to open a URL (URL-mode elicitation, MCP 2025-11-25): a sign-in, a payment… */
export interface McpUrlElicitRequest {
  server: string;
  message: string;
  /** An http(s) URL (checked before a host sees it). */
  url: string;
  elicitationId: string;
}

/** How a host asks the user to fill in a server's form (the panel, a terminal). */
export interface McpElicitor {
  elicit(req: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer>;
  /**
   * Shows the URL with the server's name and asks whether to open it; never opens it without the
   * user's yes. "accept": the user opens it (VS Code opens the browser on the yes). Without it: declined.
   */
  openUrl?(req: McpUrlElicitRequest, signal: AbortSignal): Promise<"accept" | "decline" | "cancel">;
  /**
   * After a yes to a "URL elicitation required" (-32042) question, while Yoke waits for the
   * server's word that the user finished: lets the user say "I finished" (VS Code: a notification's
   * Done, a terminal: Enter). Resolves when they do; `signal` aborts when the wait ends otherwise
   * (the server's word, the timeout, the call's cancellation): the question is then withdrawn.
   */
  urlDone?(req: McpUrlDoneRequest, signal: AbortSignal): Promise<void>;
}

/** What the user is told while Yoke waits for a server to hear that they finished at a URL. */
export interface McpUrlDoneRequest {
  server: string;
  /** Where the URLs lead (origins only). */
  where: string;
  /** How long Yoke waits for the server at most (ms). */
  timeoutMs: number;
}

/** A URL a server may ask the user to open: http or https, nothing else (no file:, javascript:, vscode:…). */
export const ElicitUrl = z
  .string()
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), { message: "only http and https URLs are opened" });

/** What the hub calls when a running server asks something of the session. */
export interface McpClientHandlers {
  sample(server: string, req: McpSamplingRequest, signal: AbortSignal): Promise<McpSamplingResult>;
  /** `schema`: the requested schema as the server sent it. */
  elicit(server: string, req: { message: string; schema: unknown }, signal: AbortSignal): Promise<ElicitAnswer>;
  /** URL mode: the user is shown the URL and asked to open it (headless: declined). */
  elicitUrl(server: string, req: { message: string; url: string; elicitationId: string }, signal: AbortSignal): Promise<{ action: "accept" | "decline" | "cancel" }>;
  /**
   * Resolves when the user says they finished at the URLs (McpElicitor.urlDone); never when no one
   * can say it (headless). `signal`: the wait ended otherwise.
   */
  urlDone?(server: string, req: { where: string; timeoutMs: number }, signal: AbortSignal): Promise<void>;
}

/** What the session gives the MCP extension to answer servers' requests. */
export interface McpClientDeps {
  /** The session's model (sampling). */
  provider: Provider;
  /** Asks the user (the same approver as tool calls). */
  approver: Approver;
  /** The permission rules (`McpSampling(server)`); without it every request asks. */
  check?(req: PermissionCheck, mode: PermissionMode): Promise<PermissionDecision>;
  /** The host's form; without it elicitations are declined (a headless run). */
  elicitor?: McpElicitor;
  /** Why there is no form, said to the server when it is declined (default: "no one to ask"). */
  noElicitor?: string;
}

/** The permission name of a server's sampling requests, for rules: `McpSampling(everything)`. */
export const SAMPLING_PERMISSION = "McpSampling";
/**
 * Sampling as the permission engine knows its names (src/core/tools/catalogue.ts): not a tool the
 * model calls, but checked like one under `McpSampling`, its specifier the server's name.
 */
export const MCP_SAMPLING_IDENTITY: ToolIdentity = { name: "mcp_sampling", permission: SAMPLING_PERMISSION, capabilities: { network: true } };

const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** The card's and the prompt's text of a sampling request: server, limits, system prompt, messages. */
export function describeSampling(server: string, req: McpSamplingRequest, maxTokens: number, model: string): string {
  const lines = [`The MCP server "${server}" asks ${model} to answer (at most ${maxTokens} tokens${req.maxTokens > maxTokens ? `; it asked for ${req.maxTokens}` : ""}).`];
  if (req.modelHints?.length) lines.push(`Model hints: ${req.modelHints.join(", ")} (the session's model answers).`);
  const cut = (t: string) => (t.length > 2000 ? `${t.slice(0, 2000)}… (${t.length} characters)` : t);
  lines.push(`System prompt: ${req.systemPrompt ? cut(req.systemPrompt) : "(none)"}`);
  for (const m of req.messages) lines.push(`${m.role}: ${cut(m.text)}`);
  return lines.join("\n");
}

let seq = 0;

export function mcpClientHandlers(api: ExtensionApi, deps: McpClientDeps): McpClientHandlers {
  const record = (server: string, kind: "sampling" | "elicitation", outcome: "answered" | "accepted" | "declined" | "cancelled" | "denied" | "failed", detail?: string) =>
    api.record({ type: "mcp_request", server, kind, outcome, ...(detail ? { detail } : {}) });
  return {
    async sample(server, req, signal) {
      if (req.messages.length === 0) throw new Error("a sampling request needs at least one message");
      if (req.messages.length > MAX_SAMPLING_MESSAGES) throw new Error(`a sampling request may have at most ${MAX_SAMPLING_MESSAGES} messages (it had ${req.messages.length})`);
      if (req.messages.some((m) => m.text.length > MAX_SAMPLING_TEXT)) throw new Error(`a sampling message may have at most ${MAX_SAMPLING_TEXT} characters`);
      // The system prompt too (red team H, session 18: 3 MB of it reached the model under an allow rule).
      if (req.systemPrompt && req.systemPrompt.length > MAX_SAMPLING_TEXT)
        throw new Error(`a sampling request's system prompt may have at most ${MAX_SAMPLING_TEXT} characters (it had ${req.systemPrompt.length})`);
      const maxTokens = Math.max(1, Math.min(Math.floor(req.maxTokens) || 1, MAX_SAMPLING_TOKENS));
      const provider = deps.provider;
      const text = describeSampling(server, req, maxTokens, provider.model);
      const input = { name: server, ...(req.systemPrompt ? { systemPrompt: req.systemPrompt } : {}), maxTokens, messages: req.messages };
      const check: PermissionCheck = { tool: `mcp__${server}`, permission: SAMPLING_PERMISSION, input, mutates: false };
      const decision: PermissionDecision = deps.check
        ? await deps.check(check, api.session.mode)
        : { decision: "ask", by: "mode", reason: `${SAMPLING_PERMISSION} needs approval unless a rule allows it.` };
      if (decision.decision === "deny") {
        record(server, "sampling", "denied", decision.reason);
        throw new Error(`Yoke refused the sampling request: ${decision.reason}`);
      }
      if (decision.decision === "ask") {
        const answer = await deps.approver.ask(
          {
            callId: `mcp-sampling-${++seq}`,
            tool: `sampling for MCP server ${server}`,
            permission: `${SAMPLING_PERMISSION}(${server})`,
            input,
            reason: `The MCP server "${server}" asks the model to answer these messages; it gets the answer. ${decision.reason}`,
            summary: text,
            readOnly: true,
          },
          signal,
        );
        if (answer.decision !== "allow") {
          const why = answer.message ? `: ${answer.message}` : "";
          record(server, "sampling", "denied", `the user declined${why}`);
          throw new Error(`the user declined the sampling request${why}`);
        }
      }
      const messages: ModelMessage[] = req.messages.map((m) => (m.role === "user" ? { role: "user", text: m.text } : { role: "assistant", text: m.text, toolCalls: [] }));
      let out = "";
      let usage: Usage | undefined;
      let stopReason = "endTurn";
      try {
        for await (const ev of provider.stream({ system: req.systemPrompt ?? "", messages, tools: [], maxOutputTokens: maxTokens, signal })) {
          if (ev.type === "text_delta") out += ev.text;
          else if (ev.type === "usage") usage = ev.usage;
          else if (ev.type === "done")
            stopReason = ev.stopReason === "max_tokens" || ev.stopReason === "length" ? "maxTokens" : ev.stopReason === "end_turn" || ev.stopReason === "stop" ? "endTurn" : ev.stopReason;
          else if (ev.type === "log") api.record(ev.event);
        }
      } catch (err) {
        record(server, "sampling", "failed", err instanceof Error ? err.message : String(err));
        throw new Error(`the model did not answer: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      } finally {
        // Counted in the session's cost and budgets like any request (usage unknown: zero tokens, still recorded).
        const u = usage ?? emptyUsage();
        api.record({ type: "usage", usage: u, model: provider.model, costUsd: costOf(provider.model, u), sampling: server });
      }
      record(server, "sampling", "answered", `${provider.model}, ${usage?.outputTokens ?? "?"} output tokens`);
      return { model: provider.model, text: out, stopReason };
    },

    async elicit(server, req, signal) {
      let fields;
      try {
        fields = elicitFields(req.schema);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        record(server, "elicitation", "failed", why);
        throw new Error(`Yoke cannot show this form: ${why}`, { cause: err });
      }
      if (!deps.elicitor) {
        const why = deps.noElicitor ?? "no one to ask (not an interactive session)";
        record(server, "elicitation", "declined", why);
        return { action: "decline" };
      }
      const answer = await deps.elicitor.elicit({ server, message: req.message, fields }, signal);
      if (answer.action === "accept") record(server, "elicitation", "accepted", answeredFields(answer.content));
      else record(server, "elicitation", answer.action === "decline" ? "declined" : "cancelled", "by the user");
      return answer;
    },

    async elicitUrl(server, req, signal) {
      const url = ElicitUrl.safeParse(req.url);
      if (!url.success) {
        const why = `a URL Yoke does not open (${url.error.issues[0]?.message ?? "not a URL"})`;
        record(server, "elicitation", "failed", why);
        throw new Error(`Yoke cannot show this URL: ${why}`);
      }
      // The log names where the URL leads, not the URL (it may carry a one-time code).
      const where = `a URL at ${new URL(url.data).origin}`;
      if (!deps.elicitor?.openUrl) {
        record(server, "elicitation", "declined", `${where}: ${deps.noElicitor ?? "no one to ask (not an interactive session)"}`);
        return { action: "decline" };
      }
      const action = await deps.elicitor.openUrl({ server, message: req.message, url: url.data, elicitationId: req.elicitationId }, signal);
      record(server, "elicitation", action === "accept" ? "accepted" : action === "decline" ? "declined" : "cancelled", `${where}, by the user`);
      return { action };
    },

    urlDone(server, req, signal) {
      const elicitor = deps.elicitor;
      if (!elicitor?.urlDone) return new Promise<void>(() => undefined);
      return elicitor.urlDone({ server, where: req.where, timeoutMs: req.timeoutMs }, signal).then(() => {
        if (!signal.aborted) record(server, "elicitation", "accepted", `the user said they finished at ${req.where} (before the server did)`);
      });
    },
  };
}
