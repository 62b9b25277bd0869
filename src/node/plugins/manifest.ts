/**
 * A Claude Code plugin folder, read as Claude Code documents it: an optional
 * `.claude-plugin/plugin.json` manifest (name, version, description, component paths), and the
 * default layout — `commands/`, `agents/`, `skills/` (folders with a SKILL.md), `output-styles/`,
 * `hooks/hooks.json`, `.mcp.json`. A `commands`, `agents`, `skills` or `outputStyles` path list replaces its default folder (list the
 * default too to keep it); hooks and MCP servers from the manifest add to the default files.
 * `${CLAUDE_PLUGIN_ROOT}` in hooks and server definitions is the plugin's installed folder. A
 * component path must stay inside the plugin.
 *
 * The marketplace entry a plugin was installed from may declare components too (kept at install as
 * `.claude-plugin/yoke-marketplace-entry.json`, so the approval digest covers it): with `strict`
 * (the default) they are merged with plugin.json's; with `"strict": false` the entry is the whole
 * definition and plugin.json's component fields are not used (Anthropic's own skills marketplace:
 * `"source": "./", "strict": false, "skills": ["./skills/xlsx", …]` — only those skills).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { parseJsonc } from "../../core/settings/jsonc";

export interface PluginManifest {
  name: string;
  version?: string;
  description?: string;
}

export interface PluginComponents {
  /** Folders (or single .md files) of slash commands. */
  commands: string[];
  agents: string[];
  /** Folders whose sub-folders hold a SKILL.md (or a skill folder itself). */
  skills: string[];
  /** Folders (or single .md files) of output styles: `output-styles/`, or plugin.json's `outputStyles`. */
  outputStyles: string[];
  /** Claude Code's `hooks` object (event → groups), `${CLAUDE_PLUGIN_ROOT}` substituted; absent: none. */
  hooks?: Record<string, unknown>;
  /** Where the hooks were declared, for the user. */
  hooksFrom?: string;
  /** `mcpServers` (name → definition), `${CLAUDE_PLUGIN_ROOT}` substituted. */
  mcpServers?: Record<string, unknown>;
  mcpFrom?: string;
}

export interface PluginFolder {
  root: string;
  manifest: PluginManifest;
  components: PluginComponents;
  problems: string[];
}

function readJson(path: string): { value?: unknown; error?: string } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : String(err) };
  }
  const parsed = parseJsonc(text);
  if (!parsed.ok) return { error: `${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message})` };
  return { value: parsed.value };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) replaced by the plugin's folder, in every string of a JSON value. */
export function substituteRoot<T>(value: T, root: string): T {
  if (typeof value === "string") return value.replace(/\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g, root) as T;
  if (Array.isArray(value)) return value.map((v) => substituteRoot(v, root)) as T;
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteRoot(v, root)])) as T;
  return value;
}

/** A manifest path (`./custom/agents/`), resolved inside the plugin; undefined (with a problem) when it leaves it. */
function inside(root: string, p: string, key: string, problems: string[]): string | undefined {
  if (isAbsolute(p)) {
    problems.push(`plugin.json: "${key}" path ${JSON.stringify(p)} must be relative to the plugin folder (./...); ignored`);
    return undefined;
  }
  const abs = resolve(root, p);
  const rel = relative(root, abs);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    problems.push(`plugin.json: "${key}" path ${JSON.stringify(p)} leaves the plugin folder; ignored`);
    return undefined;
  }
  return abs;
}

function paths(v: unknown, root: string, key: string, problems: string[]): string[] {
  const list = typeof v === "string" ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  if (v !== undefined && list.length === 0) problems.push(`plugin.json: "${key}" must be a path or a list of paths; ignored`);
  return list.flatMap((p) => inside(root, p, key, problems) ?? []);
}

const exists = (p: string) => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** Where the marketplace entry's own component fields are kept in an installed plugin. */
export const MARKETPLACE_ENTRY_FILE = join(".claude-plugin", "yoke-marketplace-entry.json");
const COMPONENT_KEYS = ["commands", "agents", "skills", "outputStyles", "hooks", "mcpServers"] as const;

/** The marketplace entry's component fields of a plugin entry (and `strict`), or undefined when it has none. */
export function entryComponents(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const k of COMPONENT_KEYS) if (entry[k] !== undefined && entry[k] !== null) out[k] = entry[k];
  if (entry.strict === false) out.strict = false;
  return Object.keys(out).length ? out : undefined;
}

/** plugin.json's fields with the marketplace entry's components merged in (strict) or in their place (strict: false). */
function withMarketplaceEntry(root: string, raw: Record<string, unknown>, problems: string[]): Record<string, unknown> {
  const e = readJson(join(root, MARKETPLACE_ENTRY_FILE));
  if (e.error === "missing") return raw;
  if (e.error || !isObject(e.value)) {
    problems.push(e.error ?? `${MARKETPLACE_ENTRY_FILE}: not a JSON object; ignored`);
    return raw;
  }
  const entry = e.value;
  const out: Record<string, unknown> = { ...raw };
  if (entry.strict === false) {
    const declared = COMPONENT_KEYS.filter((k) => raw[k] !== undefined && raw[k] !== null);
    if (declared.length) problems.push(`plugin.json declares ${declared.join(", ")}, but its marketplace entry is "strict": false (the entry is the whole definition); plugin.json's are not used`);
    for (const k of COMPONENT_KEYS) delete out[k];
    for (const k of COMPONENT_KEYS) if (entry[k] !== undefined) out[k] = entry[k];
    return out;
  }
  const asList = (v: unknown) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
  for (const k of ["commands", "agents", "skills", "outputStyles"] as const) {
    if (entry[k] !== undefined && entry[k] !== null) out[k] = [...asList(raw[k]), ...asList(entry[k])];
  }
  for (const k of ["hooks", "mcpServers"] as const) {
    if (entry[k] === undefined || entry[k] === null) continue;
    if (raw[k] === undefined || raw[k] === null) out[k] = entry[k];
    else if (isObject(raw[k]) && isObject(entry[k])) out[k] = k === "hooks" ? mergeHooks(raw[k], entry[k]) : { ...(raw[k] as object), ...(entry[k] as object) };
    else problems.push(`the marketplace entry's "${k}" and plugin.json's cannot be merged (give both inline or only one); the marketplace entry's is not used`);
  }
  return out;
}

function mergeHooks(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const ha = isObject(a.hooks) ? a.hooks : a;
  const hb = isObject(b.hooks) ? b.hooks : b;
  const out: Record<string, unknown> = { ...ha };
  for (const [ev, groups] of Object.entries(hb)) out[ev] = [...(Array.isArray(out[ev]) ? (out[ev] as unknown[]) : []), ...(Array.isArray(groups) ? groups : [groups])];
  return out;
}

/** Reads a plugin folder. `fallbackName`: the marketplace entry's name, when the plugin has no manifest. */
export function readPluginFolder(root: string, fallbackName?: string): PluginFolder {
  const problems: string[] = [];
  const manifestPath = join(root, ".claude-plugin", "plugin.json");
  const m = readJson(manifestPath);
  let raw: Record<string, unknown> = {};
  if (m.error && m.error !== "missing") problems.push(m.error);
  else if (m.value !== undefined) {
    if (isObject(m.value)) raw = m.value;
    else problems.push(`${manifestPath}: the manifest must be a JSON object`);
  }
  const name = typeof raw.name === "string" && raw.name.trim() ? raw.name.trim() : (fallbackName ?? basename(root));
  raw = withMarketplaceEntry(root, raw, problems);
  const manifest: PluginManifest = {
    name,
    ...(typeof raw.version === "string" ? { version: raw.version } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
  };
  // The manifest's paths when it names any (they replace the default folder), else the default folder.
  const withDefault = (dir: string, key: string) =>
    raw[key] !== undefined && raw[key] !== null ? [...new Set(paths(raw[key], root, key, problems))] : exists(join(root, dir)) ? [join(root, dir)] : [];
  const components: PluginComponents = {
    commands: withDefault("commands", "commands"),
    agents: withDefault("agents", "agents"),
    skills: withDefault("skills", "skills"),
    outputStyles: withDefault("output-styles", "outputStyles"),
  };

  // Hooks: hooks/hooks.json, or the manifest's `hooks` (a path or the object itself).
  const hookFiles = [...(exists(join(root, "hooks", "hooks.json")) ? [join(root, "hooks", "hooks.json")] : [])];
  let hooks: Record<string, unknown> = {};
  const addHooks = (v: unknown, from: string) => {
    const h = isObject(v) && isObject(v.hooks) ? v.hooks : v;
    if (!isObject(h)) return problems.push(`${from}: hooks must be {"hooks": {"EventName": [...]}}; ignored`);
    for (const [event, groups] of Object.entries(h)) hooks[event] = [...(Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []), ...(Array.isArray(groups) ? groups : [groups])];
    components.hooksFrom = components.hooksFrom ? `${components.hooksFrom}, ${from}` : from;
  };
  if (typeof raw.hooks === "string" || Array.isArray(raw.hooks)) {
    for (const p of paths(raw.hooks, root, "hooks", problems)) if (!hookFiles.includes(p)) hookFiles.push(p);
  } else if (isObject(raw.hooks)) addHooks(raw.hooks, "plugin.json");
  for (const f of hookFiles) {
    const r = readJson(f);
    if (r.error) problems.push(r.error === "missing" ? `${f} does not exist` : r.error);
    else addHooks(r.value, relative(root, f).split(sep).join("/"));
  }
  if (Object.keys(hooks).length) components.hooks = substituteRoot(hooks, root);
  else hooks = {};

  // MCP servers: .mcp.json, or the manifest's `mcpServers` (a path or the servers themselves).
  const servers: Record<string, unknown> = {};
  const addServers = (v: unknown, from: string) => {
    const s = isObject(v) && isObject(v.mcpServers) ? v.mcpServers : v;
    if (!isObject(s)) return problems.push(`${from}: must be {"mcpServers": {"name": {...}}}; ignored`);
    Object.assign(servers, s);
    components.mcpFrom = components.mcpFrom ? `${components.mcpFrom}, ${from}` : from;
  };
  const mcpFiles = existsSync(join(root, ".mcp.json")) ? [join(root, ".mcp.json")] : [];
  if (typeof raw.mcpServers === "string" || Array.isArray(raw.mcpServers)) {
    for (const p of paths(raw.mcpServers, root, "mcpServers", problems)) if (!mcpFiles.includes(p)) mcpFiles.push(p);
  } else if (isObject(raw.mcpServers)) addServers(raw.mcpServers, "plugin.json");
  for (const f of mcpFiles) {
    const r = readJson(f);
    if (r.error) problems.push(r.error === "missing" ? `${f} does not exist` : r.error);
    else addServers(r.value, relative(root, f).split(sep).join("/"));
  }
  if (Object.keys(servers).length) components.mcpServers = substituteRoot(servers, root);
  return { root, manifest, components, problems };
}
