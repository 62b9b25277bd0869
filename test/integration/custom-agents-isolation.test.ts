// A custom agent's `isolation: worktree` (Claude Code's sub-agent field: "run the subagent in a
// temporary git worktree, giving it an isolated copy of the repository; the worktree is cleaned
// up if the subagent makes no changes"), through full `yoke run` sessions with the scripted model
// over HTTP and real git worktrees. The agent's file tools and commands act in its worktree (its
// system prompt names that root); a change it made is never written into the user's tree: it is
// kept as a finished background agent (branch + summary to the parent), which `yoke agents`
// lists, diffs and merges; an agent that changed nothing leaves no worktree and no branch.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf, systemPromptOf, toolNamesOf, toolResultTexts } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const agentFile = (name: string, extra: string[] = []) =>
  [
    "---",
    `name: ${name}`,
    "description: Fixes things in a worktree of its own",
    "tools: Read, Edit, Write, Bash",
    "isolation: worktree",
    ...extra,
    "---",
    `You fix things (${name.toUpperCase()}-PROMPT).`,
    "",
  ].join("\n");

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-iso-")));
  temps.push(dir);
  const ws = join(dir, "repo");
  const home = join(dir, "home");
  mkdirSync(home);
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  write(join(ws, "app.txt"), "one\ntwo\nthree\n");
  write(join(ws, ".claude", "agents", "fixer.md"), agentFile("fixer"));
  write(join(ws, ".claude", "agents", "looker.md"), agentFile("looker"));
  write(join(ws, ".claude", "agents", "bg-writer.md"), agentFile("bg-writer", ["background: true"]).replace("isolation: worktree\n", ""));
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "initial");
  // The user's own uncommitted work, which the agent's run must leave alone.
  write(join(ws, "notes.txt"), "the user's draft\n");
  return { ws, home, sessions: join(dir, "sessions"), env: { HOME: home, XDG_DATA_HOME: undefined } };
}

const run = (s: ReturnType<typeof setup>, url: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--permission-mode", "bypassPermissions", "--cwd", s.ws, "--session-dir", s.sessions, "fix it"], {
    env: s.env,
  });

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

const delegate = (agent: string) => ({ toolCalls: [{ name: "task", input: { description: "Fix the app", prompt: "Change line two of app.txt to TWO.", subagent_type: agent } }] });

describe("a custom agent with isolation: worktree", () => {
  it("works in its own worktree (files, commands, its prompt's root); its change reaches the parent as a branch to review, not the user's tree; yoke agents merges it", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [delegate("fixer"), { text: "The fixer's change waits for review." }],
        1: [
          { toolCalls: [{ name: "read_file", input: { path: "app.txt" } }] },
          {
            toolCalls: [
              { name: "write_file", input: { path: "app.txt", content: "one\nTWO\nthree\n" } },
              { name: "run_command", input: { command: "pwd > where.txt" } },
            ],
          },
          { text: "Changed line two of app.txt." },
        ],
      }),
    });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);

    // The user's tree: untouched (the agent's file, its command's output, the user's own draft).
    expect(readFileSync(join(s.ws, "app.txt"), "utf8")).toBe("one\ntwo\nthree\n");
    expect(existsSync(join(s.ws, "where.txt"))).toBe(false);
    expect(readFileSync(join(s.ws, "notes.txt"), "utf8")).toBe("the user's draft\n");

    // The agent's worktree: a real git worktree on a yoke/ branch, holding its change.
    const worktrees = git(s.ws, "worktree", "list", "--porcelain")
      .split("\n")
      .filter((l) => l.startsWith("worktree "))
      .map((l) => l.slice(9));
    expect(worktrees).toHaveLength(2);
    const wt = worktrees.find((w) => w !== s.ws)!;
    expect(readFileSync(join(wt, "app.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    // Its command ran there (the sandbox's working folder is the worktree).
    expect(readFileSync(join(wt, "where.txt"), "utf8").trim()).toBe(wt);
    expect(existsSync(join(wt, "notes.txt"))).toBe(false);

    // What the agent's model was told: its own root, its instructions, its tools.
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const prompt = systemPromptOf(child[0]!);
    expect(prompt).toContain(`Workspace root: ${wt}`);
    expect(prompt).not.toContain(`Workspace root: ${s.ws}`);
    expect(prompt).toContain("FIXER-PROMPT");
    expect(prompt).toMatch(/You work in a git worktree of your own: .* \(branch yoke\/fixer-fix-the-app-[0-9a-f]{8}/);
    expect(toolNamesOf(child[0]!)).toEqual(expect.arrayContaining(["read_file", "write_file", "run_command"]));

    // What the parent's model was told: not applied, the branch, how to review.
    const told = toolResultTexts(server.requests.filter((q) => subagentDepthOf(q) === 0).at(-1)).join("\n");
    expect(told).toContain('Sub-agent "Fix the app" completed');
    expect(told).toContain("Its change was NOT applied to the workspace");
    const id = /as background agent ([0-9a-f]{8})/.exec(told)?.[1];
    expect(id).toBeDefined();
    expect(told).toContain(`M app.txt`);
    expect(told).toMatch(/branch yoke\/fixer-fix-the-app-[0-9a-f]{8}/);
    expect(told).toContain(`yoke agents merge ${id}`);

    // The Agents view's engine lists it as a finished agent with its changed files and session.
    const list = await runCli(["agents", "list", "--json", "--cwd", s.ws], { env: s.env });
    expect(list.code, list.stderr).toBe(0);
    const agents = (JSON.parse(list.stdout) as { agents: Array<{ id: string; state: string; changedFiles: Array<{ path: string }>; lastMessage: string | null }> }).agents;
    expect(agents.map((a) => [a.id, a.state])).toEqual([[id, "finished"]]);
    expect(agents[0]!.changedFiles.map((f) => f.path).sort()).toEqual(["app.txt", "where.txt"]);
    // Its transcript is the sub-agent's own session (the view's last message is its answer).
    expect(agents[0]!.lastMessage).toBe("Changed line two of app.txt.");
    const diff = await runCli(["agents", "diff", id!, "--cwd", s.ws], { env: s.env });
    expect(diff.stdout).toContain("+TWO");

    // Accepting it (the review's merge) writes it into the user's tree; the draft survives.
    const merged = await runCli(["agents", "merge", id!, "--json", "--cwd", s.ws], { env: s.env });
    expect(merged.code, merged.stderr + merged.stdout).toBe(0);
    expect(readFileSync(join(s.ws, "app.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    expect(readFileSync(join(s.ws, "notes.txt"), "utf8")).toBe("the user's draft\n");
    const discard = await runCli(["agents", "discard", id!, "--cwd", s.ws], { env: s.env });
    expect(discard.code, discard.stderr).toBe(0);
    expect(
      git(s.ws, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")),
    ).toHaveLength(1);
    expect(git(s.ws, "branch", "--list", "yoke/*").trim()).toBe("");
  }, 180_000);

  it("an agent that changed nothing leaves no worktree, no branch and no agent record", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [delegate("looker"), { text: "Nothing to do." }],
        1: [{ toolCalls: [{ name: "read_file", input: { path: "app.txt" } }] }, { text: "app.txt is fine." }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    const told = toolResultTexts(server.requests.filter((q) => subagentDepthOf(q) === 0).at(-1)).join("\n");
    expect(told).toContain("changed no file there: the worktree and its branch yoke/looker-fix-the-app-");
    expect(told).toContain("were removed");
    expect(
      git(s.ws, "worktree", "list", "--porcelain")
        .split("\n")
        .filter((l) => l.startsWith("worktree ")),
    ).toHaveLength(1);
    expect(git(s.ws, "branch", "--list", "yoke/*").trim()).toBe("");
    const list = await runCli(["agents", "list", "--json", "--cwd", s.ws], { env: s.env });
    expect((JSON.parse(list.stdout) as { agents: unknown[] }).agents).toEqual([]);
  }, 180_000);

  it("outside a git repository the agent is not started (never run in the user's tree), and the model is told why", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-iso-nogit-")));
    temps.push(dir);
    const ws = join(dir, "plain");
    const home = join(dir, "home");
    mkdirSync(home);
    write(join(ws, "app.txt"), "one\ntwo\nthree\n");
    write(join(ws, ".claude", "agents", "fixer.md"), agentFile("fixer"));
    server = await startScriptedLlmServer({ script: byDepth({ 0: [delegate("fixer"), { text: "It could not start." }] }) });
    const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", ws, "--session-dir", join(dir, "sessions"), "fix it"], {
      env: { HOME: home },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.filter((q) => subagentDepthOf(q) === 1)).toEqual([]);
    const told = toolResultTexts(server.requests.at(-1)).join("\n");
    expect(told).toContain('the "fixer" agent was not started');
    expect(told).toContain("is not in a git repository");
    expect(readFileSync(join(ws, "app.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  }, 120_000);

  it("background: true — the task call returns at once, the parent goes on while the agent works in its worktree, and its result reaches the parent before it finishes", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] },
          { toolCalls: [{ name: "read_file", input: { path: "app.txt" } }] },
          { text: "I read app.txt while the writer works." },
          { text: "The writer's change waits for your review." },
        ],
        1: [
          { toolCalls: [{ name: "run_command", input: { command: "sleep 2" } }] },
          { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "written in the background\n" } }] },
          { text: "Wrote log.txt." },
        ],
      }),
    });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    const order = server.requests.map((q) => subagentDepthOf(q));
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(parent).toHaveLength(4);
    // The call returned at once: the parent's next request came before the agent's last one.
    expect(toolResultTexts(parent[1])[0]).toContain('The "bg-writer" agent was started in the background (background: true in .claude/agents/bg-writer.md)');
    expect(server.requests.indexOf(parent[1]!)).toBeLessThan(order.lastIndexOf(1));
    // Its prompt names its own worktree.
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(systemPromptOf(child[0]!)).toMatch(/Workspace root: .*yoke\/worktrees\/.*\/bg-writer-write-the-log-[0-9a-f]{8}/);
    // The parent, about to finish, waited and got the result as a message; then it finished.
    const last = JSON.stringify(parent[3]!.body.messages);
    expect(last).toContain('The background agent \\"bg-writer\\" (task call ');
    expect(last).toContain("has finished.");
    expect(last).toContain("Wrote log.txt.");
    expect(last).toContain("Its change was NOT applied to the workspace");
    expect(existsSync(join(s.ws, "log.txt"))).toBe(false);
    const list = await runCli(["agents", "list", "--json", "--cwd", s.ws], { env: s.env });
    const agents = (JSON.parse(list.stdout) as { agents: Array<{ state: string; changedFiles: Array<{ path: string }>; worktree: string }> }).agents;
    expect(agents.map((a) => [a.state, a.changedFiles.map((f) => f.path)])).toEqual([["finished", ["log.txt"]]]);
    expect(readFileSync(join(agents[0]!.worktree, "log.txt"), "utf8")).toBe("written in the background\n");
  }, 180_000);
});
