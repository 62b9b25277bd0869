/**
 * `mcp_search`: finds deferred MCP tools (registered and callable, but not listed in requests)
 * by words of their name and description, and gives their exact names and argument schemas so
 * the model can call them.
 */
import { z } from "zod";
import { defineTool, field, type ToolDefinition, type ToolIdentity } from "../tools/types";
import { plural } from "../tools/output";

export const MCP_SEARCH_TOOL = "mcp_search";
/** The search tool, as the permission engine knows it: Claude Code's name for its tool search; read-only, allowed in every mode (rules may still deny it). */
export const MCP_SEARCH_IDENTITY: ToolIdentity = { name: MCP_SEARCH_TOOL, permission: "ToolSearch", permissionClass: "session", capabilities: {} };
const MAX_SCHEMA_CHARS = 4000;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Ranked matches: every query word must occur in the name or description; name hits weigh more. */
export function searchTools(tools: readonly ToolDefinition[], query: string): ToolDefinition[] {
  const q = words(query);
  if (q.length === 0) return [...tools];
  const scored: { t: ToolDefinition; score: number; i: number }[] = [];
  tools.forEach((t, i) => {
    const name = t.name.toLowerCase();
    const desc = t.description.toLowerCase();
    let score = 0;
    for (const w of q) {
      if (name.includes(w)) score += 3;
      else if (desc.includes(w)) score += 1;
      else return;
    }
    scored.push({ t, score, i });
  });
  return scored.sort((a, b) => b.score - a.score || a.i - b.i).map((s) => s.t);
}

/**
 * The search over `deferred`. Once `--tools` or an agent's allow-list has trimmed the tools, it is
 * rebuilt over the deferred tools still there (none left: no search), so it never describes or
 * finds a tool the session cannot call; a deferred tool kept together with it stays behind it
 * (`loads`).
 */
export function createMcpSearchTool(deferred: readonly ToolDefinition[]): ToolDefinition {
  const servers = new Map<string, number>();
  for (const t of deferred) {
    const server = t.name.split("__")[1] ?? "?";
    servers.set(server, (servers.get(server) ?? 0) + 1);
  }
  const list = [...servers].map(([s, n]) => `${s} (${plural(n, "tool")})`).join(", ");
  const tool: ToolDefinition = defineTool({
    ...MCP_SEARCH_IDENTITY,
    description:
      `Finds MCP tools that are available but not listed here (${plural(deferred.length, "tool")} from: ${list}). ` +
      `Give words from what you need (e.g. "create issue"); it returns matching tools with their exact names and arguments. ` +
      `Then call a tool by that exact name as you call any other tool. An empty query lists them all.`,
    schema: z.object({
      query: z.string().describe("Words of the tool's name or purpose; empty lists all deferred tools"),
      limit: z.number().int().min(1).max(20).optional().describe("How many tools to return (default 5)"),
    }),
    loads: deferred.map((t) => t.name),
    trimmed(kept) {
      const names = new Set(kept.map((t) => t.name));
      const left = deferred.filter((t) => names.has(t.name));
      if (left.length === deferred.length) return tool;
      return left.length ? createMcpSearchTool(left) : undefined;
    },
    timeoutMs: 10_000,
    summarize: (input) => field(input, "query") ?? "",
    hookInput: (args) => ({ ...args }),
    async run({ query, limit }) {
      const found = searchTools(deferred, query);
      if (found.length === 0) return { text: `No deferred MCP tool matches "${query}". Try other words, or an empty query to list all ${deferred.length}.` };
      const shown = found.slice(0, limit ?? 5);
      const blocks = shown.map((t) => {
        let schema = JSON.stringify(t.inputJsonSchema ?? {});
        if (schema.length > MAX_SCHEMA_CHARS) schema = `${schema.slice(0, MAX_SCHEMA_CHARS)}… [schema cut]`;
        return `${t.name}\n  ${t.description}\n  arguments (JSON Schema): ${schema}`;
      });
      const more = found.length > shown.length ? `\n[${found.length - shown.length} more match; raise "limit" or narrow the query]` : "";
      return { text: `${plural(shown.length, "tool")} found; call one by its exact name:\n\n${blocks.join("\n\n")}${more}` };
    },
  });
  return tool;
}
