import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { defineTool } from "../../../src/core/tools/types";

const registry = new ToolRegistry(createBuiltinTools());

function error(name: string, input: unknown): string {
  const v = registry.validate(name, input);
  if (v.ok) throw new Error(`expected ${name} to refuse ${JSON.stringify(input)}`);
  return v.error;
}

describe("ToolRegistry", () => {
  it("lists the built-in tools in a fixed order with permission names, the deferred ones (list_files, command_output, kill_command, todo_write) left out", () => {
    expect(registry.specs().map((s) => s.name)).toEqual(["read_file", "glob", "grep", "edit_file", "write_file", "run_command"]);
    expect(registry.names()).toEqual(["read_file", "list_files", "glob", "grep", "edit_file", "write_file", "run_command", "command_output", "kill_command", "todo_write"]);
    expect(createBuiltinTools().map((t) => t.permission)).toEqual(["Read", "Read", "Glob", "Grep", "Edit", "Write", "Bash", "Bash", "Bash", "TodoWrite"]);
    for (const spec of registry.specs()) expect(spec.inputSchema.type, spec.name).toBe("object");
  });

  it("produces the same JSON Schemas on every call, without $schema or safe-integer noise", () => {
    const a = JSON.stringify(registry.specs());
    const b = JSON.stringify(new ToolRegistry(createBuiltinTools()).specs());
    expect(a).toBe(b);
    const read = registry.specs()[0]!.inputSchema;
    expect(read).toEqual({
      type: "object",
      properties: {
        path: { type: "string", minLength: 1 },
        offset: { type: "integer", minimum: 1, description: "First line to show (1-based)." },
        limit: { type: "integer", minimum: 1 },
        force: { type: "boolean" },
      },
      required: ["path"],
    });
    expect(a).not.toContain("$schema");
    expect(a).not.toContain("9007199254740991");
  });

  it("gives hooks the tool_input shapes of contract section 1", () => {
    const hook = (name: string, args: unknown) => registry.get(name)!.hookInput(args as never);
    expect(hook("read_file", { path: "a.ts", offset: 2, limit: 5 })).toEqual({ file_path: "a.ts", offset: 2, limit: 5 });
    expect(hook("list_files", {})).toEqual({ path: "." });
    expect(hook("glob", { pattern: "*.ts" })).toEqual({ pattern: "*.ts", path: "." });
    expect(hook("grep", { pattern: "x", glob: "*.md" })).toEqual({ pattern: "x", path: ".", glob: "*.md" });
    expect(hook("write_file", { path: "a", content: "b" })).toEqual({ file_path: "a", content: "b" });
    const todos = [{ content: "a", status: "pending" }];
    expect(hook("todo_write", { todos })).toEqual({ todos });
  });

  it("refuses duplicate tool names", () => {
    const [read] = createBuiltinTools();
    expect(() => new ToolRegistry([read!, read!])).toThrow('duplicate tool name "read_file"');
  });

  it("names the bad field, what was expected, what was received and how to fix it", () => {
    expect(error("read_file", { path: "a.ts", offset: "ten" })).toBe(
      'read_file: argument "offset" must be an integer ≥ 1 (got "ten").\n' +
        "Call read_file again with corrected arguments: path (non-empty string, required), offset (integer ≥ 1), limit (integer ≥ 1), force (true or false).",
    );
    expect(error("read_file", { path: "a.ts", offset: 0 })).toContain('argument "offset" must be an integer ≥ 1 (got 0)');
    expect(error("read_file", { path: "a.ts", limit: 2.5 })).toContain('argument "limit" must be an integer ≥ 1 (got 2.5)');
  });

  it("reports each missing required argument and arguments the tool does not take", () => {
    const msg = error("write_file", { file_path: "a.ts" });
    expect(msg).toContain('write_file: missing required argument "path" (a non-empty string).');
    expect(msg).toContain('write_file: missing required argument "content" (a string).');
    expect(msg).toContain('("file_path" is not an argument of write_file.)');
  });

  it("describes nested array items with their index", () => {
    const msg = error("todo_write", {
      todos: [
        { content: "a", status: "pending" },
        { content: "b", status: "done" },
      ],
    });
    expect(msg).toContain('todo_write: argument "todos[1].status" must be one of "pending", "in_progress", "completed" (got "done").');
  });

  it("says when the arguments were not valid JSON and shows the first 200 characters", () => {
    const raw = '{"path": "src/a.ts", "offset": ' + "9".repeat(300);
    const msg = error("read_file", raw);
    expect(msg).toMatch(/^read_file: the arguments were not valid JSON \(.+\)\. Received: \{"path": "src\/a.ts", "offset": 9+… \(331 characters in all\)\n/);
    expect(msg.split("\n")[0]!.match(/9+…/)![0].length).toBe(200 - 31 + 1);
    expect(msg).toContain("Call read_file again with one JSON object as its arguments: path (non-empty string, required)");
  });

  it("accepts arguments sent as a JSON string, and numbers or booleans sent as strings", () => {
    expect(registry.validate("read_file", '{"path":"a.ts","offset":"10","force":"true"}')).toEqual({
      ok: true,
      args: { path: "a.ts", offset: 10, force: true },
    });
    expect(registry.validate("list_files", "")).toEqual({ ok: true, args: {} });
    expect(registry.validate("list_files", undefined)).toEqual({ ok: true, args: {} });
  });

  it("lists the available tools for an unknown name", () => {
    expect(error("read", { path: "a" })).toBe(
      'Unknown tool "read". Available tools: read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output, kill_command, todo_write. Call one of these by its exact name.',
    );
  });

  it("says the arguments must be an object when they are not", () => {
    expect(error("read_file", "[1,2]")).toContain("read_file: the arguments must be a JSON object (got [1,2]).");
  });

  describe("with a union of object shapes (like edit_file's edits)", () => {
    const unionTool = defineTool({
      name: "patch",
      description: "test tool",
      schema: z.object({
        edits: z.array(z.union([z.object({ op: z.enum(["replace", "append"]), pos: z.string().optional() }), z.object({ old_string: z.string(), new_string: z.string() })])).min(1),
      }),
      permission: "Edit",
      capabilities: { writes: true },
      summarize: () => "",
      timeoutMs: 1000,
      hookInput: (a) => a as Record<string, unknown>,
      run: async () => ({ text: "ok" }),
    });
    const reg = new ToolRegistry([unionTool]);
    const err = (input: unknown) => {
      const v = reg.validate("patch", input);
      return v.ok ? "OK" : v.error.split("\n")[0];
    };

    it("explains a failed union by the branch the model meant", () => {
      expect(err({ edits: [{ old_string: "a" }] })).toBe('patch: missing required argument "edits[0].new_string" (a string).');
      expect(err({ edits: [{ op: "insert" }] })).toBe('patch: argument "edits[0].op" must be one of "replace", "append" (got "insert").');
      expect(err({ edits: [{ op: "append", pos: 12 }] })).toBe('patch: argument "edits[0].pos" must be a string (got 12).');
      expect(err({ edits: [] })).toBe('patch: argument "edits" must be an array of objects (at least 1) (got []).');
    });

    it("accepts an array sent as a JSON string, and a single object where an array is expected", () => {
      expect(reg.validate("patch", { edits: '[{"old_string":"a","new_string":"b"}]' })).toEqual({
        ok: true,
        args: { edits: [{ old_string: "a", new_string: "b" }] },
      });
      expect(reg.validate("patch", { edits: { op: "append" } })).toEqual({ ok: true, args: { edits: [{ op: "append" }] } });
    });
  });
});
