// The system prompt's "How to work" names only the tools the session has: a `yoke run --tools
// run_command` session is not told to call read_file, edit_file or todo_write (it has none of them).
import { describe, expect, it } from "vitest";
import { buildSystemPrompt, HASHLINE_NOTE } from "../../../src/core/loop/system-prompt";

const base = { workspaceRoot: "/w", platform: "linux", trusted: true, permissionMode: "default" } as const;
const howToWork = (system: string) => system.split("\n\n").find((p) => p.startsWith("How to work:"))!;
const OTHER_TOOLS = ["read_file", "grep", "glob", "edit_file", "write_file", "todo_write", "list_files", "command_output", "kill_command"];

describe("system prompt: How to work", () => {
  it("with Yoke's whole tool set: the instructions as before, every tool named where it helps", () => {
    expect(howToWork(buildSystemPrompt(base))).toBe(
      [
        "How to work:",
        "- Read before you change: use grep/glob to find code, then read_file with offset/limit for the lines you need.",
        `- ${HASHLINE_NOTE}`,
        "- Prefer small, targeted edits (edit_file) over rewriting whole files (write_file).",
        "- When a tool returns an error, read it: it says what was wrong and how to fix it. Do not repeat the same failing call.",
        "- Keep answers short and concrete. Use markdown; put code in fenced blocks.",
        "- For multi-step tasks, keep a todo list with todo_write.",
      ].join("\n"),
    );
  });

  it("with run_command alone: the same advice, no tool the session lacks", () => {
    const system = buildSystemPrompt({ ...base, tools: ["run_command"] });
    expect(howToWork(system)).toBe(
      [
        "How to work:",
        "- Read before you change: find the code first, then look at only the lines you need.",
        "- Prefer small, targeted edits over rewriting whole files.",
        "- When a tool returns an error, read it: it says what was wrong and how to fix it. Do not repeat the same failing call.",
        "- Keep answers short and concrete. Use markdown; put code in fenced blocks.",
      ].join("\n"),
    );
    for (const name of OTHER_TOOLS) expect(system).not.toContain(name);
    // The harness parts stay: where the workspace is and how paths are written.
    expect(system).toContain("Workspace root: /w. Platform: linux. Paths in tool calls are relative to the workspace root.");
  });

  it("with some file tools: each line names what is there (read_file without glob, edit_file without write_file)", () => {
    const system = buildSystemPrompt({ ...base, tools: ["read_file", "grep", "edit_file", "run_command"] });
    expect(howToWork(system)).toContain("- Read before you change: use grep to find code, then read_file with offset/limit for the lines you need.");
    expect(howToWork(system)).toContain(`- ${HASHLINE_NOTE}`);
    expect(howToWork(system)).toContain("- Prefer small, targeted edits (edit_file) over rewriting whole files.");
    for (const name of ["glob", "write_file", "todo_write"]) expect(system).not.toContain(name);
    // No editing tool: the anchors are not explained (nothing takes them).
    expect(buildSystemPrompt({ ...base, tools: ["read_file", "grep"] })).not.toContain(HASHLINE_NOTE);
    // todo_write kept (behind load_tools or not): named.
    expect(howToWork(buildSystemPrompt({ ...base, tools: ["run_command", "todo_write", "load_tools"] }))).toContain("- For multi-step tasks, keep a todo list with todo_write.");
  });
});

describe("system prompt: a session whose edit tool is apply_patch (GPT models)", () => {
  it("names apply_patch, and says what the line prefix is without sending the model to edit_file", () => {
    const tools = ["read_file", "list_files", "glob", "grep", "apply_patch", "write_file", "run_command", "command_output", "kill_command", "todo_write"];
    const text = howToWork(buildSystemPrompt({ ...base, tools }));
    expect(text).toContain("- read_file and grep show each line as `LINE#HH|text`; the `LINE#HH|` prefix is not part of the line.");
    expect(text).toContain("- Prefer small, targeted edits (apply_patch) over rewriting whole files (write_file).");
    expect(text).not.toContain("edit_file");
    expect(text).not.toContain(HASHLINE_NOTE);
    // One reader only: the verb agrees.
    expect(howToWork(buildSystemPrompt({ ...base, tools: ["grep", "apply_patch"] }))).toContain("- grep shows each line as `LINE#HH|text`; the `LINE#HH|` prefix is not part of the line.");
  });
});
