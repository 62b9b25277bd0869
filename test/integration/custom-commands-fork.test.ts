// Claude Code's `context: fork` on a command (with optional `agent:`), through full `yoke run`
// sessions with the scripted model: the command's expanded text (its `!` line run through the gate,
// its `@file` included) is the task of a sub-agent started through the task tool's own run — the
// custom agent `agent:` names (its system prompt) or a general-purpose one — with the command's
// allowed-tools as grants in the child (a call outside them asked, so refused headless: the file is
// not made); this conversation's model gets only the sub-agent's answer.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { subagentDepthOf, systemPromptOf, toolNamesOf } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function setup(files: Record<string, string>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-fork-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  for (const [rel, text] of Object.entries(files)) write(rel.startsWith("~/") ? join(home, rel.slice(2)) : join(ws, rel), text);
  return { ws, home, sessions: join(dir, "sessions") };
}

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

const bash = (command: string): ScriptedTurn => ({ toolCalls: [{ name: "run_command", input: { command } }] });

const run = (s: ReturnType<typeof setup>, url: string, message: string, mode = "default") =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "--permission-mode", mode, message], {
    env: { HOME: s.home },
  });

const userText = (r: RecordedRequest) =>
  (r.body.messages as Array<{ role: string; content?: unknown }>)
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");

describe("context: fork on a command", () => {
  it("runs the expanded command as the named agent, with the command's allowed-tools as grants there; the parent gets only the answer", async () => {
    const s = setup({
      "~/.claude/commands/audit.md":
        "---\ndescription: Audit a folder\ncontext: fork\nagent: reviewer\nallowed-tools: Bash(echo:*), Bash(touch ok-*)\n---\nAUDIT-BODY: audit $ARGUMENTS now.\nStamp: !`echo BANG-$((6*7))`\nNotes: @notes.txt\n",
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Bash\n---\nYou are the REVIEWER-PROMPT agent.\n",
      "notes.txt": "NOTES-CONTENT-7\n",
    });
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ text: "Parent saw it." }],
        1: [bash("touch ok-1"), bash("touch bad-1"), { text: "CHILD-ANSWER-42" }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl, "/audit src");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(child.length).toBe(3);
    expect(parent.length).toBe(1);
    // The child: the agent's system prompt, the expanded command (arguments, the ! line's output, the @file).
    expect(systemPromptOf(child[0]!)).toContain("REVIEWER-PROMPT");
    const task = userText(child[0]!);
    expect(task).toContain("AUDIT-BODY: audit src now.");
    expect(task).toContain("BANG-42");
    expect(task).toContain("NOTES-CONTENT-7");
    // The agent's tool limit (Read, Bash): no edit tools in the child.
    expect(toolNamesOf(child[0]!)).toContain("run_command");
    expect(toolNamesOf(child[0]!)).not.toContain("edit_file");
    // allowed-tools as grants in the child: the granted touch ran, the other was asked (refused headless).
    expect(existsSync(join(s.ws, "ok-1"))).toBe(true);
    expect(existsSync(join(s.ws, "bad-1")), "a call outside allowed-tools ran in the forked sub-agent").toBe(false);
    expect(JSON.stringify(child[2]!.body)).toMatch(/no one to ask/);
    // The parent: only the answer — not the command's text, not the child's tool output.
    const told = JSON.stringify(parent[0]!.body);
    expect(told).toContain("CHILD-ANSWER-42");
    expect(told).not.toContain("AUDIT-BODY");
    expect(told).not.toContain("NOTES-CONTENT-7");
    expect(told).not.toContain("BANG-42");
    expect(systemPromptOf(parent[0]!)).not.toContain("REVIEWER-PROMPT");
  }, 240_000);

  it("without agent: a general-purpose sub-agent with the session's tools; the grants are not the parent's after the fork", async () => {
    const s = setup({
      "~/.claude/commands/chores.md": "---\ncontext: fork\nallowed-tools: Bash(touch gp-*)\n---\nCHORES-BODY for $0.\n",
    });
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [bash("touch gp-parent"), { text: "Parent done." }],
        1: [bash("touch gp-child"), { text: "GP-ANSWER" }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl, "/chores x");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(systemPromptOf(child[0]!)).not.toMatch(/You are the ".*" agent/);
    expect(toolNamesOf(child[0]!)).toEqual(expect.arrayContaining(["run_command", "edit_file"]));
    expect(userText(child[0]!)).toContain("CHORES-BODY for x.");
    expect(existsSync(join(s.ws, "gp-child"))).toBe(true);
    // The parent's own call is not granted by the command (its turn only answers with the result).
    expect(existsSync(join(s.ws, "gp-parent"))).toBe(false);
    expect(JSON.stringify(parent[0]!.body)).toContain("GP-ANSWER");
    expect(JSON.stringify(parent[0]!.body)).not.toContain("CHORES-BODY");
  }, 240_000);

  it("agent: Explore (Claude Code's built-in read-only agent): a sub-agent with the read-only tools", async () => {
    const s = setup({ ".claude/commands/look.md": "---\ncontext: fork\nagent: Explore\n---\nLOOK-BODY\n" });
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ text: "ok" }], 1: [{ text: "EXPLORED" }] }) });
    const r = await run(s, server.openaiBaseUrl, "/look");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(toolNamesOf(child[0]!)).toContain("read_file");
    expect(toolNamesOf(child[0]!)).not.toContain("run_command");
    expect(toolNamesOf(child[0]!)).not.toContain("edit_file");
    expect(JSON.stringify(server.requests.filter((q) => subagentDepthOf(q) === 0)[0]!.body)).toContain("EXPLORED");
  }, 240_000);

  it("agent naming no agent: the command is not sent, and the user is told why", async () => {
    const s = setup({ ".claude/commands/ghost.md": "---\ncontext: fork\nagent: nobody\n---\nGHOST-BODY\n" });
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ text: "ok" }] }) });
    const r = await run(s, server.openaiBaseUrl, "/ghost");
    expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
    expect(server.requests.map((q) => JSON.stringify(q.body)).join("\n")).not.toContain("GHOST-BODY");
    expect(r.stdout + r.stderr).toMatch(/no agent named "nobody"/);
  }, 240_000);

  it("a skill with context: fork loaded by the model (load_skill): its text is the named agent's task; the model gets only the answer", async () => {
    const s = setup({
      ".claude/skills/probe/SKILL.md": "---\nname: probe\ndescription: Probe the tree\ncontext: fork\nagent: reviewer\n---\nPROBE-SKILL-BODY: list the files.\n",
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\ntools: Read\n---\nYou are the REVIEWER-PROMPT agent.\n",
    });
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "load_skill", input: { name: "probe" } }] }, { text: "Parent done." }],
        1: [{ text: "PROBE-ANSWER-9" }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl, "probe the tree");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(child.length).toBe(1);
    expect(systemPromptOf(child[0]!)).toContain("REVIEWER-PROMPT");
    expect(userText(child[0]!)).toContain("PROBE-SKILL-BODY");
    expect(toolNamesOf(child[0]!)).not.toContain("run_command");
    const last = JSON.stringify(parent.at(-1)!.body);
    expect(last).toContain("PROBE-ANSWER-9");
    expect(last).not.toContain("PROBE-SKILL-BODY");
  }, 240_000);

  it("a repository's forked command grants nothing by itself: its allowed-tools are asked in the child (refused headless), the file is not made", async () => {
    const s = setup({ ".claude/commands/pfork.md": "---\ncontext: fork\nallowed-tools: Bash(touch p-*)\n---\nPFORK-BODY\n" });
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ text: "ok" }], 1: [bash("touch p-1"), { text: "PFORK-ANSWER" }] }) });
    const r = await run(s, server.openaiBaseUrl, "/pfork");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.ws, "p-1")), "a repository's command granted its own allowed-tools in the fork").toBe(false);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(JSON.stringify(child[1]!.body)).toMatch(/no one to ask/);
    expect(JSON.stringify(server.requests.filter((q) => subagentDepthOf(q) === 0)[0]!.body)).toContain("PFORK-ANSWER");
  }, 240_000);

  it("Stop (Ctrl+C) while a forked command's sub-agent works: the sub-agent is cancelled and nothing reaches the parent's model", async () => {
    const s = setup({ "~/.claude/commands/slow.md": "---\ncontext: fork\n---\nSLOW-BODY\n" });
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ text: "PARENT-SHOULD-NOT-ANSWER" }], 1: [bash("sleep 120 && touch slept"), { text: "late" }] }) });
    const cli = startCli(
      [
        "run",
        "--trust",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "--model",
        "m",
        "--cwd",
        s.ws,
        "--session-dir",
        s.sessions,
        "--permission-mode",
        "bypassPermissions",
        "/slow",
      ],
      { env: { HOME: s.home } },
    );
    // Once the sub-agent has asked for its command (and it has had time to start), stop the run.
    const deadline = Date.now() + 120_000;
    while (!server.requests.some((q) => subagentDepthOf(q) === 1) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 200));
    expect(server.requests.some((q) => subagentDepthOf(q) === 1)).toBe(true);
    await new Promise((res) => setTimeout(res, 1500));
    cli.kill("SIGINT");
    const r = await cli.result;
    expect(r.code, r.stderr).toBe(130);
    expect(server.requests.filter((q) => subagentDepthOf(q) === 0)).toHaveLength(0);
    expect(existsSync(join(s.ws, "slept"))).toBe(false);
    // The stop reached the expansion: the sub-agent's command was cancelled by the user (not just killed with the process).
    const logs = readdirSync(s.sessions)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => readFileSync(join(s.sessions, f), "utf8"))
      .join("\n");
    expect(logs).toMatch(/"type":"tool_result"[^\n]*"name":"run_command","output":"Cancelled by the user/);
  }, 240_000);

  it("the command's model answers in the sub-agent; the parent keeps the session's", async () => {
    const s = setup({ "~/.claude/commands/cheap.md": "---\ncontext: fork\nmodel: small-model\n---\nCHEAP-BODY\n" });
    server = await startScriptedLlmServer({ script: byDepth({ 0: [{ text: "ok" }], 1: [{ text: "CHEAP-ANSWER" }] }) });
    const r = await run(s, server.openaiBaseUrl, "/cheap");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(child.map((q) => q.body.model)).toEqual(["small-model"]);
    expect(parent.map((q) => q.body.model)).toEqual(["m"]);
  }, 240_000);
});
