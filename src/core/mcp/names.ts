/**
 * Model-facing names of MCP tools: `mcp__<server>__<tool>`, as Claude Code names them, so its
 * permission rules (`mcp__server`, `mcp__server__*`, `mcp__server__tool`) and hook matchers apply.
 *
 * Providers accept `[a-zA-Z0-9_-]{1,64}`: other characters become `_`. `__` separates the parts,
 * so a run of underscores inside the server name is folded to one (`my__srv` → `my_srv`): a rule
 * `mcp__<server>` then always names exactly one server. Names longer than 64 characters are cut
 * and end in a short hash of the full name; two tools that still end up with the same name get
 * `_2`, `_3`… in the order the server listed them (deterministic for one configuration).
 */

export const MAX_TOOL_NAME = 64;

/** FNV-1a, 32 bits, as 6 base-36 characters. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36).padStart(7, "0").slice(-6);
}

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The server part of every tool name of that server (and of its rules and breaker group). */
export function sanitizeServerName(name: string): string {
  const s = clean(name)
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
  return s === "" ? `server_${shortHash(name)}` : s;
}

function cap(name: string, full: string): string {
  if (name.length <= MAX_TOOL_NAME) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 7)}_${shortHash(full)}`;
}

/** `mcp__<server>__<tool>` for one tool, sanitised and capped (without collision handling). */
export function mcpToolName(server: string, tool: string): string {
  const t = clean(tool) || `tool_${shortHash(tool)}`;
  return cap(`mcp__${sanitizeServerName(server)}__${t}`, `${server}\u0000${tool}`);
}

/**
 * Names for all tools of all servers, in order, unique among themselves and against `taken`
 * (the session's other tools). Returns the model-facing name of each input, same order.
 */
export function assignToolNames(tools: readonly { server: string; tool: string }[], taken: Iterable<string> = []): string[] {
  const used = new Set(taken);
  return tools.map(({ server, tool }) => {
    const base = mcpToolName(server, tool);
    let name = base;
    for (let n = 2; used.has(name); n++) {
      const suffix = `_${n}`;
      name = base.length + suffix.length <= MAX_TOOL_NAME ? base + suffix : base.slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    }
    used.add(name);
    return name;
  });
}

/** Server names that sanitise to the same part (two servers would share rules): made distinct. */
export function assignServerParts(servers: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const s of servers) {
    const base = sanitizeServerName(s);
    let part = base;
    for (let n = 2; used.has(part); n++) part = `${base}_${n}`;
    used.add(part);
    out.set(s, part);
  }
  return out;
}
