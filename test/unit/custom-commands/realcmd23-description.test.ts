// Claude Code's commands and skills without a `description` (session 23, realcmd23): "If omitted, uses
// the first paragraph of markdown content" (Claude Code's skills reference; commands are read the same
// way). Before, Yoke listed such a command with no description and told the model only a skill's name.
// Files written from the documentation's examples.
import { describe, expect, it } from "vitest";
import { loadCustomCommands, type CommandFiles } from "../../../src/core/custom-commands";
import { firstParagraph } from "../../../src/core/guidance/frontmatter";
import { parseSkill } from "../../../src/core/guidance/parse";
import { parseOutputStyle } from "../../../src/core/output-styles/loader";

const files = (tree: Record<string, string>): CommandFiles => ({
  async list(dir) {
    return Object.keys(tree)
      .filter((p) => p.startsWith(`${dir}/`))
      .map((p) => p.slice(dir.length + 1));
  },
  async read(path) {
    return tree[path];
  },
});

describe("a command or skill without a description", () => {
  it.each([
    ["Fix issue #$ARGUMENTS following our coding standards.\n", "Fix issue #$ARGUMENTS following our coding standards."],
    ["\n\n# Review the diff\n\nLook at every hunk.\n", "Review the diff"],
    ["Run the tests\nand report failures.\n\nThen stop.\n", "Run the tests and report failures."],
    ["\r\nSummarize the changes.\r\n", "Summarize the changes."],
    ["", undefined],
  ])("%j is described as %j", (body, want) => {
    expect(firstParagraph(body)).toBe(want);
  });

  it("a long first paragraph is cut at 250 characters", () => {
    const d = firstParagraph(`${"word ".repeat(100)}\n`)!;
    expect(d.length).toBe(250);
    expect(d.endsWith("…")).toBe(true);
  });

  it("a Claude command (with or without frontmatter) gets its first paragraph; a written description wins; other formats are untouched", async () => {
    const { commands } = await loadCustomCommands(
      files({
        "/ws/.claude/commands/fix-issue.md": "Fix issue #$ARGUMENTS following our coding standards.\n\nUse TDD.\n",
        "/ws/.claude/commands/review.md": "---\nallowed-tools: Read, Grep\n---\n\n## Review the code\n\nCheck naming.\n",
        "/ws/.claude/commands/commit.md": "---\ndescription: Create a git commit\n---\nCommit the staged changes.\n",
        "/ws/.roo/commands/deploy.md": "Deploy to staging.\n",
      }),
      [
        { dir: "/ws/.claude/commands", format: "claude", origin: "project" },
        { dir: "/ws/.roo/commands", format: "roo", origin: "project" },
      ],
    );
    const by = Object.fromEntries(commands.map((c) => [c.name, c.description]));
    expect(by).toEqual({ "fix-issue": "Fix issue #$ARGUMENTS following our coding standards.", review: "Review the code", commit: "Create a git commit", deploy: undefined });
  });

  it("a SKILL.md without one: the model is told its first paragraph, and a note says so", () => {
    const r = parseSkill({
      path: "/ws/.claude/skills/pdf/SKILL.md",
      source: ".claude/skills/pdf/SKILL.md",
      origin: "workspace",
      text: "---\nname: pdf\n---\n\nExtract text and tables from PDF files.\n\n## Steps\n",
    });
    expect(r.entry?.description).toBe("Extract text and tables from PDF files.");
    expect(r.problems.map((p) => p.message)).toEqual(["the skill has no `description`: the model is told its first paragraph instead (as Claude Code does)"]);
  });

  it("an output style without one is described by its first paragraph; a written description wins", () => {
    expect(parseOutputStyle("/ws/.claude/output-styles/terse.md", "project", "---\nkeep-coding-instructions: true\n---\nAnswer in one sentence.\n\nNo lists.\n").style?.description).toBe(
      "Answer in one sentence.",
    );
    expect(parseOutputStyle("/ws/.claude/output-styles/terse.md", "project", "---\ndescription: Short answers\n---\nAnswer in one sentence.\n").style?.description).toBe("Short answers");
  });
});
