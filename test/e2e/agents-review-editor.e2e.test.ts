// Background agents reviewed like pull requests, in a real VS Code (code-server) with the scripted
// model over HTTP (issue 24): three agents started from the panel. One is steered while it runs: a
// note typed in its Agents-view note box reaches its next model request as the person's message.
// One finished agent's change is opened with "Review in editor": the person's own file shows it
// with the review's CodeLens (Accept / Reject per hunk); hunk 2 is rejected and hunk 1 accepted
// there, and the file on disk then holds exactly hunk 1 (nothing before every hunk is decided).
// The third is merged with "Merge branch" (git merge of its branch): its commit is on the person's
// branch, and their uncommitted edit is untouched. At the end no worktree, branch or agent process is left.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import type { Frame } from "playwright-core";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { hunkLens } from "./support/review";
import { agentProcesses } from "./support/agent-processes";
import { useYokeVscode } from "./support/yoke-vscode";

const TIDES = "high water 06:10\nlow water 12:20\nhigh water 18:30\nlow water 00:40\nmoon: waxing\nwind: west\nswell: 1m\nvisibility: good\nharbour: open\nnotes: none\n";
const TIDES_AGENT = TIDES.replace("low water 12:20", "low water 12:25").replace("harbour: open", "harbour: closed for dredging");

type Message = { role: string; content?: unknown };
const messages = (req: RecordedRequest) => (req.body as { messages?: Message[] }).messages ?? [];
const convo = (req: RecordedRequest) => JSON.stringify(messages(req));
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;

/** TASK-C's first request waits here until the test has sent its note from the panel. */
let releaseC!: () => void;
const noteSent = new Promise<void>((resolve) => (releaseC = resolve));

async function script(req: RecordedRequest): Promise<ScriptedTurn> {
  const text = convo(req);
  const step = toolResults(req);
  if (text.includes("TASK-A")) {
    if (step === 0) return { toolCalls: [{ name: "read_file", input: { path: "tides.txt" } }] };
    if (step === 1) return { toolCalls: [{ name: "write_file", input: { path: "tides.txt", content: TIDES_AGENT } }] };
    return { text: "Updated the low water time and the harbour line." };
  }
  if (text.includes("TASK-B")) return step === 0 ? { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "scratch notes\n" } }] } : { text: "Wrote scratch notes." };
  if (text.includes("TASK-C")) {
    if (step === 0) {
      await Promise.race([noteSent, new Promise((r) => setTimeout(r, 200_000))]);
      return { toolCalls: [{ name: "read_file", input: { path: "tides.txt" } }] };
    }
    return text.includes("PANEL-NOTE") ? { text: "Heard your note about the moon." } : { text: "No note reached me." };
  }
  return { text: "no task" };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("background agents reviewed in the editor, steered and merged as a branch", () => {
  const vs = useYokeVscode({
    name: "agents-review-editor",
    model: { script },
    files: { "tides.txt": TIDES },
    // An agent cannot ask: it starts in the panel's mode. Auto save off (the desktop default): the review is inline in the file's own editor.
    userSettings: { "yoke.permissionMode": "acceptEdits", "files.autoSave": "off" },
  });

  const agent = (frame: Frame, task: string) => frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: task }) });

  it("a note steers a running agent; Review in editor merges exactly the accepted hunk; Merge branch merges with git", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    const page = vs.page;
    page.setDefaultNavigationTimeout(180_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();

    const input = frame.locator("[data-testid=prompt-input]");
    for (const task of ["TASK-A: update the tide table", "TASK-B: write scratch notes", "TASK-C: check the moon"]) {
      await input.fill(task);
      await frame.locator("[data-testid=run-background]").click();
      await agent(frame, task).waitFor({ timeout: 60_000 });
    }
    const a = agent(frame, "TASK-A");
    const b = agent(frame, "TASK-B");
    const c = agent(frame, "TASK-C");
    await expect.poll(() => a.getAttribute("data-state"), { timeout: 150_000 }).toBe("finished");
    await expect.poll(() => b.getAttribute("data-state"), { timeout: 150_000 }).toBe("finished");

    // --- C runs (its model request waits): a note from its note box reaches its next request ---
    await expect.poll(() => c.getAttribute("data-state"), { timeout: 60_000 }).toBe("running");
    await c.locator("[data-testid=agent-note-input]").fill("PANEL-NOTE: mind the moon phase too");
    await c.locator("[data-testid=agent-note-send]").click();
    const outC = c.locator("[data-testid=agent-outcome]");
    await expect.poll(() => outC.textContent(), { timeout: 60_000 }).toContain("Note sent: the agent is working and gets it as your message at its next step.");
    await shot("note-sent-while-running");
    releaseC();
    await expect.poll(() => c.locator("[data-testid=agent-last]").textContent(), { timeout: 150_000 }).toBe("Heard your note about the moon.");
    const cSecond = vs.llm.requests.filter((r) => convo(r).includes("TASK-C"))[1]!;
    const lastUser = messages(cSecond)
      .filter((m) => m.role === "user")
      .at(-1)!;
    expect(JSON.stringify(lastUser.content)).toContain("PANEL-NOTE: mind the moon phase too");
    await c.locator("[data-testid=agent-open-transcript]").click();
    await expect
      .poll(() => c.locator("[data-testid=agent-transcript-line]").allTextContents(), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(["TASK-C: check the moon", "PANEL-NOTE: mind the moon phase too", "Heard your note about the moon."]));

    // --- A: Review in editor; hunk 2 rejected and hunk 1 accepted with the CodeLens ---
    await a.locator("[data-testid=agent-review-editor]").click();
    const outA = a.locator("[data-testid=agent-outcome]");
    await expect.poll(() => outA.textContent(), { timeout: 30_000 }).toContain("Its change is open in your editor (1 file): Accept or Reject each hunk there.");
    await hunkLens(page, 2, "Reject").waitFor({ timeout: 60_000 });
    await hunkLens(page, 1, "Accept").waitFor({ timeout: 10_000 });
    await page.locator(".codelens-decoration", { hasText: "Yoke: 2 of 2 hunks to review" }).first().waitFor({ timeout: 10_000 });
    // The person's own file, in the editor: the proposal is there, not yet on disk.
    await page.locator(".tab", { hasText: "tides.txt" }).first().waitFor({ timeout: 10_000 });
    expect(readFileSync(vs.path("tides.txt"), "utf8")).toBe(TIDES);
    await shot("agent-change-in-editor");
    await hunkLens(page, 2, "Reject").click();
    await page.locator(".codelens-decoration", { hasText: "hunk 2:" }).waitFor({ state: "detached", timeout: 20_000 });
    expect(readFileSync(vs.path("tides.txt"), "utf8")).toBe(TIDES);
    await hunkLens(page, 1, "Accept").click();
    await expect.poll(() => outA.textContent(), { timeout: 30_000 }).toContain("Merged into your tree from the editor's review: tides.txt (1 of 2 hunks).");
    expect(readFileSync(vs.path("tides.txt"), "utf8")).toBe(TIDES.replace("low water 12:20", "low water 12:25"));
    await page.locator(".tab.dirty").waitFor({ state: "detached", timeout: 20_000 });
    await expect.poll(() => a.locator("[data-testid=agent-state]").textContent(), { timeout: 20_000 }).toBe("finished, merged");
    await shot("merged-from-editor");

    // --- B: Merge branch (git merge of its branch) ---
    await b.locator("[data-testid=agent-open-review]").click();
    await b.locator("[data-testid=agent-merge-branch]").waitFor({ timeout: 20_000 });
    await b.locator("[data-testid=agent-merge-branch]").click();
    const outB = b.locator("[data-testid=agent-outcome]");
    await expect.poll(() => outB.textContent(), { timeout: 60_000 }).toMatch(/^Merged yoke\/task-b-write-scratch-notes-[a-f0-9]+ into your branch \(git merge\): notes\.txt\.$/);
    expect(readFileSync(vs.path("notes.txt"), "utf8")).toBe("scratch notes\n");
    expect(git(vs.workspace, "log", "-1", "--format=%s").trim()).toMatch(/^yoke agent [a-f0-9]+: TASK-B: write scratch notes$/);
    // A's merge (from the editor) stays the person's uncommitted edit.
    expect(
      git(vs.workspace, "status", "--porcelain")
        .split("\n")
        .filter((l) => l && !l.startsWith("??")),
    ).toEqual([" M tides.txt"]);
    await shot("merged-branch");

    // --- cleaned up from the panel: nothing left behind ---
    for (const task of ["TASK-A", "TASK-B", "TASK-C"]) {
      await agent(frame, task).locator("[data-testid=agent-discard]").click();
      await expect.poll(() => agent(frame, task).count(), { timeout: 30_000 }).toBe(0);
    }
    expect(git(vs.workspace, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(git(vs.workspace, "branch", "--list", "yoke/*").trim()).toBe("");
    expect(agentProcesses(dirname(vs.server.home))).toEqual([]);
  }, 600_000);
});

// The binary files and mode-only changes of a finished agent have no hunks: "Review in editor"
// asks each whole in a VS Code notification (Accept / Reject), and writes what was accepted —
// byte-exact, with its executable bit — once all are decided (src/host/agents/whole-files.ts).
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x01, 0x02]);
describe("background agents: binary files and mode changes reviewed in notifications", () => {
  const vs = useYokeVscode({
    name: "agents-review-whole-files",
    model: {
      script: (req: RecordedRequest): ScriptedTurn =>
        !convo(req).includes("TASK-W")
          ? { text: "no task" }
          : toolResults(req) === 0
            ? { toolCalls: [{ name: "run_command", input: { command: "printf '\\211PNG\\r\\n\\032\\n\\000\\001\\002' > logo.png && printf 'GIF89a\\000\\000' > extra.gif && chmod +x run.sh" } }] }
            : { text: "Added the logo and made run.sh executable." },
    },
    files: { "run.sh": "#!/bin/sh\necho hi\n" },
    // An agent cannot ask: it starts in the panel's mode, here one that runs its command.
    userSettings: { "yoke.permissionMode": "bypassPermissions", "files.autoSave": "off" },
  });

  it("each binary file and the mode change is asked in a notification; the accepted ones are written byte-exact with their mode, the rejected one is not", async () => {
    const shot = vs.screenshots();
    git(vs.workspace, "init", "-q", "-b", "main");
    git(vs.workspace, "add", "-A");
    git(vs.workspace, "commit", "-qm", "initial");
    const page = vs.page;
    page.setDefaultNavigationTimeout(180_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await frame.locator("[data-testid=prompt-input]").fill("TASK-W: add a logo and make run.sh executable");
    await frame.locator("[data-testid=run-background]").click();
    const w = frame.locator("[data-testid=agent]", { has: frame.locator("[data-testid=agent-task]", { hasText: "TASK-W" }) });
    await w.waitFor({ timeout: 60_000 });
    await expect.poll(() => w.getAttribute("data-state"), { timeout: 150_000 }).toBe("finished");
    // The agent's id ends its branch's name (yoke/task-…-ID).
    const id = ((await w.locator(".agent-branch").textContent()) ?? "").split("-").pop()!;
    expect(id).toMatch(/^[a-f0-9]+$/);

    await w.locator("[data-testid=agent-review-editor]").click();
    const out = w.locator("[data-testid=agent-outcome]");
    await expect
      .poll(() => out.textContent(), { timeout: 30_000 })
      .toContain(
        "Its change is open in your editor (3 to take whole): Accept or Reject each binary file or mode change in its notification. What you accept is written to your files once everything is decided.",
      );
    const asked: string[] = [];
    for (let k = 0; k < 3; k++) {
      const toast = page.locator(".notification-toast", { hasText: "Take this whole file?" }).first();
      await toast.waitFor({ timeout: 60_000 });
      const text = (await toast.textContent()) ?? "";
      asked.push(text);
      if (k === 0) await shot("whole-file-question");
      // Nothing is written before every file is decided.
      expect(existsSync(vs.path("logo.png"))).toBe(false);
      const reject = text.includes("extra.gif");
      await toast.getByRole("button", { name: reject ? "Reject" : "Accept" }).click();
      const name = ["logo.png", "extra.gif", "run.sh"].find((n) => text.includes(n))!;
      await page.locator(".notification-toast", { hasText: name }).waitFor({ state: "detached", timeout: 20_000 });
    }
    expect(asked.find((t) => t.includes("logo.png"))).toContain(`Yoke: background agent ${id} added the binary file logo.png (11 bytes). Take this whole file?`);
    expect(asked.find((t) => t.includes("extra.gif"))).toContain(`Yoke: background agent ${id} added the binary file extra.gif (8 bytes). Take this whole file?`);
    expect(asked.find((t) => t.includes("run.sh"))).toContain(`Yoke: background agent ${id} made run.sh executable (its content is yours). Take this whole file?`);

    await expect.poll(() => out.textContent(), { timeout: 30_000 }).toMatch(/^Merged into your tree from the editor's review: (logo\.png, run\.sh \(mode\)|run\.sh \(mode\), logo\.png)\.$/);
    expect(readFileSync(vs.path("logo.png"))).toEqual(PNG);
    expect(existsSync(vs.path("extra.gif"))).toBe(false);
    expect(statSync(vs.path("run.sh")).mode & 0o111).not.toBe(0);
    expect(readFileSync(vs.path("run.sh"), "utf8")).toBe("#!/bin/sh\necho hi\n");
    await expect.poll(() => w.locator("[data-testid=agent-state]").textContent(), { timeout: 20_000 }).toBe("finished, merged");
    await shot("whole-files-merged");

    await w.locator("[data-testid=agent-discard]").click();
    await expect.poll(() => w.count(), { timeout: 30_000 }).toBe(0);
    expect(git(vs.workspace, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
    expect(agentProcesses(dirname(vs.server.home))).toEqual([]);
  }, 600_000);
});
