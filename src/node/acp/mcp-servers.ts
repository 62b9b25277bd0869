/**
 * The MCP servers an editor gives `session/new` / `session/load`, for Yoke's own MCP mechanism
 * (src/node/mcp): written as the `mcpServers` of an extra settings file of that session — the
 * user's own configuration, like `--settings FILE` — so they start, are checked by the permission
 * rules (mcp__SERVER__TOOL) and stop exactly as the servers of the settings files do.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";

/** Why the editor's list cannot be used as it is (undefined: it can): two servers of one name would leave one out unseen. */
export function mcpServersProblem(servers: readonly McpServer[]): string | undefined {
  const seen = new Set<string>();
  for (const s of servers) {
    if (seen.has(s.name)) return `two MCP servers are named ${JSON.stringify(s.name)}: each needs a name of its own (its tools are mcp__${s.name}__…, and its permission rules name it)`;
    seen.add(s.name);
  }
  return undefined;
}

/**
 * The settings entries (`mcpServers`) of the editor's servers. ACP's values are literal (the
 * protocol has no variables): `"expandVariables": false` keeps a `${…}` in a token, a password or
 * an argument as the editor sent it instead of reading it as one of Yoke's variables.
 */
export function mcpSettings(servers: readonly McpServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of servers) {
    if ("type" in s && (s.type === "http" || s.type === "sse")) {
      out[s.name] = { type: s.type, url: s.url, headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])), expandVariables: false };
    } else if ("command" in s) {
      out[s.name] = { command: s.command, args: s.args, env: Object.fromEntries(s.env.map((e) => [e.name, e.value])), expandVariables: false };
    }
  }
  return out;
}

/** A settings file holding the servers (none: no file), removed by dispose(). */
export function mcpSettingsFile(servers: readonly McpServer[]): { path?: string; dispose(): void } {
  if (servers.length === 0) return { dispose() {} };
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-mcp-"));
  const path = join(dir, "settings.json");
  writeFileSync(path, JSON.stringify({ mcpServers: mcpSettings(servers) }, null, 2), { mode: 0o600 });
  return { path, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
