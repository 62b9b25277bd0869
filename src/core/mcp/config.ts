/**
 * MCP server definitions: the files they come from, their shapes (Claude Code's `.mcp.json`
 * `mcpServers`, VS Code's `.vscode/mcp.json` `servers` + `inputs`, Yoke's settings `mcpServers`),
 * variable expansion, and the key an approval is remembered under. Pure: the Node side reads the
 * files and hands their text here.
 *
 * A bad entry is a problem of that server only: the others still load.
 */

import { keyLines, parseJsoncOrThrow } from "../settings/jsonc";
import { mcpToolName, sanitizeServerName } from "./names";

export type McpTransportKind = "stdio" | "http" | "sse";

/** Where a definition comes from. Workspace sources need trust and the user's approval. */
export type McpSourceKind =
  | "workspace-mcp-json"
  /**
   * A repository custom agent's own servers (its inline `mcpServers`/`mcp-servers`, from
   * `.claude/agents`, `.github/agents`, `.github/chatmodes`): the repository's, approved only by the
   * user's approval of that very definition. Not a `.mcp.json` server: Claude Code's approvals by
   * name (`enableAllProjectMcpServers`, `enabledMcpjsonServers`) do not reach it — an agent file the
   * model wrote (`.github/agents/` is no protected path) would otherwise start a program on the host.
   */
  | "workspace-agent"
  | "vscode-mcp-json"
  | "workspace-settings"
  | "user-settings"
  | "extra"
  /** The workspace's `.cursor/mcp.json` (Cursor's `mcpServers`): the repository's, like `.mcp.json`. */
  | "cursor-mcp-json"
  /** `~/.cursor/mcp.json`: the user's own. */
  | "cursor-user-mcp-json"
  /** VS Code's user-profile `mcp.json` (`servers` + `inputs`, like `.vscode/mcp.json`): the user's own. */
  | "vscode-user-mcp-json"
  /** VS Code's user `settings.json`, its `mcp` key (`mcp.servers`, `mcp.inputs`: where VS Code kept servers before mcp.json): the user's own. */
  | "vscode-user-settings"
  /** The workspace's `.vscode/settings.json`, its `mcp` key: the repository's, like `.vscode/mcp.json`. */
  | "vscode-settings"
  /** The Copilot CLI's `mcp-config.json` (`$COPILOT_HOME`, else `~/.copilot`; `mcpServers`; VS Code's portable format): the user's own. */
  | "copilot-user-mcp-json"
  /** `~/.claude.json` top-level `mcpServers` (Claude Code's user scope): the user's own. */
  | "claude-user"
  /** `~/.claude.json` `projects["<workspace>"].mcpServers` (Claude Code's local scope): the user's own. */
  | "claude-local";

export interface McpSourceFile {
  kind: McpSourceKind;
  /** Absolute path, for messages and `yoke mcp list`. */
  path: string;
  /** The file's text; undefined when it does not exist. */
  text: string | undefined;
  /** "claude-local": the key of `projects` whose `mcpServers` are read (the workspace folder's absolute path). */
  project?: string;
}

interface McpServerBase {
  /** The name as the file writes it. */
  name: string;
  source: McpSourceKind;
  sourcePath: string;
  /** The line of the server's key in its file (1-based), when known: messages say `path:line:`. */
  sourceLine?: number;
  /** Defined by the repository (not by the user): starts only when trusted and approved. */
  workspace: boolean;
  /** Start when the session starts (default: on first use, from the cached tool list). */
  startAtSessionStart: boolean;
  /** Tools per call timeout (ms). */
  timeoutMs?: number;
  /**
   * `logLevel`: the least severe log message the server is asked to send (MCP `logging/setLevel`,
   * sent when it starts, where it offers logging). Absent: not sent (the server's own default).
   */
  logLevel?: McpLogLevel;
  /**
   * The Copilot CLI's `tools` (`~/.copilot/mcp-config.json`): the only tools of the server the model
   * is offered. Absent (or a list holding "*"): all of them.
   */
  onlyTools?: string[];
}

/** MCP's log levels (RFC 5424), least severe first. */
export const MCP_LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

export interface McpStdioServer extends McpServerBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  /**
   * `envFile` as written (variables expanded), relative to the folder of the file that defines the
   * server. The Node side reads it (KEY=VALUE lines) and merges it under `env` (`env` wins).
   */
  envFile?: string;
  cwd?: string;
}

export interface McpRemoteServer extends McpServerBase {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** The headers as the file wrote them (`${VAR}` not expanded), for the approval: what a repository's server is sent. */
  headersAsWritten?: Record<string, string>;
  /** The environment variables the URL and headers read (`${GITHUB_TOKEN}`): sent to the server. */
  reads?: string[];
  /** `type` was absent or "http": try streamable HTTP, then SSE. */
  fallbackToSse: boolean;
  /**
   * Claude Code's `headersHelper` (as written: no `${…}` expanded by Yoke): a shell command run on the host at each connection (session
   * start, reconnect), whose stdout is a JSON object of header names to string values, merged over
   * `headers` (src/node/mcp/headers-helper.ts). Part of the approved definition.
   */
  headersHelper?: string;
  /** Claude Code's `oauth` block: a pre-registered client, a fixed redirect port, the metadata URL, the scopes. */
  oauth?: McpOAuthPreset;
}

/**
 * A remote server's `oauth` settings (Claude Code's keys). `clientId`: a client registered with the
 * authorization server beforehand (no dynamic registration); its secret, if it has one, is never in
 * a file: it is kept in the credential store (`yoke mcp login NAME --client-secret`).
 */
export interface McpOAuthPreset {
  clientId?: string;
  /** The loopback redirect is `http://localhost:<callbackPort>/callback` (what was registered). */
  callbackPort?: number;
  /** The authorization server's metadata document, instead of discovery (https, or http on a loopback host). */
  authServerMetadataUrl?: string;
  /** The scopes asked for (space-separated), instead of the server's. */
  scopes?: string;
}

export type McpServerConfig = McpStdioServer | McpRemoteServer;

export interface McpConfigProblem {
  /** The server the problem is about (absent: the whole file). */
  server?: string;
  sourcePath: string;
  message: string;
  /**
   * The server was loaded all the same: the message is a note about a key of its entry that Yoke
   * does not apply (VS Code's `dev`, Cline's `autoApprove`…), said so nothing is dropped silently;
   * or a note that an entry turned off hides a lower scope's server of its name (as its entry asks).
   */
  loaded?: boolean;
}

/** An input prompt of `.vscode/mcp.json` (`${input:id}`). */
export interface McpInputSpec {
  id: string;
  description: string;
  password: boolean;
  type: string;
  options?: string[];
  default?: string;
  /** `type: "command"`: the VS Code command whose result is the value, and its `args`. */
  command?: string;
  args?: unknown;
}

/** An input's value, or why there is none (said in the server's problem: it is not started). */
export type McpInputAnswer = string | { unavailable: string } | undefined;

export interface ExpandContext {
  workspaceFolder: string;
  env: Record<string, string | undefined>;
  /** The environment `${VAR}` reads in definitions the repository wrote (without the provider API keys); default `env`. */
  workspaceEnv?: Record<string, string | undefined>;
  home?: string;
  /** Answers `${input:id}` of a file of this kind (VS Code asks with an input box or runs the input's command; the CLI reads the environment). */
  input?(spec: McpInputSpec, source: McpSourceKind): McpInputAnswer;
  /** The kind of file being read (set by parseMcpConfig for `input`). */
  source?: McpSourceKind;
}

export interface McpConfig {
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
}

const WORKSPACE_KINDS: ReadonlySet<McpSourceKind> = new Set(["workspace-mcp-json", "workspace-agent", "vscode-mcp-json", "workspace-settings", "cursor-mcp-json", "vscode-settings"]);

/** VS Code's settings.json: the servers are under its `mcp` key, in mcp.json's shape (`servers`, `inputs`). */
const VSCODE_SETTINGS: ReadonlySet<McpSourceKind> = new Set(["vscode-user-settings", "vscode-settings"]);

/** The kinds whose server map is VS Code's `servers` (with `inputs`). */
const VSCODE_SHAPED: ReadonlySet<McpSourceKind> = new Set(["vscode-mcp-json", "vscode-user-mcp-json"]);

/** `projects` keys as Claude Code writes them may differ from ours only in separators and a trailing slash. */
/** Whether two spellings of a project's folder (a key of ~/.claude.json's `projects`) are the same folder: trailing slashes and `\\` do not matter. */
export function sameProject(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, "/").replace(/\/+$/, "") || "/";
  return norm(a) === norm(b);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** JSON with comments and trailing commas (VS Code's mcp.json is JSONC): the one settings parser; throws on any syntax error. */
export const parseJsonc = parseJsoncOrThrow;

class ExpandError extends Error {}

/**
 * `${env:VAR}`, `${VAR}` and `${VAR:-default}` (Claude Code), `${workspaceFolder}`,
 * `${userHome}`, `${pathSeparator}`, `${input:id}`. An unknown or unset variable is an error
 * (never silently empty: a server started with a missing token fails later, obscurely).
 */
export function expandVariables(value: string, ctx: ExpandContext, inputs: ReadonlyMap<string, McpInputSpec>): string {
  return value.replace(/\$\{([^}]*)\}/g, (whole, body: string) => {
    const [head, ...rest] = body.split(":");
    const arg = rest.join(":");
    if (body === "workspaceFolder" || body === "workspaceRoot") return ctx.workspaceFolder;
    if (body === "workspaceFolderBasename") return ctx.workspaceFolder.split(/[\\/]/).filter(Boolean).pop() ?? "";
    if (body === "userHome" && ctx.home) return ctx.home;
    if (body === "pathSeparator" || body === "/") return "/";
    if (head === "env") {
      const v = ctx.env[arg];
      if (v === undefined) throw new ExpandError(`the environment variable ${arg} is not set (${whole})`);
      return v;
    }
    if (head === "input") {
      const spec = inputs.get(arg);
      if (!spec) throw new ExpandError(`${whole} names no entry of "inputs"`);
      const v = ctx.input?.(spec, ctx.source ?? "workspace-mcp-json");
      if (typeof v === "object") throw new ExpandError(`no value for ${whole} (${spec.description || spec.id}): ${v.unavailable}`);
      if (v === undefined) throw new ExpandError(`no value for ${whole} (${spec.description || spec.id})`);
      return v;
    }
    // Claude Code: ${VAR} and ${VAR:-default}.
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/.exec(body);
    if (m) {
      const v = ctx.env[m[1]!];
      if (v !== undefined && v !== "") return v;
      if (m[2] !== undefined) return m[2];
      if (v !== undefined) return v;
      throw new ExpandError(`the environment variable ${m[1]} is not set (${whole})`);
    }
    throw new ExpandError(`unknown variable ${whole}`);
  });
}

function stringRecord(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new ExpandError(`"${what}" must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === "string") out[k] = x;
    else if (typeof x === "number" || typeof x === "boolean") out[k] = String(x);
    else if (x === null) continue;
    else throw new ExpandError(`"${what}.${k}" must be a string`);
  }
  return out;
}

/** The `inputs` a parsed file declares: `inputs` of an mcp.json, `mcp.inputs` of a VS Code settings.json. */
export function fileInputs(value: unknown, kind: McpSourceKind): Map<string, McpInputSpec> {
  if (!isObject(value)) return new Map();
  return parseInputs(VSCODE_SETTINGS.has(kind) ? (isObject(value.mcp) ? value.mcp.inputs : undefined) : value.inputs);
}

function parseInputs(raw: unknown): Map<string, McpInputSpec> {
  const out = new Map<string, McpInputSpec>();
  if (!Array.isArray(raw)) return out;
  for (const x of raw) {
    if (!isObject(x) || typeof x.id !== "string") continue;
    out.set(x.id, {
      id: x.id,
      description: typeof x.description === "string" ? x.description : "",
      password: x.password === true,
      type: typeof x.type === "string" ? x.type : "promptString",
      options: Array.isArray(x.options) ? x.options.filter((o): o is string => typeof o === "string") : undefined,
      default: typeof x.default === "string" ? x.default : undefined,
      ...(typeof x.command === "string" ? { command: x.command } : {}),
      ...(x.args !== undefined ? { args: x.args } : {}),
    });
  }
  return out;
}

/** One entry of a file's server map to a definition (throws ExpandError with a clear message). */
function parseEntry(name: string, raw: unknown, file: McpSourceFile, ctx: ExpandContext, inputs: ReadonlyMap<string, McpInputSpec>, notes: string[] = []): McpServerConfig {
  if (!isObject(raw)) throw new ExpandError("the definition must be an object");
  // `"expandVariables": false` (Yoke's key): every value as written. The ACP agent writes it on the
  // servers an editor gives `session/new`, whose values are literal (ACP has no variables): a `${`
  // in a token or an argument was read as a variable, and the server was refused.
  const x = raw.expandVariables === false ? (v: string) => v : (v: string) => expandVariables(v, ctx, inputs);
  const type = raw.type ?? raw.transport ?? raw.transportType;
  if (type !== undefined && typeof type !== "string") throw new ExpandError(`"type" must be a string`);
  const kind = typeof type === "string" ? type.toLowerCase().replace(/_/g, "-") : undefined;
  const base = {
    name,
    source: file.kind,
    sourcePath: file.path,
    workspace: WORKSPACE_KINDS.has(file.kind),
    startAtSessionStart: raw.startOnSessionStart === true || raw.autoStart === true,
    timeoutMs: typeof raw.timeout === "number" && raw.timeout > 0 ? raw.timeout : undefined,
    ...(typeof raw.logLevel === "string" && (MCP_LOG_LEVELS as readonly string[]).includes(raw.logLevel.toLowerCase()) ? { logLevel: raw.logLevel.toLowerCase() as McpLogLevel } : {}),
    // A list of the tools the model may call is a restriction you wrote: applied (red team Y: it was only noted, so in
    // bypassPermissions a server limited to its read tools had every tool run).
    ...(Array.isArray(raw.tools) && !raw.tools.includes("*") ? { onlyTools: (raw.tools as unknown[]).filter((t): t is string => typeof t === "string") } : {}),
  };
  const hasUrl = typeof raw.url === "string" || typeof raw.serverUrl === "string";
  // The Copilot CLI writes "local" for a server that runs a command.
  const stdio = kind === "stdio" || kind === "local" || (kind === undefined && !hasUrl);
  // VS Code runs such a server in its sandbox (file and network limits); Yoke has none for MCP servers: not started rather than started unconfined.
  if (raw.sandboxEnabled === true)
    throw new ExpandError(`"sandboxEnabled": true asks for VS Code's MCP sandbox; Yoke runs MCP servers outside any sandbox (docs/mcp.md), so it is not started: remove the key to run it unconfined`);
  notes.push(...unappliedKeys(name, raw, stdio));
  if (stdio) {
    if (typeof raw.command !== "string" || raw.command.trim() === "") {
      throw new ExpandError(hasUrl ? `"type": "stdio" needs a "command", not a "url"` : `needs a "command" (a stdio server) or a "url" (an HTTP server)`);
    }
    if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((a) => typeof a === "string" || typeof a === "number"))) throw new ExpandError(`"args" must be an array of strings`);
    if (raw.cwd !== undefined && typeof raw.cwd !== "string") throw new ExpandError(`"cwd" must be a string`);
    if (raw.envFile !== undefined && (typeof raw.envFile !== "string" || raw.envFile.trim() === "")) throw new ExpandError(`"envFile" must be a path (a string)`);
    const env = stringRecord(raw.env, "env");
    return {
      ...base,
      transport: "stdio",
      command: x(raw.command),
      args: ((raw.args as unknown[] | undefined) ?? []).map((a) => x(String(a))),
      env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, x(v)])),
      ...(typeof raw.cwd === "string" ? { cwd: x(raw.cwd) } : {}),
      ...(typeof raw.envFile === "string" ? { envFile: x(raw.envFile) } : {}),
    };
  }
  if (kind !== undefined && kind !== "http" && kind !== "sse" && kind !== "streamable-http" && kind !== "streamablehttp") {
    throw new ExpandError(`unknown "type": ${JSON.stringify(type)} (use "stdio", "http" or "sse")`);
  }
  const url = (raw.url ?? raw.serverUrl) as unknown;
  if (typeof url !== "string" || url.trim() === "") throw new ExpandError(`"type": "${kind}" needs a "url"`);
  const expanded = x(url);
  let parsed: URL;
  try {
    parsed = new URL(expanded);
  } catch {
    throw new ExpandError(`"url" is not a URL: ${expanded}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new ExpandError(`"url" must be http or https, not ${parsed.protocol}`);
  const headers = stringRecord(raw.headers, "headers");
  if (raw.headersHelper !== undefined && (typeof raw.headersHelper !== "string" || raw.headersHelper.trim() === ""))
    throw new ExpandError(`"headersHelper" must be a command (a string) whose output is the headers as a JSON object`);
  const oauth = raw.oauth === undefined ? undefined : oauthPreset(raw.oauth, x, notes);
  return {
    ...base,
    // As written, as Claude Code runs it: its shell reads `$VAR` from the helper's own environment when it
    // runs. Expanded here, a repository's `${GITHUB_TOKEN}` would be put in its command line (every user
    // reads a process's arguments) and printed in the approval.
    ...(typeof raw.headersHelper === "string" ? { headersHelper: raw.headersHelper } : {}),
    ...(oauth && Object.keys(oauth).length ? { oauth } : {}),
    transport: kind === "sse" ? "sse" : "http",
    url: expanded,
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, x(v)])),
    ...(Object.keys(headers).length ? { headersAsWritten: headers } : {}),
    ...(readsOf([url, ...Object.values(headers)]).length ? { reads: readsOf([url, ...Object.values(headers)]) } : {}),
    fallbackToSse: kind !== "sse" && kind !== "streamable-http" && kind !== "streamablehttp",
  };
}

/** Is this host a loopback one (http is allowed there for a metadata URL, as for a redirect)? */
function loopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** A remote server's `oauth` block (Claude Code's keys), checked; a key Yoke does not read is a note. */
function oauthPreset(raw: unknown, x: (v: string) => string, notes: string[]): McpOAuthPreset {
  if (!isObject(raw)) throw new ExpandError(`"oauth" must be an object ({ "clientId", "callbackPort", "authServerMetadataUrl", "scopes" })`);
  const out: McpOAuthPreset = {};
  for (const [key, v] of Object.entries(raw)) {
    if (key === "clientId") {
      if (typeof v !== "string" || v.trim() === "") throw new ExpandError(`"oauth.clientId" must be the client's ID (a string)`);
      out.clientId = x(v);
    } else if (key === "callbackPort") {
      if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 65535) throw new ExpandError(`"oauth.callbackPort" must be a port number (1-65535)`);
      out.callbackPort = v;
    } else if (key === "authServerMetadataUrl") {
      if (typeof v !== "string") throw new ExpandError(`"oauth.authServerMetadataUrl" must be a URL`);
      let u: URL;
      try {
        u = new URL(x(v));
      } catch {
        throw new ExpandError(`"oauth.authServerMetadataUrl" is not a URL: ${v}`);
      }
      if (u.protocol !== "https:" && !(u.protocol === "http:" && loopbackHost(u.host.replace(/:\d+$/, ""))))
        throw new ExpandError(`"oauth.authServerMetadataUrl" must use https (http only on a loopback host): ${u.href}`);
      out.authServerMetadataUrl = u.href;
    } else if (key === "scopes" || key === "scope") {
      const list = typeof v === "string" ? v.split(/\s+/) : Array.isArray(v) && v.every((e) => typeof e === "string") ? (v as string[]) : undefined;
      if (!list) throw new ExpandError(`"oauth.${key}" must be a string of scopes separated by spaces (or a list of strings)`);
      const scopes = list.map((e) => x(e).trim()).filter(Boolean);
      if (scopes.length) out.scopes = scopes.join(" ");
    } else if (key === "clientSecret" || key === "client_secret")
      notes.push(
        `"oauth.${key}" is not read from a file (a secret in a settings file is read by whatever reads the file): it is not used; give it with \`yoke mcp login NAME --client-secret\` (MCP_CLIENT_SECRET or a hidden prompt), which keeps it with the tokens`,
      );
    else notes.push(`"oauth.${key}" is not a key Yoke reads (it reads clientId, callbackPort, authServerMetadataUrl, scopes)`);
  }
  return out;
}

/** The server map of one file: `mcpServers` (Claude Code, Yoke) or `servers` (VS Code). */
function serverMap(file: McpSourceFile, value: unknown): { map: Record<string, unknown>; path: string[] } | undefined {
  if (!isObject(value)) return undefined;
  if (file.kind === "claude-local") {
    // ~/.claude.json: `projects` maps each project's absolute path to its state; its `mcpServers` are the local scope.
    if (!isObject(value.projects) || file.project === undefined) return undefined;
    const found = Object.entries(value.projects).find(([k]) => sameProject(k, file.project!));
    const inner = found && isObject(found[1]) ? serverMap({ ...file, kind: "claude-user" }, found[1]) : undefined;
    return inner && found ? { map: inner.map, path: ["projects", found[0], ...inner.path] } : undefined;
  }
  if (VSCODE_SETTINGS.has(file.kind)) {
    const inner = isObject(value.mcp) ? serverMap({ ...file, kind: "vscode-mcp-json" }, value.mcp) : undefined;
    return inner ? { map: inner.map, path: ["mcp", ...inner.path] } : undefined;
  }
  const key = VSCODE_SHAPED.has(file.kind) ? (value.servers !== undefined ? "servers" : "mcpServers") : "mcpServers";
  const map = value[key];
  if (map === undefined) return undefined;
  if (!isObject(map)) throw new ExpandError(`"${key}" must be an object of server definitions`);
  return { map, path: [key] };
}

/**
 * VS Code's `servers` in a file whose tool reads `mcpServers` (Claude Code's `.mcp.json`, Cursor's,
 * Yoke's settings) is read by neither: said, not guessed (the servers are not loaded, as in the
 * tool the file belongs to).
 */
function misplacedKey(file: McpSourceFile, value: Record<string, unknown>): { key: string; message: string } | undefined {
  if (VSCODE_SHAPED.has(file.kind) || VSCODE_SETTINGS.has(file.kind) || file.kind === "claude-user" || file.kind === "claude-local") return undefined;
  if (value.mcpServers === undefined && isObject(value.servers) && file.kind !== "user-settings" && file.kind !== "workspace-settings" && file.kind !== "extra")
    return { key: "servers", message: `"servers" is VS Code's key (.vscode/mcp.json); this file's servers are read from "mcpServers": none loaded from it` };
  return undefined;
}

/**
 * The words of a command line that name a path relative to the folder the server starts in: `.`,
 * `..`, `./x`, `../x` (also as an option's value, `--repository=.`), and a relative script
 * (`server.js`, `tools/mcp.py`). Said in a note for a server the person defined without a `cwd`,
 * which starts in their home folder (src/node/mcp/server-folder.ts).
 */
export function relativePathsOf(command: string, args: readonly string[]): string[] {
  const rel = (w: string): boolean => {
    const v = /^--?[\w-]+=(.*)$/.exec(w)?.[1] ?? w;
    if (v === "." || v === ".." || /^\.\.?[\\/]/.test(v)) return true;
    return !/^([\\/]|[A-Za-z]:|[\w+.-]+:)/.test(v) && /\.(m?js|cjs|ts|py|sh|rb|jar)$/i.test(v) && !v.startsWith("-");
  };
  return [command, ...args].filter(rel);
}

/** Keys of an entry Yoke reads (the rest is said in a note: `unappliedKeys`). */
const READ_KEYS = new Set([
  "type",
  "transport",
  "transportType",
  "sandboxEnabled",
  "command",
  "args",
  "env",
  "envFile",
  "cwd",
  "url",
  "serverUrl",
  "headers",
  "headersHelper",
  "oauth",
  "timeout",
  "logLevel",
  "expandVariables",
  "startOnSessionStart",
  "autoStart",
  "disabled",
  "enabled",
]);
/** Descriptive keys that change nothing about how a server runs (VS Code's gallery entries, labels). */
const DESCRIPTIVE_KEYS = new Set(["description", "name", "title", "gallery", "version", "icon", "icons", "$schema"]);

/** What other tools' keys in an entry do that Yoke does not, one note each (the server still loads). */
function unappliedKeys(name: string, raw: Record<string, unknown>, stdio: boolean): string[] {
  const notes: string[] = [];
  for (const key of Object.keys(raw)) {
    if (DESCRIPTIVE_KEYS.has(key)) continue;
    if (READ_KEYS.has(key)) {
      if (stdio && (key === "headers" || key === "headersHelper" || key === "oauth")) notes.push(`"${key}" is not used: it applies to HTTP and SSE servers, and this one runs a command`);
      if (!stdio && (key === "env" || key === "envFile" || key === "cwd" || key === "args"))
        notes.push(`"${key}" is not used: it applies to servers that run a command, and this one is reached by URL`);
      if (key === "logLevel" && !(typeof raw.logLevel === "string" && (MCP_LOG_LEVELS as readonly string[]).includes(raw.logLevel.toLowerCase())))
        notes.push(`"logLevel" is not used: it must be one of ${MCP_LOG_LEVELS.join(", ")} (the server's own level applies)`);
      if (key === "timeout" && (typeof raw.timeout !== "number" || raw.timeout <= 0)) notes.push(`"timeout" is not used: it must be a positive number of milliseconds (the default, 120 s, applies)`);
      else if (key === "timeout" && (raw.timeout as number) < 1000)
        notes.push(
          `"timeout" is in milliseconds: ${String(raw.timeout)} ms bounds each call (Cline's "timeout" counts seconds: write ${String((raw.timeout as number) * 1000)} for ${String(raw.timeout)} s)`,
        );
      continue;
    }
    if (key === "dev") notes.push(`"dev" is not used: VS Code's development mode (restart on file change, debugger) is VS Code's own; Yoke starts the server as configured`);
    else if (key === "autoApprove" || key === "alwaysAllow") {
      const tools = Array.isArray(raw[key]) ? (raw[key] as unknown[]).filter((t): t is string => typeof t === "string") : [];
      // An empty list asks for nothing: said only when it names tools.
      if (tools.length || !Array.isArray(raw[key]))
        notes.push(
          `"${key}" is not applied: Yoke asks before MCP tools by its permission rules; to run them without asking, allow them in your own settings: "permissions": { "allow": ${JSON.stringify(tools.length ? tools.map((t) => mcpToolName(name, t)) : [`mcp__${sanitizeServerName(name)}`])} }`,
        );
    } else if (key === "auth")
      notes.push(`"auth" is not applied (Cursor's key): write Claude Code's "oauth": { "clientId", "callbackPort", "scopes" } for a pre-registered client, or nothing for dynamic registration`);
    else if (key === "tools") {
      // The Copilot CLI's list of the server's tools the model may call; ["*"] (all, what it writes by default) says nothing.
      const tools = Array.isArray(raw.tools) ? (raw.tools as unknown[]).filter((t): t is string => typeof t === "string") : [];
      if (!Array.isArray(raw.tools)) notes.push(`"tools" must be a list of the server's tool names (["*"]: all of them); ignored: every tool is offered`);
      else if (!raw.tools.includes("*"))
        notes.push(
          `"tools": only ${tools.length ? tools.map((t) => JSON.stringify(t)).join(", ") : "no tool"} of the server ${tools.length === 1 ? "is" : "are"} offered to the model, each asking before it runs unless a rule allows it${tools.length ? `; to run ${tools.length === 1 ? "it" : "them"} without asking, allow ${tools.length === 1 ? "it" : "them"} in your own settings: "permissions": { "allow": ${JSON.stringify(tools.map((t) => mcpToolName(name, t)))} }` : ""}`,
        );
    } else if (key === "sandbox") notes.push(`"sandbox" is not used: Yoke runs MCP servers outside any sandbox (docs/mcp.md)`);
    else notes.push(`"${key}" is not a key Yoke reads (ignored)`);
  }
  return notes;
}

/**
 * Every server of the given files, highest priority last (a later file's server of the same name
 * replaces an earlier one, as Claude Code's scopes do). Files in order: user settings, workspace
 * settings, .vscode/mcp.json, .mcp.json — pass them lowest priority first.
 */
export function parseMcpConfig(files: readonly McpSourceFile[], ctx: ExpandContext): McpConfig {
  const byName = new Map<string, McpServerConfig>();
  const problems: McpConfigProblem[] = [];
  for (const file of files) {
    if (file.text === undefined || file.text.trim() === "") continue;
    let map: Record<string, unknown> | undefined;
    let mapPath: string[];
    let inputs: Map<string, McpInputSpec>;
    try {
      const value = parseJsonc(file.text);
      const found = serverMap(file, value);
      map = found?.map;
      mapPath = found?.path ?? [];
      inputs = fileInputs(value, file.kind);
      const misplaced = isObject(value) ? misplacedKey(file, value) : undefined;
      if (misplaced) problems.push({ sourcePath: file.path, message: `${file.path}:${keyLines(file.text, []).get(misplaced.key) ?? 1}: ${misplaced.message}` });
    } catch (err) {
      const message = err instanceof SyntaxError ? `${file.path}:${err.message.replace(/^(\d+:\d+): /, "$1: not valid JSON: ")}` : `${file.path}: ${(err as Error).message}`;
      // ~/.claude.json is read for two scopes: one problem for the file.
      if (!problems.some((p) => p.server === undefined && p.message === message)) problems.push({ sourcePath: file.path, message });
      continue;
    }
    const lines = map ? keyLines(file.text, mapPath) : new Map<string, number>();
    for (const [name, raw] of Object.entries(map ?? {})) {
      // Turned off here: a lower scope's server of the same name is hidden too (Claude Code's rule:
      // the highest scope's entry of a name is the whole definition, and this one is off).
      const line = lines.get(name);
      const where = `${file.path}${line ? `:${line}` : ""}: MCP server "${name}"`;
      if (isObject(raw) && (raw.disabled === true || raw.enabled === false)) {
        const hidden = byName.get(name);
        if (hidden)
          problems.push({
            server: name,
            sourcePath: file.path,
            message: `${where}: turned off here, so the server of that name in ${hidden.sourcePath} (${hidden.source}) is not started either (the highest scope's entry of a name is the one used)`,
            loaded: true,
          });
        byName.delete(name);
        continue;
      }
      const notes: string[] = [];
      try {
        byName.delete(name);
        const server = parseEntry(name, raw, file, { ...ctx, source: file.kind, ...(WORKSPACE_KINDS.has(file.kind) && ctx.workspaceEnv ? { env: ctx.workspaceEnv } : {}) }, inputs, notes);
        byName.set(name, line ? { ...server, sourceLine: line } : server);
        const relative = server.transport === "stdio" && !server.workspace && server.cwd === undefined ? relativePathsOf(server.command, server.args) : [];
        if (relative.length)
          notes.push(
            `starts in your home folder, not the workspace (it names no "cwd"; a server you define never runs what the workspace supplies, such as node_modules/.bin, unless it says so), so ${relative.map((r) => JSON.stringify(r)).join(", ")} ${relative.length > 1 ? "are" : "is"} read from there; to start it in the workspace add "cwd": "\${workspaceFolder}" (docs/mcp.md, "The folder a server starts in")`,
          );
        for (const n of notes) problems.push({ server: name, sourcePath: file.path, message: `${where}: ${n}`, loaded: true });
      } catch (err) {
        let message = (err as Error).message;
        const withheld = /the environment variable (\S+) is not set/.exec(message)?.[1];
        if (withheld && ctx.workspaceEnv && ctx.workspaceEnv[withheld] === undefined && ctx.env[withheld] !== undefined) {
          message = `it names ${withheld}, a provider API key Yoke does not hand to a server the repository defines; define the server in your own settings (~/.yoke/settings.json) to pass it`;
        }
        problems.push({ server: name, sourcePath: file.path, message: `${where}: ${message}` });
      }
    }
  }
  return { servers: [...byName.values()], problems };
}

/**
 * What an approval is given to: the server's full definition (command, args, env, cwd / url,
 * headers). A changed definition is a new server and asks again.
 */
export function definitionKey(s: McpServerConfig): string {
  const sorted = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)));
  const body =
    s.transport === "stdio"
      ? { transport: s.transport, command: s.command, args: s.args, env: sorted(s.env), cwd: s.cwd ?? null }
      : // The helper and the OAuth settings only when present: an approval given before they existed stays valid.
        { transport: s.transport, url: s.url, headers: sorted(s.headers), ...(s.headersHelper ? { headersHelper: s.headersHelper } : {}), ...(s.oauth ? { oauth: s.oauth } : {}) };
  return JSON.stringify({ name: s.name, ...body });
}

/** Longest value of one variable shown in an approval (the rest is elided). */
const SHOWN_VALUE = 200;

/**
 * What the user approves of a workspace-defined server: the command line, and for a stdio server
 * also its folder and every variable of its environment (`env` and `envFile`'s). The environment
 * decides what runs as much as the command line (NODE_OPTIONS=--require, LD_PRELOAD, PATH naming a
 * workspace folder, BASH_ENV): approving `npx -y some-known-server` must not approve a repository's
 * script hidden in its environment (red team 16).
 */
export function describeDefinition(s: McpServerConfig): string {
  const line = describeServer(s);
  // Names and a folder other than plain text are quoted (JSON escapes control characters: nothing shown can erase the line it is on).
  const plain = (t: string, re: RegExp) => (re.test(t) ? t : JSON.stringify(t));
  const value = (v: string) => JSON.stringify(v.length > SHOWN_VALUE ? `${v.slice(0, SHOWN_VALUE)}…` : v);
  if (s.transport !== "stdio") {
    // What the server is sent besides the requests: its headers as written, and the variables of your
    // environment they and the URL carry (red team 17-host: `"X-Client": "${GITHUB_TOKEN}"` was approved as a bare URL).
    const parts = [line];
    const headers = Object.entries(s.headersAsWritten ?? s.headers).sort(([a], [b]) => (a < b ? -1 : 1));
    if (headers.length) parts.push(`with the headers ${headers.map(([k, v]) => `${plain(k, /^[A-Za-z0-9!#$%&'*+.^_|~-]+$/)}: ${value(v)}`).join(" ")}`);
    if (s.reads?.length) parts.push(`sending it your environment's ${s.reads.join(", ")}`);
    // The helper is a command run on your machine, outside the sandbox, at each connection: shown whole, as a stdio server's command line.
    if (s.headersHelper) parts.push(`running the command ${JSON.stringify(s.headersHelper)} on your machine at each connection for its headers`);
    if (s.oauth?.authServerMetadataUrl) parts.push(`signing in through the authorization server described at ${s.oauth.authServerMetadataUrl}`);
    if (s.oauth?.clientId) parts.push(`as the OAuth client ${value(s.oauth.clientId)}`);
    return parts.join(", ");
  }
  const parts = [line];
  if (s.cwd) parts.push(`in ${plain(s.cwd, /^[\w@%+=:,./-]+$/)}`);
  const env = Object.entries(s.env).sort(([a], [b]) => (a < b ? -1 : 1));
  if (env.length)
    parts.push(`with the environment ${env.map(([k, v]) => `${plain(k, /^[A-Za-z_][A-Za-z0-9_]*$/)}=${JSON.stringify(v.length > SHOWN_VALUE ? `${v.slice(0, SHOWN_VALUE)}…` : v)}`).join(" ")}`);
  return parts.join(", ");
}

/** The environment variables `${VAR}`, `${env:VAR}` and `${VAR:-default}` in these values read. */
function readsOf(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const v of values) for (const m of v.matchAll(/\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) out.add(m[1]!);
  return [...out].sort();
}

/** One line for approvals, lists and logs: the command line or the URL. */
export function describeServer(s: McpServerConfig): string {
  if (s.transport === "stdio") return [s.command, ...s.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(" ");
  return `${s.transport === "sse" ? "SSE" : "HTTP"} ${s.url}`;
}

/**
 * Claude Code's environment variables for MCP time limits, in milliseconds: `MCP_TIMEOUT` (a server's
 * start) and `MCP_TOOL_TIMEOUT` (a tool call, where the server's own `timeout` does not say). Anything
 * but a positive whole number is not a limit (a problem says so).
 */
export function mcpTimeoutsFromEnv(env: Readonly<Record<string, string | undefined>>): { startMs?: number; toolMs?: number; problems: string[] } {
  const problems: string[] = [];
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    if (/^[1-9][0-9]{0,9}$/.test(raw)) return Number(raw);
    problems.push(`${name}=${JSON.stringify(raw).slice(0, 40)} is not a number of milliseconds: ignored`);
    return undefined;
  };
  const startMs = read("MCP_TIMEOUT");
  const toolMs = read("MCP_TOOL_TIMEOUT");
  return { ...(startMs ? { startMs } : {}), ...(toolMs ? { toolMs } : {}), problems };
}
