// "Always allow" on a background agent's question (issue 24): in a real VS Code (code-server) with the
// scripted model over HTTP, a `background: true` custom agent — which works in a git worktree, under
// that folder's permission rules — runs `touch again.txt`, which the rules do not allow, and asks
// through the panel. The person answers "Always allow" once. The rule is saved in the workspace's
// .yoke/settings.local.json (as the card says), not in the agent's worktree (it would become part
// of the agent's change), and it governs the agent too: its next, identical call runs without a
// question, allowed by that rule, in its worktree.
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

function script(req: RecordedRequest): ScriptedTurn {
  if (isAgent(req)) {
    // The same command twice: the second is the "later identical call".
    if (toolResults(req) < 2) return { toolCalls: [{ name: "run_command", input: { command: "touch again.txt" } }] };
    return { text: "ALWAYS-DONE: touched again.txt twice." };
  }
  if (toolResults(req) === 0) return { toolCalls: [{ name: "task", input: { description: "Touch a file", prompt: "Touch again.txt twice.", subagent_type: "bg-toucher" } }] };
  return { text: "The toucher is working in the background." };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("Always allow on a background agent's question", () => {
  const vs = useYokeVscode({
    name: "background-agent-always-allow",
    model: { script },
    files: {
      ".claude/agents/bg-toucher.md": ["---", "name: bg-toucher", "description: Touches a file in the background", "tools: Bash", "background: true", "---", "You touch files.", ""].join("\n"),
    },
    // Default mode: the agent's command is asked.
    userSettings: { "yoke.permissionMode": "default" },
  });

  it("saves the rule for the workspace and lets the agent's next identical call run without asking", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    vs.page.setDefaultNavigationTimeout(120_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    await sendPrompt(frame, "Touch the file twice in the background.");
    await waitForAssistantText(frame, "The toucher is working in the background", 90_000);
    await waitForState(frame, "done");

    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 90_000 });
    const dir = agentsDir(vs.workspace, vs.server.home);
    const records = () => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : []);
    await expect.poll(() => records().length, { timeout: 30_000 }).toBe(1);
    const record = JSON.parse(readFileSync(join(dir, records()[0]!), "utf8")) as { id: string; branch: string; worktree: string; sessionDir: string; sessionId: string };
    expect(await card.locator("[data-testid=permission-asker]").textContent()).toContain("bg-toucher");
    // The rule offered covers the agent's command (Yoke proposes a prefix rule for touch).
    const always = card.locator("[data-testid=always-allow]");
    const rule = String(await always.textContent()).replace(/^Always allow /, "");
    expect(rule).toBe("Bash(touch:*)");
    await shot("agent-question-always-offered");
    await always.click();

    // The agent finishes with no second question.
    const agent = frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: "Touch again.txt twice." }) });
    await expect.poll(() => agent.getAttribute("data-state"), { timeout: 120_000 }).toBe("finished");
    expect(await frame.locator("[data-testid=permission-card]").count()).toBe(0);
    const agentRequests = vs.llm.requests.filter(isAgent);
    expect(agentRequests).toHaveLength(3);
    expect(JSON.stringify(messages(agentRequests[2]!))).not.toContain("denied");

    // The agent's log: one question, answered by the person; the second, identical call allowed by the rule.
    const log = readFileSync(join(record.sessionDir, `${record.sessionId}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Json);
    const asked = log.filter((e) => e.type === "permission_request");
    expect(asked).toHaveLength(1);
    const decisions = log.filter((e) => e.type === "permission_decision");
    expect(decisions.map((d) => [d.decision, d.by, d.rule ?? null])).toEqual([
      ["allow", "user", null],
      ["allow", "rule", rule],
    ]);
    expect(log.filter((e) => e.type === "tool_call").map((e) => (e.input as Json | undefined)?.command)).toEqual(["touch again.txt", "touch again.txt"]);
    // The command ran in the agent's worktree, not the person's tree.
    expect(existsSync(join(record.worktree, "again.txt"))).toBe(true);
    expect(existsSync(vs.path("again.txt"))).toBe(false);

    // The rule is the workspace's (where the card said it goes), and is not part of the agent's change.
    const local = JSON.parse(readFileSync(vs.path(".yoke/settings.local.json"), "utf8")) as { permissions?: { allow?: string[] } };
    expect(local.permissions?.allow).toEqual([rule]);
    expect(existsSync(join(record.worktree, ".yoke", "settings.local.json"))).toBe(false);
    await expect.poll(() => frame.locator("[data-testid=notice]", { hasText: `Always allowed: added ${rule}` }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await shot("agent-finished-rule-held");
  }, 420_000);
});
