// How permission decisions, the sandbox and a pending question of a session log reach the panel.
import { describe, expect, it } from "vitest";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { describeDecision, SessionViewModel } from "../../../src/node/panel/view-model";
import { parseHostToWebview, parseWebviewToHost } from "../../../src/protocol/messages";

function log(events: NewEvent[]): SessionEvent[] {
  return events.map((e, seq) => ({ ...e, seq, ts: `2026-11-30T00:00:${String(seq).padStart(2, "0")}Z` }) as SessionEvent);
}

const start: NewEvent = {
  type: "session_start",
  sessionId: "s1",
  cwd: "/w",
  provider: "openai-compatible",
  model: "qwen",
  permissionMode: "default",
  trusted: true,
  sandbox: "none",
  sandboxWarning: "Sandbox off: commands run with your full user rights.",
  version: 1,
};

const call = (id: string, command: string): NewEvent => ({ type: "assistant_message", text: "", toolCalls: [{ id, name: "run_command", input: { command } }] });

describe("describeDecision", () => {
  it("names the rule, the hook's message, the mode or the user who decided", () => {
    expect(describeDecision({ decision: "deny", by: "rule", rule: "Bash(git push:*)" })).toBe("denied by rule Bash(git push:*)");
    expect(describeDecision({ decision: "allow", by: "rule", rule: "Bash(npm run test:*)" })).toBe("allowed by rule Bash(npm run test:*)");
    expect(describeDecision({ decision: "deny", by: "hook", message: "no rm here" })).toBe("denied by hook: no rm here");
    expect(describeDecision({ decision: "allow", by: "user" })).toBe("asked you: allowed");
    expect(describeDecision({ decision: "deny", by: "user", message: "use pnpm" })).toBe("asked you: denied (use pnpm)");
    expect(describeDecision({ decision: "allow", by: "mode" })).toBe("allowed by the permission mode");
    expect(describeDecision({ decision: "deny", by: "restricted" })).toBe("denied: Restricted Mode");
  });
});

describe("SessionViewModel permissions", () => {
  it("puts the decision on the tool card and keeps the sandbox of the session", () => {
    const vm = new SessionViewModel(
      log([
        start,
        { type: "user_message", text: "push it" },
        call("c1", "git push"),
        { type: "permission_decision", callId: "c1", decision: "deny", by: "rule", rule: "Bash(git push:*)", message: "Denied by the rule Bash(git push:*)" },
      ]),
    );
    const card = vm.items().items.find((i) => i.id === "c1");
    expect(card).toMatchObject({ kind: "tool", status: "denied", decision: "denied by rule Bash(git push:*)" });
    expect(vm.sandbox).toEqual({ name: "none", warning: "Sandbox off: commands run with your full user rights." });
  });

  it("reports a question the log ended with as pending, and none once it was answered", () => {
    const asked: NewEvent[] = [
      start,
      { type: "user_message", text: "run tests" },
      call("c2", "npm test"),
      { type: "permission_request", callId: "c2", tool: "run_command", permission: "Bash", input: { command: "npm test" }, reason: "needs approval" },
      { type: "status", state: "waiting_user", detail: "run_command" },
    ];
    expect(new SessionViewModel(log(asked)).pending?.callId).toBe("c2");
    const answered = [...asked, { type: "permission_decision", callId: "c2", decision: "allow", by: "user" } as NewEvent];
    expect(new SessionViewModel(log(answered)).pending).toBeNull();
  });
});

describe("protocol: permissions and commands", () => {
  it("accepts the mode switch and process kill from the webview, and rejects an unknown mode", () => {
    expect(parseWebviewToHost({ type: "setMode", mode: "plan" }).ok).toBe(true);
    expect(parseWebviewToHost({ type: "killProcess", id: "c3" }).ok).toBe(true);
    const bad = parseWebviewToHost({ type: "setMode", mode: "yolo" });
    expect(bad.ok).toBe(false);
  });

  it("carries the mode, settings problems, sandbox and background commands to the webview", () => {
    const msg = {
      type: "hostInfo",
      info: { mode: "default", problems: ["x.json:1:2: invalid JSON"], sandbox: { name: "bwrap", network: "off" }, background: [{ id: "c4", command: "npm run dev" }] },
    };
    const parsed = parseHostToWebview(msg);
    expect(parsed.ok && parsed.message).toEqual(msg);
  });
});
