// A background agent that finishes after its session ended (issue 24): in a real VS Code
// (code-server) with the scripted model over HTTP, the parent starts a `background: true` agent and
// hands back; the person starts a New Session; the agent then finishes. Its result is kept for the
// old session, and — without the person opening that session or running anything — a notification
// says so at once, naming the agent and its task, with "Open Result". Clicking it shows the old
// session in the panel and delivers the result there, once, as a turn of its own; the new session
// is not handed it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { defaultSessionDir } from "../../src/node/session-store";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

type Json = Record<string, unknown>;
const messages = (req: RecordedRequest) => (req.body.messages as Json[] | undefined) ?? [];
const systemOf = (req: RecordedRequest) => String(messages(req)[0]?.content ?? "");
const isAgent = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;
const convo = (req: RecordedRequest) => JSON.stringify(messages(req));

/** The agent's first step waits here until the test has started a new session. */
let releaseAgent!: () => void;
const agentMayGoOn = new Promise<void>((resolve) => (releaseAgent = resolve));

async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  if (isAgent(req)) {
    if (toolResults(req) === 0) {
      await Promise.race([agentMayGoOn, new Promise((r) => setTimeout(r, 240_000))]);
      return { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "written after the session ended\n" } }] };
    }
    return { text: "AGENT-DONE: wrote log.txt." };
  }
  if (convo(req).includes("AGENT-DONE")) return { text: "OLD-SESSION-GOT-THE-RESULT" };
  if (toolResults(req) === 0) return { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] };
  return { text: "The writer is working in the background; back to you." };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("a background agent finishing after its session ended", () => {
  const vs = useYokeVscode({
    name: "background-agent-finish-notice",
    model: { script },
    files: {
      ".claude/agents/bg-writer.md": ["---", "name: bg-writer", "description: Writes the log in the background", "tools: Read, Write", "background: true", "---", "You write logs.", ""].join("\n"),
    },
    userSettings: { "yoke.permissionMode": "acceptEdits" },
  });

  it("says so in a notification naming the agent; Open Result shows that session and delivers the result once", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    vs.page.setDefaultNavigationTimeout(120_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    await sendPrompt(frame, "Write the log in the background.");
    await waitForAssistantText(frame, "The writer is working in the background", 90_000);
    await waitForState(frame, "done");
    const agent = frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: "Write log.txt." }) });
    await expect.poll(() => agent.getAttribute("data-state"), { timeout: 60_000 }).toBe("running");

    // A new session (empty, nothing sent): the old one has ended; then the agent finishes.
    await frame.locator("[data-testid=new-session]").click();
    await expect.poll(() => frame.locator("[data-testid=message-assistant]").count(), { timeout: 30_000 }).toBe(0);
    releaseAgent();
    await expect.poll(() => agent.getAttribute("data-state"), { timeout: 120_000 }).toBe("finished");

    // The notification, at once: the agent, its task, where the result waits; the result not yet delivered.
    const toast = vs.page.locator(".notification-toast", { hasText: "bg-writer" }).first();
    await toast.waitFor({ timeout: 60_000 });
    const said = (await toast.textContent()) ?? "";
    expect(said).toContain('Yoke: The background agent "bg-writer" (Write the log) finished. Its result waits in the session "Write the log in the background.", which has ended.');
    const store = defaultSessionDir(vs.workspace, vs.server.home);
    const kept = readdirSync(store).filter((f) => f.endsWith(".handback"));
    expect(kept).toHaveLength(1);
    const oldId = kept[0]!.replace(/\.handback$/, "");
    const notes = () => (existsSync(join(store, `${oldId}.handback`)) ? readdirSync(join(store, `${oldId}.handback`)).filter((f) => f.endsWith(".note")) : []);
    expect(notes()).toHaveLength(1);
    const withResult = () => vs.llm.requests.filter((r) => !isAgent(r) && convo(r).includes("AGENT-DONE"));
    expect(withResult()).toHaveLength(0);
    await shot("agent-finished-notification");

    // Open Result: the old session is shown and answers the result, a turn of its own.
    await toast.getByRole("button", { name: "Open Result" }).click();
    await waitForAssistantText(frame, "OLD-SESSION-GOT-THE-RESULT", 120_000);
    await waitForState(frame, "done");
    expect(await frame.locator("[data-testid=message-user]", { hasText: "Write the log in the background." }).count()).toBeGreaterThan(0);
    await shot("result-opened");
    expect(withResult()).toHaveLength(1);
    expect(convo(withResult()[0]!)).toContain("Write the log in the background.");
    expect(notes()).toHaveLength(0);
    const contexts = readFileSync(join(store, `${oldId}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; source?: string; text?: string })
      .filter((e) => e.type === "context" && e.source === "subagents" && e.text?.includes("AGENT-DONE"));
    expect(contexts).toHaveLength(1);
  }, 480_000);
});
