/**
 * ModelMessage[] -> Anthropic Messages request parts, with prompt-cache breakpoints placed so a
 * stable prefix (system, tools, the conversation so far) is cached across turns.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { inputObject, pairToolResults } from "./conversation";
import type { ChatRequest, ImagePart, ToolSpec } from "./types";

type Block = Anthropic.ContentBlockParam;
type Param = { role: "user" | "assistant"; content: Block[] };

const EPHEMERAL = { type: "ephemeral" } as const;

/** Messages with alternating roles: tool results become tool_result blocks of one user message. */
export function toAnthropicMessages(req: ChatRequest): Param[] {
  const out: Param[] = [];
  const push = (role: Param["role"], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of pairToolResults(req.messages)) {
    if (m.role === "user") push("user", [{ type: "text", text: m.text.trim() ? m.text : "(empty message)" }, ...imageBlocks(m.images)]);
    else if (m.role === "tool") {
      // Images a tool returned go inside its tool_result, after its text (the Messages API takes image content there).
      const content = m.images?.length ? [{ type: "text" as const, text: m.content }, ...imageBlocks(m.images)] : m.content;
      push("user", [{ type: "tool_result", tool_use_id: m.callId, content, ...(m.isError ? { is_error: true } : {}) }]);
    } else {
      const blocks: Block[] = m.text.trim() ? [{ type: "text", text: m.text }] : [];
      for (const c of m.toolCalls) blocks.push({ type: "tool_use", id: c.id, name: c.name, input: inputObject(c.input) });
      push("assistant", blocks);
    }
  }
  // tool_result blocks must open their user message.
  for (const p of out) if (p.role === "user") p.content.sort((a, b) => rank(a) - rank(b));
  markLastUserMessages(out);
  return out;
}

function imageBlocks(images: readonly ImagePart[] | undefined): Anthropic.ImageBlockParam[] {
  return (images ?? []).map((i) => ({ type: "image", source: { type: "base64", media_type: i.mimeType as Anthropic.Base64ImageSource["media_type"], data: i.data } }));
}

const rank = (b: Block) => (b.type === "tool_result" ? 0 : 1);

/** Cache breakpoints on the last two user messages: this turn writes, the next turn reads. */
function markLastUserMessages(params: Param[]): void {
  let marked = 0;
  for (let i = params.length - 1; i >= 0 && marked < 2; i--) {
    if (params[i].role !== "user") continue;
    const blocks = params[i].content;
    const lastBlock = blocks[blocks.length - 1] as Block & { cache_control?: unknown };
    lastBlock.cache_control = EPHEMERAL;
    marked++;
  }
}

/** The system prompt as one cached text block (none when empty). */
export function toAnthropicSystem(system: string): Anthropic.TextBlockParam[] | undefined {
  return system ? [{ type: "text", text: system, cache_control: EPHEMERAL }] : undefined;
}

/** Tool definitions in the given order; the last one carries the cache breakpoint. */
export function toAnthropicTools(tools: ToolSpec[]): Anthropic.Tool[] {
  return tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: "object", ...t.inputSchema } as Anthropic.Tool.InputSchema,
    ...(i === tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
}
