/**
 * The files MCP servers are defined in, for one workspace folder (lowest priority first): the
 * user's ~/.yoke/settings.json, the workspace's .yoke/settings.json, .vscode/mcp.json, .mcp.json
 * and the `--settings` files.
 *
 * The settings files are the one settings reader's (src/node/settings/reader.ts): a session passes
 * the texts the reader read (SessionSettings.settingsFiles), so each file is read once per session
 * and a server's origin is the reader's — a file the reader counts as the repository's defines
 * workspace servers (started only once approved, never in Restricted Mode); in the home folder the
 * workspace's .yoke/settings.json is the user's own file, read once, as the user's. Without them
 * (`yoke mcp list`), the reader's file list is read here with the reader's read. .vscode/mcp.json and
 * .mcp.json are MCP's own files, read with the same read.
 */
import { dirname, join, resolve } from "node:path";
import { parseEnv } from "node:util";
import { parseMcpConfig, type ExpandContext, type McpConfig, type McpServerConfig, type McpSourceFile, type McpSourceKind } from "../../core/mcp/config";
import type { LoadedSource } from "../../core/permissions/types";
import { originOf } from "../../core/settings/origin";
import { readSettingsText, settingsFileList } from "../settings/files";
import { withoutProviderSecrets } from "../settings/secret-env";
import { pluginMcpSourceFiles } from "../plugins";

/** The settings files that may define `mcpServers`: the user's, the workspace's, the `--settings` ones. */
const SETTINGS_KINDS = new Set<LoadedSource["info"]["kind"]>(["user", "project", "extra"]);

/** The MCP kind of a settings file, from the origin the reader gives it. */
function kindOf(source: LoadedSource): McpSourceKind {
  const origin = originOf(source.info);
  if (origin === "project" || origin === "project-local") return "workspace-settings";
  return source.info.kind === "extra" ? "extra" : "user-settings";
}

/** The settings files of the reader's list, read with the reader's read (when no reader's result is at hand). */
function readOwnSettingsFiles(cwd: string, home: string, extra: readonly string[]): LoadedSource[] {
  // `yoke mcp list --settings FILE`: FILE relative to where the command runs, as before.
  return settingsFileList({ cwd, home, extraFiles: extra.map((p) => resolve(p)), managedDir: null })
    .filter((info) => SETTINGS_KINDS.has(info.kind))
    .map((info) => ({ info, text: readSettingsText(info.path!).text }));
}

export function mcpSourceFiles(cwd: string, home: string, extra: readonly string[] = [], settingsFiles?: readonly LoadedSource[]): McpSourceFile[] {
  const root = resolve(cwd);
  const settings = (settingsFiles ?? readOwnSettingsFiles(root, home, extra)).filter((s) => SETTINGS_KINDS.has(s.info.kind) && s.info.path !== undefined);
  const fromSettings = (s: LoadedSource): McpSourceFile => ({ kind: kindOf(s), path: s.info.path!, text: s.text });
  const own = (kind: McpSourceKind, path: string): McpSourceFile => ({ kind, path, text: readSettingsText(path).text });
  return [
    // The approved plugins' servers (src/node/plugins), as the user's own: the approval was the plugin's.
    // Only plugins the user enabled (a workspace's enabledPlugins counts for hooks, agents and skills only).
    ...pluginMcpSourceFiles({ home, cwd: root, trusted: false }),
    ...settings.filter((s) => s.info.kind !== "extra").map(fromSettings),
    own("vscode-mcp-json", join(root, ".vscode", "mcp.json")),
    own("workspace-mcp-json", join(root, ".mcp.json")),
    ...settings.filter((s) => s.info.kind === "extra").map(fromSettings),
  ];
}

/**
 * The variables of an `envFile` (KEY=VALUE lines, `#` comments, `export ` prefixes, quoted values
 * that may span lines: the dotenv format Node's own `util.parseEnv` reads). A line that is none of
 * these makes the whole file invalid (thrown, with its line number): a typo must not silently drop
 * a variable the server needs.
 */
export function readEnvFile(path: string): Record<string, string> {
  const read = readSettingsText(path);
  if (read.missing) throw new Error(`its envFile ${path} does not exist`);
  if (read.text === undefined) throw new Error(`its envFile ${path} cannot be read (${read.error ?? "unknown error"})`);
  const text = read.text;
  let open: string | undefined; // the quote of a value that continues on the next line
  text.split(/\r?\n/).forEach((line, i) => {
    if (open) {
      if (line.includes(open)) open = undefined;
      return;
    }
    if (/^\s*(#.*)?$/.test(line)) return;
    const m = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=\s*(["'`]?)(.*)$/.exec(line);
    if (!m) throw new Error(`its envFile ${path} is not valid: line ${i + 1} is not KEY=VALUE`);
    if (m[1] && !m[2]!.includes(m[1])) open = m[1];
  });
  return parseEnv(text) as Record<string, string>;
}

/** Each stdio server's `envFile` read into its `env` (`env` wins); a server whose file is missing or invalid is a problem, not started. */
function withEnvFiles(config: McpConfig): McpConfig {
  const servers: McpServerConfig[] = [];
  const problems = [...config.problems];
  for (const s of config.servers) {
    if (s.transport !== "stdio" || s.envFile === undefined) {
      servers.push(s);
      continue;
    }
    const path = resolve(dirname(s.sourcePath), s.envFile);
    try {
      servers.push({ ...s, envFile: path, env: { ...readEnvFile(path), ...s.env } });
    } catch (err) {
      problems.push({ server: s.name, sourcePath: s.sourcePath, message: `MCP server "${s.name}" in ${s.sourcePath}: ${(err as Error).message}` });
    }
  }
  return { servers, problems };
}

export function loadMcpConfig(cwd: string, home: string, ctx: Omit<ExpandContext, "workspaceFolder" | "home">, extra: readonly string[] = [], settingsFiles?: readonly LoadedSource[]): McpConfig {
  return withEnvFiles(parseMcpConfig(mcpSourceFiles(cwd, home, extra, settingsFiles), { ...ctx, workspaceEnv: withoutProviderSecrets(ctx.env), workspaceFolder: resolve(cwd), home }));
}
