/**
 * A Yoke session's events as ACP `session/update`s: the same mapping for a live prompt (with the
 * streamed text) and for `session/load` (the stored log replayed). Tool calls carry their kind,
 * the files they touch (locations) and, when they changed files, diffs — each from the tool's own
 * description (kind, pathArgs, changes); nothing here knows a tool by its name.
 */
import type { SessionNotification, SessionUpdate, ToolCallContent, ToolCallLocation, ToolKind as AcpToolKind } from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../../core/events";
import { toolKind, type ToolDefinition } from "../../core/tools/types";
import { isAbsolute, join } from "node:path";

export interface UpdateContext {
  /** The session's tools by name (absent: an extension's tool, e.g. MCP, shown as "other"). */
  tool(name: string): ToolDefinition | undefined;
  /** The first workspace folder: relative paths are resolved against it. */
  root: string;
}

const abs = (root: string, p: string) => (isAbsolute(p) ? p : join(root, p));

/** The files a call names, from the tool's path arguments. */
export function locationsOf(def: ToolDefinition | undefined, input: unknown, root: string): ToolCallLocation[] {
  if (!def?.pathArgs || !input || typeof input !== "object") return [];
  const out: ToolCallLocation[] = [];
  for (const a of def.pathArgs) {
    const v = (input as Record<string, unknown>)[a];
    if (typeof v === "string" && v) out.push({ path: abs(root, v) });
  }
  return out;
}

export function kindOf(def: ToolDefinition | undefined): AcpToolKind {
  return def ? toolKind(def) : "other";
}

/** The source of the context events that carry background agents' results (src/core/subagents, src/node/background/hand-back.ts). */
const HANDED_BACK = "subagents";

/** A handed-back result as the editor shows it: set apart from the model's own words before and after it. */
export function handedBackText(text: string): string {
  return `\n\n${text.trim()}\n\n`;
}

/** The updates one event makes (none for most). `streamed`: the text and reasoning already went out as chunks. */
export function updatesFor(e: SessionEvent, ctx: UpdateContext, opts: { streamed?: { text: boolean; reasoning: boolean } } = {}): SessionUpdate[] {
  switch (e.type) {
    case "user_message":
      // Only the user's own words: a hook's or an extension's message is not the user's.
      return (e.from ?? "user") === "user" ? [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: e.text } }] : [];
    case "assistant_message": {
      const out: SessionUpdate[] = [];
      if (e.reasoning && !opts.streamed?.reasoning) out.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: e.reasoning } });
      if (e.text && !opts.streamed?.text) out.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: e.text } });
      for (const c of e.toolCalls) {
        const def = ctx.tool(c.name);
        out.push({
          sessionUpdate: "tool_call",
          toolCallId: c.id,
          title: c.summary ? `${c.name} ${c.summary}` : c.name,
          kind: kindOf(def),
          status: "pending",
          locations: locationsOf(def, c.input, ctx.root),
          rawInput: c.input,
        });
      }
      return out;
    }
    case "tool_call":
      return [{ sessionUpdate: "tool_call_update", toolCallId: e.callId, status: "in_progress" }];
    case "tool_result": {
      const def = ctx.tool(e.name);
      const diffs: ToolCallContent[] = (def?.changes?.({ meta: e.meta }) ?? []).map((c) => ({ type: "diff", path: abs(ctx.root, c.path), oldText: c.before ?? null, newText: c.after }));
      const content: ToolCallContent[] = [...diffs, { type: "content", content: { type: "text", text: e.output } }];
      return [{ sessionUpdate: "tool_call_update", toolCallId: e.callId, status: e.isError ? "failed" : "completed", content, rawOutput: { output: e.output, isError: e.isError } }];
    }
    case "todos":
      return [{ sessionUpdate: "plan", entries: e.todos.map((t) => ({ content: t.content, status: t.status, priority: "medium" })) }];
    case "mode_change":
      return [{ sessionUpdate: "current_mode_update", currentModeId: e.mode }];
    case "context":
      // What background agents handed back (while the session ran, or kept for it and delivered when it was opened again):
      // the editor shows it as the panel does. Other context (guidance, hooks' additions) is the model's only.
      return e.source === HANDED_BACK ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: handedBackText(e.text) } }] : [];
    default:
      return [];
  }
}

/** The stored session as updates, in order (session/load). */
export function replay(events: readonly SessionEvent[], ctx: UpdateContext, sessionId: string): SessionNotification[] {
  return events.flatMap((e) =>
    updatesFor(e, ctx)
      .filter((u) => u.sessionUpdate !== "current_mode_update")
      .map((update) => ({ sessionId, update })),
  );
}
