/**
 * The built-in tools' argument schemas, cheap at start-up: each is a zod schema made on its first
 * use (`builtinSchema`), and its JSON Schema — what the provider gets — comes from a table the
 * build writes (esbuild.mjs defines `YOKE_TOOL_SCHEMAS` from `builtinSchemaTable()` in
 * schema-table-build.ts), so a session sends its first request without building the tools' zod
 * schemas or converting them. Keys name the tool and, where its schema has variants, the variant
 * (`run_command/output,kill`). Without a table (a run from source: the tests), or for a key the
 * table lacks, the JSON Schema is converted from zod as for any other tool.
 */
import { z } from "zod";

type Json = Record<string, unknown>;

/** JSON text of {key: JSON text of the schema, as toolJsonSchema made it from zod at build time}; undefined when not built. */
declare const YOKE_TOOL_SCHEMAS: string | undefined;

const keys = new WeakMap<z.ZodType, string>();
const made = new Set<string>();

/** A built-in tool's argument schema, filed under `key`: `make` runs when the schema first checks arguments (or is converted). */
export function builtinSchema<T extends z.ZodType>(key: string, make: () => T): z.ZodLazy<T> {
  const schema = z.lazy(() => {
    made.add(key);
    return make();
  });
  keys.set(schema, key);
  return schema;
}

/** The keys whose zod schemas this process has built so far (the start-up tests: none before the first request). */
export function madeBuiltinSchemas(): ReadonlySet<string> {
  return made;
}

/** The table key of a schema made by builtinSchema, else undefined. */
export function builtinSchemaKey(schema: z.ZodType): string | undefined {
  return keys.get(schema);
}

let table: Readonly<Record<string, string>> | undefined | null = null;

/** The build's table (read once), or undefined when this code was not built with one. */
export function builtTable(): Readonly<Record<string, string>> | undefined {
  if (table === null) table = typeof YOKE_TOOL_SCHEMAS === "string" ? (JSON.parse(YOKE_TOOL_SCHEMAS) as Record<string, string>) : undefined;
  return table;
}

/** The JSON Schema of a builtinSchema from the build's table (a new object on each call), else undefined. */
export function tabledJsonSchema(schema: z.ZodType): Json | undefined {
  const key = keys.get(schema);
  const text = key === undefined ? undefined : builtTable()?.[key];
  return text === undefined ? undefined : (JSON.parse(text) as Json);
}
