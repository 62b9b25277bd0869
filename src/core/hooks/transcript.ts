/**
 * The session as Claude Code writes its transcript (the file a hook's `transcript_path` names):
 * one JSON object per line, `type` "user" / "assistant" / "summary", each with `uuid`,
 * `parentUuid`, `sessionId`, `cwd`, `timestamp` and an Anthropic-style `message`: the user's
 * text; the assistant's `content` blocks (`thinking`, `text`, `tool_use` with the tool's Claude
 * name and hook input) and `usage`; tool results as `tool_result` blocks of a user line.
 * Hook scripts read it to find the last assistant message, the tools used, the token counts.
 * A projection of the event log: the same events always give the same lines.
 */
import type { SessionEvent } from "../events";

/** A Yoke tool call as Claude Code would have logged it: its permission name and hook input. */
export type ClaudeToolShape = (name: string, input: unknown) => { name: string; input: unknown };

export interface TranscriptLine {
  type: "user" | "assistant" | "summary";
  [key: string]: unknown;
}

/** A uuid-shaped id derived from the session and the event's position (stable across rewrites). */
export function transcriptUuid(sessionId: string, seq: number, part = 0): string {
  // FNV-1a over the inputs, spread into 128 bits: not random, only unique per (session, seq, part).
  const words: number[] = [];
  for (let k = 0; k < 4; k++) {
    let h = 0x811c9dc5 ^ k;
    for (const ch of `${sessionId}\u0000${seq}\u0000${part}\u0000${k}`) {
      h ^= ch.charCodeAt(0);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    words.push(h >>> 0);
  }
  const hex = words.map((w) => w.toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const STOP_REASON: Record<string, string> = { stop: "end_turn", end_turn: "end_turn", tool_calls: "tool_use", tool_use: "tool_use", length: "max_tokens", max_tokens: "max_tokens" };

/** Turns session events into transcript lines, one event at a time (keeps the parent chain). */
export class ClaudeTranscriptProjector {
  private sessionId = "";
  private cwd = "";
  private model = "";
  private parent: string | null = null;
  /** The last assistant line, still open for the usage event that follows it. */
  private openAssistant: { message: Record<string, unknown> } | undefined;

  constructor(private readonly toolShape: ClaudeToolShape = (name, input) => ({ name, input })) {}

  /** The lines this event adds (often none). */
  push(e: SessionEvent): TranscriptLine[] {
    if (e.type === "usage") {
      if (this.openAssistant) {
        this.openAssistant.message.usage = {
          input_tokens: e.usage.inputTokens,
          output_tokens: e.usage.outputTokens,
          cache_read_input_tokens: e.usage.cacheReadTokens,
          cache_creation_input_tokens: e.usage.cacheWriteTokens,
        };
      }
      return [];
    }
    this.openAssistant = undefined;
    switch (e.type) {
      case "session_start":
        this.sessionId = e.sessionId;
        this.cwd = e.cwd;
        this.model = e.model;
        return [];
      case "user_message": {
        const text = e.context ? `${e.text}\n\n<system-reminder>\n${e.context}\n</system-reminder>` : e.text;
        return [this.line(e, "user", { message: { role: "user", content: text }, ...(e.from === "hook" ? { isMeta: true } : {}) })];
      }
      case "assistant_message": {
        const content: Array<Record<string, unknown>> = [];
        if (e.reasoning) content.push({ type: "thinking", thinking: e.reasoning, signature: "" });
        if (e.text) content.push({ type: "text", text: e.text });
        for (const c of e.toolCalls) {
          const shape = this.safeShape(c.name, c.input);
          content.push({ type: "tool_use", id: c.id, name: shape.name, input: shape.input });
        }
        const message: Record<string, unknown> = {
          id: `msg_${transcriptUuid(this.sessionId, e.seq).replace(/-/g, "").slice(0, 24)}`,
          type: "message",
          role: "assistant",
          model: this.model,
          content,
          stop_reason: e.toolCalls.length ? "tool_use" : (STOP_REASON[e.stopReason ?? ""] ?? e.stopReason ?? "end_turn"),
          stop_sequence: null,
        };
        const line = this.line(e, "assistant", { message });
        this.openAssistant = { message };
        return [line];
      }
      case "tool_result":
        return [
          this.line(e, "user", {
            message: { role: "user", content: [{ tool_use_id: e.callId, type: "tool_result", content: e.output, is_error: e.isError }] },
            toolUseResult: e.isError ? `Error: ${e.output}` : e.output,
          }),
        ];
      case "context":
        return [this.line(e, "user", { message: { role: "user", content: `<context source="${e.source}">\n${e.text}\n</context>` }, isMeta: true })];
      default:
        return [];
    }
  }

  private safeShape(name: string, input: unknown): { name: string; input: unknown } {
    try {
      return this.toolShape(name, input);
    } catch {
      return { name, input };
    }
  }

  private line(e: SessionEvent, type: "user" | "assistant", body: Record<string, unknown>): TranscriptLine {
    const uuid = transcriptUuid(this.sessionId, e.seq);
    const line: TranscriptLine = {
      parentUuid: this.parent,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: "yoke",
      type,
      ...body,
      uuid,
      timestamp: e.ts,
    };
    this.parent = uuid;
    return line;
  }
}
