/**
 * Completion in the composer for what MCP servers offer: `/mcp__<server>__<prompt>` with the
 * prompt's description and arguments (prompts/list), the value of the argument being typed after
 * it (completion/complete, where the server completes), and `@server:uri` (resources/list and
 * resource templates). Harness-neutral: the host passes what is typed and shows the entries.
 */
import { splitArgs } from "../custom-commands/expand";
import { assignServerParts } from "./names";
import { listPrompts, promptCommandName, promptUsage } from "./prompts";
import type { McpHub, McpServerStatus } from "./types";

export interface McpCompletion {
  label: string;
  detail: string;
  /** The text that replaces what was typed (`/name `, the command with the argument, `@server:uri `). */
  insert: string;
}

const MAX = 30;
const USABLE: ReadonlySet<string> = new Set(["running", "configured", "starting"]);

/** The servers that may run, by configured name, with the server part of their command names. */
export function usableServers(status: readonly McpServerStatus[]): Map<string, string> {
  const parts = assignServerParts(status.map((s) => s.config.name));
  return new Map(status.filter((s) => USABLE.has(s.state)).map((s) => [s.config.name, parts.get(s.config.name)!]));
}

/**
 * `/query` (the text after the slash, up to the cursor): the prompts whose command names match,
 * or — once a space follows an `mcp__` command — the values of the argument being typed. Prompts
 * of servers not running are listed (starting them) only once the query starts with `mcp`.
 */
export async function completeMcpCommand(hub: McpHub, query: string, signal: AbortSignal): Promise<McpCompletion[]> {
  const status = hub.status();
  const servers = usableServers(status);
  const space = query.search(/\s/);
  if (space > 0) return completePromptArgument(hub, servers, query.slice(0, space), query.slice(space + 1), signal);
  const q = query.toLowerCase();
  const running = new Set(status.filter((s) => s.state === "running").map((s) => s.config.name));
  const asked = q.startsWith("mcp") ? servers : new Map([...servers].filter(([n]) => running.has(n)));
  const prompts = await listPrompts(hub, asked, signal);
  return prompts
    .filter((p) => p.command.toLowerCase().startsWith(q) || (q !== "" && p.command.toLowerCase().includes(q)))
    .slice(0, MAX)
    .map((p) => ({
      label: `/${p.command}`,
      detail: [promptUsage(p.prompt), p.prompt.description ?? p.prompt.title, `(MCP: ${p.server})`].filter(Boolean).join(" — "),
      insert: `/${p.command} `,
    }));
}

/** The argument being typed after `/command ` (positional, or `name=` started): the server's completions of it. */
async function completePromptArgument(hub: McpHub, servers: ReadonlyMap<string, string>, command: string, args: string, signal: AbortSignal): Promise<McpCompletion[]> {
  if (!hub.complete || !command.startsWith("mcp__")) return [];
  const entry = [...servers].find(([, part]) => command.startsWith(`mcp__${part}__`));
  if (!entry) return [];
  const prompt = (await hub.prompts?.(entry[0], signal).catch(() => undefined))?.find((p) => promptCommandName(entry[1], p.name) === command);
  const declared = prompt?.arguments ?? [];
  if (!prompt || !declared.length) return [];
  // The words before the one being typed set their arguments (as the expansion reads them).
  const endsInSpace = args === "" || /\s$/.test(args);
  const words = splitArgs(args);
  const typing = endsInSpace ? "" : (words.pop() ?? "");
  const context: Record<string, string> = {};
  const positional: string[] = [];
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq > 0 && declared.some((a) => a.name === w.slice(0, eq))) context[w.slice(0, eq)] = w.slice(eq + 1);
    else positional.push(w);
  }
  for (const a of declared) if (context[a.name] === undefined && positional.length) context[a.name] = positional.shift()!;
  let name: string | undefined;
  let value = typing;
  let prefix = "";
  const eq = typing.indexOf("=");
  if (eq > 0 && declared.some((a) => a.name === typing.slice(0, eq))) {
    name = typing.slice(0, eq);
    value = typing.slice(eq + 1);
    prefix = `${name}=`;
  } else name = declared.find((a) => context[a.name] === undefined)?.name;
  if (!name) return [];
  const values = await hub.complete(entry[0], prompt.name, { name, value }, context, signal).catch(() => [] as string[]);
  const before = endsInSpace ? args : args.slice(0, args.length - typing.length);
  const argDoc = declared.find((a) => a.name === name)?.description;
  return values.slice(0, MAX).map((v) => ({
    label: v,
    detail: `${name}${argDoc ? ` — ${argDoc}` : ""}`,
    insert: `/${command} ${before}${prefix}${/[\s"']/.test(v) ? JSON.stringify(v) : v} `,
  }));
}

/**
 * Which variable of a URI template (RFC 6570 simple `{name}`, and `{+name}` / `{#name}`) the typed
 * text is in: the text is matched against the template's literal parts from the start; the
 * variables before the one being typed are the context. Undefined when the text is not (yet) in a
 * variable of this template.
 */
export function templateVariableAt(template: string, typed: string): { name: string; value: string; before: string; context: Record<string, string>; last: boolean } | undefined {
  const tokens: Array<{ lit: string } | { name: string }> = [];
  for (const m of template.matchAll(/\{([+#]?)([A-Za-z0-9_.%]+)\}|[^{]+|\{/g)) tokens.push(m[2] ? { name: m[2] } : { lit: m[0] });
  const context: Record<string, string> = {};
  let pos = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if ("lit" in t) {
      if (!typed.startsWith(t.lit, pos)) return undefined;
      pos += t.lit.length;
      continue;
    }
    const next = tokens[i + 1];
    const end = next && "lit" in next ? typed.indexOf(next.lit, pos) : -1;
    if (end < 0) return { name: t.name, value: typed.slice(pos), before: typed.slice(0, pos), context, last: i === tokens.length - 1 };
    context[t.name] = typed.slice(pos, end);
    pos = end;
  }
  return undefined;
}

/**
 * `@query` of a mention: `@server:` for servers whose name starts with the query, and once the
 * query names a server (`server:…`), its resources whose URI or name contains the rest, then its
 * resource templates (the part before the first `{` is inserted, to be completed by hand).
 */
export async function completeMcpMention(hub: McpHub, query: string, signal: AbortSignal): Promise<McpCompletion[]> {
  const servers = [...usableServers(hub.status()).keys()];
  const colon = query.indexOf(":");
  if (colon < 0) {
    if (!query) return [];
    return servers.filter((s) => s.toLowerCase().startsWith(query.toLowerCase())).map((s) => ({ label: `@${s}:`, detail: "an MCP server's resources", insert: `@${s}:` }));
  }
  const server = query.slice(0, colon);
  if (!servers.includes(server) || !hub.resources) return [];
  const typed = query.slice(colon + 1);
  const rest = typed.toLowerCase();
  const list = await hub.resources(server, signal).catch(() => undefined);
  if (!list) return [];
  const out: McpCompletion[] = [];
  // A template's variable being typed (`@server:demo://text/4`): the server's completions of it.
  if (hub.completeResource) {
    for (const t of list.templates) {
      const at = templateVariableAt(t.uriTemplate, typed);
      if (!at) continue;
      const values = await hub.completeResource(server, t.uriTemplate, { name: at.name, value: at.value }, at.context, signal).catch(() => [] as string[]);
      for (const v of values.slice(0, MAX - out.length)) {
        out.push({
          label: `@${server}:${at.before}${v}`,
          detail: [`${at.name} of ${t.uriTemplate}`, t.title ?? t.name].filter(Boolean).join(" — "),
          insert: `@${server}:${at.before}${v}${at.last ? " " : ""}`,
        });
      }
    }
  }
  for (const r of list.resources) {
    if (out.length >= MAX) break;
    if (rest && !r.uri.toLowerCase().includes(rest) && !(r.name ?? "").toLowerCase().includes(rest)) continue;
    out.push({ label: `@${server}:${r.uri}`, detail: [r.title ?? r.name, r.mimeType, r.description?.split("\n")[0]].filter(Boolean).join(" — "), insert: `@${server}:${r.uri} ` });
  }
  for (const t of list.templates) {
    if (out.length >= MAX) break;
    const head = t.uriTemplate.split("{")[0]!;
    if (rest && !t.uriTemplate.toLowerCase().includes(rest) && !head.toLowerCase().startsWith(rest)) continue;
    out.push({ label: `@${server}:${t.uriTemplate}`, detail: [`template`, t.title ?? t.name, t.description?.split("\n")[0]].filter(Boolean).join(" — "), insert: `@${server}:${head}` });
  }
  return out;
}
