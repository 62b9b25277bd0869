// Custom sub-agents (Claude Code's .claude/agents, ~/.claude/agents; Copilot's .github/agents)
// through full CLI sessions with the scripted model over HTTP: what the parent's model is told
// (the task tool lists the agents), what the chosen agent's requests carry (its system prompt, its
// model, only its tools), and a call outside its list refused (the command never ran). The agent
// files are written from the formats' public documentation.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { subagentDepthOf as depthOf, systemPromptOf as system, taskDescriptionOf as taskDescription, toolNamesOf as toolNames, toolsOf as tools } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;

function byDepth(queues: Record<number, Array<ScriptedTurn | ((r: RecordedRequest) => ScriptedTurn)>>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => {
    const next = queues[depthOf(r)]?.shift();
    if (!next) return { text: "(no more turns)" };
    return typeof next === "function" ? next(r) : next;
  };
}

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agents-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, "src", "config.ts"), "export const retries = 3;\nexport function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n");
  // Claude Code's documented example shape: name, description, comma-separated tools, model; the body is the system prompt.
  mkdirSync(join(ws, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(ws, ".claude", "agents", "code-reviewer.md"),
    [
      "---",
      "name: code-reviewer",
      "description: Expert code review specialist. Use immediately after writing or modifying code.",
      "tools: Read, Grep",
      "model: small-model",
      "---",
      "You are a senior code reviewer (PROJECT-REVIEWER-PROMPT). Read the changed files and list issues by priority.",
      "",
    ].join("\n"),
  );
  // The user's agent of the same name loses to the project's; another user agent stays.
  mkdirSync(join(home, ".claude", "agents"), { recursive: true });
  writeFileSync(join(home, ".claude", "agents", "code-reviewer.md"), "---\nname: code-reviewer\ndescription: USER reviewer that should be overridden\n---\nUSER-REVIEWER-PROMPT\n");
  writeFileSync(join(home, ".claude", "agents", "test-runner.md"), "---\nname: test-runner\ndescription: Runs the test suite and reports failures. Use after code changes.\n---\nRun the tests.\n");
  // Copilot's custom agent: a display name, a list of tool sets, the file name as identifier.
  mkdirSync(join(ws, ".github", "agents"), { recursive: true });
  writeFileSync(
    join(ws, ".github", "agents", "docs-writer.agent.md"),
    "---\ndescription: 'Writes and updates Markdown documentation for the project'\nname: 'Docs Writer'\ntools: ['read', 'edit']\nmodel: 'Claude Sonnet 4.5'\n---\n# Docs Writer\nWrite clear docs (DOCS-WRITER-PROMPT).\n",
  );
  return { ws, home, sessions: join(dir, "sessions") };
}

const cli = (s: ReturnType<typeof setup>, url: string, prompt: string) => runCli([...scriptedRunArgs(url, s.ws, s.sessions), prompt], { env: { HOME: s.home } });

describe("custom sub-agents through the task tool", () => {
  it("the task tool lists the agents; subagent_type starts the project's code-reviewer with its prompt, its model and only Read/Grep tools; a command it asks for is refused and never runs", async () => {
    const s = setup();
    // A SubagentStart hook that matches the agent's name (Claude's agent_type) records what it got.
    // In the workspace: hooks run confined (the workspace is writable to them, the folder above it is not).
    const hookOut = join(s.ws, "subagent-start.json");
    writeFileSync(
      join(s.ws, ".claude", "settings.json"),
      JSON.stringify({ hooks: { SubagentStart: [{ matcher: "code-reviewer", hooks: [{ type: "command", command: `cat > ${JSON.stringify(hookOut)}` }] }] } }),
    );
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Review config", prompt: "Review src/config.ts for problems.", subagent_type: "code-reviewer" } }] },
          { text: "The reviewer found one issue." },
        ],
        1: [
          { toolCalls: [{ name: "run_command", input: { command: "touch ran.txt" } }] },
          { toolCalls: [{ name: "read_file", input: { path: "src/config.ts" } }] },
          { text: "src/config.ts:3 JSON.parse is not guarded: invalid text throws." },
        ],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "Use the code-reviewer agent to review src/config.ts");
    expect(r.code, r.stderr).toBe(0);

    const parent = server.requests.filter((q) => depthOf(q) === 0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(parent).toHaveLength(2);
    expect(child).toHaveLength(3);

    // What the parent's model is told: each agent by name and description, with its tools; the
    // project's code-reviewer, not the user's; the Copilot agent by its file name.
    const desc = taskDescription(parent[0]!);
    expect(desc).toContain("- code-reviewer: Expert code review specialist. Use immediately after writing or modifying code. (Tools: Read, Grep)");
    expect(desc).toContain("- docs-writer: Writes and updates Markdown documentation for the project (Tools: read, edit)");
    expect(desc).toContain("- test-runner: Runs the test suite and reports failures. Use after code changes. (Tools: all of yours)");
    expect(desc).not.toContain("USER reviewer");
    // The list is read once per session: every request of the parent carries the same tool description (a stable cached prefix).
    expect(taskDescription(parent[1]!)).toBe(desc);
    const schema = JSON.stringify((tools(parent[0]!).find((t) => t.function.name === "task") as unknown as { function: { parameters: unknown } }).function.parameters);
    expect(schema).toContain("subagent_type");

    // The child: its own prompt (the project's), its model, only the tools of its list.
    expect(system(child[0]!)).toContain("PROJECT-REVIEWER-PROMPT");
    expect(system(child[0]!)).not.toContain("USER-REVIEWER-PROMPT");
    expect(child[0]!.body.model).toBe("small-model");
    expect(parent[0]!.body.model).toBe("m");
    const names = toolNames(child[0]!);
    expect(names).toEqual(expect.arrayContaining(["read_file", "grep"]));
    for (const t of ["run_command", "write_file", "edit_file", "glob", "task", "todo_write"]) expect(names).not.toContain(t);

    // The command outside its list was refused (the model is told) and never ran.
    expect(existsSync(join(s.ws, "ran.txt"))).toBe(false);
    const refused = (child[1]!.body.messages as Json[]).find((m) => m.role === "tool") as { content: string };
    expect(refused.content).toMatch(/^Unknown tool "run_command"\. Available tools: /);
    expect(refused.content).not.toMatch(/Available tools: .*run_command/);
    expect(JSON.parse(readFileSync(hookOut, "utf8"))).toMatchObject({ hook_event_name: "SubagentStart", agent_type: "code-reviewer" });
    // The parent got the distilled answer.
    expect(JSON.stringify(parent[1]!.body)).toContain("JSON.parse is not guarded");
  }, 90_000);

  it("@agent-NAME in the user's message tells the model to start that agent; a Copilot agent runs with its mapped tool sets and the session's model; an unknown subagent_type is refused with the list", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [
          { toolCalls: [{ name: "task", input: { description: "Docs", prompt: "Update README.md", subagent_type: "no-such-agent" } }] },
          { toolCalls: [{ name: "task", input: { description: "Docs", prompt: "Update README.md", subagent_type: "Docs Writer" } }] },
          { text: "done" },
        ],
        1: [{ text: "README.md updated." }],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "Write the README with @agent-docs-writer please");
    expect(r.code, r.stderr).toBe(0);
    const parent = server.requests.filter((q) => depthOf(q) === 0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(JSON.stringify(parent[0]!.body.messages)).toContain('The user asks for the \\"docs-writer\\" agent: start it with task (subagent_type \\"docs-writer\\").');
    const refusal = (parent[1]!.body.messages as Json[]).filter((m) => m.role === "tool").pop() as { content: string };
    expect(refusal.content).toContain('there is no agent named "no-such-agent". The agents: code-reviewer, docs-writer, test-runner.');
    expect(child).toHaveLength(1);
    expect(system(child[0]!)).toContain("DOCS-WRITER-PROMPT");
    // Copilot's display-name model is not a model id: the session's model.
    expect(child[0]!.body.model).toBe("m");
    const names = toolNames(child[0]!);
    expect(names).toEqual(expect.arrayContaining(["read_file", "edit_file", "write_file", "load_tools"]));
    // list_files (Read) is deferred: behind the child's load_tools.
    expect(tools(child[0]!).find((t) => t.function.name === "load_tools")!.function.description).toContain("\n- list_files: list a folder as a tree");
    for (const t of ["run_command", "grep", "glob", "task"]) expect(names).not.toContain(t);
    expect(r.stderr).toContain("Claude Sonnet 4.5");
  }, 90_000);
  it('subagent_type "general-purpose" (Claude Code\'s built-in type, which Claude models send by habit) starts a plain sub-agent, not a refusal', async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [{ name: "task", input: { description: "Count", prompt: "Count the exports in src/config.ts", subagent_type: "general-purpose" } }] }, { text: "done" }],
        1: [{ text: "GP-CHILD-ANSWER: 2 exports." }],
      }),
    });
    const r = await cli(s, server.openaiBaseUrl, "count the exports");
    expect(r.code, r.stderr).toBe(0);
    const parent = server.requests.filter((q) => depthOf(q) === 0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(child).toHaveLength(1);
    // A plain sub-agent: none of the custom agents' prompts, the session's general tools.
    for (const p of ["DOCS-WRITER-PROMPT"]) expect(system(child[0]!)).not.toContain(p);
    expect(toolNames(child[0]!)).toEqual(expect.arrayContaining(["read_file", "grep"]));
    const result = (parent[1]!.body.messages as Json[]).filter((m) => m.role === "tool").pop() as { content: string };
    expect(result.content).toContain("GP-CHILD-ANSWER: 2 exports.");
    expect(result.content).not.toContain("there is no agent named");
  }, 90_000);
});
