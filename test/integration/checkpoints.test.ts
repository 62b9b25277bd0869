/**
 * Checkpoints through the real CLI: a scripted model edits files and runs a sandboxed command
 * (real run_command through bwrap); `yoke checkpoints list/restore` and `yoke fork SESSION TURN`
 * put files and conversation back, the user's repository state checked with git itself.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { parseLog } from "../../src/core/session/session-log";
import { projectConversation, summarizeSession } from "../../src/core/session/projection";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["--no-optional-locks", ...args], { cwd, env: gitEnv, encoding: "utf8" });
const repoState = (ws: string) => ({
  status: git(ws, "status", "--porcelain=v1", "--untracked-files=all"),
  stash: git(ws, "stash", "list"),
  head: git(ws, "rev-parse", "HEAD"),
  index: git(ws, "ls-files", "--stage"),
  indexBytes: readFileSync(join(ws, ".git", "index")).toString("hex"),
});

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-cli-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  // The sandbox is the default one (bwrap here); the user's settings only say so explicitly.
  mkdirSync(join(home, ".yoke"));
  writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend: "bwrap" } }));
  for (const f of ["one.txt", "two.txt", "three.txt"]) writeFileSync(join(ws, f), `${f} original\n`);
  git(ws, "init", "-q");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "base");
  writeFileSync(join(ws, "wip.txt"), "stash me\n");
  git(ws, "stash", "push", "-u", "-q", "-m", "user wip");
  writeFileSync(join(ws, "one.txt"), "one.txt staged by the user\n");
  git(ws, "add", "one.txt");
  return { dir, ws, home, sessions: join(dir, "sessions") };
}

describe("checkpoints through the CLI", () => {
  it("restores after the agent edited three files and a sandboxed command deleted one; the user's index, stash and HEAD untouched; the restore undone", async () => {
    const { ws, home, sessions } = workspace();
    const turn2: ScriptedTurn[] = [
      { toolCalls: ["one.txt", "two.txt", "three.txt"].map((path) => ({ name: "read_file", input: { path } })) },
      { toolCalls: [{ name: "write_file", input: { path: "one.txt", content: "one by the agent\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "two.txt", content: "two by the agent\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "three.txt", content: "three by the agent\n" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "rm two.txt && echo removed" } }] },
      { text: "Edited three files and removed two.txt." },
    ];
    server = await startScriptedLlmServer({ script: [{ text: "Hello." }, ...turn2] });
    const env = { HOME: home };
    const flags = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", sessions, "--permission-mode", "bypassPermissions"];
    const before = repoState(ws);
    const r1 = await runCli(["run", "--trust", ...flags, "say hello"], { env });
    expect(r1.code, r1.stderr).toBe(0);
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const r2 = await runCli(["resume", "--trust", id, ...flags, "edit the files"], { env });
    expect(r2.code, r2.stderr).toBe(0);
    expect(existsSync(join(ws, "two.txt"))).toBe(false);
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("one by the agent\n");
    const ran = parseLog(
      readFileSync(join(sessions, `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    const started = ran.find((e) => e.type === "session_start");
    expect(started?.type === "session_start" && started.sandbox).toBe("bwrap");
    expect(ran.some((e) => e.type === "tool_result" && e.name === "run_command" && !e.isError && e.output.includes("removed"))).toBe(true);
    // One checkpoint, in turn 2, before its first change; none in turn 1 (it changed nothing).
    const cps = ran.filter((e) => e.type === "checkpoint");
    expect(cps).toHaveLength(1);
    expect(cps[0]).toMatchObject({ turn: 2, reason: "turn" });

    const list = await runCli(["checkpoints", "list", id, "--session-dir", sessions, "--json"]);
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed.turns).toBe(2);
    expect(listed.checkpoints).toHaveLength(1);
    expect(listed.checkpoints[0].folders[0]).toMatchObject({ root: ws, skipped: [] });
    expect(listed.checkpoints[0].folders[0].commit).toMatch(/^[0-9a-f]{40}$/);

    // Preview only: nothing changes.
    const dry = await runCli(["checkpoints", "restore", id, "1", "--files", "--dry-run", "--session-dir", sessions]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain("restore two.txt");
    expect(dry.stderr).toContain("-one by the agent");
    expect(existsSync(join(ws, "two.txt"))).toBe(false);

    const restore = await runCli(["checkpoints", "restore", id, "1", "--both", "--session-dir", sessions]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("one.txt staged by the user\n");
    expect(readFileSync(join(ws, "two.txt"), "utf8")).toBe("two.txt original\n");
    expect(readFileSync(join(ws, "three.txt"), "utf8")).toBe("three.txt original\n");
    expect(repoState(ws)).toEqual(before);
    expect(git(ws, "stash", "list")).toContain("user wip");
    let events = parseLog(
      readFileSync(join(sessions, `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(summarizeSession(events).turns).toBe(1);
    expect(projectConversation(events).map((m) => m.role)).toEqual(["user", "assistant"]);

    const undo = await runCli(["checkpoints", "restore", id, "--undo", "--session-dir", sessions]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(existsSync(join(ws, "two.txt"))).toBe(false);
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("one by the agent\n");
    events = parseLog(
      readFileSync(join(sessions, `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(summarizeSession(events).turns).toBe(2);
    expect(git(ws, "stash", "list")).toContain("user wip");
    expect(git(ws, "rev-parse", "HEAD")).toBe(before.head);
    expect(git(ws, "ls-files", "--stage")).toBe(before.index);
  }, 120_000);

  it("forks from turn 2: the files as they were after turn 2, the conversation up to turn 2", async () => {
    const { ws, home, sessions } = workspace();
    server = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "read_file", input: { path: "one.txt" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "one.txt", content: "turn 1\n" } }] },
        { text: "t1" },
        { toolCalls: [{ name: "read_file", input: { path: "one.txt" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "one.txt", content: "turn 2\n" } }] },
        { text: "t2" },
        { toolCalls: [{ name: "run_command", input: { command: "echo turn 3 > one.txt && rm three.txt" } }] },
        { text: "t3" },
      ],
    });
    const env = { HOME: home };
    const flags = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", sessions, "--permission-mode", "bypassPermissions"];
    expect((await runCli(["run", "--trust", ...flags, "first"], { env })).code).toBe(0);
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    expect((await runCli(["resume", "--trust", id, ...flags, "second"], { env })).code).toBe(0);
    const r3 = await runCli(["resume", "--trust", id, ...flags, "third"], { env });
    expect(r3.code, r3.stderr).toBe(0);
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("turn 3\n");
    expect(existsSync(join(ws, "three.txt"))).toBe(false);

    const fork = await runCli(["fork", id, "2", "--session-dir", sessions, "--json"]);
    expect(fork.code, fork.stderr).toBe(0);
    const out = JSON.parse(fork.stdout);
    expect(out).toMatchObject({ forkedFrom: id, turn: 2 });
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("turn 2\n");
    expect(readFileSync(join(ws, "three.txt"), "utf8")).toBe("three.txt original\n");
    const forked = parseLog(
      readFileSync(join(sessions, `${out.sessionId}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(summarizeSession(forked).turns).toBe(2);
    const texts = projectConversation(forked).flatMap((m) => (m.role === "user" || m.role === "assistant" ? [m.text] : []));
    expect(texts).toContain("second");
    expect(texts).toContain("t2");
    expect(texts).not.toContain("third");
    // The source session is as it was.
    const source = parseLog(
      readFileSync(join(sessions, `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(summarizeSession(source).turns).toBe(3);
    // The fork's file change is undoable in the fork.
    const undo = await runCli(["checkpoints", "restore", out.sessionId, "--undo", "--session-dir", sessions]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(readFileSync(join(ws, "one.txt"), "utf8")).toBe("turn 3\n");
  }, 120_000);

  it("refuses bad arguments with usage errors", async () => {
    const { sessions, ws } = workspace();
    mkdirSync(sessions, { recursive: true });
    const none = await runCli(["checkpoints", "list", "nope", "--session-dir", sessions]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no session "nope"');
    const sub = await runCli(["checkpoints", "frob", "--session-dir", sessions]);
    expect(sub.code).toBe(2);
    const two = await runCli(["checkpoints", "restore", "x", "1", "--files", "--both", "--session-dir", sessions, "--cwd", ws]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("choose one of --files, --conversation, --both");
  });
});
