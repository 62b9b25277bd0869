// A custom agent with `background: true` outlives the panel session that started it (issue 23,
// item 1; issue 24: a background agent is a session of its own). In a real VS Code (code-server)
// with the scripted model over HTTP: the parent starts the agent and hands back; the agent waits,
// listed as running; the person starts a New Session and chats in it; the agent is still running,
// then finishes — its file on disk in its worktree, the Agents view says finished — and the new
// session never received the old one's result. The result is kept on disk for the old session (not
// offered again and again in memory, lost with the window): after a window reload, opening the old
// session from the history delivers it once, as a turn of its own; reloaded and opened again, it is
// not delivered a second time.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { defaultSessionDir } from "../../src/node/session-store";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

type Json = Record<string, unknown>;
const messages = (req: RecordedRequest) => (req.body.messages as Json[] | undefined) ?? [];
const systemOf = (req: RecordedRequest) => String(messages(req)[0]?.content ?? "");
const isAgent = (req: RecordedRequest) => systemOf(req).includes("You are a sub-agent (depth 1)");
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;
const convo = (req: RecordedRequest) => JSON.stringify(messages(req));

/** The agent's first step waits here until the test has started a new session and chatted in it. */
let releaseAgent!: () => void;
const agentMayGoOn = new Promise<void>((resolve) => (releaseAgent = resolve));

async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  if (isAgent(req)) {
    if (toolResults(req) === 0) {
      await Promise.race([agentMayGoOn, new Promise((r) => setTimeout(r, 240_000))]);
      return { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "written after a new session started\n" } }] };
    }
    return { text: "AGENT-DONE: wrote log.txt." };
  }
  if (convo(req).includes("SECOND-SESSION")) return { text: "NEW-SESSION-ANSWER" };
  if (convo(req).includes("AGENT-DONE")) return { text: "OLD-SESSION-GOT-THE-RESULT" };
  if (toolResults(req) === 0) return { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] };
  return { text: "The writer is working in the background; back to you." };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("a background agent and a new panel session", () => {
  const vs = useYokeVscode({
    name: "background-agent-new-session",
    model: { script },
    files: {
      ".claude/agents/bg-writer.md": ["---", "name: bg-writer", "description: Writes the log in the background", "tools: Read, Write", "background: true", "---", "You write logs.", ""].join("\n"),
    },
    // The agent cannot ask: the mode lets it write in its worktree.
    userSettings: { "yoke.permissionMode": "acceptEdits" },
  });

  it("New Session does not stop the agent: it goes on running and finishes, its file on disk", async () => {
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
    await shot("agent-running");

    // A new session, and a message in it, while the agent waits.
    await frame.locator("[data-testid=new-session]").click();
    await sendPrompt(frame, "SECOND-SESSION: something else meanwhile.");
    await waitForAssistantText(frame, "NEW-SESSION-ANSWER", 90_000);
    await waitForState(frame, "done");
    expect(await agent.getAttribute("data-state")).toBe("running");
    expect(vs.llm.requests.filter(isAgent)).toHaveLength(1);
    await shot("new-session-agent-still-running");

    releaseAgent();
    await expect.poll(() => agent.getAttribute("data-state"), { timeout: 120_000 }).toBe("finished");
    await expect.poll(() => agent.locator("[data-testid=agent-files]").textContent(), { timeout: 30_000 }).toBe("1 file changed");
    await shot("agent-finished");
    // Its model got its last turn, and its file is on disk in its worktree (not the person's tree).
    expect(vs.llm.requests.filter(isAgent)).toHaveLength(2);
    const worktree = git(vs.workspace, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "))
      .map((l) => l.slice("worktree ".length))
      .find((p) => p !== vs.workspace && existsSync(join(p, "log.txt")));
    expect(worktree, "a worktree holding log.txt").toBeDefined();
    expect(readFileSync(join(worktree!, "log.txt"), "utf8")).toBe("written after a new session started\n");
    expect(existsSync(vs.path("log.txt"))).toBe(false);
    // The new session was not handed the old session's result.
    const second = vs.llm.requests.filter((r) => !isAgent(r) && convo(r).includes("SECOND-SESSION"));
    expect(second.length).toBeGreaterThan(0);
    for (const r of second) expect(convo(r)).not.toContain("AGENT-DONE");

    // The result waits on disk for the old session (beside its log), and no session was handed it.
    const store = defaultSessionDir(vs.workspace, vs.server.home);
    const kept = () => readdirSync(store).filter((f) => f.endsWith(".handback"));
    const notes = (id: string) => (existsSync(join(store, `${id}.handback`)) ? readdirSync(join(store, `${id}.handback`)).filter((f) => f.endsWith(".note")) : []);
    await expect.poll(() => kept().length, { timeout: 60_000 }).toBe(1);
    const oldId = kept()[0]!.replace(/\.handback$/, "");
    expect(readFileSync(join(store, `${oldId}.jsonl`), "utf8")).toContain("Write the log in the background.");
    expect(notes(oldId)).toHaveLength(1);
    const withResult = () => vs.llm.requests.filter((r) => !isAgent(r) && convo(r).includes("AGENT-DONE"));
    expect(withResult()).toHaveLength(0);

    // The window reloads (the extension host, and anything it held in memory, is gone); the old session is opened from the history.
    let reloaded = await vs.reloadWindow();
    const item = reloaded.locator(`[data-testid=session-item][data-session-id="${oldId}"]`);
    await item.waitFor({ state: "attached", timeout: 60_000 });
    const history = reloaded.locator("[data-testid=history]");
    if ((await history.getAttribute("open")) === null) await history.locator("summary").click();
    await item.click();
    await waitForAssistantText(reloaded, "OLD-SESSION-GOT-THE-RESULT", 120_000);
    await waitForState(reloaded, "done");
    await shot("result-delivered-after-reload");
    // Delivered once, to the old session, as a context event and the model's answer; nothing left on disk.
    expect(withResult()).toHaveLength(1);
    expect(convo(withResult()[0]!)).toContain("Write the log in the background.");
    expect(convo(withResult()[0]!)).not.toContain("SECOND-SESSION");
    expect(notes(oldId)).toHaveLength(0);
    const contexts = () =>
      readFileSync(join(store, `${oldId}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; source?: string; text?: string })
        .filter((e) => e.type === "context" && e.source === "subagents" && e.text?.includes("AGENT-DONE"));
    expect(contexts()).toHaveLength(1);

    // Reloaded again, the old session shown again: its answer is there, and the result is not delivered twice.
    const requests = vs.llm.requests.length;
    reloaded = await vs.reloadWindow();
    await reloaded.locator("[data-testid=message-assistant]", { hasText: "OLD-SESSION-GOT-THE-RESULT" }).waitFor({ timeout: 60_000 });
    await waitForState(reloaded, "done").catch(() => undefined);
    expect(vs.llm.requests.length).toBe(requests);
    expect(contexts()).toHaveLength(1);
    expect(withResult()).toHaveLength(1);
  }, 600_000);
});
