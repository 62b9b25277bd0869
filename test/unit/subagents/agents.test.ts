// Custom agent files as Claude Code and Copilot document them: parsing, precedence, problems with
// their lines, the allow-list over real tool definitions, and model mapping.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentModel, agentTools, loadAgents, mentionedAgents, parseAgentFile, workspaceAgentFiles, type AgentFile } from "../../../src/core/subagents/agents";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { createBuiltinTools } from "../../../src/core/tools/builtin";

const file = (text: string, more: Partial<AgentFile> = {}): AgentFile => ({ display: ".claude/agents/x.md", text, origin: "project", format: "claude", stem: "x", ...more });
const tools = createBuiltinTools();
const names = (ts: { name: string }[]) => ts.map((t) => t.name).sort();

describe("agent files", () => {
  it("reads Claude Code's frontmatter: name, description, comma-separated tools, model; the body is the prompt", () => {
    const r = parseAgentFile(
      file("---\nname: debugger\ndescription: Debugging specialist for errors and test failures.\ntools: Read, Edit, Bash, Grep, Glob\nmodel: inherit\n---\n\nYou are an expert debugger.\n"),
    );
    expect(r.problems).toEqual([]);
    expect(r.agent).toMatchObject({ name: "debugger", tools: ["Read", "Edit", "Bash", "Grep", "Glob"], prompt: "You are an expert debugger.", modelInvocable: true });
    expect(r.agent?.model).toBeUndefined();
  });

  it("reports a missing name or description with the file and line, and skips the file", () => {
    expect(parseAgentFile(file("---\ndescription: d\n---\nbody")).problems[0]!.message).toBe(
      '.claude/agents/x.md:1: a sub-agent needs a "name" in its frontmatter (Claude Code skips the file without one); skipped',
    );
    expect(parseAgentFile(file("---\nname: a\n---\nbody")).problems[0]!.message).toMatch(/^\.claude\/agents\/x\.md:1: a sub-agent needs a "description"/);
    expect(parseAgentFile(file("---\nname: a\ntools:\n  - [unclosed\n---\nbody")).problems[0]!.message).toMatch(/^\.claude\/agents\/x\.md:[34]: invalid YAML frontmatter/);
    // Claude Code reads a description YAML rejects (`: ` inside, `<example>` blocks) as its text.
    const ex = parseAgentFile(file('---\nname: a\ndescription: Use when tests fail. Examples: <example>Context: x. user: "go"</example>\n---\nbody'));
    expect(ex.problems).toEqual([]);
    expect(ex.agent!.description).toBe('Use when tests fail. Examples: <example>Context: x. user: "go"</example>');
  });

  it("Copilot: the file name is the identifier when the name is a display name; infer: false keeps it from the model", () => {
    const r = parseAgentFile(
      file("---\ndescription: 'Plans work'\nname: 'Planner Pro'\ntools: ['search', 'read']\ninfer: false\n---\nPlan.", {
        format: "copilot",
        stem: "planner",
        display: ".github/agents/planner.agent.md",
      }),
    );
    expect(r.agent).toMatchObject({ name: "planner", displayName: "Planner Pro", modelInvocable: false });
  });

  it("a project agent wins over the user's of the same name, the user's over a plugin's; sorted by name", () => {
    const { agents } = loadAgents([
      file("---\nname: b\ndescription: plugin b\n---\nx", { origin: "plugin" }),
      file("---\nname: a\ndescription: user a\n---\nx", { origin: "user" }),
      file("---\nname: a\ndescription: project a\n---\nx", { origin: "project" }),
      file("---\nname: b\ndescription: user b\n---\nx", { origin: "user" }),
    ]);
    expect(agents.map((a) => `${a.name}:${a.description}`)).toEqual(["a:project a", "b:user b"]);
  });
});

describe("the allow-list over the session's tools", () => {
  it("Claude names cover every tool of that permission; absent = all; disallowedTools removes; Task is nesting", () => {
    expect(names(agentTools({ tools: ["Read", "Grep"], format: "claude" }, tools).tools)).toEqual(["grep", "list_files", "read_file"]);
    expect(names(agentTools({ tools: ["Bash"], format: "claude" }, tools).tools)).toEqual(["command_output", "kill_command", "run_command"]);
    expect(agentTools({ format: "claude" }, tools).tools).toHaveLength(tools.length);
    expect(names(agentTools({ disallowedTools: ["Bash", "Write"], format: "claude" }, tools).tools)).not.toContain("run_command");
    expect(agentTools({ tools: ["Read", "Task"], format: "claude" }, tools).task).toBe(true);
    expect(agentTools({ tools: ["Read"], format: "claude" }, tools).task).toBe(false);
    expect(agentTools({ tools: ["Read", "WebFetch"], format: "claude" }, tools).unknown).toEqual(["WebFetch"]);
  });

  it("Agent(a, b) / Task(a) name the agent types it may start; a bare Agent or Task any; commas inside parentheses do not split the list", () => {
    const parsed = parseAgentFile({
      display: "x.md",
      text: "---\nname: x\ndescription: d\ntools: Read, Agent(worker, researcher), Bash(git *)\n---\nB\n",
      origin: "project",
      format: "claude",
      stem: "x",
    });
    expect(parsed.agent?.tools).toEqual(["Read", "Agent(worker, researcher)", "Bash(git *)"]);
    const t = agentTools(parsed.agent!, tools);
    expect(t).toMatchObject({ task: true, agentTypes: ["worker", "researcher"], unknown: [] });
    expect(names(t.tools)).toEqual(expect.arrayContaining(["read_file", "run_command"]));
    expect(agentTools({ tools: ["Task(a)", "Task(b)"], format: "claude" }, tools).agentTypes).toEqual(["a", "b"]);
    expect(agentTools({ tools: ["Agent(a)", "Agent"], format: "claude" }, tools).agentTypes).toBeUndefined();
    expect(agentTools({ tools: ["Read"], format: "claude" }, tools).agentTypes).toBeUndefined();
    expect(agentTools({ format: "claude" }, tools).agentTypes).toBeUndefined();
  });

  it("Copilot tool sets map onto Yoke's tools", () => {
    expect(names(agentTools({ tools: ["search"], format: "copilot" }, tools).tools)).toEqual(["glob", "grep"]);
    expect(names(agentTools({ tools: ["execute"], format: "copilot" }, tools).tools)).toContain("run_command");
    expect(names(agentTools({ tools: ["edit/editFiles"], format: "copilot" }, tools).tools)).toEqual(["edit_file", "write_file"]);
  });
});

describe("models and mentions", () => {
  it("maps Claude aliases on Anthropic only; ids only on their provider; display names inherit", () => {
    expect(agentModel("sonnet", "anthropic")).toEqual({ model: "claude-sonnet-5" });
    expect(agentModel("haiku", "openai").model).toBeUndefined();
    expect(agentModel("claude-opus-4-1", "anthropic")).toEqual({ model: "claude-opus-4-1" });
    expect(agentModel("claude-opus-4-1", "openai-compatible").model).toBeUndefined();
    expect(agentModel("gpt-5.1", "openai")).toEqual({ model: "gpt-5.1" });
    expect(agentModel("Claude Sonnet 4.5", "anthropic").model).toBeUndefined();
    expect(agentModel("inherit", "anthropic")).toEqual({});
  });

  it("finds @agent-NAME and @NAME of known agents only", () => {
    const { agents } = loadAgents([file("---\nname: code-reviewer\ndescription: d\n---\nx")]);
    expect(mentionedAgents("please @agent-code-reviewer look", agents).map((a) => a.name)).toEqual(["code-reviewer"]);
    expect(mentionedAgents("@code-reviewer: go", agents).map((a) => a.name)).toEqual(["code-reviewer"]);
    expect(mentionedAgents("mail me@code-reviewer.com or @someone", agents)).toEqual([]);
  });
});

describe("the workspace's agent folders", () => {
  it("reads .claude/agents (with sub-folders), .github/agents/*.agent.md and the older .github/chatmodes/*.chatmode.md through the workspace file system", async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-files-")));
    try {
      const put = (rel: string, text: string) => {
        mkdirSync(join(ws, rel, ".."), { recursive: true });
        writeFileSync(join(ws, rel), text);
      };
      put(".claude/agents/review/security.md", "---\nname: security\ndescription: d\n---\nx");
      put(".claude/agents/README.md", "not an agent");
      put(".github/agents/planner.agent.md", "---\ndescription: p\n---\nx");
      put(".github/chatmodes/tutor.chatmode.md", "---\ndescription: t\n---\nx");
      put(".github/chatmodes/notes.md", "not a chat mode");
      const files = await workspaceAgentFiles(createNodeWorkspaceFs(ws));
      expect(files.map((f) => [f.display, f.format, f.stem])).toEqual([
        [".claude/agents/review/security.md", "claude", "security"],
        [".github/agents/planner.agent.md", "copilot", "planner"],
        [".github/chatmodes/tutor.chatmode.md", "copilot", "tutor"],
      ]);
      expect(loadAgents(files).agents.map((a) => a.name)).toEqual(["planner", "security", "tutor"]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
