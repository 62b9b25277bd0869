import { appendFileSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { ClaudeTranscriptProjector, transcriptUuid } from "../../../src/core/hooks/transcript";
import { createClaudeTranscriptWriter } from "../../../src/node/hook-transcript";

let seq = 0;
const ev = (e: NewEvent): SessionEvent => ({ ...e, seq: seq++, ts: `2030-01-01T00:00:0${seq % 10}.000Z` }) as SessionEvent;

function session(): SessionEvent[] {
  seq = 0;
  return [
    ev({ type: "session_start", sessionId: "s-1", cwd: "/w", provider: "anthropic", model: "claude-x", permissionMode: "default", trusted: true, version: 1 }),
    ev({ type: "status", state: "idle" }),
    ev({ type: "user_message", text: "fix the test" }),
    ev({ type: "assistant_message", text: "Running it.", reasoning: "think", toolCalls: [{ id: "toolu_1", name: "run_command", input: { command: "npm test" } }], stopReason: "tool_use" }),
    ev({ type: "usage", usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0 }, model: "claude-x" }),
    ev({ type: "tool_result", callId: "toolu_1", name: "run_command", output: "1 failed", isError: true, durationMs: 5 }),
    ev({ type: "assistant_message", text: "Fixed.", toolCalls: [], stopReason: "end_turn" }),
  ];
}

const shape = (name: string, input: unknown) => (name === "run_command" ? { name: "Bash", input: { command: (input as { command: string }).command, run_in_background: false } } : { name, input });

describe("the Claude-format transcript projection", () => {
  it("writes user, assistant (thinking, text, tool_use with Claude names, usage) and tool_result lines in a parent chain", () => {
    const p = new ClaudeTranscriptProjector(shape);
    const events = session();
    const lines = events.flatMap((e) => p.push(e));
    expect(lines.map((l) => l.type)).toEqual(["user", "assistant", "user", "assistant"]);
    const [user, a1, result, a2] = lines as unknown as Array<Record<string, unknown> & { message: { content: unknown; stop_reason?: unknown } }>;
    expect(user).toMatchObject({
      parentUuid: null,
      sessionId: "s-1",
      cwd: "/w",
      type: "user",
      message: { role: "user", content: "fix the test" },
      uuid: transcriptUuid("s-1", 2),
      timestamp: events[2]!.ts,
    });
    expect(a1!.parentUuid).toBe(user!.uuid);
    expect(a1!.message).toEqual({
      id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "thinking", thinking: "think", signature: "" },
        { type: "text", text: "Running it." },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "npm test", run_in_background: false } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 2, cache_creation_input_tokens: 0 },
    });
    expect(result).toMatchObject({ parentUuid: a1!.uuid, type: "user", message: { role: "user", content: [{ tool_use_id: "toolu_1", type: "tool_result", content: "1 failed", is_error: true }] } });
    expect(a2!.message.content).toEqual([{ type: "text", text: "Fixed." }]);
    expect(a2!.message.stop_reason).toBe("end_turn");
    expect(transcriptUuid("s-1", 2)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(transcriptUuid("s-1", 2)).not.toBe(transcriptUuid("s-1", 3));
  });
});

describe("createClaudeTranscriptWriter", () => {
  it("appends only what was logged since the last sync, and a hook can read it with jq-style parsing", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-transcript-")));
    const logPath = join(dir, "s-1.jsonl");
    const path = join(dir, "transcripts", "s-1.jsonl");
    const events = session();
    writeFileSync(
      logPath,
      events
        .slice(0, 3)
        .map((e) => JSON.stringify(e) + "\n")
        .join(""),
    );
    const w = createClaudeTranscriptWriter({ logPath, path, toolShape: shape });
    w.sync();
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(1);
    // A torn last line is left for the next sync.
    const rest = events
      .slice(3)
      .map((e) => JSON.stringify(e) + "\n")
      .join("");
    appendFileSync(logPath, rest.slice(0, rest.length - 20));
    w.sync();
    appendFileSync(logPath, rest.slice(rest.length - 20));
    w.sync();
    w.sync();
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["user", "assistant", "user", "assistant"]);
    const lastText = lines
      .filter((l) => l.type === "assistant")
      .at(-1)
      .message.content.find((c: { type: string }) => c.type === "text").text;
    expect(lastText).toBe("Fixed.");
    // A new writer (a resumed session in a new process) rewrites the same lines.
    const again = createClaudeTranscriptWriter({ logPath, path, toolShape: shape });
    again.sync();
    expect(
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual(lines);
  });
});
