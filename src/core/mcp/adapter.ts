/**
 * An MCP server's tool as a Yoke tool: its own JSON Schema for the provider, the permission name
 * `mcp__<server>__<tool>` (Claude Code rules and hooks), the breaker group `mcp:<server>`, and a
 * result bounded like every other output, with images and resources described in text.
 */
import { z } from "zod";
import { keepHeadAndTail, keepHeadAndTailChars, MAX_OUTPUT_BYTES, note } from "../tools/output";
import { defineTool, ToolError, type ToolDefinition, type ToolOutput, type ToolOutputBound } from "../tools/types";
import { CHARS_PER_TOKEN } from "../compaction/tokens";
import type { McpCallResult, McpContent, McpHub, McpToolInfo } from "./types";
import type { ImagePart } from "../events";
import { admitImage, base64Bytes, sizeText } from "../providers/images";
import { warnLargeOutput } from "./output-warning";

export const DEFAULT_MCP_TIMEOUT_MS = 120_000;
const MAX_RESULT_LINES = 2000;
const MAX_DESCRIPTION = 2000;
const PROGRESS_EVERY_MS = 1000;

/** A checker for the server's schema: zod's own reading of it, or any object when zod cannot read it. */
function checker(schema: Record<string, unknown>): z.ZodType {
  const loose = z.record(z.string(), z.unknown());
  try {
    const fromJson = (z as unknown as { fromJSONSchema?: (s: unknown) => z.ZodType }).fromJSONSchema;
    if (!fromJson || schema.type !== "object") return loose;
    const parsed = fromJson(schema);
    // A schema that rejects an empty call of a tool with no required arguments is misread: do not trust it.
    if (!(Array.isArray(schema.required) && schema.required.length) && !parsed.safeParse({}).success) return loose;
    return parsed;
  } catch {
    return loose;
  }
}

/** The schema sent to the provider: an object schema, whatever the server declared. */
function providerSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const s = schema && typeof schema === "object" ? { ...schema } : {};
  delete s.$schema;
  if (s.type !== "object") return { type: "object", properties: {}, ...s, ...(s.type === undefined ? {} : { type: "object" }) };
  return s;
}

function sizeOf(base64: string | undefined): string {
  return base64 ? `, ${sizeText(base64Bytes(base64))}` : "";
}

/** No provider Yoke speaks to takes audio in a tool result: audio is described. */
const AUDIO_NOTE = "not shown to the model: no provider Yoke uses takes audio";

/**
 * One content block as text for the model. `images`: where an image the model may see goes (it
 * is sent with the result, and the text says so); without it, images are described only.
 */
export function describeContent(c: McpContent, images?: ImagePart[], from = "the tool"): string {
  switch (c.type) {
    case "text":
      return typeof c.text === "string" ? c.text : "";
    case "image": {
      const x = c as { mimeType?: string; data?: string };
      const what = `image (${x.mimeType ?? "unknown type"}${sizeOf(x.data)}) returned by ${from}`;
      if (!images) return note(`${what}: not shown to the model`);
      const admitted = admitImage(x.mimeType, x.data, images.length);
      if ("why" in admitted) return note(`${what}: not shown to the model: ${admitted.why}`);
      images.push(admitted.image);
      return note(`${what}: image ${images.length}, attached`);
    }
    case "audio": {
      const x = c as { mimeType?: string; data?: string };
      return note(`audio (${x.mimeType ?? "unknown type"}${sizeOf(x.data)}) returned by ${from}: ${AUDIO_NOTE}`);
    }
    case "resource": {
      const r = (c as { resource?: { uri?: string; mimeType?: string; text?: string; blob?: string } }).resource ?? {};
      if (typeof r.text === "string") return `${note(`resource ${r.uri ?? ""}${r.mimeType ? ` (${r.mimeType})` : ""}`)}\n${r.text}`;
      // An embedded image resource is an image like any other.
      if (images && r.mimeType?.startsWith("image/") && r.blob) {
        const admitted = admitImage(r.mimeType, r.blob, images.length);
        if ("image" in admitted) {
          images.push(admitted.image);
          return note(`resource ${r.uri ?? ""} (${r.mimeType}${sizeOf(r.blob)}): image ${images.length}, attached`);
        }
      }
      return note(`binary resource ${r.uri ?? ""} (${r.mimeType ?? "unknown type"}${sizeOf(r.blob)}): not shown to the model`);
    }
    case "resource_link": {
      const l = c as { uri?: string; name?: string; mimeType?: string; description?: string };
      return note(`resource link ${l.name ? `"${l.name}" ` : ""}${l.uri ?? ""}${l.mimeType ? ` (${l.mimeType})` : ""}${l.description ? `: ${l.description}` : ""} — read it with read_mcp_resource`);
    }
    default:
      return note(`content of type "${c.type}" returned by ${from}: not shown to the model`);
  }
}

/**
 * Claude Code's `MAX_MCP_OUTPUT_TOKENS`: the most of one MCP tool result the model is shown, in
 * tokens (counted as the context meter counts them, CHARS_PER_TOKEN characters a token). Unset:
 * undefined (Yoke's own bounds hold: 2,000 lines or 50,000 bytes, and the spill's preview beyond).
 * Anything but a positive whole number is ignored, with a problem saying so.
 */
export function mcpOutputTokensFromEnv(env: Readonly<Record<string, string | undefined>>): { tokens?: number; problems: string[] } {
  const raw = env.MAX_MCP_OUTPUT_TOKENS?.trim();
  if (!raw) return { problems: [] };
  if (/^[1-9][0-9]{0,8}$/.test(raw)) return { tokens: Number(raw), problems: [] };
  return { problems: [`MAX_MCP_OUTPUT_TOKENS=${JSON.stringify(raw).slice(0, 40)} is not a number of tokens: ignored`] };
}

/** The bound of an MCP tool's results under MAX_MCP_OUTPUT_TOKENS (ToolDefinition.outputBound). */
export function mcpOutputBound(tokens: number): ToolOutputBound {
  return { chars: tokens * CHARS_PER_TOKEN, why: `MAX_MCP_OUTPUT_TOKENS=${tokens}` };
}

/**
 * A tool result as the model reads it, bounded like other outputs. Images (PNG, JPEG, GIF, WebP up
 * to MAX_IMAGE_BYTES, at most MAX_IMAGES) go with it for the provider to send; others are described.
 * `bound` (MAX_MCP_OUTPUT_TOKENS): the shown text is at most that many characters instead.
 */
export function formatResult(result: McpCallResult, bound?: ToolOutputBound): ToolOutput {
  const images: ImagePart[] = [];
  const parts = (result.content ?? []).map((c) => describeContent(c, images)).filter((t) => t !== "");
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  let text = parts.join("\n");
  if (text === "") text = result.isError ? "(the tool failed without a message)" : "(the tool returned no content)";
  // The shown text is bounded like other outputs; the whole result goes with it (`full`), so the
  // session's spill keeps every byte for `recall` and tells the model so. This bounded text
  // (and its note) is what the model sees only where nothing is spilled (compaction turned off).
  const shown = bound
    ? keepHeadAndTailChars(text, bound.chars, (n) => `[… ${n} characters not shown: the MCP tool's result is over ${bound.why} (${bound.chars} characters); ask the tool for less …]`)
    : keepHeadAndTail(text, MAX_RESULT_LINES, MAX_OUTPUT_BYTES, "the MCP tool's result was cut to fit; ask the tool for less");
  return { text: shown, ...(shown === text ? {} : { full: text }), isError: result.isError === true, ...(images.length ? { images } : {}) };
}

export interface AdaptOptions {
  /** The name in the configuration (what the hub knows). */
  server: string;
  /** The sanitised server part of the tool names. */
  serverPart: string;
  /** The model-facing name (mcp__<server>__<tool>, unique in the session). */
  name: string;
  tool: McpToolInfo;
  hub: McpHub;
  timeoutMs?: number;
  deferred?: boolean;
  /** MAX_MCP_OUTPUT_TOKENS: the most of a result the model is shown (tokens); absent: Yoke's own bounds. */
  outputTokens?: number;
}

/** The Yoke tool for one MCP tool. */
export function adaptMcpTool(o: AdaptOptions): ToolDefinition {
  const schema = providerSchema(o.tool.inputSchema);
  const desc = (o.tool.description ?? o.tool.title ?? "").trim();
  const description = `${desc.length > MAX_DESCRIPTION ? `${desc.slice(0, MAX_DESCRIPTION)}…` : desc || `The ${o.tool.name} tool`} (MCP server "${o.server}")`;
  const timeoutMs = o.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  const outputBound = o.outputTokens ? mcpOutputBound(o.outputTokens) : undefined;
  return defineTool({
    name: o.name,
    description,
    schema: checker(schema),
    inputJsonSchema: schema,
    permission: o.name,
    // An MCP tool can do anything its server can: never treated as read-only (as in Claude Code,
    // the server's readOnlyHint is a claim, not a guarantee).
    capabilities: { network: true },
    // The call's own timeout (restarted by each progress notification, at most ten times over) is
    // the hub's; the loop's bound is the longest a call may take with progress, and a little more.
    timeoutMs: timeoutMs * 10 + 5_000,
    group: `mcp:${o.serverPart}`,
    deferred: o.deferred,
    // The compaction's spill reads it: the model sees what MAX_MCP_OUTPUT_TOKENS says, the whole stays recallable.
    ...(outputBound ? { outputBound } : {}),
    summarize: (input) => {
      const text = JSON.stringify(input ?? {});
      return `${o.server}: ${o.tool.name} ${text === "{}" ? "" : text}`.trim();
    },
    hookInput: (args) => (args && typeof args === "object" ? (args as Record<string, unknown>) : {}),
    hookResponse: (_args, output) => [{ type: "text", text: output.text }],
    async run(args, ctx) {
      let result: McpCallResult;
      try {
        let last = 0;
        result = await o.hub.call(o.server, o.tool.name, (args ?? {}) as Record<string, unknown>, {
          signal: ctx.signal,
          timeoutMs,
          // Shown to the user (the panel and the CLI describe it), at most once a second; never sent to the model.
          onProgress: (p) => {
            const now = Date.now();
            if (now - last < PROGRESS_EVERY_MS) return;
            last = now;
            ctx.record({
              type: "mcp_progress",
              callId: ctx.callId,
              server: o.server,
              tool: o.tool.name,
              progress: p.progress,
              ...(p.total !== undefined ? { total: p.total } : {}),
              ...(p.message ? { message: p.message } : {}),
            });
          },
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        throw new ToolError(`${o.name}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const out = formatResult(result, outputBound);
      // Over 10,000 tokens the person is warned (as Claude Code does); the model is not told.
      warnLargeOutput(ctx, { server: o.server, tool: o.tool.name }, out.full ?? out.text, o.outputTokens);
      return out;
    },
  });
}
