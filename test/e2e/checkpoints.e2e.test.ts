// Checkpoints in a real VS Code (issue 12): the scripted model edits three files and a sandboxed
// command deletes one; the person restores the files to turn 1 with the turn's control in the
// panel (a preview with +/- counts first) and the files on disk are back while the user's git
// index, stash and HEAD are as they were (asked of git itself); "Undo restore" puts the restore
// back; a fork from turn 2 opens in the panel with the files as they were then; in it, "Yoke:
// Restore Checkpoint…" restores files and conversation to turn 1, the transcript shows only turn 1
// and the next request the model gets holds nothing of turn 2. Then loop control's host wiring:
// a model repeating a failing call is nudged and stopped, and the panel says so.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Frame, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, texts, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const LOG_V1 = "log v1\n";
const LOG_V2 = "log v2\nsecond line\n";
const README_V2 = "# tidewatch (rewritten by the agent)\n";
const EXTRA = "export const extra = 1;\n";
const T3 = "export const t3 = 3;\n";

function script(req: RecordedRequest): ScriptedTurn {
  const ex = readExchange(req);
  const did = (name: string) => ex.steps.filter((s) => s.name === name).length;
  // The loop-control session: whatever the nudge says, the model repeats the failing call.
  if (JSON.stringify(req.body.messages).includes("LOOP until it works")) return { text: "Trying again.", toolCalls: [{ name: "read_file", input: { path: "no/such/file.ts" } }] };
  if (ex.userText.includes("T1")) return did("write_file") ? { text: "T1 done." } : { text: "Writing the log.", toolCalls: [{ name: "write_file", input: { path: "src/log.ts", content: LOG_V1 } }] };
  if (ex.userText.includes("T2")) {
    if (!did("read_file"))
      return {
        text: "Reading.",
        toolCalls: [
          { name: "read_file", input: { path: "README.md" } },
          { name: "read_file", input: { path: "src/log.ts" } },
        ],
      };
    if (!did("write_file"))
      return {
        text: "Editing three files and removing one.",
        toolCalls: [
          { name: "write_file", input: { path: "README.md", content: README_V2 } },
          { name: "write_file", input: { path: "src/log.ts", content: LOG_V2 } },
          { name: "write_file", input: { path: "src/extra.ts", content: EXTRA } },
          { name: "run_command", input: { command: "rm src/tides.ts" } },
        ],
      };
    return { text: "T2 done." };
  }
  if (ex.userText.includes("T3")) return did("write_file") ? { text: "T3 done." } : { text: "One more.", toolCalls: [{ name: "write_file", input: { path: "src/t3.ts", content: T3 } }] };
  return { text: `Answered: ${ex.userText.slice(0, 40)}` };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" } });

/** What the user's repository state is: HEAD, refs, stash, index — read with git itself. */
function repoState(cwd: string): Record<string, string> {
  return {
    head: git(cwd, "rev-parse", "HEAD"),
    refs: git(cwd, "for-each-ref", "--format=%(refname) %(objectname)"),
    stash: git(cwd, "stash", "list", "--format=%H %s"),
    index: git(cwd, "ls-files", "-s"),
    staged: git(cwd, "diff", "--cached", "--name-status"),
  };
}

async function turnControl(frame: Frame, turn: number) {
  const c = frame.locator(`[data-testid=turn-control][data-turn="${turn}"]`).first();
  await c.waitFor({ state: "visible", timeout: 30_000 });
  return c;
}

async function pickQuick(page: Page, text: string): Promise<void> {
  const row = page.locator(".quick-input-widget .quick-input-list .monaco-list-row", { hasText: text }).first();
  await row.waitFor({ state: "visible", timeout: 20_000 });
  await row.click();
}

describe("checkpoints: restore, undo, fork, palette", () => {
  const vs = useYokeVscode({
    name: "checkpoints",
    model: { script },
    // Edits and the command run without a question (a workspace may not choose bypassPermissions; the user may).
    userSettings: { "yoke.permissionMode": "bypassPermissions" },
    eachTestStartsIdle: true,
  });

  it("restores files to turn 1 from the turn control (git state untouched), undoes it, forks from turn 2, and restores from the palette", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    const ws = vs.workspace;
    const tidesBefore = readFileSync(vs.path("src/tides.ts"), "utf8");
    const readmeBefore = readFileSync(vs.path("README.md"), "utf8");
    // The user's own repository, with a commit, a stash and a staged file: none of it may change.
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "init");
    writeFileSync(vs.path("package.json"), `${readFileSync(vs.path("package.json"), "utf8")}\n`);
    git(ws, "stash", "push", "-q", "-m", "user stash");
    writeFileSync(vs.path("staged.txt"), "staged by the user\n");
    git(ws, "add", "staged.txt");
    const userRepo = repoState(ws);

    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    for (const t of ["T1 create the log", "T2 rework", "T3 one more"]) {
      await sendPrompt(frame, t);
      await waitForAssistantText(frame, `${t.slice(0, 2)} done.`, 120_000);
      await waitForState(frame, "done", 60_000);
    }
    // The agent's edits and the sandboxed command's deletion happened.
    expect(readFileSync(vs.path("README.md"), "utf8")).toBe(README_V2);
    expect(readFileSync(vs.path("src/log.ts"), "utf8")).toBe(LOG_V2);
    expect(existsSync(vs.path("src/tides.ts"))).toBe(false);
    expect(existsSync(vs.path("src/t3.ts"))).toBe(true);
    await shot("three-turns");

    // Turn 1's control: the preview lists each file with what the restore does and its +/- counts.
    await (await turnControl(frame, 1)).locator("[data-testid=turn-restore]").click();
    const preview = frame.locator("[data-testid=checkpoint-preview]");
    await preview.waitFor({ state: "visible", timeout: 30_000 });
    const file = (p: string) => preview.locator(`[data-testid=checkpoint-file][data-path="${p}"]`);
    await file("src/tides.ts").waitFor({ timeout: 15_000 });
    expect(await file("src/tides.ts").getAttribute("data-action")).toBe("write");
    expect(await file("src/extra.ts").getAttribute("data-action")).toBe("delete");
    expect(await file("src/t3.ts").getAttribute("data-action")).toBe("delete");
    expect(await file("src/log.ts").locator("[data-testid=checkpoint-file-counts]").textContent()).toBe("+1 −2");
    expect(await file("src/tides.ts").locator("[data-testid=checkpoint-file-counts]").textContent()).toBe(`+${tidesBefore.split("\n").length - 1} −0`);
    expect(await preview.locator("[data-testid=checkpoint-file]").count()).toBe(5);
    // Nothing changed yet.
    expect(existsSync(vs.path("src/tides.ts"))).toBe(false);
    // The diff of one file opens in VS Code's diff editor.
    await file("src/log.ts").locator("[data-testid=checkpoint-file-diff]").click();
    await page.locator(".tab", { hasText: "log.ts (now ↔ after turn 1)" }).first().waitFor({ timeout: 30_000 });
    await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 30_000 });
    await shot("preview-and-diff");

    await preview.locator("[data-testid=checkpoint-restore-files]").click();
    await expect.poll(() => existsSync(vs.path("src/tides.ts")), { timeout: 30_000 }).toBe(true);
    expect(readFileSync(vs.path("src/tides.ts"), "utf8")).toBe(tidesBefore);
    expect(readFileSync(vs.path("README.md"), "utf8")).toBe(readmeBefore);
    expect(readFileSync(vs.path("src/log.ts"), "utf8")).toBe(LOG_V1);
    expect(existsSync(vs.path("src/extra.ts"))).toBe(false);
    expect(existsSync(vs.path("src/t3.ts"))).toBe(false);
    expect(repoState(ws)).toEqual(userRepo);
    // The transcript says what happened; a files restore keeps the conversation.
    await frame.locator("[data-testid=notice]", { hasText: "Restored the files to the end of turn 1 (3 files written back, 2 deleted)" }).waitFor({ timeout: 15_000 });
    expect(await frame.locator("[data-testid=message-user]").count()).toBe(3);
    await shot("restored-files");

    // Undo restore: the files as the agent left them after turn 3.
    await frame.locator("[data-testid=checkpoint-undo]").click();
    await expect.poll(() => existsSync(vs.path("src/t3.ts")), { timeout: 30_000 }).toBe(true);
    expect(existsSync(vs.path("src/tides.ts"))).toBe(false);
    expect(readFileSync(vs.path("src/log.ts"), "utf8")).toBe(LOG_V2);
    expect(readFileSync(vs.path("README.md"), "utf8")).toBe(README_V2);
    expect(readFileSync(vs.path("src/extra.ts"), "utf8")).toBe(EXTRA);
    expect(repoState(ws)).toEqual(userRepo);
    await frame.locator("[data-testid=notice]", { hasText: "Undid the restore to the end of turn 1: the files are back as they were before it" }).waitFor({ timeout: 15_000 });
    await frame.locator("[data-testid=checkpoint-undo-bar]").waitFor({ state: "hidden", timeout: 15_000 });

    // Fork from turn 2: a new session in the panel with turns 1–2, the files as after turn 2.
    await (await turnControl(frame, 2)).locator("[data-testid=turn-fork]").click();
    await frame.locator("[data-testid=notice]", { hasText: "Forked from turn 2" }).waitFor({ timeout: 30_000 });
    await expect.poll(() => texts(frame, "message-user"), { timeout: 15_000 }).toEqual(["T1 create the log", "T2 rework"]);
    expect(existsSync(vs.path("src/t3.ts"))).toBe(false);
    expect(existsSync(vs.path("src/tides.ts"))).toBe(false);
    expect(readFileSync(vs.path("src/log.ts"), "utf8")).toBe(LOG_V2);
    expect(readFileSync(vs.path("src/extra.ts"), "utf8")).toBe(EXTRA);
    expect(repoState(ws)).toEqual(userRepo);
    await shot("forked");

    // In the fork: "Yoke: Restore Checkpoint…" → turn 1 → files and conversation → the preview → Restore.
    await vs.runCommand("Yoke: Restore Checkpoint…");
    await pickQuick(page, "Turn 1");
    await pickQuick(page, "Files and conversation");
    await page.locator(".quick-input-widget .quick-input-list .monaco-list-row", { hasText: "src/tides.ts" }).first().waitFor({ timeout: 20_000 });
    await shot("palette-preview");
    await pickQuick(page, "Restore the files and the conversation to the end of turn 1");
    await expect.poll(() => texts(frame, "message-user"), { timeout: 30_000 }).toEqual(["T1 create the log"]);
    expect(readFileSync(vs.path("src/tides.ts"), "utf8")).toBe(tidesBefore);
    expect(readFileSync(vs.path("src/log.ts"), "utf8")).toBe(LOG_V1);
    expect(existsSync(vs.path("src/extra.ts"))).toBe(false);
    expect(repoState(ws)).toEqual(userRepo);
    await frame.locator("[data-testid=notice]", { hasText: "Restored the files and the conversation to the end of turn 1" }).waitFor({ timeout: 15_000 });
    expect(await frame.locator("[data-testid=message-assistant]", { hasText: "T2 done." }).count()).toBe(0);
    await shot("palette-restored");

    // The conversation goes on from turn 1: the model is not told about turn 2.
    const before = llm.requests.length;
    await sendPrompt(frame, "what now?");
    await waitForAssistantText(frame, "Answered: what now?", 120_000);
    const sent = JSON.stringify(llm.requests.slice(before).at(-1)?.body.messages);
    expect(sent).toContain("T1 create the log");
    expect(sent).not.toContain("T2 rework");
    expect(sent).not.toContain("rewritten by the agent");
    // Four model turns, three restores and a fork: about 150 s on a quiet machine, more under load.
  }, 480_000);

  it("shows loop control in the panel: a model repeating a failing call is nudged, then stopped", async () => {
    const frame = await vs.openPanel();
    await frame.locator("[data-testid=new-session]").click();
    await sendPrompt(frame, "LOOP until it works");
    await frame.locator("[data-testid=notice]", { hasText: "The agent seems stuck; it was nudged" }).first().waitFor({ timeout: 120_000 });
    await frame.locator("[data-testid=notice]", { hasText: "Stopped: the agent seems stuck" }).first().waitFor({ timeout: 120_000 });
    await vs.screenshots("checkpoints-loopctl")("stuck");
  });
});
