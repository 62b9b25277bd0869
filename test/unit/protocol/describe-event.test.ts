// Each mechanism describes its own events once (core/*/describe.ts, listed in core/describe-event.ts):
// the panel's view model shows the text as a notice and the CLI prints the same text as a line.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createConsoleRenderer } from "../../../src/cli/render";
import { describeEvent } from "../../../src/core/describe-event";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { SessionViewModel } from "../../../src/node/panel/view-model";

function cliLines(events: SessionEvent[]): string[] {
  let text = "";
  const sink = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  const r = createConsoleRenderer(sink, sink);
  for (const e of events) r.event(e);
  return text.split("\n").filter(Boolean);
}

const at = (events: NewEvent[]): SessionEvent[] => events.map((e, seq) => ({ ...e, seq, ts: "2026-12-01T00:00:00Z" }) as SessionEvent);

// One event of each described type (besides the loop-control ones, test/unit/loopctl/panel-view.test.ts).
const described: NewEvent[] = [
  { type: "breaker", scope: "tool", key: "lookup", state: "open", failures: 5, message: "Circuit open for tool lookup after 5 consecutive failure(s); calls are refused for 30 s." },
  { type: "fallback", from: "anthropic:a", to: "anthropic:b", reason: "anthropic:a failed and its circuit opened" },
  { type: "budget", limit: "cost", turns: 2, costUsd: 0.8, elapsedS: 3, report: "Stopped: the cost budget of $0.5000 is used up." },
  { type: "stuck", pattern: "repeat", action: "stop", detail: "you called read_file with the same arguments 4 times" },
  { type: "tool_queued", callId: "c1", name: "run_command", gate: "commands", position: 1, limit: 4 },
  { type: "verification", kind: "check", status: "failed", source: "verification.command", command: "npm test", exitCode: 1, durationMs: 1200, attempt: 1, maxReflections: 2 },
  { type: "cache_break", kind: "tools", detail: "the tool list changed", keptMessages: 3 },
  { type: "mode_change", mode: "plan", from: "default", by: "user" },
  { type: "model_change", provider: "openai-compatible", model: "big-model", from: "local-model", by: "user" },
  { type: "extension", name: "hooks", point: "beforeTool", outcome: "error", detail: "boom" },
  { type: "review_decision", editId: "e1", path: "src/a.ts", status: "rejected", by: "user", message: "not like this" },
  { type: "mcp_server", server: "files", state: "failed", detail: "spawn files-mcp ENOENT" },
  { type: "checkpoint", turn: 1, reason: "turn", folders: [{ name: "app", root: "/w/app", skipped: [], partial: true, durationMs: 2500 }] },
];

describe("one describe per mechanism, for the panel and the CLI", () => {
  it("the panel's notice and the CLI's line carry the same text", () => {
    const events = at(described);
    const vm = new SessionViewModel();
    const notices = events.flatMap((e) => vm.apply(e)).filter((v) => v.kind === "notice");
    const lines = cliLines(events);
    expect(notices).toHaveLength(described.length);
    expect(lines).toHaveLength(described.length);
    events.forEach((e, i) => {
      const note = describeEvent(e)!;
      expect(note.text).not.toBe("");
      expect(notices[i]).toMatchObject({ kind: "notice", level: note.level, text: note.text });
      expect(lines[i]!.endsWith(note.text)).toBe(true);
    });
    // The CLI keeps its marks: the mechanism's own, else the level's.
    expect(lines.slice(0, 4).map((l) => l.split(" ")[0])).toEqual(["⚡", "↪", "■", "↻"]);
    expect(lines[5]).toMatch(/^✗ check `npm test` failed/);
  });

  it("an MCP server that failed is said in both (the mcp_server event is no longer drawn by nobody)", () => {
    const [e] = at([{ type: "mcp_server", server: "files", state: "failed", detail: "spawn files-mcp ENOENT" }]);
    expect(new SessionViewModel().apply(e!)).toEqual([{ kind: "notice", id: "n0", level: "warning", text: "MCP server files failed: spawn files-mcp ENOENT. Its tools are not available." }]);
    expect(cliLines([e!])).toEqual(["⚠ MCP server files failed: spawn files-mcp ENOENT. Its tools are not available."]);
    // A running server is shown in the panel's MCP list, not as a line.
    expect(describeEvent(at([{ type: "mcp_server", server: "files", state: "running", tools: 3 }])[0]!)).toBeUndefined();
  });

  it("says nothing for what is not worth a line, in either", () => {
    const quiet = at([
      { type: "checkpoint", turn: 1, reason: "turn", folders: [{ name: "app", root: "/w/app", skipped: [], durationMs: 20 }] },
      { type: "extension", name: "hooks", point: "beforeTool", outcome: "blocked" },
      { type: "review_proposed", editId: "e1", callId: "c1", path: "/w/a.ts", relPath: "a.ts", mode: "auto" } as NewEvent,
    ]);
    expect(quiet.flatMap((e) => new SessionViewModel().apply(e))).toEqual([]);
    expect(cliLines(quiet)).toEqual([]);
  });

  it("a change the permission mode accepted is a notice in the panel and left out of the CLI (routine)", () => {
    const [e] = at([{ type: "review_decision", editId: "e1", path: "src/a.ts", status: "accepted", by: "mode" }]);
    expect(new SessionViewModel().apply(e!)).toEqual([{ kind: "notice", id: "n0", level: "info", text: "Change to src/a.ts accepted by the permission mode." }]);
    expect(cliLines([e!])).toEqual([]);
  });
});
