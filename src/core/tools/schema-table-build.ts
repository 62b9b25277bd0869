/**
 * The table of the built-in tools' JSON Schemas that the build writes into the bundles
 * (esbuild.mjs: `YOKE_TOOL_SCHEMAS`; read by schema-table.ts). It covers every schema a session
 * can give a built-in tool: each edit tool, each freeform setting, each set of tools `--tools`
 * may trim them to, and `load_tools`. Run at build time only (and by the tests).
 */
import { createLoadToolsTool } from "../deferred-tools";
import { createBuiltinTools } from "./builtin";
import type { EditToolName, FreeformSetting } from "./edit-tool";
import { zodJsonSchema } from "./registry";
import { builtinSchemaKey } from "./schema-table";
import { trimTools, type ToolDefinition } from "./types";

const EDIT_TOOLS: readonly EditToolName[] = ["edit_file", "apply_patch"];
const FREEFORM: readonly FreeformSetting[] = ["auto", "on", "off"];

/** Every built-in tool as a session can have it, once per distinct schema object. */
export function builtinToolVariants(): ToolDefinition[] {
  const bySchema = new Map<unknown, ToolDefinition>();
  for (const edit of EDIT_TOOLS) {
    for (const freeform of FREEFORM) {
      const all = createBuiltinTools(edit, freeform);
      for (let mask = 1; mask < 1 << all.length; mask++) {
        for (const t of trimTools(all.filter((_, i) => mask & (1 << i)))) if (!bySchema.has(t.schema)) bySchema.set(t.schema, t);
      }
    }
  }
  const loader = createLoadToolsTool([], () => []);
  bySchema.set(loader.schema, loader);
  return [...bySchema.values()];
}

/**
 * Key → JSON text of the schema as toolJsonSchema makes it from zod, for `tools`. Throws when a
 * tool's schema was not made by builtinSchema, or when one key stands for two different schemas.
 */
export function tableOf(tools: readonly ToolDefinition[]): Record<string, string> {
  const table: Record<string, string> = {};
  for (const tool of tools) {
    const key = builtinSchemaKey(tool.schema);
    if (key === undefined) throw new Error(`the built-in tool ${tool.name} has a schema not made by builtinSchema (src/core/tools/schema-table.ts)`);
    const text = JSON.stringify(zodJsonSchema(tool.schema));
    if (table[key] !== undefined && table[key] !== text) throw new Error(`two different schemas of ${tool.name} share the key "${key}"`);
    table[key] = text;
  }
  return table;
}

/** The build's table: every built-in tool's every variant (builtinToolVariants). */
export function builtinSchemaTable(): Record<string, string> {
  return tableOf(builtinToolVariants());
}
