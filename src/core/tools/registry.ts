/**
 * The tools a session offers: lookup, the JSON Schemas sent to the provider, and argument
 * validation with model-facing errors.
 */
import { z } from "zod";
import { canonicalWorkspacePath, displayPath, isAbsolutePath, WORKSPACE } from "../paths";
import type { WorkspaceFs } from "../ports";
import type { ToolSpec } from "../providers/types";
import { describeArguments, describeIssues } from "./arg-errors";
import { tabledJsonSchema } from "./schema-table";
import { trimTools, type ToolDefinition } from "./types";

type Json = Record<string, unknown>;
type Validation = { ok: true; args: unknown } | { ok: false; error: string };

/**
 * JSON Schema of a tool's arguments as the provider gets it: its own, a built-in tool's from the
 * build's table (schema-table.ts), or converted from its zod schema.
 */
export function toolJsonSchema(tool: Pick<ToolDefinition, "schema" | "inputJsonSchema">): Json {
  return tool.inputJsonSchema ?? tabledJsonSchema(tool.schema) ?? zodJsonSchema(tool.schema);
}

/** JSON Schema of a zod schema, without `$schema` and zod's safe-integer bounds. */
export function zodJsonSchema(schema: z.ZodType): Json {
  const raw = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
  const clean = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(clean);
    if (node === null || typeof node !== "object") return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === "$schema") continue;
      if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
      if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
      out[k] = clean(v);
    }
    return out;
  };
  return clean(raw) as Json;
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Top-level values models often send in the wrong form: numbers, booleans, arrays and objects as
 * strings ("10", "true", "[...]"), and one object where an array is expected (made a one-item array).
 */
function coerce(input: unknown, schema: Json): unknown {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return input;
  const props = (schema.properties as Record<string, Json> | undefined) ?? {};
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [key, value] of Object.entries(out)) {
    const type = props[key]?.type;
    if (type === "array" && value !== null && typeof value === "object" && !Array.isArray(value)) out[key] = [value];
    if (typeof value !== "string") continue;
    const t = value.trim();
    if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(t)) out[key] = Number(t);
    else if (type === "boolean" && (t === "true" || t === "false")) out[key] = t === "true";
    else if ((type === "array" || type === "object") && /^[[{]/.test(t)) {
      const parsed = tryJson(t);
      if (type === "array" && Array.isArray(parsed)) out[key] = parsed;
      else if (type === "array" && parsed && typeof parsed === "object") out[key] = [parsed];
      else if (type === "object" && parsed && typeof parsed === "object" && !Array.isArray(parsed)) out[key] = parsed;
    }
  }
  return out;
}

function parseRaw(name: string, raw: string, schema: Json): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = raw.trim();
  if (text === "") return { ok: true, value: {} };
  try {
    let value: unknown = JSON.parse(text);
    if (typeof value === "string") value = JSON.parse(value);
    return { ok: true, value };
  } catch (e) {
    const shown = raw.length > 200 ? `${raw.slice(0, 200)}… (${raw.length} characters in all)` : raw;
    return {
      ok: false,
      error: `${name}: the arguments were not valid JSON (${(e as Error).message}). Received: ${shown}\n` + `Call ${name} again with one JSON object as its arguments: ${describeArguments(schema)}.`,
    };
  }
}

export class ToolRegistry {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly schemas = new Map<string, Json>();
  private cachedSpecs: ToolSpec[] | undefined;
  /** Deferred tools named by keepOnly: listed, since they were asked for by name. */
  private readonly listedAnyway = new Set<string>();
  /** The tools before the first keepOnly, for its refusal's list. */
  private beforeKeepOnly: string[] | undefined;

  constructor(tools: readonly ToolDefinition[]) {
    this.add(tools);
  }

  /** Adds tools (all or none: a name already taken throws and adds nothing). */
  add(tools: readonly ToolDefinition[]): void {
    const seen = new Set<string>();
    for (const tool of tools) {
      if (this.byName.has(tool.name) || seen.has(tool.name)) throw new Error(`ToolRegistry: duplicate tool name "${tool.name}"`);
      seen.add(tool.name);
    }
    for (const tool of tools) this.byName.set(tool.name, tool);
    this.cachedSpecs = undefined;
  }

  /**
   * Keeps only the named tools (`yoke run --tools`): the others are neither listed nor callable;
   * a deferred tool named here is listed with its whole definition, unless a tool named here
   * loads it (ToolDefinition.loads: `load_tools`, `mcp_search`). A tool that describes others
   * (ToolDefinition.trimmed: `mcp_search`) is rebuilt from what is kept; named when none of what
   * it describes is kept, it throws (and changes nothing).
   * A name the session does not have throws, naming the ones it has (and changes nothing) —
   * unless `later`: a name a tool added after this call may take (the deferred tools' loader,
   * built from what is kept) is left for the next call to check.
   */
  keepOnly(names: readonly string[], opts: { later?: boolean } = {}): void {
    const unknown = names.filter((n) => !this.byName.has(n));
    if (unknown.length && !opts.later) {
      const had = [...new Set([...(this.beforeKeepOnly ?? []), ...this.names()])];
      throw new Error(`no tool named ${unknown.map((n) => `"${n}"`).join(", ")}; this session's tools: ${had.join(", ")}`);
    }
    const keep = new Set(names);
    const kept = [...this.byName.values()].filter((t) => keep.has(t.name));
    const now = new Map(trimTools(kept).map((t) => [t.name, t]));
    const empty = kept.filter((t) => !now.has(t.name)).map((t) => `"${t.name}"`);
    if (empty.length) throw new Error(`${empty.join(", ")}: the tools kept include none of those it describes`);
    this.beforeKeepOnly ??= this.names();
    this.byName.clear();
    for (const tool of kept) {
      const t = now.get(tool.name)!;
      if (t !== tool) this.schemas.delete(tool.name);
      this.byName.set(tool.name, t);
    }
    for (const name of names) if (this.byName.get(name)?.deferred) this.listedAnyway.add(name);
    this.cachedSpecs = undefined;
  }

  /** The tool is sent with its whole definition: not deferred, or a deferred one kept by name that no kept tool loads. */
  listsWhole(name: string): boolean {
    const tool = this.byName.get(name);
    if (tool === undefined) return false;
    if (!tool.deferred) return true;
    if (!this.listedAnyway.has(name)) return false;
    for (const t of this.byName.values()) if (t.loads?.includes(name)) return false;
    return true;
  }

  get(name: string): ToolDefinition | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** JSON Schema of a tool's arguments (computed once). */
  jsonSchema(name: string): Json | undefined {
    const tool = this.byName.get(name);
    if (!tool) return undefined;
    let s = this.schemas.get(name);
    if (!s) {
      s = toolJsonSchema(tool);
      this.schemas.set(name, s);
    }
    return s;
  }

  /** Provider tool specs, in registration order, without deferred tools (unless kept by name); the same objects on every call. */
  specs(): ToolSpec[] {
    this.cachedSpecs ??= [...this.byName.values()]
      .filter((t) => this.listsWhole(t.name))
      .map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: this.jsonSchema(t.name)!,
        ...(t.freeform && t.rawArgument ? { freeform: { argument: t.rawArgument, ...t.freeform } } : {}),
      }));
    return this.cachedSpecs;
  }

  /** Parses and checks a tool call's arguments (an object, or the raw string the model sent). */
  validate(name: string, input: unknown): Validation {
    const tool = this.byName.get(name);
    if (!tool) {
      return {
        ok: false,
        error: `Unknown tool "${name}". Available tools: ${this.names().join(", ")}. Call one of these by its exact name.`,
      };
    }
    const schema = this.jsonSchema(name)!;
    let value: unknown = input ?? {};
    if (typeof value === "string") {
      const parsed = parseRaw(name, value, schema);
      // Not JSON, for a tool whose one argument is free text (a patch sent as the arguments themselves): that argument.
      if (!parsed.ok && tool.rawArgument && value.trim() !== "") value = { [tool.rawArgument]: value };
      else if (!parsed.ok) return parsed;
      else value = parsed.value ?? {};
    }
    value = coerce(value, schema);
    const result = tool.schema.safeParse(value, { reportInput: true });
    if (result.success) return { ok: true, args: result.data };
    const lines = describeIssues(result.error.issues, schema, value).map((text) => `${name}: ${text}.`);
    const known = new Set(Object.keys((schema.properties as Json | undefined) ?? {}));
    const unknown = value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value).filter((k) => !known.has(k)) : [];
    if (unknown.length) lines.push(`(${unknown.map((k) => `"${k}"`).join(", ")} ${unknown.length > 1 ? "are not arguments" : "is not an argument"} of ${name}.)`);
    lines.push(`Call ${name} again with corrected arguments: ${describeArguments(schema)}.`);
    return { ok: false, error: lines.join("\n") };
  }

  /**
   * Validated arguments with their path arguments in canonical form (see ToolDefinition.pathArgs):
   * absolute, with every symbolic link below the workspace folder resolved — the one resolution
   * of the path; the gate checks it and the tools open it without following links.
   * A path that cannot be resolved (outside the workspace, through a dangling link…) refuses the
   * call here, with the tool's own message: a path the permission engine did not see never runs.
   */
  async prepare(name: string, input: unknown, fs: WorkspaceFs): Promise<Validation> {
    const checked = this.validate(name, input);
    const tool = this.byName.get(name);
    if (!checked.ok || !tool?.pathArgs?.length) return checked;
    const args = { ...(checked.args as Record<string, unknown>) };
    for (const key of tool.pathArgs) {
      const value = args[key];
      if (typeof value !== "string") continue;
      try {
        const { abs, rel } = await canonicalWorkspacePath(fs, value);
        args[key] = rel === WORKSPACE ? WORKSPACE : abs;
      } catch (err) {
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }
    return { ok: true, args };
  }

  /** Prepared arguments with their canonical paths shown as the model wrote them (relative, or folder/relative). */
  displayArgs(name: string, args: unknown, fs: WorkspaceFs): unknown {
    const tool = this.byName.get(name);
    if (!tool?.pathArgs?.length || !args || typeof args !== "object") return args;
    const out = { ...(args as Record<string, unknown>) };
    for (const key of tool.pathArgs) {
      const v = out[key];
      if (typeof v === "string" && isAbsolutePath(v)) out[key] = displayPath(fs, v);
    }
    return out;
  }

  /**
   * The tool's own one-line summary of a call (model arguments or a hook-style input), for cards,
   * approvals and the CLI; "" for an unknown tool or when the tool's summary fails.
   */
  summarize(name: string, input: unknown): string {
    const tool = this.byName.get(name);
    if (!tool) return "";
    try {
      const obj = input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
      const text = tool.summarize(obj).replace(/\s+/g, " ").trim();
      return text.length > 200 ? `${text.slice(0, 199)}…` : text;
    } catch {
      return "";
    }
  }
}
