/** The files MCP servers are defined in, read for one workspace folder (lowest priority first). */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { withoutProviderSecrets } from "../settings/secret-env";
import { parseMcpConfig, type ExpandContext, type McpConfig, type McpSourceFile, type McpSourceKind } from "../../core/mcp/config";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export function mcpSourceFiles(cwd: string, home: string, extra: readonly string[] = []): McpSourceFile[] {
  const root = resolve(cwd);
  const files: [McpSourceKind, string][] = [
    ["user-settings", join(home, ".yoke", "settings.json")],
    ["workspace-settings", join(root, ".yoke", "settings.json")],
    ["vscode-mcp-json", join(root, ".vscode", "mcp.json")],
    ["workspace-mcp-json", join(root, ".mcp.json")],
    ...extra.map((p): [McpSourceKind, string] => ["extra", resolve(p)]),
  ];
  return files.map(([kind, path]) => ({ kind, path, text: read(path) }));
}

export function loadMcpConfig(cwd: string, home: string, ctx: Omit<ExpandContext, "workspaceFolder" | "home">, extra: readonly string[] = []): McpConfig {
  return parseMcpConfig(mcpSourceFiles(cwd, home, extra), { ...ctx, workspaceEnv: withoutProviderSecrets(ctx.env), workspaceFolder: resolve(cwd), home });
}
