/**
 * A long session log for the long-session bench, tests and the e2e test: `events` events of real
 * turns (a user message, the model's reasoning and tool calls, their results, usage, a closing
 * answer), each a valid SessionEvent. Deterministic: the same count gives the same log, so the
 * figures of two runs compare. The user messages are numbered ("Request #0001: …"), so a test can
 * search for one far back and scroll to the first.
 */
import { SessionEvent, type NewEvent } from "../../core/events";

export interface LongSessionOptions {
  /** Number of events (at least 2). Default 10,000. */
  events?: number;
  sessionId?: string;
  cwd?: string;
  /** Time of the first event; each next one is a second later. */
  start?: Date;
}

const WORDS = "the parser reads each line of the log and keeps the events it can validate while the panel shows what happened in order".split(" ");

function sentence(n: number, len: number): string {
  const out: string[] = [];
  for (let i = 0; i < len; i++) out.push(WORDS[(n * 7 + i * 3) % WORDS.length]!);
  return out.join(" ");
}

/** The text of the user's message of turn `turn` (0-based). */
export function longSessionPrompt(turn: number): string {
  return `Request #${String(turn + 1).padStart(4, "0")}: look at src/module-${turn % 97}.ts and ${sentence(turn, 8)}`;
}

/** The log lines (JSON, one event each), the first a session_start. */
export function longSessionLines(opts: LongSessionOptions = {}): string[] {
  const total = Math.max(2, opts.events ?? 10_000);
  const sessionId = opts.sessionId ?? "20260101-000000-long00";
  const t0 = (opts.start ?? new Date("2026-01-01T00:00:00Z")).getTime();
  const lines: string[] = [];
  const push = (e: NewEvent) => {
    if (lines.length >= total) return;
    const full = SessionEvent.parse({ ...e, seq: lines.length, ts: new Date(t0 + lines.length * 1000).toISOString() });
    lines.push(JSON.stringify(full));
  };
  push({ type: "session_start", sessionId, cwd: opts.cwd ?? "/workspace", provider: "openai-compatible", model: "scripted-long", permissionMode: "default", trusted: true, version: 1 });
  for (let turn = 0; lines.length < total; turn++) {
    push({ type: "user_message", text: longSessionPrompt(turn) });
    push({ type: "status", state: "thinking" });
    const callId = `call_${turn}`;
    const path = `src/module-${turn % 97}.ts`;
    push({
      type: "assistant_message",
      text: `I will read \`${path}\` first.`,
      reasoning: sentence(turn + 1, 24),
      toolCalls: [{ id: callId, name: "read_file", input: { path }, summary: path }],
    });
    push({ type: "usage", usage: { inputTokens: 1200 + turn, outputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 0 }, model: "scripted-long" });
    push({ type: "status", state: "waiting_tool" });
    push({ type: "tool_call", callId, name: "read_file", input: { path } });
    const body = Array.from({ length: 30 }, (_, i) => `${i + 1}:ab|export const value${i} = ${turn * 31 + i}; // ${sentence(turn + i, 6)}`).join("\n");
    push({ type: "tool_result", callId, name: "read_file", output: body, isError: false, durationMs: 3 });
    push({
      type: "assistant_message",
      text: `Turn ${turn + 1}: \`${path}\` exports 30 values.\n\n- ${sentence(turn + 2, 12)}\n- ${sentence(turn + 3, 10)}\n\n\`\`\`ts\nexport const value0 = ${turn * 31};\n\`\`\``,
      toolCalls: [],
    });
    push({ type: "usage", usage: { inputTokens: 1500 + turn, outputTokens: 120, cacheReadTokens: 1200, cacheWriteTokens: 0 }, model: "scripted-long" });
    push({ type: "status", state: "done" });
  }
  return lines;
}
