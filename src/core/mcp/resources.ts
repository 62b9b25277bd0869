/**
 * MCP resources (`resources/list`, `resources/templates/list`, `resources/read`) as two tools,
 * named for the permission engine as Claude Code names its own: `list_mcp_resources`
 * (ListMcpResourcesTool) and `read_mcp_resource` (ReadMcpResourceTool). A resource link or an
 * embedded resource a tool returns names a URI the model reads with the second.
 *
 * Reading a resource asks the server to produce it (a server may compute it, or fetch it), so it is
 * not a read-only call: like an MCP tool, it asks unless a rule allows it.
 */
import { z } from "zod";
import { keepHeadAndTail, keepHeadAndTailChars, MAX_OUTPUT_BYTES, note, plural } from "../tools/output";
import { mcpOutputBound } from "./adapter";
import { warnLargeOutput } from "./output-warning";
import { defineTool, field, ToolError, type ToolDefinition, type ToolIdentity } from "../tools/types";
import type { McpHub, McpResourceContents } from "./types";

export const LIST_MCP_RESOURCES_TOOL = "list_mcp_resources";
export const READ_MCP_RESOURCE_TOOL = "read_mcp_resource";
export const LIST_MCP_RESOURCES_IDENTITY: ToolIdentity = { name: LIST_MCP_RESOURCES_TOOL, permission: "ListMcpResourcesTool", capabilities: { network: true } };
export const READ_MCP_RESOURCE_IDENTITY: ToolIdentity = { name: READ_MCP_RESOURCE_TOOL, permission: "ReadMcpResourceTool", capabilities: { network: true } };
const MAX_LINES = 2000;
const MAX_LISTED = 200;
const TIMEOUT_MS = 130_000;

function sizeOf(base64: string | undefined): string {
  if (!base64) return "";
  const bytes = Math.floor((base64.length * 3) / 4);
  return bytes >= 1024 ? `, ${Math.round(bytes / 1024)} KB` : `, ${bytes} bytes`;
}

/** The contents of a read resource as the model reads them: text as it is, bytes described. */
export function describeResourceContents(contents: readonly McpResourceContents[]): string {
  if (contents.length === 0) return "(the resource is empty)";
  return contents
    .map((c) => {
      const head = `${c.uri}${c.mimeType ? ` (${c.mimeType})` : ""}`;
      if (typeof c.text === "string") return contents.length > 1 ? `${note(head)}\n${c.text}` : c.text;
      return note(`${head}: binary content${sizeOf(c.blob)}, not shown to the model`);
    })
    .join("\n");
}

/**
 * The two resource tools, over the servers `servers` names (those configured and approved).
 * `outputTokens` (MAX_MCP_OUTPUT_TOKENS): the most of a read resource the model is shown, as for a
 * tool result (ToolDefinition.outputBound: the compaction's spill keeps the whole for recall).
 */
export function createMcpResourceTools(hub: McpHub, servers: readonly string[], outputTokens?: number): ToolDefinition[] {
  if (!hub.resources || !hub.readResource || servers.length === 0) return [];
  const bound = outputTokens ? mcpOutputBound(outputTokens) : undefined;
  const list = hub.resources.bind(hub);
  const read = hub.readResource.bind(hub);
  const names = servers.map((s) => `"${s}"`).join(", ");
  const known = (server: string) => {
    if (!servers.includes(server)) throw new ToolError(`There is no MCP server "${server}" in this session. Servers: ${names}.`);
  };
  return [
    defineTool({
      ...LIST_MCP_RESOURCES_IDENTITY,
      description: `List the resources (data a server offers by URI: documents, records, files) and resource templates of the MCP servers ${names}, or of one of them. Read one with ${READ_MCP_RESOURCE_TOOL}.`,
      schema: z.object({ server: z.string().min(1).optional().describe(`One server's name; default: every server (${names})`) }),
      timeoutMs: TIMEOUT_MS,
      summarize: (input) => field(input, "server") ?? "all servers",
      hookInput: (args) => ({ ...args }),
      async run({ server }, ctx) {
        if (server) known(server);
        const blocks: string[] = [];
        for (const s of server ? [server] : servers) {
          let got;
          try {
            got = await list(s, ctx.signal);
          } catch (err) {
            if (ctx.signal.aborted) throw err;
            blocks.push(`Server "${s}": ${err instanceof Error ? err.message : String(err)}`);
            continue;
          }
          if (!got || (got.resources.length === 0 && got.templates.length === 0)) {
            blocks.push(`Server "${s}": no resources.`);
            continue;
          }
          const lines = [`Server "${s}": ${plural(got.resources.length, "resource")}${got.templates.length ? `, ${plural(got.templates.length, "template")}` : ""}`];
          for (const r of got.resources.slice(0, MAX_LISTED)) {
            const label = r.title ?? r.name;
            lines.push(`- ${r.uri}${label && label !== r.uri ? ` — ${label}` : ""}${r.mimeType ? ` (${r.mimeType})` : ""}${r.description ? `: ${r.description.split("\n")[0]}` : ""}`);
          }
          if (got.resources.length > MAX_LISTED) lines.push(`[${got.resources.length - MAX_LISTED} more not shown]`);
          if (got.templates.length) {
            lines.push("Templates (fill in the {names} to get a URI to read):");
            for (const t of got.templates.slice(0, MAX_LISTED))
              lines.push(`- ${t.uriTemplate}${(t.title ?? t.name) ? ` — ${t.title ?? t.name}` : ""}${t.mimeType ? ` (${t.mimeType})` : ""}${t.description ? `: ${t.description.split("\n")[0]}` : ""}`);
          }
          blocks.push(lines.join("\n"));
        }
        const text = blocks.join("\n\n");
        const shown = keepHeadAndTail(text, MAX_LINES, MAX_OUTPUT_BYTES, "the list was cut to fit; ask for one server");
        return { text: shown, ...(shown === text ? {} : { full: text }) };
      },
    }),
    defineTool({
      ...READ_MCP_RESOURCE_IDENTITY,
      description: `Read a resource of an MCP server (${names}) by its URI: one ${LIST_MCP_RESOURCES_TOOL} lists, a template filled in, or a resource link a tool returned.`,
      schema: z.object({
        server: z.string().min(1).describe(`The server's name (${names})`),
        uri: z.string().min(1).describe("The resource's URI, exactly as listed or linked"),
      }),
      timeoutMs: TIMEOUT_MS,
      ...(bound ? { outputBound: bound } : {}),
      summarize: (input) => `${field(input, "server") ?? ""}: ${field(input, "uri") ?? ""}`,
      hookInput: (args) => ({ ...args }),
      async run({ server, uri }, ctx) {
        known(server);
        let contents: McpResourceContents[];
        try {
          contents = await read(server, uri, ctx.signal);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          throw new ToolError(err instanceof Error ? err.message : String(err));
        }
        const text = describeResourceContents(contents);
        // Over 10,000 tokens the person is warned (as Claude Code does); the model is not told.
        warnLargeOutput(ctx, { server, uri }, text, outputTokens);
        // The whole goes with the shown text (`full`): the session's spill keeps it for recall.
        const shown = bound
          ? keepHeadAndTailChars(text, bound.chars, (n) => `[… ${n} characters not shown: the resource is over ${bound.why} (${bound.chars} characters) …]`)
          : keepHeadAndTail(text, MAX_LINES, MAX_OUTPUT_BYTES, "the resource was cut to fit");
        return { text: shown, ...(shown === text ? {} : { full: text }) };
      },
    }),
  ];
}
