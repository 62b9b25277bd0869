/**
 * A Claude Code plugin folder, read as Claude Code documents it: an optional
 * `.claude-plugin/plugin.json` manifest (name, version, description, and component paths that
 * supplement the default folders), and the default layout — `commands/`, `agents/`, `skills/`
 * (folders with a SKILL.md), `hooks/hooks.json`, `.mcp.json`. `${CLAUDE_PLUGIN_ROOT}` in hooks and
 * server definitions is the plugin's installed folder. A component path must stay inside the plugin.
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
  const manifest: PluginManifest = {
    name,
    ...(typeof raw.version === "string" ? { version: raw.version } : {}),
    ...(typeof raw.description === "string" ? { description: raw.description } : {}),
  };
  // Default folders, plus the manifest's paths (which supplement them).
  const withDefault = (dir: string, key: string) => [...(exists(join(root, dir)) ? [join(root, dir)] : []), ...paths(raw[key], root, key, problems)];
  const components: PluginComponents = { commands: withDefault("commands", "commands"), agents: withDefault("agents", "agents"), skills: withDefault("skills", "skills") };

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
