/** Claude Code's rule syntax: `Tool` or `Tool(specifier)`. */

export interface ParsedRule {
  tool: string;
  specifier?: string;
}

/** Permission names Yoke checks, plus Claude Code names that are accepted (and never match). */
const KNOWN_TOOLS = new Set(["Read", "Edit", "Write", "Glob", "Grep", "Bash", "TodoWrite", "Task", "Skill"]);
const CLAUDE_ONLY = new Set(["MultiEdit", "NotebookEdit", "NotebookRead", "LS", "WebFetch", "WebSearch", "BashOutput", "KillShell", "ExitPlanMode", "SlashCommand"]);
export const PATH_TOOLS = new Set(["Read", "Edit", "Write", "Glob", "Grep"]);

/** Parses a rule; returns an error message (model- and user-facing) when it is not valid. */
export function parseRule(text: string): ParsedRule | { error: string } {
  const raw = text.trim();
  const m = /^([A-Za-z_][A-Za-z0-9_-]*(?:__\*)?)(?:\(([\s\S]*)\))?$/.exec(raw);
  if (!m) {
    if (/^[A-Za-z_][A-Za-z0-9_-]*\(/.test(raw)) return { error: `rule "${raw}" has no closing parenthesis` };
    return { error: `rule "${raw}" is not of the form Tool or Tool(specifier)` };
  }
  const tool = m[1]!;
  const specifier = m[2];
  if (specifier !== undefined && specifier.trim() === "") return { error: `rule "${raw}" has an empty specifier; write ${tool} alone for the whole tool` };
  if (!KNOWN_TOOLS.has(tool) && !CLAUDE_ONLY.has(tool) && !/^mcp__[^_]/.test(tool)) return { error: `rule "${raw}" names an unknown tool "${tool}"` };
  if (tool.startsWith("mcp__") && specifier !== undefined) return { error: `rule "${raw}": MCP rules take no specifier (write mcp__server or mcp__server__tool)` };
  if (specifier === undefined || specifier.trim() === "*" || specifier.trim() === "**") return { tool };
  return { tool, specifier: specifier.trim() };
}

export function formatRule(rule: ParsedRule): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

/** Does a rule written for `ruleTool` apply to a call checked under `permission`? */
export function ruleAppliesTo(ruleTool: string, permission: string): boolean {
  if (ruleTool === permission) return true;
  if (ruleTool === "Edit" && permission === "Write") return true;
  if (ruleTool === "Read" && (permission === "Glob" || permission === "Grep")) return true;
  if (ruleTool.startsWith("mcp__") && permission.startsWith("mcp__")) {
    const server = ruleTool.replace(/__\*$/, "");
    return server.split("__").length === 2 && permission.startsWith(server + "__");
  }
  return false;
}
