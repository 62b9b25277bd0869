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
 * Sampling with tools (MCP 2025-11-25, `sampling.tools`): the server's tools are offered to the
 * session's model as they are (the provider converts them, as it does Yoke's own); the model's tool
 * calls are returned to the server unexecuted (stopReason `toolUse`) — the SERVER runs them and asks
 * again with their results. Yoke runs none of them and none of its own tools are offered.
 *
 * Elicitation goes to the host's form (the panel's form, the terminal's prompts); without one (a
 * headless run) the request is declined, and the server is told so.
 */
import type { ExtensionApi } from "../extensions/types";
import type { Approver, PermissionCheck, PermissionDecision, PermissionMode } from "../loop/types";
import type { ModelMessage, Provider, ToolSpec } from "../providers/types";
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
/** Tools a sampling request may offer, at most; characters of their definitions (JSON: names, descriptions, schemas) together. */
export const MAX_SAMPLING_TOOLS = 64;
const MAX_SAMPLING_TOOLS_TEXT = 100_000;

/** A tool call the model made in a sampling answer (MCP `ToolUseContent`). */
export interface McpSamplingToolUse {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A message of a sampling request. */
export interface McpSamplingMessage {
  role: "user" | "assistant";
  text: string;
  /** An assistant message: the tool calls of the model's earlier answer (sent back by the server). */
  toolUses?: McpSamplingToolUse[];
  /** A user message: the server's results of those calls (MCP: such a message holds tool results only). */
  toolResults?: Array<{ toolUseId: string; text: string; isError: boolean }>;
}

/** A tool the server offers the model in a sampling request (MCP `Tool`; the server runs it). */
export interface McpSamplingTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A sampling request as the hub passes it (MCP `CreateMessageRequest.params`). */
export interface McpSamplingRequest {
  messages: McpSamplingMessage[];
  systemPrompt?: string;
  maxTokens: number;
  /** `modelPreferences.hints[].name` (shown; the session's model answers). */
  modelHints?: string[];
  /** Tools offered to the model (MCP 2025-11-25); its calls are returned, not run. */
  tools?: McpSamplingTool[];
  /** `toolChoice.mode` (default "auto"). */
  toolChoice?: "auto" | "required" | "none";
}

/** What Yoke answers (MCP `CreateMessageResult`): text, and the model's tool calls when tools were offered. */
export interface McpSamplingResult {
  model: string;
  text: string;
  stopReason: "endTurn" | "maxTokens" | "toolUse" | string;
  /** The model's tool calls, unexecuted (stopReason "toolUse"). */
  toolUses?: McpSamplingToolUse[];
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

/**
 * A URL a server may ask the user to open: http or https, nothing else (no file:, javascript:,
 * vscode:…). Built on first use, not when the module loads (docs/benchmarks.md, "Session 20: start20").
 */
let elicitUrl: z.ZodType<string> | undefined;
export const ElicitUrl = (): z.ZodType<string> =>
  (elicitUrl ??= z
    .string()
    .url()
    .refine((u) => /^https?:$/.test(protocolOf(u)), { message: "only http and https URLs are opened" }));

/** The URL's scheme, or "" when it is not a URL (zod runs this check after a failed `.url()` too). */
function protocolOf(u: string): string {
  try {
    return new URL(u).protocol;
  } catch {
    return "";
  }
}

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
  if (req.tools?.length) {
    const choice = req.toolChoice === "required" ? "the model must call one" : req.toolChoice === "none" ? "the model may not call them" : "the model may call them";
    lines.push(`Tools offered (${choice}; the server runs the calls, not Yoke): ${cut(req.tools.map((t) => t.name).join(", "))}`);
  }
  lines.push(`System prompt: ${req.systemPrompt ? cut(req.systemPrompt) : "(none)"}`);
  for (const m of req.messages) {
    if (m.text || (!m.toolUses?.length && !m.toolResults?.length)) lines.push(`${m.role}: ${cut(m.text)}`);
    for (const u of m.toolUses ?? []) lines.push(`${m.role}: (calls ${u.name}) ${cut(JSON.stringify(u.input))}`);
    for (const r of m.toolResults ?? []) lines.push(`${m.role}: (${r.isError ? "error of" : "result of"} call ${r.toolUseId}) ${cut(r.text)}`);
  }
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
      if (req.messages.some((m) => messageSize(m) > MAX_SAMPLING_TEXT)) throw new Error(`a sampling message may have at most ${MAX_SAMPLING_TEXT} characters`);
      // The system prompt too (red team H, session 18: 3 MB of it reached the model under an allow rule).
      if (req.systemPrompt && req.systemPrompt.length > MAX_SAMPLING_TEXT)
        throw new Error(`a sampling request's system prompt may have at most ${MAX_SAMPLING_TEXT} characters (it had ${req.systemPrompt.length})`);
      // Before anyone is asked: a request the model could not be sent is refused as such.
      const tools = samplingTools(req.tools ?? []);
      const messages = samplingMessages(req.messages, tools);
      const maxTokens = Math.max(1, Math.min(Math.floor(req.maxTokens) || 1, MAX_SAMPLING_TOKENS));
      const provider = deps.provider;
      const text = describeSampling(server, req, maxTokens, provider.model);
      const input = {
        name: server,
        ...(req.systemPrompt ? { systemPrompt: req.systemPrompt } : {}),
        maxTokens,
        messages: req.messages,
        ...(req.tools?.length ? { tools: req.tools.map((t) => t.name), toolChoice: req.toolChoice ?? "auto" } : {}),
      };
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
      let out = "";
      let usage: Usage | undefined;
      let stopReason = "endTurn";
      const toolUses: McpSamplingToolUse[] = [];
      try {
        const request = {
          system: req.systemPrompt ?? "",
          messages,
          tools: tools.specs,
          ...(tools.specs.length && req.toolChoice ? { toolChoice: req.toolChoice } : {}),
          maxOutputTokens: maxTokens,
          signal,
        };
        for await (const ev of provider.stream(request)) {
          if (ev.type === "text_delta") out += ev.text;
          else if (ev.type === "tool_call") toolUses.push(toolUseOf(ev, tools));
          else if (ev.type === "usage") usage = ev.usage;
          else if (ev.type === "done")
            stopReason =
              ev.stopReason === "max_tokens" || ev.stopReason === "length"
                ? "maxTokens"
                : ev.stopReason === "end_turn" || ev.stopReason === "stop"
                  ? "endTurn"
                  : ev.stopReason === "tool_use" || ev.stopReason === "tool_calls"
                    ? "toolUse"
                    : ev.stopReason;
          else if (ev.type === "log") api.record(ev.event);
        }
        // The server runs the calls: its answer must say so whatever the provider called the stop.
        if (toolUses.length) stopReason = "toolUse";
      } catch (err) {
        record(server, "sampling", "failed", err instanceof Error ? err.message : String(err));
        throw new Error(`the model did not answer: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      } finally {
        // Counted in the session's cost and budgets like any request (usage unknown: zero tokens, still recorded).
        const u = usage ?? emptyUsage();
        api.record({ type: "usage", usage: u, model: provider.model, costUsd: costOf(provider.model, u), sampling: server });
      }
      const calls = toolUses.length ? `, ${toolUses.length} tool call${toolUses.length === 1 ? "" : "s"} for the server to run (${toolUses.map((u) => u.name).join(", ")})` : "";
      record(server, "sampling", "answered", `${provider.model}, ${usage?.outputTokens ?? "?"} output tokens${calls}`);
      return { model: provider.model, text: out, stopReason, ...(toolUses.length ? { toolUses } : {}) };
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
      const url = ElicitUrl().safeParse(req.url);
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

/** A message's size as it is counted against MAX_SAMPLING_TEXT: its text, its calls' inputs and its results. */
function messageSize(m: McpSamplingMessage): number {
  let n = m.text.length;
  for (const u of m.toolUses ?? []) n += u.name.length + JSON.stringify(u.input).length;
  for (const r of m.toolResults ?? []) n += r.text.length;
  return n;
}

/**
 * The server's tools as the provider is given them. A name a provider may not take (Anthropic and
 * OpenAI: letters, digits, `_` and `-`, at most 64; MCP also allows `.` and 128) is given under a
 * stand-in, and the model's calls are returned under the server's own name.
 */
interface SamplingTools {
  specs: ToolSpec[];
  /** The server's name -> the name the model sees. */
  toModel: Map<string, string>;
  /** The name the model sees -> the server's name. */
  toServer: Map<string, string>;
}

function samplingTools(tools: McpSamplingTool[]): SamplingTools {
  if (tools.length > MAX_SAMPLING_TOOLS) throw new Error(`a sampling request may offer at most ${MAX_SAMPLING_TOOLS} tools (it offered ${tools.length})`);
  const size = JSON.stringify(tools).length;
  if (size > MAX_SAMPLING_TOOLS_TEXT) throw new Error(`a sampling request's tools may have at most ${MAX_SAMPLING_TOOLS_TEXT} characters of definitions (they had ${size})`);
  const toModel = new Map<string, string>();
  const toServer = new Map<string, string>();
  const specs: ToolSpec[] = [];
  for (const t of tools) {
    if (toModel.has(t.name)) throw new Error(`a sampling request offers the tool "${t.name}" twice`);
    let name = /^[A-Za-z0-9_-]{1,64}$/.test(t.name) ? t.name : t.name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 60) || "tool";
    for (let i = 2; toServer.has(name) || (name !== t.name && tools.some((o) => o.name === name)); i++) name = `${name.replace(/_\d+$/, "").slice(0, 58)}_${i}`;
    toModel.set(t.name, name);
    toServer.set(name, t.name);
    specs.push({ name, description: t.description ?? "", inputSchema: t.inputSchema });
  }
  return { specs, toModel, toServer };
}

/**
 * The request's messages as the provider is given them. MCP's rules are checked here, so a request
 * that breaks them is refused with the rule, not sent to the model: a user message with tool results
 * holds nothing else and answers, call by call, the tool calls of the assistant message before it.
 */
function samplingMessages(messages: McpSamplingMessage[], tools: SamplingTools): ModelMessage[] {
  const out: ModelMessage[] = [];
  let calls = new Map<string, string>(); // the previous assistant message's calls: id -> the model's name
  for (const [i, m] of messages.entries()) {
    const at = `message ${i + 1}`;
    if (m.role === "assistant") {
      if (m.toolResults?.length) throw new Error(`${at}: tool results come in a user message, not the assistant's`);
      const toolCalls = (m.toolUses ?? []).map((u) => ({ id: u.id, name: tools.toModel.get(u.name) ?? u.name, input: u.input }));
      if (new Set(toolCalls.map((c) => c.id)).size !== toolCalls.length) throw new Error(`${at}: two tool calls have the same id`);
      calls = new Map(toolCalls.map((c) => [c.id, c.name]));
      out.push({ role: "assistant", text: m.text, toolCalls });
      continue;
    }
    if (m.toolUses?.length) throw new Error(`${at}: tool calls come in an assistant message, not the user's`);
    const results = m.toolResults ?? [];
    if (results.length) {
      if (m.text.trim()) throw new Error(`${at}: a user message with tool results may hold nothing else (MCP)`);
      for (const r of results) {
        const name = calls.get(r.toolUseId);
        if (!name) throw new Error(`${at}: the tool result for "${r.toolUseId}" answers no tool call of the assistant message before it`);
        calls.delete(r.toolUseId);
        out.push({ role: "tool", callId: r.toolUseId, name, content: r.text, isError: r.isError });
      }
      if (calls.size) throw new Error(`${at}: no tool result for ${[...calls.keys()].map((id) => `"${id}"`).join(", ")} (each tool call of the assistant message before it needs one)`);
      continue;
    }
    if (calls.size) throw new Error(`${at}: the tool calls of the assistant message before it (${[...calls.keys()].map((id) => `"${id}"`).join(", ")}) need their results first`);
    out.push({ role: "user", text: m.text });
  }
  if (calls.size) throw new Error(`the last message's tool calls (${[...calls.keys()].map((id) => `"${id}"`).join(", ")}) need their results: the server runs them and asks again with them`);
  return out;
}

/** A tool call of the model as the server is given it: under the server's tool name, its input an object. */
function toolUseOf(ev: { id: string; name: string; input: unknown }, tools: SamplingTools): McpSamplingToolUse {
  const name = tools.toServer.get(ev.name);
  if (!name) throw new Error(`the model called "${ev.name}", a tool the server did not offer`);
  if (!ev.input || typeof ev.input !== "object" || Array.isArray(ev.input))
    throw new Error(`the model's call of "${name}" did not have a JSON object as its input: ${String(JSON.stringify(ev.input)).slice(0, 200)}`);
  return { id: ev.id, name, input: ev.input as Record<string, unknown> };
}
