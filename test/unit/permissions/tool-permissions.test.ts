// The permission engine's tables of names (Yoke's tool names, path, command and session
// permissions) come from what each tool declares (ToolIdentity), never from a list of its own.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { readRule, YOKE_TOOL_NAMES } from "../../../src/core/permissions/rule-syntax";
import { TOOL_PERMISSIONS, toolPermissions } from "../../../src/core/permissions/tool-permissions";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { yokeToolIdentities } from "../../../src/core/tools/catalogue";
import type { ToolIdentity } from "../../../src/core/tools/types";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const root = join(__dirname, "../../..");
const sorted = (s: Iterable<string>) => [...s].sort();

describe("the permission engine's tables, from the tools' declarations", () => {
  it("knows every Yoke tool by its name and its permission", () => {
    expect(YOKE_TOOL_NAMES).toEqual({
      read_file: "Read",
      list_files: "Read",
      recall: "Read",
      glob: "Glob",
      grep: "Grep",
      edit_file: "Edit",
      apply_patch: "Edit",
      write_file: "Write",
      run_command: "Bash",
      command_output: "Bash",
      kill_command: "Bash",
      todo_write: "TodoWrite",
      task: "Task",
      load_skill: "Skill",
      mcp_search: "ToolSearch",
      list_mcp_resources: "ListMcpResourcesTool",
      read_mcp_resource: "ReadMcpResourceTool",
      mcp_sampling: "McpSampling",
      load_tools: "ToolSearch",
    });
    expect(sorted(TOOL_PERMISSIONS.known)).toEqual([
      "Bash",
      "Edit",
      "Glob",
      "Grep",
      "ListMcpResourcesTool",
      "McpSampling",
      "Read",
      "ReadMcpResourceTool",
      "Skill",
      "Task",
      "TodoWrite",
      "ToolSearch",
      "Write",
    ]);
    expect(sorted(TOOL_PERMISSIONS.path)).toEqual(["Edit", "Glob", "Grep", "Read", "Write"]);
    expect(sorted(TOOL_PERMISSIONS.reading)).toEqual(["Glob", "Grep", "Read"]);
    expect(sorted(TOOL_PERMISSIONS.command)).toEqual(["Bash"]);
    expect(sorted(TOOL_PERMISSIONS.session)).toEqual(["Skill", "Task", "TodoWrite", "ToolSearch"]);
  });

  it("lists each built-in tool as the very definition the sessions use, each declaring how it is checked", () => {
    const ids = yokeToolIdentities();
    for (const tool of createBuiltinTools()) {
      expect(tool.permissionClass, tool.name).toBeDefined();
      expect(ids.find((i) => i.name === tool.name)).toEqual({ name: tool.name, permission: tool.permission, permissionClass: tool.permissionClass, capabilities: tool.capabilities });
    }
  });

  it("follows a new tool's declaration, and refuses two ways of checking one permission", () => {
    const tool = (name: string, permission: string, permissionClass: ToolIdentity["permissionClass"], writes = false): ToolIdentity => ({
      name,
      permission,
      ...(permissionClass ? { permissionClass } : {}),
      capabilities: { reads: true, writes },
    });
    const t = toolPermissions([tool("open_notebook", "NotebookRead", "path"), tool("save_notebook", "NotebookEdit", "path", true), tool("fetch_page", "WebFetch", undefined)]);
    expect(t.names).toEqual({ open_notebook: "NotebookRead", save_notebook: "NotebookEdit", fetch_page: "WebFetch" });
    expect(sorted(t.path)).toEqual(["NotebookEdit", "NotebookRead"]);
    expect(sorted(t.reading)).toEqual(["NotebookRead"]);
    expect(t.session.size + t.command.size).toBe(0);
    expect(() => toolPermissions([tool("a", "Read", "path"), tool("b", "Read", "session")])).toThrow(/Read are checked in different ways/);
  });

  it("reads a malformed deny rule written with a Yoke tool name as asking for that tool's permission", () => {
    expect(readRule("read_file(secrets", "deny")).toMatchObject({ askFor: "Read" });
    expect(readRule("mcp_search(x", "deny")).toMatchObject({ askFor: "ToolSearch" });
  });

  it("checks each class the way its tools declare: paths, commands, the session", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Read(./secret/**)", "Bash(curl:*)"] } });
    const gate = w.gate();
    // path: the path rule decides, for every tool of the permission (recall is a Read too).
    expect(await gate.check(call("read_file", { file_path: "secret/a.txt" }), "default")).toMatchObject({ decision: "deny", rule: "Read(./secret/**)" });
    expect(await gate.check(call("list_files", { path: "secret" }), "default")).toMatchObject({ decision: "deny", rule: "Read(./secret/**)" });
    // command: the command's analysis.
    expect(await gate.check(call("run_command", { command: "curl https://example.com" }), "default")).toMatchObject({ decision: "deny", rule: "Bash(curl:*)" });
    // session: allowed in plan mode, where a tool of no class that may change things is denied.
    expect(await gate.check(call("todo_write", { todos: [] }), "plan")).toMatchObject({ decision: "allow" });
    expect(await gate.check(call("mcp_search", { query: "issue" }), "plan")).toMatchObject({ decision: "allow" });
    expect(await gate.check(call("mcp__github__create_issue", { title: "x" }), "plan")).toMatchObject({ decision: "deny" });
  });

  it("leaves no Yoke tool name in the permission engine's code", () => {
    const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith(".ts") ? [join(dir, n)] : []));
    // glob and grep are also shell commands the command analysis knows.
    const names = yokeToolIdentities()
      .map((t) => t.name)
      .filter((n) => n !== "glob" && n !== "grep");
    const quoted = new RegExp(`["'\`](${names.join("|")})["'\`]`);
    const offenders = files(join(root, "src/core/permissions")).flatMap((f) =>
      readFileSync(f, "utf8")
        .split("\n")
        .flatMap((line, i) => (quoted.test(line) ? [`${relative(root, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
