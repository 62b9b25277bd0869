/**
 * Deferred tool definitions: a tool that declares itself `deferred` with a `brief` line is not
 * sent with every request. `load_tools` lists those tools by name and brief in its own
 * description and, when the model asks, answers with their whole definitions (description and
 * JSON Schema) as a tool result; the model then calls them by name like any other tool (they were
 * always callable). The tool list never changes during the session, so the cached prefix of the
 * requests (tools, system prompt, earlier messages) is never broken by a load: the definition is
 * new conversation, appended after everything the cache holds.
 *
 * The extension is set up after every other one and after `--tools` has trimmed the session's tools
 * (src/core/loop/agent-session.ts), so it lists exactly the deferred tools the session still has;
 * a deferred tool `--tools` names stays behind the loader when `--tools` names the loader too
 * (ToolDefinition.loads), else it is sent whole. A sub-agent sets up its own for its own tools.
 */
import { z } from "zod";
import type { Extension } from "../extensions/types";
import { plural } from "../tools/output";
import { toolJsonSchema } from "../tools/registry";
import { builtinSchema } from "../tools/schema-table";
import { defineTool, type ToolDefinition, type ToolIdentity } from "../tools/types";

/** The loader, as the permission engine knows it: Claude Code's name for its tool search; changes nothing, allowed in every mode (rules may still deny it). */
export const LOAD_TOOLS_TOOL: ToolIdentity = { name: "load_tools", permission: "ToolSearch", permissionClass: "session", capabilities: {} };

/** Deferred tools the loader lists: those that say what they are for in one line. */
export function listedByLoader(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.filter((t) => t.deferred && t.brief);
}

/** The description the model sees: what the loader does, then each deferred tool by name and brief. */
export function loadToolsDescription(deferred: readonly Pick<ToolDefinition, "name" | "brief">[]): string {
  return ["Get the definitions of these tools (available, listed here by name only), then call them like any other:", ...deferred.map((t) => `- ${t.name}: ${t.brief}`)].join("\n");
}

function definitionText(t: ToolDefinition): string {
  return `${t.name}: ${t.description}\nArguments (JSON Schema): ${JSON.stringify(toolJsonSchema(t))}`;
}

const loadToolsSchema = builtinSchema("load_tools", () => z.object({ names: z.array(z.string().min(1)).min(1).describe("Names of the tools above") }));

export function createLoadToolsTool(deferred: readonly ToolDefinition[], listed: () => readonly ToolDefinition[]): ToolDefinition {
  const byName = new Map(deferred.map((t) => [t.name, t]));
  return defineTool({
    ...LOAD_TOOLS_TOOL,
    kind: "other",
    description: loadToolsDescription(deferred),
    loads: deferred.map((t) => t.name),
    schema: loadToolsSchema,
    timeoutMs: 10_000,
    summarize: (input) => (Array.isArray(input.names) ? input.names.join(", ") : ""),
    hookInput: (args) => ({ names: args.names }),
    async run({ names }) {
      const wanted = [...new Set(names.map((n) => n.trim()))];
      const found = wanted.flatMap((n) => (byName.has(n) ? [byName.get(n)!] : []));
      const notes = wanted
        .filter((n) => !byName.has(n))
        .map((n) =>
          listed().some((t) => t.name === n && !t.deferred)
            ? `${n} is already listed with its definition: call it directly.`
            : `No deferred tool is named "${n}"; these are: ${deferred.map((t) => t.name).join(", ")}.`,
        );
      const head = found.length ? `${plural(found.length, "tool")} loaded; call ${found.length > 1 ? "them" : "it"} by name:` : "";
      const text = [head, ...found.map(definitionText), ...notes].filter((x) => x !== "").join("\n\n");
      return { text, isError: found.length === 0, meta: { loaded: found.map((t) => t.name) } };
    },
  });
}

/** Offers `load_tools` when the session has tools deferred with a brief line. */
export function deferredToolsExtension(): Extension {
  return {
    name: "deferred-tools",
    setup(api) {
      const deferred = listedByLoader(api.session.tools());
      if (deferred.length) api.addTools([createLoadToolsTool(deferred, () => api.session.tools())]);
    },
  };
}
