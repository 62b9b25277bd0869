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
import { join, resolve } from "node:path";
import { parseMcpConfig, type ExpandContext, type McpConfig, type McpSourceFile, type McpSourceKind } from "../../core/mcp/config";
import type { LoadedSource } from "../../core/permissions/types";
import { originOf } from "../../core/settings/origin";
import { readSettingsText, settingsFileList } from "../settings/files";
import { withoutProviderSecrets } from "../settings/secret-env";

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
    ...settings.filter((s) => s.info.kind !== "extra").map(fromSettings),
    own("vscode-mcp-json", join(root, ".vscode", "mcp.json")),
    own("workspace-mcp-json", join(root, ".mcp.json")),
    ...settings.filter((s) => s.info.kind === "extra").map(fromSettings),
  ];
}

export function loadMcpConfig(cwd: string, home: string, ctx: Omit<ExpandContext, "workspaceFolder" | "home">, extra: readonly string[] = [], settingsFiles?: readonly LoadedSource[]): McpConfig {
  return parseMcpConfig(mcpSourceFiles(cwd, home, extra, settingsFiles), { ...ctx, workspaceEnv: withoutProviderSecrets(ctx.env), workspaceFolder: resolve(cwd), home });
}
