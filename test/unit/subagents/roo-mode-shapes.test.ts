// Every shape of a Roo Code mode Yoke reads gives the same agent as the list form: `customModes` as
// a list or as a mapping keyed by slug, in YAML or JSON, and each `groups` entry as a name, the
// tuple `["edit", {fileRegex, description}]` or the object `{group: "edit", options: {…}}` — the
// same tools, the same edit limit, the same prompt.
import { describe, expect, it } from "vitest";
import { loadAgents, type AgentFile } from "../../../src/core/subagents/agents";
import { rooModeAgentFiles } from "../../../src/core/subagents/roo-modes";

const none = async () => [];
const agentOf = async (text: string, display = ".roomodes") => {
  const { files, problems } = await rooModeAgentFiles({ text, display, rules: none });
  expect(problems).toEqual([]);
  const { agents } = loadAgents(files as AgentFile[]);
  expect(agents).toHaveLength(1);
  const a = agents[0]!;
  return { name: a.name, description: a.description, tools: a.tools, prompt: a.prompt, edit: a.editPaths?.map((e) => ("regex" in e ? `${e.source}|${e.description}` : e)) };
};

const mode = { name: "Docs", roleDefinition: "You write docs.", whenToUse: "Documentation" };
const tuple = ["read", ["edit", { fileRegex: "\\.md$", description: "Markdown" }], "command"];
const object = ["read", { group: "edit", options: { fileRegex: "\\.md$", description: "Markdown" } }, { group: "command" }];

describe("Roo mode shapes", () => {
  it("list, mapping by slug, YAML and JSON, tuple and object groups: the same agent (edit tools with their fileRegex)", async () => {
    const expected = await agentOf(JSON.stringify({ customModes: [{ slug: "docs", ...mode, groups: tuple }] }));
    expect(expected).toMatchObject({ name: "docs", tools: ["TodoWrite", "Read", "Grep", "Glob", "Edit", "Write", "Bash"], edit: ["\\.md$|Markdown"] });
    const shapes = [
      JSON.stringify({ customModes: [{ slug: "docs", ...mode, groups: object }] }),
      JSON.stringify({ customModes: { docs: { ...mode, groups: tuple } } }),
      JSON.stringify({ customModes: { docs: { ...mode, groups: object } } }),
      [
        "customModes:",
        "  docs:",
        "    name: Docs",
        "    roleDefinition: You write docs.",
        "    whenToUse: Documentation",
        "    groups:",
        "      - read",
        "      - group: edit",
        "        options:",
        "          fileRegex: \\.md$",
        "          description: Markdown",
        "      - group: command",
      ].join("\n"),
      [
        "customModes:",
        "  - slug: docs",
        "    name: Docs",
        "    roleDefinition: You write docs.",
        "    whenToUse: Documentation",
        "    groups:",
        "      - read",
        "      - - edit",
        "        - fileRegex: \\.md$",
        "          description: Markdown",
        "      - command",
      ].join("\n"),
    ];
    for (const text of shapes) expect(await agentOf(text)).toEqual(expected);
  });

  it("a mapping entry's own slug wins over its key; an object group without options is unlimited; an unknown object group is reported by its text", async () => {
    const { files, problems } = await rooModeAgentFiles({
      text: JSON.stringify({ customModes: { key: { slug: "own", ...mode, groups: [{ group: "edit" }, { bogus: 1 }] } } }),
      display: ".roomodes",
      rules: none,
    });
    expect(problems).toEqual([]);
    const { agents, problems: notes } = loadAgents(files as AgentFile[]);
    expect(agents.map((a) => [a.name, a.tools, a.editPaths])).toEqual([["own", ["TodoWrite", "Edit", "Write"], undefined]]);
    expect(notes.map((n) => n.message)).toEqual(['.roomodes:1: mode "own": not applied: the "{"bogus":1}" group']);
  });
});
