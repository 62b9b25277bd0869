// The core Provider over VS Code's Language Model API (models other extensions provide, e.g. Copilot).
// The API reports no token usage: after each answer the usage is counted with the model's own
// tokenizer (LanguageModelChat.countTokens), so the context meter and compaction work; cost is unknown.
import { imagesAsNotes } from "../core/providers/images";
import * as vscode from "vscode";
import type { Usage } from "../core/events";
import { ProviderError, type ChatRequest, type ModelMessage, type Provider, type ProviderEvent } from "../core/providers/types";

async function selectModel(model: string): Promise<vscode.LanguageModelChat> {
  const tries: vscode.LanguageModelChatSelector[] = model ? [{ id: model }, { family: model }] : [{}];
  for (const selector of tries) {
    const [found] = await vscode.lm.selectChatModels(selector);
    if (found) return found;
  }
  const available = (await vscode.lm.selectChatModels({})).map((m) => m.id);
  throw new ProviderError(
    "not_found",
    available.length
      ? `No VS Code language model matches "${model}". Available: ${available.join(", ")}. Set yoke.model to one of them.`
      : "No VS Code language model is available. Install and sign in to an extension that provides one (e.g. GitHub Copilot), or choose another yoke.provider.",
  );
}

/** Converts the core conversation to the Language Model API's messages (the system prompt goes first, as a user message). */
export function toLmMessages(system: string, messages: ModelMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (toolResults.length) out.push(vscode.LanguageModelChatMessage.User(toolResults));
    toolResults = [];
  };
  // The Language Model API is given no images (not every chat model behind it takes them): each one is a note.
  for (const m of imagesAsNotes(messages, "the VS Code language model API provider")) {
    if (m.role === "tool") {
      const text = m.isError ? `Error: ${m.content}` : m.content;
      toolResults.push(new vscode.LanguageModelToolResultPart(m.callId, [new vscode.LanguageModelTextPart(text)]));
      continue;
    }
    flush();
    if (m.role === "user") {
      out.push(vscode.LanguageModelChatMessage.User(m.text));
    } else {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      if (m.text) parts.push(new vscode.LanguageModelTextPart(m.text));
      for (const c of m.toolCalls) {
        const input = c.input && typeof c.input === "object" ? (c.input as object) : { input: c.input };
        parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, input));
      }
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ""));
    }
  }
  flush();
  return out;
}

function classify(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof vscode.LanguageModelError) {
    const kind =
      err.code === vscode.LanguageModelError.NoPermissions.name
        ? "auth"
        : err.code === vscode.LanguageModelError.NotFound.name
          ? "not_found"
          : err.code === vscode.LanguageModelError.Blocked.name
            ? "rate_limit"
            : "server";
    const hint =
      kind === "auth"
        ? " Allow Yoke to use this model when VS Code asks, or choose another yoke.provider."
        : kind === "rate_limit"
          ? " The model's provider refused the request for now (a quota or rate limit); try again later or choose another yoke.model."
          : "";
    return new ProviderError(kind, `${err.message}${hint}`);
  }
  if (err instanceof vscode.CancellationError) return new ProviderError("aborted", "The request was cancelled.");
  return new ProviderError("server", err instanceof Error ? err.message : String(err));
}

/** Token counts of messages already counted, per model: each request counts only its new messages. */
const counted = new Map<string, number>();
const MAX_COUNTED = 5000;

async function countMessage(chat: vscode.LanguageModelChat, m: vscode.LanguageModelChatMessage, token: vscode.CancellationToken): Promise<number> {
  const key = `${chat.vendor}/${chat.id}\u0000${String(m.role)}\u0000${JSON.stringify(m.content)}`;
  const known = counted.get(key);
  if (known !== undefined) return known;
  const n = await chat.countTokens(m, token);
  if (counted.size >= MAX_COUNTED) counted.clear();
  counted.set(key, n);
  return n;
}

/** Input and output tokens by the model's tokenizer; undefined when the provider cannot count. */
async function countUsage(chat: vscode.LanguageModelChat, sent: vscode.LanguageModelChatMessage[], output: string, token: vscode.CancellationToken): Promise<Usage | undefined> {
  try {
    // Both inside async functions: a provider without countTokens rejects, it never throws past a pending promise.
    const countOutput = async () => (output ? chat.countTokens(output, token) : 0);
    const [inputs, outputTokens] = await Promise.all([Promise.all(sent.map((m) => countMessage(chat, m, token))), countOutput()]);
    const inputTokens = inputs.reduce((a, b) => a + b, 0);
    if (![inputTokens, outputTokens].every((n) => Number.isFinite(n) && n >= 0)) return undefined;
    return { inputTokens: Math.round(inputTokens), outputTokens: Math.round(outputTokens), cacheReadTokens: 0, cacheWriteTokens: 0 };
  } catch {
    return undefined;
  }
}

export function createVscodeLmProvider(model: string): Provider {
  return {
    id: "vscode-lm",
    model: model || "auto",
    async *stream(req: ChatRequest): AsyncIterable<ProviderEvent> {
      const cts = new vscode.CancellationTokenSource();
      const onAbort = () => cts.cancel();
      req.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        if (req.signal?.aborted) throw new ProviderError("aborted", "The request was cancelled.");
        const chat = await selectModel(model);
        const sent = toLmMessages(req.system, req.messages);
        const response = await chat.sendRequest(
          sent,
          {
            justification: "Yoke uses this model to answer in its chat panel.",
            // toolChoice (an MCP server's sampling request): "none" offers no tools, "required" asks for a call.
            tools: req.toolChoice === "none" ? [] : req.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
            toolMode: req.toolChoice === "required" ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
          },
          cts.token,
        );
        let sawTool = false;
        let output = "";
        for await (const part of response.stream) {
          if (part instanceof vscode.LanguageModelTextPart) {
            if (part.value) yield { type: "text_delta", text: part.value };
            output += part.value;
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            sawTool = true;
            output += JSON.stringify({ name: part.name, input: part.input });
            yield { type: "tool_call", id: part.callId, name: part.name, input: part.input };
          }
        }
        if (req.signal?.aborted) throw new ProviderError("aborted", "The request was cancelled.");
        const usage = await countUsage(chat, sent, output, cts.token);
        if (usage) yield { type: "usage", usage };
        yield { type: "done", stopReason: sawTool ? "tool_use" : "end_turn" };
      } catch (err) {
        throw req.signal?.aborted ? new ProviderError("aborted", "The request was cancelled.") : classify(err);
      } finally {
        req.signal?.removeEventListener("abort", onAbort);
        cts.dispose();
      }
    },
  };
}
