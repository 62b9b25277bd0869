// A background agent's permission question (issue 24): in a real VS Code (code-server) with the
// scripted model over HTTP, a `background: true` custom agent runs a command the rules do not allow
// and asks through the panel. The card names the agent, its id and its branch (what the person sees);
// a New Session — and a message answered in it — neither answers nor withdraws the question: the
// card stays, the agent keeps waiting; "Allow once" then lets the agent run its command in its
// worktree and finish.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { agentsDir } from "../../src/node/background/paths";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

type Json = Record<string, unknown>;
const messages = (req: RecordedRequest) => (req.body.messages as Json[] | undefined) ?? [];
const systemOf = (req: RecordedRequest) => String(messages(req)[0]?.content ?? "");
const isAgent = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;
const convo = (req: RecordedRequest) => JSON.stringify(messages(req));

function script(req: RecordedRequest): ScriptedTurn {
  if (isAgent(req)) {
    if (toolResults(req) === 0) return { toolCalls: [{ name: "run_command", input: { command: "touch asked.txt" } }] };
    return { text: "ASKER-DONE: touched asked.txt." };
  }
  if (convo(req).includes("SECOND-SESSION")) return { text: "NEW-SESSION-ANSWER" };
  if (toolResults(req) === 0) return { toolCalls: [{ name: "task", input: { description: "Touch a file", prompt: "Touch asked.txt.", subagent_type: "bg-asker" } }] };
  return { text: "The asker is working in the background; back to you." };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("a background agent's question", () => {
  const vs = useYokeVscode({
    name: "background-agent-question",
    model: { script },
    files: {
      ".claude/agents/bg-asker.md": ["---", "name: bg-asker", "description: Touches a file in the background", "tools: Bash", "background: true", "---", "You touch files.", ""].join("\n"),
    },
    // Default mode: the agent's command is asked.
    userSettings: { "yoke.permissionMode": "default" },
  });

  it("names the agent, its id and branch; New Session neither answers nor withdraws it; Allow once lets the agent go on", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    vs.page.setDefaultNavigationTimeout(120_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    await sendPrompt(frame, "Touch the file in the background.");
    await waitForAssistantText(frame, "The asker is working in the background", 90_000);
    await waitForState(frame, "done");

    // The agent's question: the card says who asks.
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 90_000 });
    const records = () => (existsSync(agentsDir(vs.workspace, vs.server.home)) ? readdirSync(agentsDir(vs.workspace, vs.server.home)).filter((f) => f.endsWith(".json")) : []);
    await expect.poll(() => records().length, { timeout: 30_000 }).toBe(1);
    const record = JSON.parse(readFileSync(join(agentsDir(vs.workspace, vs.server.home), records()[0]!), "utf8")) as { id: string; branch: string; worktree: string };
    const asker = card.locator("[data-testid=permission-asker]");
    expect(await asker.textContent()).toBe(`The background agent bg-asker (agent ${record.id}, branch ${record.branch}) asks:`);
    expect(await asker.getAttribute("title")).toBe(`Works in ${record.worktree}`);
    expect(await card.locator(".permission-summary").textContent()).toContain("touch asked.txt");
    const callId = await card.getAttribute("data-call-id");
    // The Agents view says the agent waits on it.
    const agent = frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: "Touch asked.txt." }) });
    const asking = agent.locator("[data-testid=agent-asking]");
    await expect.poll(() => asking.textContent(), { timeout: 30_000 }).toBe("Waiting for your answer (in the card below): run_command touch asked.txt");
    await shot("agent-question-named");

    // New Session, and a message answered in it: the agent's question is still open, the same one, not answered.
    await frame.locator("[data-testid=new-session]").click();
    await sendPrompt(frame, "SECOND-SESSION: something else meanwhile.");
    await waitForAssistantText(frame, "NEW-SESSION-ANSWER", 90_000);
    await waitForState(frame, "done");
    expect(await card.getAttribute("data-call-id")).toBe(callId);
    expect(await asker.textContent()).toContain("bg-asker");
    expect(await agent.getAttribute("data-state")).toBe("running");
    expect(await asking.textContent()).toBe("Waiting for your answer (in the card below): run_command touch asked.txt");
    // The agent's model was not told anything meanwhile (no denial, no "stopped").
    expect(vs.llm.requests.filter(isAgent)).toHaveLength(1);
    expect(existsSync(join(record.worktree, "asked.txt"))).toBe(false);
    await shot("new-session-question-still-open");

    // Answered: the command runs in the agent's worktree, and the agent finishes.
    await card.locator("[data-testid=allow-once]").click();
    await expect.poll(() => agent.getAttribute("data-state"), { timeout: 120_000 }).toBe("finished");
    expect(existsSync(join(record.worktree, "asked.txt"))).toBe(true);
    expect(existsSync(vs.path("asked.txt"))).toBe(false);
    const agentRequests = vs.llm.requests.filter(isAgent);
    expect(agentRequests).toHaveLength(2);
    const told = convo(agentRequests[1]!);
    expect(told).not.toContain("The run was stopped");
    expect(told).not.toContain("replaced this one");
    expect(told).not.toContain("denied");
    expect(await frame.locator("[data-testid=permission-card]").count()).toBe(0);
    expect(await asking.isHidden()).toBe(true);
    await shot("agent-finished-after-allow");
  }, 420_000);
});
