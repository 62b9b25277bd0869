// Roo Code's custom modes (.roomodes, YAML or JSON) read as Yoke custom agents: the slug names it,
// whenToUse (else description, else the role's first sentence) describes it, role + custom
// instructions + the mode's own rules make its prompt, groups give its tools; what Yoke cannot
// apply (browser, mcp, an edit fileRegex) is reported with its line.
import { describe, expect, it } from "vitest";
import { loadAgents, type AgentFile } from "../../../src/core/subagents/agents";
import { rooModeAgentFiles } from "../../../src/core/subagents/roo-modes";

const rules = async (slug: string) => (slug === "reviewer" ? [{ display: ".roo/rules-reviewer/a.md", text: "Check inputs. RULE-A\n" }] : []);

describe(".roomodes", () => {
  it("JSON: each mode an agent with its tools from groups, its prompt from role, instructions and rules", async () => {
    const json = JSON.stringify({
      customModes: [
        {
          slug: "reviewer",
          name: "Reviewer",
          roleDefinition: "You review code. You are strict.",
          description: "Short description",
          customInstructions: "Cite lines.",
          groups: ["read", ["edit", { fileRegex: "\\.(md|txt)$", description: "Docs" }], "mcp"],
        },
        { slug: "bad slug", roleDefinition: "x" },
        { slug: "norole" },
      ],
    });
    const { files, problems } = await rooModeAgentFiles({ text: json, display: ".roomodes", rules });
    expect(problems).toEqual([
      ".roomodes:1: customModes[1] (bad slug): a mode needs a slug of letters, digits, - and _; skipped",
      ".roomodes:1: customModes[2] (norole): a mode needs a roleDefinition; skipped",
    ]);
    const { agents, problems: agentProblems } = loadAgents(files as AgentFile[]);
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatchObject({ name: "reviewer", description: "Short description", tools: ["TodoWrite", "Read", "Grep", "Glob", "Edit", "Write"], origin: "project" });
    expect(agents[0]!.prompt).toBe(
      "You review code. You are strict.\n\nCite lines.\n\nEdit only files whose path matches /\\.(md|txt)$/ (Docs); other edits are refused.\n\nRules of this mode (.roo/rules-reviewer/a.md):\nCheck inputs. RULE-A",
    );
    // The fileRegex is enforced (edit-paths.ts): carried with the agent, not reported as left out.
    expect(agents[0]!.editPaths).toEqual([expect.objectContaining({ source: "\\.(md|txt)$", description: "Docs", regex: expect.anything() })]);
    expect(agentProblems.map((p) => p.message)).toEqual(['.roomodes:1: mode "reviewer": not applied: the "mcp" group (name the MCP tools in a Claude Code agent instead)']);
  });

  it("YAML: whenToUse describes it; no whenToUse or description: the role's first sentence; a read-only mode gets read tools only", async () => {
    const yaml =
      "customModes:\n  - slug: planner\n    name: Planner\n    roleDefinition: You plan work. Then you stop.\n    groups: [read]\n  - slug: doer\n    roleDefinition: You do.\n    whenToUse: Use to do things.\n    groups: [read, command]\n";
    const { files } = await rooModeAgentFiles({ text: yaml, display: ".roomodes", rules });
    const { agents } = loadAgents(files as AgentFile[]);
    expect(agents.map((a) => [a.name, a.description, a.tools])).toEqual([
      ["doer", "Use to do things.", ["TodoWrite", "Read", "Grep", "Glob", "Bash"]],
      ["planner", "You plan work.", ["TodoWrite", "Read", "Grep", "Glob"]],
    ]);
  });

  it("a fileRegex Yoke cannot test in bounded time (a back-reference) is refused: reported, and the mode may edit no file; an edit group without one is not limited", async () => {
    const yaml =
      "customModes:\n  - slug: risky\n    roleDefinition: You edit.\n    groups:\n      - read\n      - - edit\n        - fileRegex: ^(a)\\1$\n  - slug: free\n    roleDefinition: You edit anything.\n    groups: [read, edit]\n";
    const { files } = await rooModeAgentFiles({ text: yaml, display: ".roomodes", rules });
    const { agents, problems } = loadAgents(files as AgentFile[]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^\.roomodes:2: mode "risky": the edit group's fileRegex \^\(a\)\\1\$ is refused: it uses a back-reference .*; the mode may edit no file with it$/),
    ]);
    const risky = agents.find((a) => a.name === "risky")!;
    expect(risky.editPaths).toEqual([expect.objectContaining({ source: "^(a)\\1$", problem: expect.any(String) })]);
    expect(agents.find((a) => a.name === "free")!.editPaths).toBeUndefined();
  });

  it("a file that is not YAML, or has no customModes, is one problem and no agent", async () => {
    expect((await rooModeAgentFiles({ text: "customModes: [\n", display: ".roomodes", rules })).problems[0]).toMatch(/^\.roomodes:\d+: not valid YAML or JSON: /);
    expect(await rooModeAgentFiles({ text: "modes: []\n", display: ".roomodes", rules })).toEqual({
      files: [],
      problems: ['.roomodes:1: no customModes list: Roo Code reads its modes from "customModes"'],
    });
  });
});
