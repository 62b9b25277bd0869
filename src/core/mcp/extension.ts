/**
 * MCP as a loop extension. During setup it asks the hub for every server's tools (live for
 * servers that start with the session or have never been seen, from the cached list of an
 * earlier start for the others, which then start on first use) and offers them with
 * `api.addTools`, so the tool list is fixed for the session's cached prefix.
 *
 * Beyond a budget (a tool count and an estimate of the schemas' tokens) the remaining tools are
 * deferred: registered and callable by name, but not listed in requests; `mcp_search` finds them.
 */
import type { ContextMessage, Extension } from "../extensions/types";
import { parseInvocation } from "../custom-commands/expand";
import { parseResourceMentions, resolveResourceMentions, resourcesChangedNote, RESOURCE_MENTIONS_SOURCE } from "./mentions";
import { expandPromptCommand } from "./prompts";
import { describeServer } from "./config";
import { adaptMcpTool } from "./adapter";
import { assignServerParts, assignToolNames } from "./names";
import { createMcpSearchTool } from "./search";
import { createMcpResourceTools } from "./resources";
import type { McpHub, McpServerStatus } from "./types";
import { mcpClientHandlers, type McpClientDeps } from "./client-requests";
import type { ToolDefinition } from "../tools/types";

export interface McpBudget {
  /** Tools listed in every request (default 40). */
  maxTools: number;
  /** Estimated tokens of the listed tools' names, descriptions and schemas (default 10 000). */
  maxSchemaTokens: number;
}

export const DEFAULT_MCP_BUDGET: McpBudget = { maxTools: 40, maxSchemaTokens: 10_000 };

export interface McpExtensionOptions {
  hub: McpHub | (() => Promise<McpHub>);
  budget?: Partial<McpBudget>;
  /** Names already used by the session's other tools. */
  takenNames?: Iterable<string>;
  /** Dispose the hub with the session (default true). */
  ownsHub?: boolean;
  /** The session's model, approver, rules and form, to answer servers' sampling and elicitation requests (without: refused). */
  client?: McpClientDeps;
  /** Claude Code's MAX_MCP_OUTPUT_TOKENS: the most of one tool result the model is shown (absent: Yoke's own bounds). */
  outputTokens?: number;
}

/** A rough token estimate of a tool in the request (4 characters a token). */
export function toolTokens(t: { name: string; description: string; inputJsonSchema?: unknown }): number {
  return Math.ceil((t.name.length + t.description.length + JSON.stringify(t.inputJsonSchema ?? {}).length) / 4);
}

const RECORDED_STATE = {
  configured: "cached",
  starting: "starting",
  running: "running",
  failed: "failed",
  stopped: "stopped",
  not_approved: "not_approved",
  untrusted: "untrusted",
  disabled: "disabled",
} as const;

/** The tools of a catalog, named and split into listed and deferred by the budget. */
export function buildMcpTools(catalog: readonly McpServerStatus[], hub: McpHub, budget: McpBudget, taken: Iterable<string> = [], outputTokens?: number): ToolDefinition[] {
  const parts = assignServerParts(catalog.map((s) => s.config.name));
  // A server's `onlyTools` (the Copilot CLI's `tools` list): the other tools are not offered at all.
  const offered = (s: McpServerStatus) => (s.tools ?? []).filter((t) => !s.config.onlyTools || s.config.onlyTools.includes(t.name));
  const entries = catalog.flatMap((s) => offered(s).map((tool) => ({ status: s, tool, server: parts.get(s.config.name)! })));
  const names = assignToolNames(
    entries.map((e) => ({ server: e.server, tool: e.tool.name })),
    taken,
  );
  let tokens = 0;
  let listed = 0;
  let deferring = false;
  return entries.map((e, i) => {
    const def = adaptMcpTool({
      server: e.status.config.name,
      serverPart: e.server,
      name: names[i]!,
      tool: e.tool,
      hub,
      timeoutMs: e.status.config.timeoutMs,
      ...(outputTokens ? { outputTokens } : {}),
    });
    const cost = toolTokens(def);
    // Once one tool is deferred, every later one is too: which tools are listed never depends on sizes further down.
    if (!deferring && (listed + 1 > budget.maxTools || tokens + cost > budget.maxSchemaTokens)) deferring = true;
    if (deferring) return { ...def, deferred: true };
    listed++;
    tokens += cost;
    return def;
  });
}

export function mcpExtension(opts: McpExtensionOptions): Extension {
  return {
    name: "mcp",
    async setup(api) {
      const hub = typeof opts.hub === "function" ? await opts.hub() : opts.hub;
      const budget = { ...DEFAULT_MCP_BUDGET, ...opts.budget };
      // Before any server starts: a server may ask for sampling or elicitation as soon as it runs.
      if (opts.client) hub.serve?.(mcpClientHandlers(api, opts.client));
      const catalog = await hub.catalog();
      for (const s of catalog) {
        api.record({
          type: "mcp_server",
          server: s.config.name,
          state: RECORDED_STATE[s.state],
          detail: s.detail ?? `${describeServer(s.config)} (${s.config.sourcePath})`,
          ...(s.tools ? { tools: s.tools.length } : {}),
        });
      }
      const tools = buildMcpTools(catalog, hub, budget, opts.takenNames, opts.outputTokens);
      const deferred = tools.filter((t) => t.deferred);
      if (deferred.length) tools.push(createMcpSearchTool(deferred));
      // Resources: offered for the servers that may run (whether one offers resources is known once it runs).
      const usable = catalog.filter((s) => s.state === "running" || s.state === "configured" || s.state === "starting").map((s) => s.config.name);
      tools.push(...createMcpResourceTools(hub, usable, opts.outputTokens));
      if (tools.length) api.addTools(tools);

      // Prompts as slash commands (`/mcp__<server>__<prompt> args`), through the same point as custom commands.
      const parts = assignServerParts(catalog.map((s) => s.config.name));
      const promptServers = new Map(usable.map((n) => [n, parts.get(n)!]));
      api.on("prompt.expand", async ({ text }) => {
        const call = parseInvocation(text);
        if (!call) return undefined;
        const r = await expandPromptCommand(hub, promptServers, call.name, call.args, new AbortController().signal);
        if (!r || "block" in r) return r;
        api.record({ type: "extension", name: "mcp", point: "prompt.expand", outcome: "decided", detail: r.detail });
        return { text: r.text, ...(r.images.length ? { images: r.images } : {}) };
      });

      // `@server:uri`: the resource's content goes to the model right after the message (a context message).
      const attached: ContextMessage[] = [];
      // A server that failed to start: the model is told with its next request (appended: the cached
      // prefix stays), or it would only meet "Unknown tool". Its name only: the reason (its stderr)
      // is the user's to read, in the log and the setup warnings.
      const failed = catalog.filter((s) => s.state === "failed").map((s) => JSON.stringify(s.config.name));
      if (failed.length) attached.push({ source: "mcp-servers", text: failedServersNote(failed) });
      // Only in what the user typed: a custom command's or an MCP prompt's body (the repository's or a
      // server's words) would otherwise read a resource past the ReadMcpResourceTool rules (red9).
      // Subscriptions: a mentioned resource is subscribed to where its server offers that, and a
      // change it reports is told to the model once, before its next request (appended, like
      // the attachment itself: the cached prefix stays as it was); the new content is not sent
      // by itself (the model reads it with read_mcp_resource when it matters).
      // The subscription ends (resources/unsubscribe) when the resource leaves the context (a
      // compaction replaces the messages that carried it: mentioning it again subscribes again)
      // and when the session ends.
      const changed = new Set<string>();
      const watched = new Map<string, { server: string; uri: string; subscribed: Promise<boolean> }>();
      const unwatch = async () => {
        const all = [...watched.values()];
        watched.clear();
        changed.clear();
        // A subscription still on its way is ended once it is made.
        await Promise.all(all.map(async (m) => ((await m.subscribed) ? hub.unsubscribeResource?.(m.server, m.uri).catch(() => undefined) : undefined)));
      };
      api.on("prompt.submit", async ({ text, typed }) => {
        const mentions = parseResourceMentions(typed ?? text, usable);
        if (mentions.length) {
          attached.push({ source: RESOURCE_MENTIONS_SOURCE, text: await resolveResourceMentions(hub, mentions, new AbortController().signal) });
          for (const m of mentions) {
            if (watched.has(m.raw)) continue;
            const subscribed = (hub.subscribeResource?.(m.server, m.uri) ?? Promise.resolve(false)).catch(() => false);
            watched.set(m.raw, { server: m.server, uri: m.uri, subscribed });
            void subscribed.then((ok) => {
              if (!ok && watched.get(m.raw)?.subscribed === subscribed) watched.delete(m.raw);
            });
          }
        }
        return undefined;
      });
      api.on("compaction.after", async () => {
        await unwatch();
        return undefined;
      });
      api.on("session.end", async () => {
        await unwatch();
        return undefined;
      });
      const updated = hub.onResourceUpdated?.((server, uri) => {
        const raw = `@${server}:${uri}`;
        if (watched.has(raw)) changed.add(raw);
      });
      api.on("request.prepare", () => {
        if (changed.size) {
          attached.push({ source: RESOURCE_MENTIONS_SOURCE, text: resourcesChangedNote([...changed]) });
          changed.clear();
        }
        return attached.length ? { append: attached.splice(0) } : undefined;
      });
      const sub = hub.onChange((s) => {
        // A running server reports a change with a detail (its tool list changed).
        if (s.state === "failed" || s.state === "stopped" || (s.state === "running" && s.detail))
          api.record({ type: "mcp_server", server: s.config.name, state: RECORDED_STATE[s.state], ...(s.detail ? { detail: s.detail } : {}) });
      });
      return {
        dispose: () => {
          sub.dispose();
          updated?.dispose();
          if (opts.client) hub.serve?.(undefined);
          if (opts.ownsHub !== false) void hub.dispose();
        },
      };
    },
  };
}

/** What the model is told of the servers that failed to start (names already quoted). */
export function failedServersNote(quotedNames: readonly string[]): string {
  const one = quotedNames.length === 1;
  return `The MCP server${one ? "" : "s"} ${quotedNames.join(", ")} failed to start: ${one ? "its" : "their"} tools are not available in this session (the user has been shown why).`;
}
