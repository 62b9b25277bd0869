/**
 * The files MCP servers are defined in, for one workspace folder (lowest priority first): the
 * enabled plugins' servers, ~/.claude.json's `mcpServers` (Claude Code's user scope),
 * ~/.cursor/mcp.json, VS Code's user-profile mcp.json, the user's ~/.yoke/settings.json, the
 * workspace's .yoke/settings.json, .cursor/mcp.json, .vscode/mcp.json, .mcp.json, this project's
 * entry of ~/.claude.json (Claude Code's local scope) and the `--settings` files.
 *
 * The settings files are the one settings reader's (src/node/settings/reader.ts): a session passes
 * the texts the reader read (SessionSettings.settingsFiles), so each file is read once per session
 * and a server's origin is the reader's — a file the reader counts as the repository's defines
 * workspace servers (started only once approved, never in Restricted Mode); in the home folder the
 * workspace's .yoke/settings.json is the user's own file, read once, as the user's. Without them
 * (`yoke mcp list`), the reader's file list is read here with the reader's read. .vscode/mcp.json and
 * .mcp.json are MCP's own files, read with the same read.
 */
import { basename, dirname, join, resolve } from "node:path";
import { parseEnv } from "node:util";
import { parseMcpConfig, type ExpandContext, type McpConfig, type McpServerConfig, type McpSourceFile, type McpSourceKind } from "../../core/mcp/config";
import type { LoadedSource } from "../../core/permissions/types";
import { originOf } from "../../core/settings/origin";
import { readSettingsText, settingsFileList } from "../settings/files";
import { withoutProviderSecrets } from "../settings/secret-env";
import { pluginMcpSourceFiles } from "../plugins";

/** The folders of VS Code's builds, in the order their user `mcp.json` is looked for (the first that exists is read). */
const VSCODE_APPS = ["Code", "Code - Insiders", "VSCodium"];

/**
 * The user-profile `mcp.json` of VS Code (default profile): `$VSCODE_PORTABLE/user-data/User` in a
 * portable install, else `%APPDATA%\\Code\\User` (Windows), `~/Library/Application Support/Code/User`
 * (macOS), `$XDG_CONFIG_HOME/Code/User` or `~/.config/Code/User` (Linux); the first of Code, Code -
 * Insiders and VSCodium whose file exists. `userDir` (the extension host knows its own) wins.
 */
export function vscodeUserMcpJson(home: string, env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform, userDir?: string): string {
  if (userDir) return join(userDir, "mcp.json");
  if (env.VSCODE_PORTABLE) return join(env.VSCODE_PORTABLE, "user-data", "User", "mcp.json");
  const base =
    platform === "win32" ? (env.APPDATA ?? join(home, "AppData", "Roaming")) : platform === "darwin" ? join(home, "Library", "Application Support") : env.XDG_CONFIG_HOME || join(home, ".config");
  const candidates = VSCODE_APPS.map((app) => join(base, app, "User", "mcp.json"));
  return candidates.find((c) => readSettingsText(c).text !== undefined) ?? candidates[0]!;
}

/**
 * The user folder of the window's VS Code profile, from the extension's global storage folder
 * (`ExtensionContext.globalStorageUri`): `<User>/globalStorage/<extension id>` in the default
 * profile, `<User>/profiles/<profile id>/globalStorage/<extension id>` in another one (VS Code
 * keeps a profile's mcp.json, settings.json… in that profile's folder). In a remote window it is the
 * remote machine's user folder (VS Code's remote-side mcp.json).
 */
export function vscodeUserDirOf(globalStoragePath: string): string | undefined {
  const storage = dirname(globalStoragePath);
  return basename(storage) === "globalStorage" ? dirname(storage) : undefined;
}

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

/** Every settings file of the reader's list (all kinds but managed), read: for the merge of permissions.additionalDirectories. */
export function settingsFilesForMerge(cwd: string, home: string, extra: readonly string[]): LoadedSource[] {
  return settingsFileList({ cwd, home, extraFiles: extra.map((p) => resolve(p)), managedDir: null }).map((info) => ({ info, text: readSettingsText(info.path!).text }));
}

/** Where the files other tools keep are looked for (tests and the extension host pass their own). */
export interface ForeignMcpFiles {
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  /** VS Code's user folder (`…/User`) when known (the extension host's). */
  vscodeUserDir?: string;
}

/** The Copilot CLI's user file: `$COPILOT_HOME/mcp-config.json`, else `~/.copilot/mcp-config.json`. */
export function copilotMcpConfig(home: string, env: Record<string, string | undefined>): string {
  return join(env.COPILOT_HOME || join(home, ".copilot"), "mcp-config.json");
}

/**
 * A VS Code settings.json as an MCP source: read only when it mentions `"mcp"` (it holds every other
 * setting too: a settings file with no MCP servers, even one VS Code reads and Yoke cannot, is no MCP problem).
 */
function vscodeSettings(kind: McpSourceKind, path: string): McpSourceFile {
  const text = readSettingsText(path).text;
  return { kind, path, text: text !== undefined && /"mcp"\s*:/.test(text) ? text : undefined };
}

export function mcpSourceFiles(cwd: string, home: string, extra: readonly string[] = [], settingsFiles?: readonly LoadedSource[], foreign: ForeignMcpFiles = {}): McpSourceFile[] {
  const root = resolve(cwd);
  const settings = (settingsFiles ?? readOwnSettingsFiles(root, home, extra)).filter((s) => SETTINGS_KINDS.has(s.info.kind) && s.info.path !== undefined);
  const fromSettings = (s: LoadedSource): McpSourceFile => ({ kind: kindOf(s), path: s.info.path!, text: s.text });
  const own = (kind: McpSourceKind, path: string): McpSourceFile => ({ kind, path, text: readSettingsText(path).text });
  const claudeJson = join(home, ".claude.json");
  const claudeText = readSettingsText(claudeJson).text;
  const inHome = root === resolve(home);
  return [
    // The approved plugins' servers (src/node/plugins), as the user's own: the approval was the plugin's.
    // Only plugins the user enabled (a workspace's enabledPlugins counts for hooks, agents and skills only).
    ...pluginMcpSourceFiles({ home, cwd: root, trusted: false }),
    // Other tools' user files, the user's own (only the user writes them): Claude Code's user scope,
    // Cursor's global file, VS Code's user profile. Below Yoke's own files.
    { kind: "claude-user", path: claudeJson, text: claudeText },
    own("cursor-user-mcp-json", join(home, ".cursor", "mcp.json")),
    // The Copilot CLI's file ($COPILOT_HOME, else ~/.copilot), which VS Code also reads as the portable format.
    own("copilot-user-mcp-json", copilotMcpConfig(home, foreign.env ?? process.env)),
    // VS Code's settings.json `mcp` key (where VS Code kept servers before its mcp.json), below the mcp.json beside it.
    vscodeSettings("vscode-user-settings", join(dirname(vscodeUserMcpJson(home, foreign.env, foreign.platform, foreign.vscodeUserDir)), "settings.json")),
    own("vscode-user-mcp-json", vscodeUserMcpJson(home, foreign.env, foreign.platform, foreign.vscodeUserDir)),
    // Cursor's hooks files are read for their hooks only.
    ...settings.filter((s) => s.info.kind !== "extra" && s.info.format === undefined).map(fromSettings),
    // The repository's files (in the home folder, ~/.cursor/mcp.json is the user's, read above).
    ...(inHome ? [] : [own("cursor-mcp-json", join(root, ".cursor", "mcp.json"))]),
    vscodeSettings("vscode-settings", join(root, ".vscode", "settings.json")),
    own("vscode-mcp-json", join(root, ".vscode", "mcp.json")),
    own("workspace-mcp-json", join(root, ".mcp.json")),
    // Claude Code's local scope (this project's entry in ~/.claude.json) is above the project's .mcp.json, as in Claude Code.
    { kind: "claude-local", path: claudeJson, text: claudeText, project: root },
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
      problems.push({ server: s.name, sourcePath: s.sourcePath, message: `${s.sourcePath}${s.sourceLine ? `:${s.sourceLine}` : ""}: MCP server "${s.name}": ${(err as Error).message}` });
    }
  }
  return { servers, problems };
}

export function loadMcpConfig(
  cwd: string,
  home: string,
  ctx: Omit<ExpandContext, "workspaceFolder" | "home">,
  extra: readonly string[] = [],
  settingsFiles?: readonly LoadedSource[],
  foreign: ForeignMcpFiles = {},
): McpConfig {
  return withEnvFiles(
    parseMcpConfig(mcpSourceFiles(cwd, home, extra, settingsFiles, { env: ctx.env, ...foreign }), { ...ctx, workspaceEnv: withoutProviderSecrets(ctx.env), workspaceFolder: resolve(cwd), home }),
  );
}
