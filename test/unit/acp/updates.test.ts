/** The mapping of a session's events to ACP updates, from the tools' own descriptions (kind, pathArgs, changes). */
import { describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { toolKind } from "../../../src/core/tools/types";
import { mcpSettings } from "../../../src/node/acp/mcp-servers";
import { promptText } from "../../../src/node/acp/prompt";
import { replay, updatesFor } from "../../../src/node/acp/updates";
import { stopReasonOf } from "../../../src/node/acp/agent";
import type { SessionEvent } from "../../../src/core/events";

const tools = [...createBuiltinTools("edit_file"), ...createBuiltinTools("apply_patch")];
const ctx = { tool: (n: string) => tools.find((t) => t.name === n), root: "/ws" };
const base = { seq: 0, ts: "2026-12-04T00:00:00Z" };

describe("tool kinds", () => {
  it("every built-in tool says what kind of action it is", () => {
    expect(Object.fromEntries(tools.map((t) => [t.name, toolKind(t)]))).toEqual({
      read_file: "read",
      list_files: "search",
      glob: "search",
      grep: "search",
      edit_file: "edit",
      apply_patch: "edit",
      write_file: "edit",
      run_command: "execute",
      command_output: "execute",
      kill_command: "execute",
      todo_write: "think",
    });
  });

  it("a tool without a kind gets one from its capabilities", () => {
    expect(toolKind({ capabilities: { network: true } })).toBe("fetch");
    expect(toolKind({ capabilities: { reads: true, writes: true } })).toBe("edit");
    expect(toolKind({ capabilities: { runs: true } })).toBe("execute");
    expect(toolKind({ capabilities: { reads: true } })).toBe("read");
    expect(toolKind({ capabilities: {} })).toBe("other");
  });
});

describe("updatesFor", () => {
  it("a tool call with its kind and locations; its result with the diff the tool describes", () => {
    const call: SessionEvent = { ...base, type: "assistant_message", text: "", toolCalls: [{ id: "c1", name: "edit_file", input: { path: "src/a.ts", edits: [] }, summary: "src/a.ts" }] };
    expect(updatesFor(call, ctx)).toEqual([
      { sessionUpdate: "tool_call", toolCallId: "c1", title: "edit_file src/a.ts", kind: "edit", status: "pending", locations: [{ path: "/ws/src/a.ts" }], rawInput: { path: "src/a.ts", edits: [] } },
    ]);
    const result: SessionEvent = {
      ...base,
      type: "tool_result",
      callId: "c1",
      name: "edit_file",
      output: "ok",
      isError: false,
      durationMs: 1,
      meta: { path: "src/a.ts", before: "a\n", after: "b\n" },
    };
    expect(updatesFor(result, ctx)[0]).toMatchObject({
      status: "completed",
      content: [
        { type: "diff", path: "/ws/src/a.ts", oldText: "a\n", newText: "b\n" },
        { type: "content", content: { type: "text", text: "ok" } },
      ],
    });
    // An unchanged file has no diff; a tool the session does not know is "other" with no locations.
    expect(updatesFor({ ...result, meta: { path: "src/a.ts", before: "a\n", after: "a\n" } }, ctx)[0]).toMatchObject({ content: [{ type: "content" }] });
    expect(updatesFor({ ...call, toolCalls: [{ id: "c2", name: "mcp__x__y", input: { path: "a" } }] }, ctx)[0]).toMatchObject({ kind: "other", locations: [] });
  });

  it("streamed text is not sent twice; a hook's message is not the user's; the todo list is a plan", () => {
    const msg: SessionEvent = { ...base, type: "assistant_message", text: "hi", reasoning: "hmm", toolCalls: [] };
    expect(updatesFor(msg, ctx, { streamed: { text: true, reasoning: true } })).toEqual([]);
    expect(updatesFor(msg, ctx).map((u) => u.sessionUpdate)).toEqual(["agent_thought_chunk", "agent_message_chunk"]);
    expect(updatesFor({ ...base, type: "user_message", text: "go on", from: "hook" }, ctx)).toEqual([]);
    expect(updatesFor({ ...base, type: "todos", todos: [{ content: "x", status: "in_progress" }] }, ctx)).toEqual([
      { sessionUpdate: "plan", entries: [{ content: "x", status: "in_progress", priority: "medium" }] },
    ]);
    expect(
      replay(
        [
          { ...base, type: "user_message", text: "q" },
          { ...base, type: "mode_change", mode: "plan", from: "default", by: "user" },
        ],
        ctx,
        "s1",
      ),
    ).toEqual([{ sessionId: "s1", update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "q" } } }]);
  });

  it("background agents' handed-back results are shown as the agent's message; other context (guidance, hooks) is the model's only", () => {
    const handed: SessionEvent = { ...base, type: "context", source: "subagents", text: "The background agent x finished: done." };
    expect(updatesFor(handed, ctx)).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "\n\nThe background agent x finished: done.\n\n" } }]);
    expect(updatesFor({ ...base, type: "context", source: "guidance", text: "rules" }, ctx)).toEqual([]);
    expect(updatesFor({ ...base, type: "context", source: "hooks", text: "hook said" }, ctx)).toEqual([]);
    expect(replay([handed], ctx, "s1")).toHaveLength(1);
  });

  it("the stop reason of a turn", () => {
    const status = (state: "done" | "cancelled" | "error"): SessionEvent => ({ ...base, type: "status", state });
    expect(stopReasonOf([status("done")])).toBe("end_turn");
    expect(stopReasonOf([status("cancelled"), { ...base, type: "status", state: "idle" }])).toBe("cancelled");
    expect(stopReasonOf([{ ...base, type: "assistant_message", text: "…", toolCalls: [], stopReason: "max_tokens" }, status("done")])).toBe("max_tokens");
    expect(stopReasonOf([{ ...base, type: "assistant_message", text: "", toolCalls: [], stopReason: "refusal" }, status("done")])).toBe("refusal");
    expect(stopReasonOf([{ ...base, type: "error", message: "Stopped after 3 model turns", code: "max_turns" }, status("error")])).toBe("max_turn_requests");
  });
});

describe("prompt and MCP servers from the editor", () => {
  it("a prompt's blocks as the user message the model reads", () => {
    expect(
      promptText([
        { type: "text", text: "Fix it." },
        { type: "resource_link", name: "a.ts", uri: "file:///ws/a.ts" },
        { type: "resource", resource: { uri: "file:///ws/b.ts", text: "const b = 1;" } },
        { type: "resource", resource: { uri: "file:///ws/c.png", blob: "AAAA", mimeType: "image/png" } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ]),
    ).toBe(
      [
        "Fix it.",
        "[The user attached a.ts: /ws/a.ts]",
        '<attached-file path="/ws/b.ts">\nconst b = 1;\n</attached-file>',
        "[The user attached /ws/c.png (image/png), which cannot be shown as text.]",
        "[The user attached an image, which this agent cannot see.]",
      ].join("\n\n"),
    );
  });

  it("the editor's servers as settings entries for Yoke's MCP mechanism", () => {
    expect(
      mcpSettings([
        { name: "files", command: "node", args: ["srv.js"], env: [{ name: "TOKEN", value: "t" }] },
        { type: "http", name: "web", url: "https://example.test/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
      ]),
    ).toEqual({
      files: { command: "node", args: ["srv.js"], env: { TOKEN: "t" }, expandVariables: false },
      web: { type: "http", url: "https://example.test/mcp", headers: { Authorization: "Bearer x" }, expandVariables: false },
    });
  });
});
