/**
 * Issue 19: "restore to turn 0" undoes the agent's edit in an ordinary 10,000-file repository.
 * Generated repositories of the bench's shape (src/bench/scale-repo.ts), a full scripted `yoke run`
 * session through the built CLI (read_file, edit_file deep in the largest folder — the last file
 * in alphabetical order, which a budgeted walk reached last — write_file of a new file, answer),
 * then `yoke checkpoints restore SESSION 0 --files`: the edit is undone byte for byte, the new
 * file deleted, and what the CLI says matches what it did. In a git repository the first
 * checkpoint is complete; in a folder without git, and with a snapshot budget too small to
 * finish, the user is told before the edit runs and the pre-image still undoes it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateScaleRepo, SCALE_GIT_ENV, type ScaleRepo } from "../../src/bench/scale-repo";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
}, 120_000);

const gitEnv = { ...process.env, ...SCALE_GIT_ENV };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["--no-optional-locks", "-c", "core.fsmonitor=false", ...args], { cwd, env: gitEnv, encoding: "utf8", maxBuffer: 1 << 28 });

async function setup(opts: { git: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-scale-"));
  temps.push(dir);
  const repo = await generateScaleRepo(join(dir, "ws"), 10_000, opts);
  const home = join(dir, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  return { dir, repo, home, sessions: join(dir, "sessions") };
}

/** The scripted session: read the deep file, edit it, write a new file, answer. */
async function session(repo: ScaleRepo, home: string, sessions: string, env: Record<string, string> = {}) {
  server = await startScriptedLlmServer({
    script: [
      { toolCalls: [{ name: "read_file", input: { path: repo.deepFile } }] },
      { toolCalls: [{ name: "edit_file", input: { path: repo.deepFile, old_string: "export function", new_string: "export async function" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "packages/NOTES.md", content: "notes by the agent\n" } }] },
      { text: "Made it async." },
    ],
  });
  const flags = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", repo.root, "--session-dir", sessions, "--permission-mode", "bypassPermissions"];
  const run = await runCli(["run", "--trust", ...flags, "make the last function async"], { env: { HOME: home, ...env } });
  expect(run.code, run.stderr).toBe(0);
  expect(readFileSync(join(repo.root, repo.deepFile), "utf8")).toBe(repo.deepContent.replace("export function", "export async function"));
  expect(readFileSync(join(repo.root, "packages/NOTES.md"), "utf8")).toBe("notes by the agent\n");
  const id = readdirSync(sessions)
    .find((f) => f.endsWith(".jsonl"))!
    .replace(/\.jsonl$/, "");
  const events = parseLog(
    readFileSync(join(sessions, `${id}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean),
  ).events;
  const checkpoint = events.find((e) => e.type === "checkpoint");
  if (checkpoint?.type !== "checkpoint") throw new Error("no checkpoint was recorded");
  return { id, run, checkpoint, cli: (...args: string[]) => runCli(["checkpoints", ...args, "--session-dir", sessions, "--cwd", repo.root], { env: { HOME: home } }) };
}

async function restoreUndoes(repo: ScaleRepo, s: Awaited<ReturnType<typeof session>>) {
  const dry = await s.cli("restore", s.id, "0", "--files", "--dry-run");
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stderr).toContain(`restore ${repo.deepFile}`);
  expect(dry.stderr).toContain("delete  packages/NOTES.md");
  expect(dry.stderr).toContain("+export function");
  const r = await s.cli("restore", s.id, "0", "--files");
  expect(r.code, r.stderr).toBe(0);
  // Byte for byte, and said as done: one file written back, the new one deleted.
  expect(readFileSync(join(repo.root, repo.deepFile), "utf8")).toBe(repo.deepContent);
  expect(existsSync(join(repo.root, "packages/NOTES.md"))).toBe(false);
  expect(r.stdout).toMatch(/: 1 file\(s\) written back, 1 deleted/);
  // The real restore prints the same preview, planned against its undo snapshot (one look at the folder).
  expect(r.stderr).toContain(`restore ${repo.deepFile}`);
  expect(r.stderr).toContain("delete  packages/NOTES.md");
  expect(r.stderr).toContain("+export function");
  return { dry, r };
}

describe("checkpoints at 10,000 files through the CLI", () => {
  it("in a git repository: the first checkpoint is complete and restore to turn 0 undoes the edit; the user's repository is untouched", async () => {
    const { repo, home, sessions } = await setup({ git: true });
    const indexBefore = readFileSync(join(repo.root, ".git", "index"));
    const s = await session(repo, home, sessions);
    const folder = s.checkpoint.folders[0]!;
    expect(folder.error).toBeUndefined();
    expect(folder.partial).toBeUndefined();
    expect(folder.skipped).toEqual([]);
    expect(s.run.stdout).not.toContain("incomplete");
    const { r } = await restoreUndoes(repo, s);
    expect(r.stdout).not.toContain("left as they are");
    // The user's index, HEAD and working tree as before the session (nothing of Yoke's in .git).
    expect(readFileSync(join(repo.root, ".git", "index")).equals(indexBefore)).toBe(true);
    expect(git(repo.root, "status", "--porcelain")).toBe("");
    expect(existsSync(join(repo.root, "node_modules", "dep0", "index0.js"))).toBe(true);
  }, 600_000);

  it("in a folder without git: restore to turn 0 undoes the edit, whatever the snapshot's state", async () => {
    const { repo, home, sessions } = await setup({ git: false });
    const s = await session(repo, home, sessions);
    expect(s.checkpoint.folders[0]!.error).toBeUndefined();
    await restoreUndoes(repo, s);
    expect(existsSync(join(repo.root, ".git"))).toBe(false);
  }, 600_000);

  it("when the snapshot cannot complete (a 1 ms budget), the user is told before the edit runs, the preview says what it cannot put back, and the edit is still undone", async () => {
    const { repo, home, sessions } = await setup({ git: false });
    // A file the agent never touches, changed after the session: the partial snapshot does not know it.
    const s = await session(repo, home, sessions, { YOKE_CHECKPOINT_BUDGET_MS: "1" });
    const folder = s.checkpoint.folders[0]!;
    expect(folder.partial).toBe(true);
    expect(folder.fallback).toContain("ran out of its 1 ms budget");
    // Told on the terminal before the edit ran (the checkpoint precedes the first change).
    const notice = s.run.stdout.indexOf("⚠ Checkpoint before turn 1's changes is incomplete");
    expect(notice, s.run.stdout).toBeGreaterThanOrEqual(0);
    expect(s.run.stdout.indexOf("⏺ edit_file")).toBeGreaterThan(notice);
    expect(s.run.stdout).toContain("Every file a tool writes is still recorded before the write");
    writeFileSync(join(repo.root, "README.md"), "changed by the user after the session\n");
    const { dry, r } = await restoreUndoes(repo, s);
    // The preview says exactly what it can and cannot put back.
    expect(dry.stderr).toMatch(/the snapshot then was partial .*It puts back the 2 file\(s\) listed \(every file a tool wrote is among them\); \d+ file\(s\) it did not know are left as they are/);
    expect(r.stdout).toMatch(/left as they are \(unknown to the partial snapshot then, or skipped\)/);
    expect(r.stderr).toMatch(/the snapshot then was partial .*It puts back the 2 file\(s\) listed/);
    expect(readFileSync(join(repo.root, "README.md"), "utf8")).toBe("changed by the user after the session\n");
  }, 600_000);
});
