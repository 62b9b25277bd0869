// Claude Code's agent fields Yoke reads beyond name/description/tools/model: permissionMode (never
// looser than the user allows), skills, hooks and mcpServers (reported as not applied; ignored in a
// plugin's agent, as Claude Code ignores them), and the system prompt an agent's body makes.
import { describe, expect, it } from "vitest";
import { buildSystemPrompt, harnessParts } from "../../../src/core/loop/system-prompt";
import { agentSystemPrompt } from "../../../src/core/subagents";
import { agentPermissionMode, agentTools, parseAgentFile, type AgentFile } from "../../../src/core/subagents/agents";

const file = (text: string, origin: AgentFile["origin"] = "project"): AgentFile => ({ display: `.claude/agents/a.md`, text, origin, format: "claude", stem: "a" });
const agent = (fm: string, origin: AgentFile["origin"] = "project") => parseAgentFile(file(`---\nname: a\ndescription: d\n${fm}---\nBODY\n`, origin));

describe("permissionMode", () => {
  const mode = (wanted: string, origin: AgentFile["origin"], parent: string) => agentPermissionMode({ permissionMode: wanted, origin, source: "x.md", name: "a" }, parent);

  it("a repository agent may tighten, never loosen, the session's mode", () => {
    expect(mode("plan", "project", "default")).toEqual({ mode: "plan" });
    expect(mode("bypassPermissions", "project", "default")).toEqual({
      note: 'x.md: permissionMode "bypassPermissions" is ignored: an agent from the repository may not loosen your permission mode (default); the agent runs in default mode',
    });
    expect(mode("acceptEdits", "project", "plan").mode).toBeUndefined();
    expect(mode("default", "project", "acceptEdits")).toEqual({ mode: "default" });
  });

  it("the user's own agent may set any mode; a parent in bypassPermissions keeps it; an unknown mode is a note", () => {
    expect(mode("acceptEdits", "user", "default")).toEqual({ mode: "acceptEdits" });
    expect(mode("bypassPermissions", "user", "plan")).toEqual({ mode: "bypassPermissions" });
    expect(mode("plan", "user", "bypassPermissions").mode).toBeUndefined();
    expect(mode("plan", "user", "bypassPermissions").note).toContain("takes precedence");
    expect(mode("auto", "user", "default").note).toContain('permissionMode "auto" is not a mode Yoke has');
  });

  it("dontAsk (Claude Code's: deny whatever would be asked) only tightens, so a repository's agent may set it; a parent in bypassPermissions keeps it", () => {
    expect(mode("dontAsk", "project", "default")).toEqual({ dontAsk: true });
    expect(mode("dontAsk", "user", "acceptEdits")).toEqual({ dontAsk: true });
    expect(mode("dontAsk", "project", "bypassPermissions").dontAsk).toBeUndefined();
    expect(mode("dontAsk", "project", "bypassPermissions").note).toContain("takes precedence");
    expect(agent("permissionMode: dontAsk\n").problems).toEqual([]);
  });

  it("is read from the frontmatter, and dropped (with a problem) in a plugin's agent, as are hooks and mcpServers", () => {
    expect(agent("permissionMode: plan\nskills: [a, b]\n").agent).toMatchObject({ permissionMode: "plan", skills: ["a", "b"] });
    const p = agent("permissionMode: bypassPermissions\nhooks:\n  Stop: []\nmcpServers: [x]\n", "plugin");
    expect(p.agent?.permissionMode).toBeUndefined();
    expect(p.agent?.hooks).toBeUndefined();
    expect(p.problems.map((x) => x.message)).toEqual([
      expect.stringContaining('"permissionMode" is ignored in a plugin\'s agent'),
      expect.stringContaining('"hooks" is ignored in a plugin\'s agent'),
      expect.stringContaining('"mcpServers" is ignored in a plugin\'s agent'),
    ]);
    const own = agent("hooks:\n  Stop: []\nmcpServers: [x]\n");
    expect(own.problems).toEqual([]);
    expect(own.agent?.mcpServers).toEqual({ inline: {}, names: ["x"] });
  });
});

describe("an agent's system prompt", () => {
  it("its body replaces Yoke's prose; the workspace line, Restricted Mode and the hashline note stay", () => {
    const parent = buildSystemPrompt({ workspaceRoot: "/w", platform: "linux", trusted: false, permissionMode: "default" });
    expect(harnessParts(parent)).toEqual([expect.stringMatching(/^Workspace root: \/w\./), expect.stringMatching(/^The workspace is in Restricted Mode/)]);
    const a = agent("").agent!;
    const sys = agentSystemPrompt(parent, "FRAMING", a, ['Skill "s" (preloaded for this agent):\nS']);
    expect(sys.startsWith('You are the "a" agent (.claude/agents/a.md). Your instructions:\n\nBODY')).toBe(true);
    expect(sys).not.toContain("You are Yoke");
    expect(sys).not.toContain("How to work:");
    expect(sys).toContain("`LINE#HH|text`");
    expect(sys).toContain("Restricted Mode");
    expect(sys.endsWith('FRAMING\n\nSkill "s" (preloaded for this agent):\nS')).toBe(true);
  });
});

describe("hooks, maxTurns and the fields Yoke does not apply", () => {
  it("hooks are read by the hook engine's reader: Stop becomes SubagentStop; a project agent's are checked in (block, never allow), the user's are not", () => {
    const fm =
      "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./guard.sh\n  Stop:\n    - hooks:\n        - type: command\n          command: ./done.sh\n";
    const p = agent(fm).agent!;
    expect(p.hooks?.map((h) => [h.event, h.matcher, h.hooks.map((x) => x.command)])).toEqual([
      ["PreToolUse", "Bash", ["./guard.sh"]],
      ["SubagentStop", "", ["./done.sh"]],
    ]);
    expect(p.hooks?.[0]?.source).toMatchObject({ kind: "claude", checkedIn: true, label: ".claude/agents/a.md (agent hooks)" });
    expect(agent(fm, "user").agent!.hooks?.[0]?.source).toMatchObject({ kind: "claude-user" });
    expect(agent(fm, "user").agent!.hooks?.[0]?.source.checkedIn).toBeUndefined();
  });

  it("a bad hook is a problem with its line; hooks that are not a mapping are a problem", () => {
    const bad = agent("hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n  NoSuchEvent: []\n");
    expect(bad.problems.map((x) => x.message)).toEqual([
      expect.stringMatching(/^\.claude\/agents\/a\.md:4: hooks\.PreToolUse\[0\]\.hooks\[0\]: "command" must be a non-empty string; skipped$/),
      expect.stringMatching(/^\.claude\/agents\/a\.md:4: hooks\.NoSuchEvent: unknown hook event/),
    ]);
    expect(agent("hooks: [a]\n").problems[0]?.message).toContain('"hooks" must be a mapping of hook events');
  });

  it("maxTurns is a whole number above 0", () => {
    expect(agent("maxTurns: 5\n").agent?.maxTurns).toBe(5);
    expect(agent("maxTurns: '7'\n").agent?.maxTurns).toBe(7);
    const bad = agent("maxTurns: 0\n");
    expect(bad.agent?.maxTurns).toBeUndefined();
    expect(bad.problems[0]?.message).toBe('.claude/agents/a.md:4: "maxTurns" must be a whole number of turns above 0; the agent\'s turns are not bounded by it');
  });

  it("isolation: worktree and background: true are applied (read into the definition); other values are problems at their line", () => {
    const r = agent("background: true\nisolation: worktree\n");
    expect(r.problems).toEqual([]);
    expect(r.agent).toMatchObject({ background: true, isolation: "worktree" });
    expect(agent("background: 'false'\nisolation: none\n")).toMatchObject({ problems: [] });
    expect(agent("background: false\n").agent?.background).toBeUndefined();
    const bad = agent("background: sometimes\nisolation: container\n");
    expect(bad.agent).toBeDefined();
    expect(bad.agent?.background).toBeUndefined();
    expect(bad.agent?.isolation).toBeUndefined();
    expect(bad.problems.map((p) => p.message)).toEqual([
      ".claude/agents/a.md:5: \"isolation\" must be worktree (Claude Code's only value); the agent works in the session's workspace",
      '.claude/agents/a.md:4: "background" must be true or false; the agent runs in the foreground',
    ]);
  });

  it("every documented key Yoke does not apply, and every unknown key, is a 'not applied' problem at its line", () => {
    const r = agent("memory: user\neffort: high\ncolor: red\ninitialPrompt: hi\nfavourite: x\n");
    expect(r.agent).toBeDefined();
    // `effort` is applied since session 23 (the agent's run's reasoning effort), `memory` since session 24.
    expect(r.agent?.effort).toBe("high");
    expect(r.agent?.memory).toBe("user");
    expect(r.problems.map((x) => x.message.replace(/\(.*$/, ""))).toEqual([
      '.claude/agents/a.md:6: not applied: "color" ',
      '.claude/agents/a.md:7: not applied: "initialPrompt" ',
      '.claude/agents/a.md:8: not applied: "favourite" is not a Claude Code sub-agent field Yoke knows; ignored',
    ]);
    const copilot = parseAgentFile({
      display: ".github/agents/p.agent.md",
      text: "---\ndescription: d\ntools: ['read']\nhandoffs: []\ntarget: vscode\nargument-hint: x\nmcp-servers: {}\n---\nB\n",
      origin: "project",
      format: "copilot",
      stem: "p",
    });
    // `target: vscode` is applied (the agent is used where VS Code runs: in Yoke); session 24.
    expect(copilot.problems.map((x) => /not applied: "([^"]+)"/.exec(x.message)?.[1])).toEqual(["handoffs", "argument-hint"]);
  });

  it("mcpServers: configured servers' names and inline {name: definition} (Claude's list, or a mapping as Copilot's mcp-servers); names join the tools list", () => {
    const r = agent("tools: Read\nmcpServers:\n  - github\n  - local:\n      command: node\n      args: [server.js]\n  - 7\n");
    expect(r.agent?.mcpServers).toEqual({ names: ["github"], inline: { local: { command: "node", args: ["server.js"] } } });
    expect(r.problems.map((p) => p.message)).toEqual([".claude/agents/a.md:5: each MCP server must be a configured server's name or {name: definition}; 7 skipped"]);
    const copilot = parseAgentFile({
      display: ".github/agents/p.agent.md",
      text: "---\ndescription: d\nmcp-servers:\n  docs:\n    type: http\n    url: https://example.test/mcp\n---\nB\n",
      origin: "project",
      format: "copilot",
      stem: "p",
    });
    expect(copilot.agent?.mcpServers).toEqual({ names: [], inline: { docs: { type: "http", url: "https://example.test/mcp" } } });
    const mk = (name: string) => ({ name, permission: name.startsWith("mcp__") ? name : "Read" }) as never;
    const tools = [mk("read_file"), mk("mcp__github__issues"), mk("mcp__other__x")];
    expect(agentTools(r.agent!, tools).tools.map((t) => t.name)).toEqual(["read_file", "mcp__github__issues"]);
  });
});

// Claude Code 2.1.218 rejects ":" in a local agent's name (reserved for plugin:agent; anthropics/claude-code#80396).
describe("an agent's effort", () => {
  it("is one of Claude Code's levels, any case; another value is a note at its line and not applied", () => {
    expect(agent("effort: Max\n").agent?.effort).toBe("max");
    const bad = agent("effort: extreme\n");
    expect(bad.agent?.effort).toBeUndefined();
    expect(bad.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^\.claude\/agents\/a\.md:4: not applied: "effort: extreme" is not one of low, medium, high, xhigh, max/)]);
  });
});

describe("an agent name with a colon", () => {
  it("is skipped in a project or user agent, with a problem at its line; a plugin's agent keeps its namespaced name", () => {
    for (const origin of ["project", "user"] as const) {
      const r = parseAgentFile(file("---\nname: gsd:planner\ndescription: Plans phases\n---\nPlan.\n", origin));
      expect(r.agent).toBeUndefined();
      expect(r.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^\.claude\/agents\/a\.md:2: the name "gsd:planner" has a ":"/)]);
    }
    const plugin = parseAgentFile({ ...file("---\nname: kit:planner\ndescription: Plans phases\n---\nPlan.\n", "plugin"), namespace: "kit" });
    expect(plugin.agent?.name).toBe("kit:planner");
  });
});
