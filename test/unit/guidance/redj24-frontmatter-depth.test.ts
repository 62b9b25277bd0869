// Red team J (session 24): deeply nested YAML flow collections in a repository's front matter (an agent,
// a command, a skill, a rule) or `.roomodes`. The YAML parser takes about 125 µs a byte on them: a 40 KB
// agent file of twenty `[[[…]]]` values 1,000 deep added about 5 s to every session's start (`yoke lessons
// list` 6.1 s, 1.1 s without it), on the extension host's thread. Such text is now a problem of its file,
// never handed to the parser; the front matter people write (a few levels) is read as before.
import { describe, expect, it } from "vitest";
import { flowDepth, MAX_FLOW_DEPTH, parseFrontmatter } from "../../../src/core/guidance/frontmatter";
import { loadAgents } from "../../../src/core/subagents/agents";
import { rooModeAgentFiles } from "../../../src/core/subagents/roo-modes";

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

describe("front matter nested too deep", () => {
  it("is a problem of the file, not parsed", () => {
    const fm = parseFrontmatter(`---\nname: a\ndescription: d\nk: ${deep(1000)}\n---\nbody\n`);
    expect(fm.problem?.message).toContain(`nested more than ${MAX_FLOW_DEPTH} deep`);
    expect(fm.data).toEqual({});
    expect(fm.body).toBe("body\n");
  });

  it("keeps a repository agent with such front matter out, saying why", () => {
    const text = `---\nname: deep\ndescription: d\n${Array.from({ length: 5 }, (_, i) => `k${i}: ${deep(1000)}`).join("\n")}\n---\nYou review.\n`;
    const { agents, problems } = loadAgents([{ display: ".claude/agents/deep.md", text, origin: "project", format: "claude", stem: "deep" }]);
    expect(agents).toEqual([]);
    expect(problems.map((p) => p.message).join("\n")).toContain("nested more than");
  });

  it("reads what people write: a few levels, and brackets in quotes and comments do not count", () => {
    const fm = parseFrontmatter(
      `---\nname: a\ntools: [Read, Grep]\nhooks: {PreToolUse: [{matcher: Bash, hooks: [{type: command, command: "echo [[[[ ${"[".repeat(80)}"}]}]}\nnote: '${"{".repeat(80)}' # ${"[".repeat(80)}\n---\nbody\n`,
    );
    expect(fm.problem).toBeUndefined();
    expect(fm.data.tools).toEqual(["Read", "Grep"]);
    expect(flowDepth(`a: [b, {c: [d]}]`)).toBe(3);
    expect(flowDepth(`a: "${deep(100)}"\nb: [x]`)).toBe(1);
    // A quote never closed ends with its line: the next line's brackets count.
    expect(flowDepth(`a: '${"[".repeat(10)}\nb: ${deep(100)}`)).toBe(100);
  });

  it(".roomodes nested too deep is a problem, not parsed", async () => {
    const text = `{"customModes": [{"slug": "x", "name": "X", "roleDefinition": "r", "groups": ["read"], "extra": ${deep(1000)}}]}`;
    const { files, problems } = await rooModeAgentFiles({ text, display: ".roomodes", rules: async () => [] });
    expect(files).toEqual([]);
    expect(problems.join("\n")).toContain("nested more than");
  });
});
