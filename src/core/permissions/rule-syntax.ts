/**
 * Claude Code's rule syntax: `Tool`, `Tool(specifier)`, and in deny and ask rules tool-name
 * patterns (`*`, `mcp__*`). `parseRule` checks the syntax; `readRule` decides what a rule in a given
 * list means for Yoke, failing closed for what it cannot read (see merge-settings.ts).
 */
import { TOOL_PERMISSIONS } from "./tool-permissions";
import type { RuleList } from "./types";

export interface ParsedRule {
  tool: string;
  specifier?: string;
}

/** Permission names Yoke checks: those its tools declare. */
const KNOWN_TOOLS = TOOL_PERMISSIONS.known;
/** Claude Code's other names for them (`Agent` is the current name of `Task`). */
const ALIASES: Record<string, string> = { Agent: "Task" };
/**
 * Claude Code tools Yoke has no tool for: accepted, and they never match. In deny and ask rules the
 * file-editing and file-reading ones also cover Yoke's own file tools (fail closed: `MultiEdit(x)`
 * denied means edit_file may not change x either).
 */
const CLAUDE_ONLY = new Set([
  "MultiEdit",
  "NotebookEdit",
  "NotebookRead",
  "LS",
  "WebFetch",
  "WebSearch",
  "BashOutput",
  "KillShell",
  "KillBash",
  "ExitPlanMode",
  "EnterPlanMode",
  "PowerShell",
  "AskUserQuestion",
  "TaskCreate",
  "TaskGet",
  "TaskList",
  "TaskUpdate",
  "TaskStop",
  "TaskOutput",
  "LSP",
  "Cd",
  "EnterWorktree",
  "ExitWorktree",
  "Monitor",
  "CronCreate",
  "CronDelete",
  "CronList",
]);
const RESTRICT_AS: Record<string, string> = { MultiEdit: "Edit", NotebookEdit: "Edit", NotebookRead: "Read", LS: "Read" };
/** Yoke's tool names, which people may write in place of permission names (each tool declares its permission). */
export const YOKE_TOOL_NAMES: Readonly<Record<string, string>> = TOOL_PERMISSIONS.names;
/** Permissions whose calls are checked by the paths they name (the tools declare `permissionClass: "path"`). */
export const PATH_TOOLS: ReadonlySet<string> = TOOL_PERMISSIONS.path;

/**
 * Claude Code's rules on running a custom command: its SlashCommand tool (`SlashCommand`,
 * `SlashCommand:/name`, `SlashCommand:/name:*`, `SlashCommand(/name)`) is now its Skill tool
 * (`Skill(name)`, `Skill(name:*)`: evaluate.ts matches `name:*` as `name` with any arguments, and
 * as any `name:…` plugin namespace). Arguments are not matched: a deny or ask on a name holds for
 * every argument; an allow changes nothing, load_skill being allowed in every mode.
 */
function skillRule(raw: string): string {
  const slash = /^SlashCommand(?::\/?(\S+)|\(\s*\/?([^()]*?)\s*\))?$/.exec(raw);
  if (!slash) return raw;
  const name = (slash[1] ?? slash[2] ?? "").trim();
  return name && name !== "*" ? `Skill(${name})` : "Skill";
}

/** Parses a rule's syntax; returns an error message (model- and user-facing) when it is not valid. */
export function parseRule(text: string): ParsedRule | { error: string } {
  const raw = skillRule(text.trim());
  const m = /^([A-Za-z_*][A-Za-z0-9_*-]*)(?:\(([\s\S]*)\))?$/.exec(raw);
  if (!m) {
    if (/^[A-Za-z_*][A-Za-z0-9_*-]*\(/.test(raw)) return { error: `rule "${raw}" has no closing parenthesis` };
    return { error: `rule "${raw}" is not of the form Tool or Tool(specifier)` };
  }
  const tool = m[1]!;
  const specifier = m[2];
  if (specifier !== undefined && specifier.trim() === "") return { error: `rule "${raw}" has an empty specifier; write ${tool} alone for the whole tool` };
  const pattern = tool.includes("*");
  if (pattern && specifier !== undefined) return { error: `rule "${raw}": a tool-name pattern takes no specifier` };
  if (!pattern && !KNOWN_TOOLS.has(tool) && !ALIASES[tool] && !CLAUDE_ONLY.has(tool) && !/^mcp__[^_]/.test(tool)) return { error: `rule "${raw}" names an unknown tool "${tool}"` };
  if (tool.startsWith("mcp__") && specifier !== undefined && !paramSpecifier(specifier)) return { error: `rule "${raw}": MCP rules take no specifier (write mcp__server or mcp__server__tool)` };
  if (specifier === undefined || specifier.trim() === "*" || specifier.trim() === "**") return { tool };
  return { tool, specifier: specifier.trim() };
}

/** What a rule from a settings file means in one list. */
export type ReadRule =
  /** Use it; `tools` are the permission names it is stored under (a Read deny rule also covers Edit). `note` is reported. */
  | { use: ParsedRule; tools: string[]; note?: string }
  /** A Claude Code tool Yoke does not have (`WebFetch(domain:x)`): accepted, stored nowhere, not reported. */
  | { claudeOnly: string }
  /** It can never match a Yoke tool: reported, not used. */
  | { unused: string }
  /** Not understood. In an allow list it is skipped; in deny and ask lists `askFor` (a permission name or `*`) asks. */
  | { error: string; askFor?: string };

/** Reads one rule of a settings file's `list`, failing closed for deny and ask rules Yoke cannot read. */
export function readRule(text: string, list: RuleList): ReadRule {
  const raw = text.trim();
  const restricting = list !== "allow";
  const parsed = parseRule(raw);
  if ("error" in parsed) {
    const named = /^([A-Za-z_][A-Za-z0-9_-]*)/.exec(raw)?.[1];
    const tool = named && canonicalTool(named);
    if (!restricting) return { error: parsed.error };
    if (tool) return { error: parsed.error, askFor: tool };
    if (/^(#|\/\/)/.test(raw)) return { unused: `"${raw}" looks like a comment, not a rule; it is not used` };
    if (named?.startsWith("mcp__")) return { error: parsed.error, askFor: named };
    if (named) return { unused: `${parsed.error}; it never matches a Yoke tool` };
    return { error: parsed.error, askFor: "*" };
  }
  const { tool, specifier } = parsed;
  if (tool.includes("*")) {
    // Deny and ask rules take any tool-name pattern; allow rules only after a literal mcp__<server>__.
    if (!restricting && !/^mcp__[^*_][^*]*?__/.test(tool)) return { error: `rule "${raw}": an allow rule may use a tool-name pattern only after mcp__<server>__ (as in Claude Code)` };
    return { use: parsed, tools: [tool] };
  }
  if (tool.startsWith("mcp__")) return { use: parsed, tools: [tool] };
  const canonical = ALIASES[tool] ?? tool;
  if (CLAUDE_ONLY.has(tool)) {
    const as = RESTRICT_AS[tool];
    if (restricting && as) return { use: { tool: as, specifier }, tools: coverage(as, list) };
    return { claudeOnly: tool };
  }
  if (!KNOWN_TOOLS.has(canonical)) return { unused: `rule "${raw}" names an unknown tool "${tool}"` };
  return { use: { tool: canonical, specifier }, tools: coverage(canonical, list) };
}

/** A name people may mean as a Yoke permission (case-insensitive, aliases, Yoke's own tool names). */
export function canonicalTool(name: string): string | undefined {
  if (KNOWN_TOOLS.has(name)) return name;
  if (ALIASES[name]) return ALIASES[name];
  if (RESTRICT_AS[name]) return RESTRICT_AS[name];
  if (YOKE_TOOL_NAMES[name]) return YOKE_TOOL_NAMES[name];
  const lower = name.toLowerCase();
  for (const k of [...KNOWN_TOOLS, ...Object.keys(ALIASES), ...Object.keys(RESTRICT_AS)]) if (k.toLowerCase() === lower) return ALIASES[k] ?? RESTRICT_AS[k] ?? k;
  return undefined;
}

/**
 * The permission names a rule is stored under. A Read deny or ask rule also covers Edit (and so
 * Write): what may not be read may not be overwritten either (Claude Code 2.1.208 does the same for
 * Edit). A Write deny or ask rule also covers Edit, the other way of changing a file.
 */
function coverage(tool: string, list: RuleList): string[] {
  if (list === "allow") return [tool];
  if (tool === "Read" || tool === "Write") return [tool, "Edit"];
  return [tool];
}

export function formatRule(rule: ParsedRule): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

/** A `param:value` specifier (Claude Code's input-parameter match in deny and ask rules), or undefined. */
export function paramSpecifier(spec: string): { param: string; value: string } | undefined {
  const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([\s\S]*?)\s*$/.exec(spec);
  return m ? { param: m[1]!, value: m[2]! } : undefined;
}

const globCache = new Map<string, RegExp>();
/** `*` matches any run of characters; everything else literally (`ignoreCase`: in any case). */
export function nameGlob(pattern: string, ignoreCase = false): RegExp {
  const key = ignoreCase ? `i:${pattern}` : `s:${pattern}`;
  let re = globCache.get(key);
  if (!re) {
    re = new RegExp(
      `^${pattern
        .split("*")
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      ignoreCase ? "i" : "",
    );
    globCache.set(key, re);
  }
  return re;
}

function sameTool(ruleTool: string, permission: string): boolean {
  if (ruleTool === permission) return true;
  if (ruleTool.includes("*")) return nameGlob(ruleTool).test(permission);
  if (ruleTool.startsWith("mcp__") && permission.startsWith("mcp__")) return ruleTool.split("__").length === 2 && permission.startsWith(ruleTool + "__");
  return false;
}

/**
 * Does a rule written for `ruleTool` apply to a call checked under `permission`? With
 * `foldMcp` (deny and ask rules), MCP names compare without case: a server the user denied as
 * `mcp__github` stays denied when its configuration names it `GitHub` — restrictions err wide,
 * allow rules stay exact.
 */
export function ruleAppliesTo(ruleTool: string, permission: string, opts: { foldMcp?: boolean } = {}): boolean {
  if (opts.foldMcp && /^mcp__/i.test(ruleTool) && /^mcp__/i.test(permission)) return sameTool(ruleTool.toLowerCase(), permission.toLowerCase());
  if (sameTool(ruleTool, permission)) return true;
  // As in Claude Code: Edit rules cover every tool that edits files, Read rules the tools that read them.
  if (permission === "Write" && sameTool(ruleTool, "Edit")) return true;
  if ((permission === "Glob" || permission === "Grep") && sameTool(ruleTool, "Read")) return true;
  return false;
}
