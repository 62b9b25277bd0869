// How Claude Code reads a command's, a skill's and an agent's frontmatter values (session 24, cmd24),
// written from its docs' examples. Its reader is a YAML 1.2 one (as Yoke's `yaml`): `True` and `TRUE`
// are booleans, `yes` is a string. A boolean key is true for YAML's true or the string "true"; a
// command's or skill's `description` that YAML read as a number or boolean is its text, while an
// agent's must be a string (Claude Code's agent loader skips the file otherwise). An agent's `name`
// may have spaces ("Code Reviewer"): Claude Code checks only that there is one.
import { describe, expect, it } from "vitest";
import { parseCommandFile } from "../../../src/core/custom-commands";
import { modelInvocable as modelCommandListable } from "../../../src/core/custom-commands/model-commands";
import { parseSkill } from "../../../src/core/guidance/parse";
import { parseAgentFile } from "../../../src/core/subagents/agents";

const command = (front: string) => parseCommandFile({ dir: "/ws/.claude/commands", format: "claude", origin: "project" }, "deploy.md", `---\n${front}\n---\nDeploy the app.\n`);
const skill = (front: string) =>
  parseSkill({ path: "/ws/.claude/skills/deploy/SKILL.md", source: ".claude/skills/deploy/SKILL.md", origin: "workspace", text: `---\nname: deploy\n${front}\n---\nDeploy the app.\n` });
const agent = (front: string) => parseAgentFile({ display: ".claude/agents/reviewer.md", text: `---\n${front}\n---\nYou review code.\n`, origin: "project", format: "claude", stem: "reviewer" });

// disable-model-invocation as written → whether Claude Code keeps the model from it.
const BOOLEANS: Array<[string, boolean]> = [
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ['"true"', true],
  ["'true'", true],
  ["yes", false],
  ["on", false],
  ["1", false],
  ["false", false],
  ['"True"', false],
];

describe("disable-model-invocation, each spelling the same in a command, a skill and an agent", () => {
  for (const [written, disabled] of BOOLEANS) {
    it(`disable-model-invocation: ${written} → ${disabled ? "the user's only" : "the model may use it"}`, () => {
      const c = command(`description: Deploy to production\ndisable-model-invocation: ${written}`).command!;
      expect(c.disableModelInvocation).toBe(disabled);
      expect(modelCommandListable(c)).toBe(!disabled);
      expect(skill(`description: Deploy to production\ndisable-model-invocation: ${written}`).entry!.activation).toBe(disabled ? "manual" : "requested");
      expect(agent(`name: reviewer\ndescription: Reviews code\ndisable-model-invocation: ${written}`).agent!.modelInvocable).toBe(!disabled);
    });
  }
});

describe("a description YAML reads as a number or a boolean", () => {
  it("a command's and a skill's is its text (42, true), as Claude Code reads them", () => {
    expect(command("description: 42").command!.description).toBe("42");
    expect(command("description: 42").command!.descriptionFromBody).toBeUndefined();
    expect(command("description: true").command!.description).toBe("true");
    expect(skill("description: 42").entry!.description).toBe("42");
    expect(skill("description: 42").problems).toEqual([]);
    // A list is none: the first paragraph stands in.
    expect(command("description: [a, b]").command!).toMatchObject({ description: "Deploy the app.", descriptionFromBody: true });
  });

  it("an agent's is no description (Claude Code's loader skips it), said so", () => {
    const r = agent("name: reviewer\ndescription: 42");
    expect(r.agent).toBeUndefined();
    expect(r.problems.map((p) => p.message)).toEqual([
      '.claude/agents/reviewer.md:3: the "description" must be text (Claude Code skips an agent whose description is the number 42); quote it; skipped',
    ]);
    expect(agent('name: reviewer\ndescription: "42"').agent!.description).toBe("42");
  });
});

describe("an agent's name with spaces", () => {
  it('"Code Reviewer" is an agent of that name, as in Claude Code', () => {
    const r = agent("name: Code Reviewer\ndescription: Reviews code");
    expect(r.problems).toEqual([]);
    expect(r.agent!.name).toBe("Code Reviewer");
  });

  it("names that would break a listing, a rule or a path are still refused", () => {
    for (const bad of ['"a/b"', '"x  y"', '"Agent(x)"', '"a\\nb"', '"`x`"']) expect(agent(`name: ${bad}\ndescription: Reviews code`).agent, bad).toBeUndefined();
    expect(agent("name: Überprüfer 2\ndescription: Reviews code").agent!.name).toBe("Überprüfer 2");
  });
});
