// Background agents from the panel (issue 24), in a real VS Code (code-server) with the scripted
// model over HTTP: three tasks started with "Run in background" run at once in three git
// worktrees and finish; one is reviewed hunk by hunk (one hunk rejected) and merged back — the file
// on disk holds exactly the accepted hunk; one is discarded — its worktree and branch are gone
// (git worktree list, git branch); one is merged against the person's own edit of the same lines and
// refused with the explanation shown in the panel, their edit untouched. At the end no worktree,
// branch or agent process is left.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import type { Frame } from "playwright-core";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { agentProcesses } from "./support/agent-processes";
import { useYokeVscode } from "./support/yoke-vscode";

const TIDES = "high water 06:10\nlow water 12:20\nhigh water 18:30\nlow water 00:40\nmoon: waxing\nwind: west\nswell: 1m\nvisibility: good\nharbour: open\nnotes: none\n";
const HARBOUR = "berth 1: free\nberth 2: free\nberth 3: free\nberth 4: free\nberth 5: free\n";

const messages = (req: RecordedRequest) => (req.body as { messages?: Array<{ role: string; content?: unknown }> }).messages ?? [];
const convo = (req: RecordedRequest) => JSON.stringify(messages(req));
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;

/** The agents' first requests wait here until the test has seen all three running at once. */
let releaseFirstSteps!: () => void;
const firstSteps = new Promise<void>((resolve) => (releaseFirstSteps = resolve));

/** Each agent: read its file (once all three run), write it, say what it did. */
async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  const text = convo(req);
  const step = toolResults(req);
  const plan = text.includes("TASK-A")
    ? {
        path: "tides.txt",
        content: TIDES.replace("low water 12:20", "low water 12:25").replace("harbour: open", "harbour: closed for dredging"),
        done: "Updated the low water time and the harbour line.",
      }
    : text.includes("TASK-B")
      ? { path: "notes.txt", content: "scratch notes\n", done: "Wrote scratch notes." }
      : text.includes("TASK-C")
        ? { path: "harbour.txt", content: HARBOUR.replace("berth 3: free", "berth 3: taken by the agent"), done: "Booked berth 3." }
        : undefined;
  if (!plan) return { text: "no task" };
  if (step === 0) await Promise.race([firstSteps, new Promise((r) => setTimeout(r, 150_000))]);
  if (step === 0) return { toolCalls: [{ name: "read_file", input: { path: plan.path === "notes.txt" ? "tides.txt" : plan.path } }] };
  if (step === 1) return { toolCalls: [{ name: "write_file", input: { path: plan.path, content: plan.content } }] };
  return { text: plan.done };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("background agents from the panel", () => {
  const vs = useYokeVscode({
    name: "background-agents",
    model: { script },
    files: { "tides.txt": TIDES, "harbour.txt": HARBOUR },
    // An agent cannot ask: it starts in the panel's mode, here one that lets it edit its worktree.
    userSettings: { "yoke.permissionMode": "acceptEdits" },
  });

  const agent = (frame: Frame, task: string) => frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: task }) });
  const worktrees = () =>
    git(vs.workspace, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "));
  const branches = () =>
    git(vs.workspace, "branch", "--list", "yoke/*")
      .split("\n")
      .map((l) => l.replace(/^[*+ ]+/, "").trim())
      .filter(Boolean);

  it("three agents run at once in three worktrees; one merged hunk by hunk, one discarded, one refused against the person's edit", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    // Six helpers share two cores: the workbench page may take longer than Playwright's 30 s to load.
    vs.page.setDefaultNavigationTimeout(120_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    // --- three tasks from the composer's "Run in background" ---
    const input = frame.locator("[data-testid=prompt-input]");
    for (const task of ["TASK-A: update the tide table", "TASK-B: write scratch notes", "TASK-C: book berth 3"]) {
      await input.fill(task);
      await frame.locator("[data-testid=run-background]").click();
      await agent(frame, task).waitFor({ timeout: 30_000 });
    }
    // All three at once: each in its own worktree, running in parallel.
    await expect.poll(() => frame.locator("[data-testid=agents-view] summary").textContent(), { timeout: 120_000 }).toContain("3 running");
    await shot("three-running");
    expect(worktrees()).toHaveLength(4);
    expect(branches()).toHaveLength(3);
    releaseFirstSteps();
    await expect.poll(() => frame.locator("[data-testid=agent][data-state=finished]").count(), { timeout: 90_000 }).toBe(3);
    const a = agent(frame, "TASK-A");
    await expect.poll(() => a.locator("[data-testid=agent-last]").textContent(), { timeout: 10_000 }).toContain("Updated the low water time");
    await expect(a.locator("[data-testid=agent-files]").textContent()).resolves.toBe("1 file changed");
    await expect(a.locator("[data-testid=agent-spend]").textContent()).resolves.toMatch(/\$|tok/);
    // The user's tree is untouched while the agents worked in theirs.
    expect(readFileSync(vs.path("tides.txt"), "utf8")).toBe(TIDES);

    // --- its transcript, read-only ---
    await a.locator("[data-testid=agent-open-transcript]").click();
    const lines = a.locator("[data-testid=agent-transcript-line]");
    await expect
      .poll(() => lines.allTextContents(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining(["TASK-A: update the tide table", "▸ read_file tides.txt", "Updated the low water time and the harbour line."]));

    // --- A: reviewed hunk by hunk, hunk 2 rejected, merged back ---
    await a.locator("[data-testid=agent-open-review]").click();
    const hunks = a.locator("[data-testid=agent-hunk]");
    await expect.poll(() => hunks.count(), { timeout: 10_000 }).toBe(2);
    await hunks.nth(1).locator("[data-testid=agent-reject-hunk]").click();
    await expect.poll(() => hunks.nth(1).getAttribute("data-decision")).toBe("rejected");
    await expect(hunks.nth(0).getAttribute("data-decision")).resolves.toBe("accepted");
    await shot("review-a");
    await a.locator("[data-testid=agent-merge]").click();
    const outA = a.locator("[data-testid=agent-outcome]");
    await expect.poll(() => outA.textContent(), { timeout: 20_000 }).toContain("Merged into your tree: tides.txt");
    expect(readFileSync(vs.path("tides.txt"), "utf8")).toBe(TIDES.replace("low water 12:20", "low water 12:25"));

    // --- B: discarded; worktree and branch gone ---
    const b = agent(frame, "TASK-B");
    const bBranch = (await b.locator(".agent-branch").textContent())!;
    await b.locator("[data-testid=agent-discard]").click();
    await expect.poll(() => agent(frame, "TASK-B").count(), { timeout: 20_000 }).toBe(0);
    expect(branches()).not.toContain(bBranch);
    expect(worktrees()).toHaveLength(3);
    expect(worktrees().some((w) => w.includes(bBranch.slice("yoke/".length)))).toBe(false);

    // --- C: the person edits the same line; the merge is refused with the explanation ---
    const mine = HARBOUR.replace("berth 3: free", "berth 3: mine, booked by hand");
    writeFileSync(vs.path("harbour.txt"), mine);
    const c = agent(frame, "TASK-C");
    await c.locator("[data-testid=agent-open-review]").click();
    await expect.poll(() => c.locator("[data-testid=agent-hunk]").count(), { timeout: 10_000 }).toBe(1);
    await c.locator("[data-testid=agent-merge]").click();
    const outC = c.locator("[data-testid=agent-outcome]");
    await expect.poll(() => outC.getAttribute("data-ok"), { timeout: 20_000 }).toBe("false");
    expect(await outC.locator("[data-testid=agent-outcome-text]").textContent()).toContain("Not merged: you changed the same lines as the agent in 1 file(s); nothing was written");
    expect(await outC.locator("[data-testid=agent-conflict]").textContent()).toBe("harbour.txt: your line 3 and the agent's line 3 both change the original line 3");
    await shot("refused-c");
    // Their own edit is untouched.
    expect(readFileSync(vs.path("harbour.txt"), "utf8")).toBe(mine);

    // --- cleaned up from the panel: nothing left behind ---
    for (const task of ["TASK-A", "TASK-C"]) {
      await agent(frame, task).locator("[data-testid=agent-discard]").click();
      await expect.poll(() => agent(frame, task).count(), { timeout: 20_000 }).toBe(0);
    }
    expect(worktrees()).toHaveLength(1);
    expect(branches()).toEqual([]);
    expect(agentProcesses(dirname(vs.server.home))).toEqual([]);
    // The merge left the person's tree with the accepted hunk and their own edit, uncommitted.
    expect(
      git(vs.workspace, "status", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith(" M"))
        .sort(),
    ).toEqual([" M harbour.txt", " M tides.txt"]);
  }, 240_000);
});
