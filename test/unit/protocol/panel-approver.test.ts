// The panel's approver with several askers: the shown session's question, and background agents'
// questions (a `background: true` custom agent outlives the turn and the session that started it).
// Stop / New Session (cancel) withdraw only the session's own question; an agent's waits, named,
// until the person answers it; a new question of the session replaces its own, never an agent's.
import { describe, expect, it, vi } from "vitest";
import type { PermissionQuestion } from "../../../src/core/loop/types";
import type { PermissionView } from "../../../src/protocol/messages";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());
const { PanelApprover, askerWords } = await import("../../../src/host/panel-approver");

const question = (callId: string, asker?: PermissionQuestion["asker"]): PermissionQuestion => ({
  callId,
  tool: "run_command",
  permission: "Bash",
  input: { command: `touch ${callId}` },
  reason: "not allowed by a rule",
  summary: `touch ${callId}`,
  readOnly: false,
  ...(asker ? { asker } : {}),
});
const agent = { agent: "bg-asker", background: true, id: "a1b2c3", worktree: "/wt/bg-asker-a1b2c3", branch: "yoke/bg-asker-a1b2c3" };

describe("PanelApprover with background agents' questions", () => {
  it("cancel (Stop, New Session) denies the session's own question and leaves the agent's open; the agent's is then shown and answered by the person", async () => {
    const a = new PanelApprover(() => true);
    const shown: Array<PermissionView | null> = [];
    a.onDidChange((v) => shown.push(v));
    const fromAgent = a.ask(question("agent-call", agent), new AbortController().signal);
    await vi.waitFor(() => expect(a.current?.callId).toBe("agent-call"));
    expect(a.current?.asker).toEqual(agent);
    const own = a.ask(question("own-call"), new AbortController().signal);
    await vi.waitFor(() => expect(a.waitingOwn).toBe(true));
    // The agent's question stays first (shown); the session's waits behind it.
    expect(a.current?.callId).toBe("agent-call");
    a.cancel();
    expect(await own).toEqual({ decision: "deny", message: "The run was stopped." });
    expect(a.current?.callId).toBe("agent-call");
    expect(a.waitingOwn).toBe(false);
    let settled = false;
    void fromAgent.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(settled).toBe(false);
    expect(a.answer("agent-call", { decision: "allow" })).toBe(true);
    expect(await fromAgent).toEqual({ decision: "allow" });
    expect(a.current).toBeNull();
    expect(shown.at(-1)).toBeNull();
  });

  it("a new question of the session replaces its own, never an agent's; answering the shown one shows the next", async () => {
    const a = new PanelApprover(() => true);
    const first = a.ask(question("own-1"), new AbortController().signal);
    await vi.waitFor(() => expect(a.current?.callId).toBe("own-1"));
    const fromAgent = a.ask(question("agent-call", agent), new AbortController().signal);
    // Queued behind the shown one (after the rule proposal's await).
    await new Promise((r) => setTimeout(r, 0));
    expect(a.current?.callId).toBe("own-1");
    expect(a.answer("nope", { decision: "allow" })).toBe(false);
    const second = a.ask(question("own-2"), new AbortController().signal);
    expect(await first).toEqual({ decision: "deny", message: "Another permission question replaced this one." });
    // Now the agent's question is first; the session's second waits behind it.
    await vi.waitFor(() => expect(a.current?.callId).toBe("agent-call"));
    a.answer("agent-call", { decision: "deny", message: "not now" });
    expect(await fromAgent).toEqual({ decision: "deny", message: "not now" });
    expect(a.current?.callId).toBe("own-2");
    a.answer("own-2", { decision: "allow" });
    expect(await second).toEqual({ decision: "allow" });
  });

  it("an agent's run that is stopped (its signal) withdraws its question; the window closing denies every question", async () => {
    const a = new PanelApprover(() => true);
    const stop = new AbortController();
    const fromAgent = a.ask(question("agent-call", agent), stop.signal);
    await vi.waitFor(() => expect(a.current?.callId).toBe("agent-call"));
    stop.abort();
    expect(await fromAgent).toEqual({ decision: "deny", message: "The run was stopped." });
    const again = a.ask(question("agent-2", agent), new AbortController().signal);
    await vi.waitFor(() => expect(a.current?.callId).toBe("agent-2"));
    a.dispose();
    expect(await again).toEqual({ decision: "deny", message: "VS Code closed the session." });
  });

  it("says who asks in words", () => {
    expect(askerWords(agent)).toBe('the background agent "bg-asker" (a1b2c3, branch yoke/bg-asker-a1b2c3)');
    expect(askerWords({ agent: "reviewer", background: false })).toBe('the agent "reviewer"');
  });

  it("an agent with rules of its own: the card's rule is proposed from them, not the workspace's, and rulesOf hands them to Always allow", async () => {
    const a = new PanelApprover(() => true);
    const workspaceProposals: string[] = [];
    a.proposeRule = async (req) => (workspaceProposals.push(String(req.input.command)), "Bash(workspace:*)");
    const added: string[] = [];
    const rules = { propose: async () => "Bash(touch:*)", add: (rule: string, list: "allow" | "deny") => void added.push(`${list} ${rule}`) };
    const asked = a.ask({ ...question("agent-call", agent), rules }, new AbortController().signal);
    await vi.waitFor(() => expect(a.current?.callId).toBe("agent-call"));
    expect(a.current?.rule).toBe("Bash(touch:*)");
    expect(workspaceProposals).toEqual([]);
    expect(a.rulesOf("agent-call")).toBe(rules);
    // The session's own question: the workspace's proposal, no rules of its own.
    const own = a.ask(question("own-call"), new AbortController().signal);
    await vi.waitFor(() => expect(workspaceProposals).toEqual(["touch own-call"]));
    expect(a.rulesOf("own-call")).toBeUndefined();
    a.cancel();
    await own;
    a.answer("agent-call", { decision: "allow" });
    await asked;
    expect(added).toEqual([]);
  });
});
