// The panel's side of background agents (issue 24): the protocol messages of the Agents view are
// validated (ids that name no agent, a merge naming hunk 0, are refused), and an agent's session log
// becomes the lines of its read-only transcript.
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/core/events";
import { transcriptLines } from "../../../src/node/background/view";
import { parseHostToWebview, parseWebviewToHost } from "../../../src/protocol/messages";

describe("the Agents view's protocol", () => {
  it("takes a start with what to carry, and refuses an unknown carry or an empty task", () => {
    expect(parseWebviewToHost({ type: "agents.start", text: "fix the tide table", carry: "tracked" }).ok).toBe(true);
    expect(parseWebviewToHost({ type: "agents.start", text: "x", carry: "everything" }).ok).toBe(false);
    expect(parseWebviewToHost({ type: "agents.start", text: "", carry: "none" }).ok).toBe(false);
  });

  it("takes a merge of chosen hunks or whole files, and refuses hunk 0 and an id that is a path", () => {
    expect(
      parseWebviewToHost({
        type: "agents.merge",
        id: "a1b2c3d4",
        files: [
          { path: "tides.txt", hunks: [1] },
          { path: "logo.png", hunks: "all" },
        ],
      }).ok,
    ).toBe(true);
    expect(parseWebviewToHost({ type: "agents.merge", id: "a1b2c3d4", files: [{ path: "tides.txt", hunks: [0] }] }).ok).toBe(false);
    expect(parseWebviewToHost({ type: "agents.discard", id: "../../etc" }).ok).toBe(false);
    expect(parseWebviewToHost({ type: "agents.note", id: "a1b2c3d4", text: "also update the README" }).ok).toBe(true);
  });

  it("takes the merge strategy (apply the accepted hunks, or git merge of the branch) and Review in editor; refuses another strategy", () => {
    expect(parseWebviewToHost({ type: "agents.merge", id: "a1b2c3d4", files: [], strategy: "merge" }).ok).toBe(true);
    expect(parseWebviewToHost({ type: "agents.merge", id: "a1b2c3d4", files: [{ path: "tides.txt", hunks: "all" }], strategy: "apply" }).ok).toBe(true);
    expect(parseWebviewToHost({ type: "agents.merge", id: "a1b2c3d4", files: [], strategy: "rebase" }).ok).toBe(false);
    expect(parseWebviewToHost({ type: "agents.reviewInEditor", id: "a1b2c3d4" }).ok).toBe(true);
    expect(parseWebviewToHost({ type: "agents.reviewInEditor", id: "../a1b2" }).ok).toBe(false);
  });

  it("carries a refused merge's explanation and conflicts to the panel", () => {
    const r = parseHostToWebview({
      type: "agents.outcome",
      outcome: { id: "a1b2c3d4", action: "merge", ok: false, text: "Not merged", conflicts: [{ path: "harbour.txt", detail: "your line 3 and the agent's line 3 both change the original line 3" }] },
    });
    expect(r.ok).toBe(true);
    expect(parseHostToWebview({ type: "agents.outcome", outcome: { id: null, action: "start", ok: false, text: "open a folder", conflicts: [] } }).ok).toBe(true);
  });
});

describe("an agent's transcript", () => {
  it("shows the task, the answers, each tool call by its name and first argument, and errors", () => {
    const base = { v: 1, seq: 0, ts: "2026-01-01T00:00:00Z", sessionId: "s" };
    const events = [
      { ...base, type: "user_message", text: "TASK-A: update the tide table" },
      { ...base, type: "tool_call", callId: "c1", name: "read_file", input: { path: "/wt/task-a/tides.txt" } },
      { ...base, type: "tool_call", callId: "c2", name: "run_command", input: { command: "npm test\n--watch=false" } },
      { ...base, type: "assistant_message", text: "  " },
      { ...base, type: "error", message: "the model is overloaded" },
      { ...base, type: "assistant_message", text: "Updated the low water time.\n" },
    ] as unknown as SessionEvent[];
    expect(transcriptLines(events, "/wt/task-a")).toEqual([
      { kind: "user", text: "TASK-A: update the tide table" },
      { kind: "tool", text: "read_file tides.txt" },
      { kind: "tool", text: "run_command npm test" },
      { kind: "notice", text: "the model is overloaded" },
      { kind: "assistant", text: "Updated the low water time." },
    ]);
  });
});
