// The built-in tools' JSON Schemas from the build's table (src/core/tools/schema-table.ts, written
// by esbuild.mjs from schema-table-build.ts): the same JSON as converting the zod schema, for every
// variant a session can have; the zod schemas are not built until arguments are checked.
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** The modules as a bundle built with `table` sees them (fresh copies: the table is read once per module copy). */
async function withTable(table: Record<string, string> | undefined) {
  vi.resetModules();
  if (table) vi.stubGlobal("YOKE_TOOL_SCHEMAS", JSON.stringify(table));
  return {
    tableMod: await import("../../../src/core/tools/schema-table"),
    build: await import("../../../src/core/tools/schema-table-build"),
    registry: await import("../../../src/core/tools/registry"),
    builtin: await import("../../../src/core/tools/builtin"),
    types: await import("../../../src/core/tools/types"),
  };
}

describe("the built-in tools' schema table", () => {
  it("holds, for every variant a session can have, exactly the JSON Schema zod gives (key order included)", async () => {
    const { build } = await withTable(undefined);
    const table = build.builtinSchemaTable();
    // Every built-in tool, apply_patch, load_tools, and run_command's four texts of `background`.
    expect(Object.keys(table).sort()).toEqual(
      [
        "apply_patch",
        "command_output",
        "edit_file",
        "glob",
        "grep",
        "kill_command",
        "list_files",
        "load_tools",
        "read_file",
        "run_command/",
        "run_command/kill",
        "run_command/output",
        "run_command/output,kill",
        "todo_write",
        "write_file",
      ].sort(),
    );
    const built = await withTable(table);
    const variants = built.build.builtinToolVariants();
    expect(variants.length).toBeGreaterThanOrEqual(15);
    for (const tool of variants) {
      const fromTable = built.registry.toolJsonSchema(tool);
      const fromZod = built.registry.zodJsonSchema(tool.schema);
      expect(JSON.stringify(fromTable), tool.name).toBe(JSON.stringify(fromZod));
      // A new object each time: a caller that changes it changes no other session's.
      expect(built.registry.toolJsonSchema(tool)).not.toBe(fromTable);
    }
    // run_command names command_output and kill_command only when the session has them.
    const run = (kept: string[]) => {
      const all = built.builtin.createBuiltinTools();
      const tools = built.types.trimTools(all.filter((t) => kept.includes(t.name)));
      return JSON.stringify(built.registry.toolJsonSchema(tools.find((t) => t.name === "run_command")!));
    };
    expect(run(["run_command", "command_output", "kill_command"])).toContain("read its output with command_output, stop it with kill_command");
    expect(run(["run_command", "kill_command"])).not.toContain("command_output");
    expect(run(["run_command"])).not.toContain("kill_command");
  });

  it("fails the build for a built-in schema without a key, or one key standing for two schemas", async () => {
    const { build, tableMod, types } = await withTable(undefined);
    const tool = (name: string, schema: z.ZodType) =>
      types.defineTool({ name, description: "d", schema, permission: "Read", capabilities: {}, timeoutMs: 1, summarize: () => "", hookInput: () => ({}), run: async () => ({ text: "" }) });
    expect(() => build.tableOf([tool("plain", z.object({ a: z.string() }))])).toThrow(/plain has a schema not made by builtinSchema/);
    const a = tableMod.builtinSchema("same", () => z.object({ a: z.string() }));
    const b = tableMod.builtinSchema("same", () => z.object({ b: z.string() }));
    expect(() => build.tableOf([tool("one", a), tool("two", b)])).toThrow(/two different schemas of two share the key "same"/);
    expect(build.tableOf([tool("one", a), tool("again", a)])).toEqual({ same: JSON.stringify({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }) });
  });

  it("with the table, a session's tool list builds no zod schema; checking arguments builds that tool's only", async () => {
    const { build } = await withTable(undefined);
    const table = build.builtinSchemaTable();
    const { tableMod, registry, builtin } = await withTable(table);
    const reg = new registry.ToolRegistry(builtin.createBuiltinTools());
    const specs = reg.specs();
    expect(specs.map((s) => s.name)).toContain("run_command");
    expect(specs.find((s) => s.name === "grep")!.inputSchema).toEqual(JSON.parse(table.grep!));
    // The deferred recall tool's schema is made on first use too (not in the table: it is sent only when loaded).
    const { recallTool } = await import("../../../src/core/compaction/recall");
    const recall = recallTool({ sessionId: () => "s", events: () => [], store: {} as never });
    expect(tableMod.builtinSchemaKey(recall.schema)).toBe("recall");
    expect([...tableMod.madeBuiltinSchemas()]).toEqual([]);
    // Validation builds the schema on first use and still refuses bad arguments with the usual message.
    const bad = reg.validate("read_file", { path: "" });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^read_file: .*path/);
    expect(reg.validate("read_file", { path: "a.txt", offset: "3" })).toEqual({ ok: true, args: { path: "a.txt", offset: 3 } });
    expect([...tableMod.madeBuiltinSchemas()]).toEqual(["read_file"]);
  });

  it("without a table (run from source), converts from zod: the same JSON, the schema then built", async () => {
    const { tableMod, registry, builtin } = await withTable(undefined);
    expect(tableMod.builtTable()).toBeUndefined();
    const reg = new registry.ToolRegistry(builtin.createBuiltinTools());
    const glob = reg.jsonSchema("glob")!;
    expect(glob).toMatchObject({ type: "object", required: ["pattern"] });
    expect([...tableMod.madeBuiltinSchemas()]).toContain("glob");
  });
});
