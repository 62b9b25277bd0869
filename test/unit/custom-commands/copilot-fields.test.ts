// Copilot prompt files' fields as VS Code documents them: `${input:name[:placeholder]}` found and
// taken from `name=value`, the editor's variables (`${selection}`, `${selectedText}`, `${file}`,
// `${fileBasename}`, `${fileBasenameNoExtension}`, `${fileDirname}`, `${workspaceFolder}`), and
// `mode` / `tools` mapped to the Yoke tools a run may use (pure: no session).
import { describe, expect, it } from "vitest";
import { copilotInputs, copilotToolLimit, expandCommand, loadCustomCommands, type CustomCommand, type ExpandEnv } from "../../../src/core/custom-commands";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import type { ToolDefinition } from "../../../src/core/tools/types";

const cmd = (body: string, extra: Partial<CustomCommand> = {}): CustomCommand => ({
  name: "p",
  aliases: [],
  format: "copilot",
  origin: "project",
  path: "/ws/.github/prompts/p.prompt.md",
  allowedTools: [],
  disableModelInvocation: false,
  body,
  ...extra,
});
const env = (extra: Partial<ExpandEnv> = {}): ExpandEnv => ({ workspaceRoot: "/ws/app", shell: async () => "", file: async () => ({ error: "no such file" }), ...extra });
const tools: ToolDefinition[] = [...createBuiltinTools(), { ...createBuiltinTools()[0]!, name: "mcp__github__search_issues" } as ToolDefinition];

describe("Copilot ${input:…}", () => {
  it("finds each input once with its placeholder; name=value words give them; the rest stays", () => {
    const c = cmd("A ${input:formName:the form's name} B ${input:fields} C ${input:formName}");
    expect(copilotInputs(c, "")).toEqual({ given: new Map(), rest: [], missing: [{ name: "formName", placeholder: "the form's name" }, { name: "fields" }] });
    const r = copilotInputs(c, 'formName=Signup "fields=email, password" and tests');
    expect(r.missing).toEqual([]);
    expect(r.given.get("fields")).toBe("email, password");
    expect(r.rest).toEqual(["and", "tests"]);
    expect(copilotInputs(c, "fields=x").missing).toEqual([{ name: "formName", placeholder: "the form's name" }]);
  });

  it("answers asked of the user fill what the message did not give", async () => {
    const c = cmd("Form ${input:formName:name} with ${input:fields}.");
    expect(await expandCommand(c, "formName=Signup", env({ answers: new Map([["fields", "email"]]) }))).toBe("Form Signup with email.");
  });
});

describe("the editor's variables", () => {
  const body = "sel=${selection}|st=${selectedText}|f=${file}|b=${fileBasename}|n=${fileBasenameNoExtension}|d=${fileDirname}|w=${workspaceFolder}|wb=${workspaceFolderBasename}";
  it("from the editor's file and selection", async () => {
    expect(await expandCommand(cmd(body), "", env({ editor: { file: "/ws/app/src/form.test.tsx", selection: "const x = 1;" } }))).toBe(
      "sel=const x = 1;|st=const x = 1;|f=/ws/app/src/form.test.tsx|b=form.test.tsx|n=form.test|d=/ws/app/src|w=/ws/app|wb=app",
    );
  });
  it("an editor without a selection or file, and no editor at all (the CLI), are said in words", async () => {
    expect(await expandCommand(cmd("[${selection}] [${file}]"), "", env({ editor: {} }))).toBe("[[no text is selected in the editor]] [[no file is open in the editor]]");
    expect(await expandCommand(cmd("[${selectedText}] [${fileBasename}]"), "", env())).toBe("[[no editor selection: run from the command line]] [[no file is open in the editor]]");
  });
  it("a Claude command's body keeps them as written (they are Copilot's)", async () => {
    expect(await expandCommand(cmd("${selection} $ARGUMENTS", { format: "claude" }), "x", env({ editor: { selection: "S" } }))).toBe("${selection} x");
  });
});

describe("mode and tools → the tools a run may use", () => {
  it("mode: ask → the read-only tools; edit → plus edit_file and write_file; agent → no limit", () => {
    const ask = copilotToolLimit("ask", undefined, tools).allowed!;
    expect([...ask]).toEqual(expect.arrayContaining(["read_file", "grep", "glob", "list_files"]));
    for (const n of ["edit_file", "write_file", "run_command", "task"]) expect(ask.has(n)).toBe(false);
    const edit = copilotToolLimit("edit", undefined, tools).allowed!;
    expect(edit.has("edit_file") && edit.has("write_file") && edit.has("read_file")).toBe(true);
    expect(edit.has("run_command")).toBe(false);
    expect(copilotToolLimit("agent", undefined, tools)).toEqual({ unknown: [] });
    expect(copilotToolLimit(undefined, undefined, tools)).toEqual({ unknown: [] });
  });
  it("VS Code tool and tool-set names, an MCP server's tools, Yoke's own names; unknown ones reported", () => {
    const r = copilotToolLimit(undefined, ["search/codebase", "editFiles", "runCommands", "github/*", "fetch", "githubRepo", "todo_write"], tools);
    expect([...r.allowed!].sort()).toEqual(
      ["command_output", "edit_file", "glob", "grep", "kill_command", "list_files", "mcp__github__search_issues", "read_file", "run_command", "todo_write", "write_file"].filter((n) =>
        tools.some((t) => t.name === n),
      ),
    );
    expect(r.unknown).toEqual(['tool "fetch"', 'tool "githubRepo"']);
  });
  it("mode and tools together: what both allow; an unknown mode (a custom agent's name) is reported and not applied", () => {
    expect([...copilotToolLimit("ask", ["codebase", "editFiles"], tools).allowed!].sort()).toEqual(["glob", "grep", "list_files", "read_file"]);
    expect(copilotToolLimit("my-planner", undefined, tools)).toEqual({ unknown: ['mode "my-planner" (no custom agent has that name; Yoke runs it with the session\'s tools)'] });
  });
  it("`agent:` is read as `mode:` (VS Code's newer name); `tools` as a YAML list", async () => {
    const { commands } = await loadCustomCommands(
      {
        list: async () => ["a.prompt.md"],
        read: async () => "---\nagent: edit\ntools:\n  - search/codebase\n  - editFiles\nmodel: gpt-5.1\n---\nBody",
      },
      [{ dir: "/ws/.github/prompts", format: "copilot", origin: "project" }],
    );
    expect(commands[0]).toMatchObject({ name: "a", mode: "edit", tools: ["search/codebase", "editFiles"], model: "gpt-5.1" });
  });
});
