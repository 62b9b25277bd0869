/**
 * `@server:uri` in a message (the panel's composer and `yoke run`): the MCP resource's content is
 * attached for the model, as a context message right after the user's message (like the
 * composer's other attachments), bounded like every output; binary content is described.
 */
import { keepHeadAndTail, note } from "../tools/output";
import { describeResourceContents } from "./resources";
import type { McpHub } from "./types";

/** One resource's text attached at most, and all of one message's. */
export const MAX_RESOURCE_MENTION_BYTES = 50_000;
export const MAX_RESOURCE_MENTIONS_BYTES = 100_000;
/** Resources attached from one message at most. */
export const MAX_RESOURCE_MENTIONS = 10;
const MAX_LINES = 2_000;

/** The `source` of the context events that carry them. */
export const RESOURCE_MENTIONS_SOURCE = "mcp-resources";

export interface ResourceMention {
  server: string;
  uri: string;
  raw: string;
}

const TRAILING = /[.,;:!?)\]}'"]+$/;

/**
 * The `@server:uri` mentions of a message, for the servers named (their configured names): `@` at
 * the start or after white space, the server's name, `:`, then a URI with a scheme (`demo://…`,
 * `file:///…`). Sentence punctuation after it is not part of it.
 */
export function parseResourceMentions(text: string, servers: readonly string[]): ResourceMention[] {
  const out: ResourceMention[] = [];
  const re = /(^|[\s(])@([^\s:@"]+):([A-Za-z][A-Za-z0-9+.-]*:[^\s"]+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const server = m[2]!;
    if (!servers.includes(server)) continue;
    const uri = m[3]!.replace(TRAILING, "");
    if (!out.some((o) => o.server === server && o.uri === uri)) out.push({ server, uri, raw: `@${server}:${uri}` });
  }
  return out.slice(0, MAX_RESOURCE_MENTIONS);
}

/** The text attached for the mentions: each resource's content (or why it could not be read), bounded. */
export async function resolveResourceMentions(hub: McpHub, mentions: readonly ResourceMention[], signal: AbortSignal): Promise<string> {
  const blocks: string[] = [];
  let total = 0;
  for (const m of mentions) {
    let body: string;
    try {
      if (!hub.readResource) throw new Error("this session cannot read MCP resources");
      const contents = await hub.readResource(m.server, m.uri, signal);
      body = keepHeadAndTail(describeResourceContents(contents), MAX_LINES, MAX_RESOURCE_MENTION_BYTES, `the resource was cut to fit; read it with read_mcp_resource`);
    } catch (err) {
      body = note(`could not be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (total + body.length > MAX_RESOURCE_MENTIONS_BYTES) body = note(`not attached: the message's attachments reached ${MAX_RESOURCE_MENTIONS_BYTES / 1000} KB; read it with read_mcp_resource`);
    total += body.length;
    blocks.push(`<resource server="${m.server}" uri="${m.uri}">\n${body}\n</resource>`);
  }
  return `The user mentioned ${mentions.length === 1 ? "this MCP resource" : "these MCP resources"}:\n${blocks.join("\n")}`;
}

/** What the model is told when resources the user mentioned changed since (their servers said so). */
export function resourcesChangedNote(mentions: readonly string[]): string {
  return `${mentions.length === 1 ? "An MCP resource the user mentioned earlier has" : "MCP resources the user mentioned earlier have"} changed since (the server said so): ${mentions.join(", ")}. What you were given may be out of date; read it again with read_mcp_resource if it matters.`;
}
