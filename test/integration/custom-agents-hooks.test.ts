// A custom agent's own `hooks`, `maxTurns` and the fields Yoke reads but does not apply, through
// full `yoke run` sessions with the scripted model over HTTP (issue 23). Agent files are written
// from Claude Code's sub-agent reference: `hooks` in the frontmatter has the settings.json shape
// and applies only while that agent runs (`Stop` there is a SubagentStop hook); `maxTurns` bounds
// its turns. A repository agent's hooks follow the repository's hooks' trust rule: they run only
// in a trusted workspace; the user's own agent's hooks (~/.claude/agents) are the user's.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;
const system = (r: RecordedRequest) => String(((r.body.messages as Json[])[0] as { content?: unknown }).content ?? "");
const depthOf = (r: RecordedRequest) => Number(/You are a sub-agent \(depth (\d+)\)/.exec(system(r))?.[1] ?? 0);
const toolNames = (r: RecordedRequest) => ((r.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
const toolResults = (r: RecordedRequest) => (r.body.messages as Json[]).filter((m) => m.role === "tool").map((m) => String(m.content));

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[depthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

/** An agent file whose PreToolUse hook (on Read) appends its payload to `log` and gives the model a context line; its Stop hook appends a line too. */
function guardedAgent(name: string, log: string, marker: string) {
  return [
    "---",
    `name: ${name}`,
    "description: Reviews files and reports what it read",
    "tools: Read, Grep",
    "hooks:",
    "  PreToolUse:",
    "    - matcher: Read",
    "      hooks:",
    "        - type: command",
    `          command: "{ cat; echo; } >> '${log}'; echo '{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PreToolUse\\", \\"additionalContext\\": \\"${marker}\\"}}'"`,
    "  Stop:",
    "    - hooks:",
    "        - type: command",
    `          command: "echo stop >> '${log}.stop'"`,
    "---",
    `You review files (${name.toUpperCase()}-PROMPT).`,
    "",
  ].join("\n");
}

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-hooks-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  // In the workspace: a repository agent's hook runs confined, and only the user's own hooks keep a log file outside it writable (docs/hooks.md).
  const projectLog = join(ws, "project-hook.jsonl");
  const userLog = join(dir, "user-hook.jsonl");
  write(join(ws, ".claude", "agents", "reviewer.md"), guardedAgent("reviewer", projectLog, "PROJECT-AGENT-HOOK-CONTEXT"));
  write(join(home, ".claude", "agents", "mine.md"), guardedAgent("mine", userLog, "USER-AGENT-HOOK-CONTEXT"));
  return { dir, ws, home, sessions: join(dir, "sessions"), projectLog, userLog };
}

const run = (s: ReturnType<typeof setup>, url: string, prompt: string, trust = true) =>
  runCli(["run", ...(trust ? ["--trust"] : []), "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, prompt], {
    env: { HOME: s.home },
  });

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim())
    : [];

/** The parent reads README.md itself, then delegates to `agent`, which reads it too. */
const delegate = (agent: string) =>
  byDepth({
    0: [
      { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
      { toolCalls: [{ name: "task", input: { description: "Review", prompt: "Read README.md and report.", subagent_type: agent } }] },
      { text: "Done." },
    ],
    1: [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "README.md is a title." }],
  });

describe("a custom agent's hooks", () => {
  it("a repository agent's PreToolUse hook fires for the agent's tool calls only (trusted workspace); its Stop hook runs as SubagentStop", async () => {
    const s = setup();
    server = await startScriptedLlmServer({ script: delegate("reviewer") });
    const r = await run(s, server.openaiBaseUrl, "review the readme");
    expect(r.code, r.stderr).toBe(0);
    // One payload: the agent's read, not the parent's (the parent read the same file first).
    const payloads = lines(s.projectLog).map((l) => JSON.parse(l) as Json);
    expect(payloads.map((p) => [p.hook_event_name, p.tool_name, (p.tool_input as Json).file_path])).toEqual([["PreToolUse", "Read", join(s.ws, "README.md")]]);
    // It came from the agent's session (a sub-agent's log: its session_start names its parent).
    const start = JSON.parse(readFileSync(join(s.sessions, `${String(payloads[0]!.session_id)}.jsonl`), "utf8").split("\n")[0]!) as Json;
    expect(start).toMatchObject({ type: "session_start", parentId: expect.any(String) });
    // Claude Code's Stop in an agent is its SubagentStop: it ran once, when the agent finished.
    expect(lines(`${s.projectLog}.stop`)).toEqual(["stop"]);
    // What reached the models: the hook's context followed the agent's read result, never the parent's.
    const child = server.requests.filter((q) => depthOf(q) === 1);
    // Its tools: its list (Read, Grep) and load_tools for the deferred ones (Read's list_files, the child's own recall), nothing else.
    expect(toolNames(child[0]!)).toEqual(["read_file", "grep", "load_tools"]);
    // Its load_tools lists only those: none of the session's deferred tools its list leaves out (command_output, kill_command, todo_write, task).
    const loader = (child[0]!.body.tools as Array<{ function: { name: string; description: string } }>).find((t) => t.function.name === "load_tools")!.function.description;
    expect(loader.split("\n").slice(1)).toEqual(["- list_files: list a folder as a tree", "- recall: get back a tool result cut short or removed by compaction (by its ref=…)"]);
    expect(system(child[0]!)).toContain("REVIEWER-PROMPT");
    expect(toolResults(child[1]!).join("\n")).toContain("PROJECT-AGENT-HOOK-CONTEXT");
    const parent = server.requests.filter((q) => depthOf(q) === 0);
    for (const q of parent) expect(JSON.stringify(q.body.messages)).not.toContain("PROJECT-AGENT-HOOK-CONTEXT");
  }, 120_000);

  it("without the user's trust (Restricted Mode) a repository agent's hook does not run — said on stderr —, while the user's own agent's hook does", async () => {
    const s = setup();
    server = await startScriptedLlmServer({ script: delegate("reviewer") });
    const r = await run(s, server.openaiBaseUrl, "review the readme", false);
    expect(r.code, r.stderr).toBe(0);
    // The agent ran (its read reached its model) but its hook did not: no marker, no context.
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(child.length).toBe(2);
    expect(toolResults(child[1]!).join("\n")).toContain("# app");
    expect(toolResults(child[1]!).join("\n")).not.toContain("PROJECT-AGENT-HOOK-CONTEXT");
    expect(existsSync(s.projectLog)).toBe(false);
    expect(existsSync(`${s.projectLog}.stop`)).toBe(false);
    expect(r.stderr).toContain(".claude/agents/reviewer.md: not applied: its hooks do not run, because the workspace is not trusted (Restricted Mode)");

    await server.close();
    server = await startScriptedLlmServer({ script: delegate("mine") });
    const u = await run(s, server.openaiBaseUrl, "review the readme", false);
    expect(u.code, u.stderr).toBe(0);
    expect(lines(s.userLog).map((l) => (JSON.parse(l) as Json).tool_name)).toEqual(["Read"]);
    const mine = server.requests.filter((q) => depthOf(q) === 1);
    expect(toolResults(mine[1]!).join("\n")).toContain("USER-AGENT-HOOK-CONTEXT");
  }, 180_000);

  it("a repository agent's hook may block its call but its allow does not lift a question (checked in: it may restrict, never loosen)", async () => {
    const s = setup();
    const runner = (name: string) =>
      [
        "---",
        `name: ${name}`,
        "description: Runs commands",
        "tools: Bash, Read",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Bash",
        "      hooks:",
        "        - type: command",
        `          command: "if grep -q blocked-cmd; then echo 'BLOCKED-BY-AGENT-HOOK' >&2; exit 2; fi; echo '{\\"hookSpecificOutput\\": {\\"hookEventName\\": \\"PreToolUse\\", \\"permissionDecision\\": \\"allow\\"}}'"`,
        "---",
        "You run commands.",
        "",
      ].join("\n");
    write(join(s.ws, ".claude", "agents", "runner.md"), runner("runner"));
    write(join(s.home, ".claude", "agents", "my-runner.md"), runner("my-runner"));
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Run", prompt: "Run two commands.", subagent_type: "runner" } }] }, { text: "Done." }],
        1: [
          { toolCalls: [{ name: "run_command", input: { command: "echo blocked-cmd > blocked.txt" } }] },
          { toolCalls: [{ name: "run_command", input: { command: "touch allowed-by-hook.txt" } }] },
          { text: "Tried both." },
        ],
      }),
    });
    const r = await run(s, server.openaiBaseUrl, "run them");
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(toolResults(child[1]!).join("\n")).toContain("BLOCKED-BY-AGENT-HOOK");
    expect(existsSync(join(s.ws, "blocked.txt"))).toBe(false);
    // The hook's allow from the repository counts as no opinion: the command was asked (no terminal: refused), never run.
    expect(existsSync(join(s.ws, "allowed-by-hook.txt"))).toBe(false);

    // The contrast: the same hook in the user's own agent answers for the user, and the command runs.
    await server.close();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Run", prompt: "Run a command.", subagent_type: "my-runner" } }] }, { text: "Done." }],
        1: [{ toolCalls: [{ name: "run_command", input: { command: "touch allowed-by-hook.txt" } }] }, { text: "Ran it." }],
      }),
    });
    const u = await run(s, server.openaiBaseUrl, "run it");
    expect(u.code, u.stderr).toBe(0);
    expect(existsSync(join(s.ws, "allowed-by-hook.txt"))).toBe(true);
  }, 180_000);
});

describe("maxTurns and fields read but not applied", () => {
  it("an agent's maxTurns stops it and the parent is told why; unapplied fields are problems in `yoke lessons list`", async () => {
    const s = setup();
    write(join(s.ws, ".claude", "agents", "brief.md"), "---\nname: brief\ndescription: Looks briefly\ntools: Read\nmaxTurns: 2\nmemory: project\ncolor: blue\n---\nYou look briefly (BRIEF-PROMPT).\n");
    write(
      join(s.ws, ".github", "agents", "planner.agent.md"),
      "---\ndescription: Plans work\ntools: ['read', 'search']\nhandoffs:\n  - label: Implement\n    agent: implementer\n    prompt: Implement the plan.\ntarget: vscode\n---\nYou plan.\n",
    );
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Look", prompt: "Look around.", subagent_type: "brief" } }] }, { text: "Done." }],
        1: [
          { text: "First I read.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
          { toolCalls: [{ name: "read_file", input: { path: "README.md", offset: 1 } }] },
          { toolCalls: [{ name: "read_file", input: { path: "README.md", offset: 2 } }] },
          { text: "never reached" },
        ],
      }),
    });
    const r = await run(s, server.openaiBaseUrl, "look");
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.filter((q) => depthOf(q) === 1)).toHaveLength(2);
    const told = toolResults(server.requests.filter((q) => depthOf(q) === 0).at(-1)!).join("\n");
    expect(told).toContain('Sub-agent "Look" failed (2 turns, 2 tool calls;');
    expect(told).toContain("it reached its limit of 2 model turns (maxTurns in .claude/agents/brief.md) before finishing");
    expect(told).toContain("First I read.");
    expect(told).not.toContain("Send a message to continue");

    const list = JSON.parse((await runCli(["lessons", "list", "--cwd", s.ws, "--json"], { env: { HOME: s.home } })).stdout) as {
      problems: Array<{ path: string; message: string; line?: number }>;
      items: Array<{ kind: string; name: string; origin: string; source: string; why: string }>;
    };
    // The agents' own hooks are listed with where they come from and when they run.
    expect(list.items.filter((i) => i.kind === "hook" && i.source.includes("agents/")).map((i) => [i.name, i.origin, i.source])).toEqual(
      expect.arrayContaining([
        ["PreToolUse (Read)", "project", ".claude/agents/reviewer.md"],
        ["SubagentStop", "project", ".claude/agents/reviewer.md"],
        ["PreToolUse (Read)", "user", "~/.claude/agents/mine.md"],
      ]),
    );
    const about = (path: string) => list.problems.filter((p) => p.path.endsWith(path)).map((p) => p.message);
    // `memory` is applied since session 24 (agent-memory24.test.ts).
    expect(about(".claude/agents/brief.md")).toEqual([expect.stringMatching(/^not applied: "color"/)]);
    // `target: vscode` is applied since session 24: the agent is VS Code's, so Yoke's.
    expect(about(".github/agents/planner.agent.md")).toEqual([expect.stringMatching(/^not applied: "handoffs"/)]);
  }, 120_000);
});
