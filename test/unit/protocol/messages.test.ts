import { describe, expect, it } from "vitest";
import { parseHostToWebview, parseWebviewToHost, PROTOCOL_VERSION, type HostToWebview, type Snapshot, type WebviewToHost } from "../../../src/protocol/messages";

const snapshot: Snapshot = {
  protocol: PROTOCOL_VERSION,
  sessionId: "s-1",
  title: "fix the bug",
  state: "waiting_user",
  resumed: false,
  items: [
    { kind: "user", id: "u1", text: "fix the bug" },
    { kind: "assistant", id: "a2", text: "Looking.", reasoning: "hmm" },
    { kind: "tool", id: "call_1", name: "run_command", summary: "npm test", status: "asking", input: '{\n  "command": "npm test"\n}' },
    { kind: "todos", id: "t3", todos: [{ content: "write test", status: "in_progress" }] },
    { kind: "notice", id: "n4", level: "error", text: "rate limited" },
  ],
  omitted: 0,
  streaming: { text: "partial", reasoning: "" },
  pending: { callId: "call_1", tool: "run_command", permission: "Bash", summary: "npm test", detail: "{}", reason: "commands need approval" },
  usage: { inputTokens: 12_300, outputTokens: 1_200, cacheReadTokens: 0, costUsd: 0.04 },
  modelLabel: "demo model",
  mode: "default",
  restricted: true,
  firstRun: { servers: [{ name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder:7b" }], probing: false },
  history: [{ id: "s-1", title: "fix the bug", status: "interrupted", updatedAt: "2026-11-30T00:00:00Z", modelLabel: "demo model", active: true }],
};

const hostMessages: HostToWebview[] = [
  { type: "state", snapshot },
  { type: "event", view: { kind: "tool", id: "c", name: "read_file", summary: "a.ts", status: "done", durationMs: 12, input: "{}", output: "1#ZZ|x" } },
  { type: "delta", kind: "text", text: "Hel" },
  { type: "delta", kind: "reasoning", text: "think" },
  { type: "status", state: "thinking" },
  { type: "status", state: "done", detail: "finished" },
  { type: "usage", usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0 } },
  { type: "permission", request: null },
  { type: "history", sessions: [] },
  { type: "firstRun", info: { servers: [], probing: true } },
  { type: "error", message: "No API key for anthropic." },
];

const webviewMessages: WebviewToHost[] = [
  { type: "ready", protocol: PROTOCOL_VERSION },
  { type: "prompt", text: "hello\nworld" },
  { type: "stop" },
  { type: "continue" },
  { type: "newSession" },
  { type: "openSession", id: "20261130-abc" },
  { type: "permissionAnswer", callId: "call_1", decision: "allow" },
  { type: "permissionAnswer", callId: "call_1", decision: "allow", always: true },
  { type: "permissionAnswer", callId: "call_1", decision: "deny", message: "use pnpm" },
  { type: "useLocalServer", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3" },
  { type: "probeLocalServers" },
  { type: "setApiKey" },
  { type: "openLog" },
  { type: "openSettings" },
];

describe("protocol messages", () => {
  it("accepts every host message unchanged when it round-trips through JSON", () => {
    for (const msg of hostMessages) {
      const parsed = parseHostToWebview(JSON.parse(JSON.stringify(msg)));
      expect(parsed).toEqual({ ok: true, message: msg });
    }
  });

  it("accepts every webview message unchanged when it round-trips through JSON", () => {
    for (const msg of webviewMessages) {
      const parsed = parseWebviewToHost(JSON.parse(JSON.stringify(msg)));
      expect(parsed).toEqual({ ok: true, message: msg });
    }
  });

  it("rejects webview messages of unknown type or with bad fields", () => {
    const bad: unknown[] = [
      null,
      "prompt",
      { type: "exec", command: "rm -rf /" },
      { type: "prompt" },
      { type: "prompt", text: "" },
      { type: "prompt", text: 42 },
      { type: "openSession", id: "" },
      { type: "openSession", id: "../../../etc/passwd" },
      { type: "openSession", id: "/abs" },
      { type: "permissionAnswer", callId: "c1", decision: "maybe" },
      { type: "permissionAnswer", decision: "allow" },
      { type: "useLocalServer", baseUrl: "https://evil.example/v1", model: "m" },
      { type: "useLocalServer", baseUrl: "http://127.0.0.1:11434/v1", model: "" },
    ];
    for (const raw of bad) {
      const parsed = parseWebviewToHost(raw);
      expect(parsed.ok, JSON.stringify(raw)).toBe(false);
    }
  });

  it("names the offending field when it rejects a message", () => {
    const parsed = parseWebviewToHost({ type: "permissionAnswer", callId: "c1", decision: "maybe" });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("decision");
  });

  it("rejects host messages the webview cannot render", () => {
    const bad: unknown[] = [
      { type: "event", view: { kind: "html", id: "x", html: "<script>" } },
      { type: "status", state: "exploded" },
      { type: "delta", kind: "text" },
      { type: "state", snapshot: { ...snapshot, items: "nope" } },
      { type: "usage", usage: { inputTokens: "1" } },
    ];
    for (const raw of bad) expect(parseHostToWebview(raw).ok, JSON.stringify(raw)).toBe(false);
  });
});
