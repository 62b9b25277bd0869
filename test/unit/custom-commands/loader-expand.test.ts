// Custom slash commands: each tool's files read as that tool reads them (names, namespaces,
// frontmatter, who wins a name) and the expansion of arguments (pure: no session).
import { describe, expect, it } from "vitest";
import { expandCommand, findCommand, loadCustomCommands, originLabel, parseInvocation, splitArgs, type CommandFiles, type CommandSource, type ExpandEnv } from "../../../src/core/custom-commands";
import { loadOutputStyles } from "../../../src/core/output-styles";

function files(tree: Record<string, string>): CommandFiles {
  return {
    async list(dir) {
      return Object.keys(tree)
        .filter((p) => p.startsWith(`${dir}/`))
        .map((p) => p.slice(dir.length + 1));
    },
    async read(path) {
      return tree[path];
    },
  };
}

const P = "/ws";
const H = "/home/u";
const sources: CommandSource[] = [
  { dir: `${P}/.claude/commands`, format: "claude", origin: "project" },
  { dir: `${P}/.github/prompts`, format: "copilot", origin: "project" },
  { dir: `${P}/.clinerules/workflows`, format: "cline", origin: "project" },
  { dir: `${P}/.roo/commands`, format: "roo", origin: "project" },
  { dir: `${H}/.claude/commands`, format: "claude", origin: "user" },
];

const env: ExpandEnv = {
  workspaceRoot: "/ws",
  shell: async (c) => `<ran ${c}>`,
  file: async (p) => (p === "src/a.ts" ? { path: "src/a.ts", text: "A" } : { error: "no such file" }),
};

describe("reading command files", () => {
  it("Claude: names from files, namespaces from sub-folders (also as folder:name), frontmatter; project over user silently", async () => {
    const { commands, problems } = await loadCustomCommands(
      files({
        [`${P}/.claude/commands/frontend/component.md`]:
          "---\ndescription: Make a component\nargument-hint: <name>\nallowed-tools: Bash(git add:*), Read\nmodel: small\ndisable-model-invocation: true\n---\nBody $ARGUMENTS",
        [`${P}/.claude/commands/review.md`]: "Project review",
        [`${P}/.claude/commands/notes.txt`]: "not a command",
        [`${H}/.claude/commands/review.md`]: "User review",
        [`${H}/.claude/commands/mine.md`]: "Mine",
      }),
      sources,
    );
    expect(problems).toEqual([]);
    const c = findCommand(commands, "component")!;
    expect(findCommand(commands, "frontend:component")).toBe(c);
    expect(c).toMatchObject({
      description: "Make a component",
      argumentHint: "<name>",
      allowedTools: ["Bash(git add:*)", "Read"],
      model: "small",
      disableModelInvocation: true,
      body: "Body $ARGUMENTS",
    });
    expect(originLabel(c)).toBe("(project:frontend)");
    expect(findCommand(commands, "review")!.body).toBe("Project review");
    expect(originLabel(findCommand(commands, "mine")!)).toBe("(user)");
    expect(findCommand(commands, "notes")).toBeUndefined();
  });

  it("Copilot `name`, Cline `/name.md` and `/name`, Roo; a name claimed by two formats is a problem and the first keeps it", async () => {
    const { commands, problems } = await loadCustomCommands(
      files({
        [`${P}/.github/prompts/form.prompt.md`]: "---\nname: create-form\nmode: agent\ntools: ['codebase', 'search']\n---\nForm",
        [`${P}/.github/prompts/plain.md`]: "not a prompt file",
        [`${P}/.clinerules/workflows/release.md`]: "Release",
        [`${P}/.roo/commands/release.md`]: "Roo release",
        [`${P}/.claude/commands/create-form.md`]: "Claude form",
      }),
      sources,
    );
    expect(findCommand(commands, "create-form")!.body).toBe("Claude form");
    expect(findCommand(commands, "release.md")!.body).toBe("Release");
    // Cline's /release is only an alias: Roo's command of that name keeps it, and Cline's workflow still runs as /release.md.
    expect(findCommand(commands, "release")!.format).toBe("roo");
    expect(findCommand(commands, "plain")).toBeUndefined();
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      `${P}/.github/prompts/form.prompt.md: /create-form is also defined by ${P}/.claude/commands/create-form.md (claude, project), which is used; rename one of them`,
    ]);
  });

  it("malformed frontmatter is a problem with its line; a top-level value YAML rejects is read as text, as Claude Code reads it", async () => {
    const lenient = await loadCustomCommands(
      files({ [`${P}/.claude/commands/hint.md`]: "---\nargument-hint: [pr-number] [priority]\ndescription: Review: the diff\nallowed-tools: [Read, Grep]\n---\nBody" }),
      sources,
    );
    expect(lenient.problems).toEqual([]);
    expect(lenient.commands[0]).toMatchObject({ argumentHint: "[pr-number] [priority]", description: "Review: the diff", allowedTools: ["Read", "Grep"] });
    const { commands, problems } = await loadCustomCommands(files({ [`${P}/.claude/commands/bad.md`]: "---\nallowed-tools:\n  - [unclosed\n---\nBody" }), sources);
    expect(commands).toEqual([]);
    expect(problems[0]).toMatchObject({ path: `${P}/.claude/commands/bad.md`, line: expect.any(Number) });
    expect(problems[0]!.message).toMatch(/invalid YAML frontmatter/);
  });

  it("output styles: name from frontmatter or file, keep-coding-instructions, an empty body is a problem, project over user", async () => {
    const { styles, problems } = await loadOutputStyles(
      files({
        [`${P}/.claude/output-styles/teach.md`]: "---\nname: Teacher\ndescription: d\nkeep-coding-instructions: true\n---\nExplain.",
        [`${P}/.claude/output-styles/empty.md`]: "---\nname: Empty\n---\n",
        [`${H}/.claude/output-styles/teacher.md`]: "---\nname: teacher\n---\nUser teacher.",
      }),
      [
        { dir: `${P}/.claude/output-styles`, origin: "project" },
        { dir: `${H}/.claude/output-styles`, origin: "user" },
      ],
    );
    expect(styles).toEqual([{ name: "Teacher", description: "d", keepCodingInstructions: true, text: "Explain.", path: `${P}/.claude/output-styles/teach.md`, origin: "project" }]);
    expect(problems.map((p) => p.message)).toEqual(["the style has no instructions (the body is empty)"]);
  });
});

describe("expanding a command", () => {
  it("parses `/name args` and Copilot's `/name: k=v`; other text is not a command", () => {
    expect(parseInvocation("/fix 1 2")).toEqual({ name: "fix", args: "1 2" });
    expect(parseInvocation("/form: a=b")).toEqual({ name: "form", args: "a=b" });
    expect(parseInvocation("/form : a=b")).toEqual({ name: "form", args: "a=b" });
    expect(parseInvocation("fix it /now")).toBeUndefined();
    expect(parseInvocation("//comment")).toBeUndefined();
    expect(splitArgs(`a "b c" 'd e' f\\ g`)).toEqual(["a", "b c", "d e", "f g"]);
  });

  it("Claude: $ARGUMENTS, $N and $ARGUMENTS[N] 0-based (missing ones empty), named arguments, ARGUMENTS: appended without placeholders, !`…` and @file", async () => {
    const base = { name: "x", aliases: [], format: "claude" as const, origin: "project", path: "/ws/.claude/commands/x.md", allowedTools: [], disableModelInvocation: false };
    // Claude Code today: $0 is the first argument, $1 the second (as $ARGUMENTS[0], $ARGUMENTS[1]).
    expect(await expandCommand({ ...base, body: "A=$0 B=$1 C=$2 all=$ARGUMENTS" }, 'one "two words"', env)).toBe('A=one B=two words C= all=one "two words"');
    expect(await expandCommand({ ...base, body: "first=$ARGUMENTS[0] second=$ARGUMENTS[1] $10x" }, "a b", env)).toBe("first=a second=b $10x");
    expect(await expandCommand({ ...base, body: "Fix $issue on $branch ($issues, $ARGUMENTS)", argumentNames: ["issue", "branch"] }, "42 hotfix", env)).toBe("Fix 42 on hotfix ($issues, 42 hotfix)");
    expect(await expandCommand({ ...base, body: "costs $5 and $HOME" }, "", env)).toBe("costs  and $HOME");
    expect(await expandCommand({ ...base, body: "No placeholder." }, "extra", env)).toBe("No placeholder.\n\nARGUMENTS: extra");
    expect(await expandCommand({ ...base, body: "No placeholder." }, "", env)).toBe("No placeholder.");
    expect(await expandCommand({ ...base, body: "S: !`git status`\nSee @src/a.ts and @someone." }, "", env)).toBe(
      'S: <ran git status>\nSee @src/a.ts and @someone.\n\n<file path="src/a.ts">\nA\n</file>',
    );
  });

  it("Copilot: ${input:…} from name=value (placeholder when not given), workspace variables, the rest of the message follows", async () => {
    const cmd = {
      name: "f",
      aliases: [],
      format: "copilot" as const,
      origin: "project",
      path: "/ws/.github/prompts/f.prompt.md",
      allowedTools: [],
      disableModelInvocation: false,
      body: "Form ${input:formName:the form's name} in ${workspaceFolderBasename}; fields ${input:fields}.",
    };
    expect(await expandCommand(cmd, "formName=Signup also add tests", env)).toBe("Form Signup in ws; fields [fields — not given].\n\nalso add tests");
  });
});
