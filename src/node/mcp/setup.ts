/**
 * One entry point for a Node host (the CLI, the extension host) to offer MCP tools in a session:
 * reads the definitions, builds the hub, and makes sure no server outlives this process.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { mcpTimeoutsFromEnv, parseMcpConfig, type McpConfigProblem, type McpInputAnswer, type McpInputSpec, type McpServerConfig, type McpSourceFile, type McpSourceKind } from "../../core/mcp/config";
import { mcpExtension, type McpBudget } from "../../core/mcp/extension";
import { mcpOutputTokensFromEnv } from "../../core/mcp/adapter";
import type { Extension } from "../../core/extensions/types";
import type { LoadedSource } from "../../core/permissions/types";
import { loadMcpConfig, settingsFilesForMerge } from "./config-files";
import { mergeSettings } from "../../core/permissions/merge-settings";
import { resolveFrom } from "../../core/permissions/posix-path";
import { withoutProviderSecrets } from "../settings/secret-env";
import { NodeMcpHub, type ApprovalRequest, type NodeMcpHubOptions } from "./hub";
import type { Approval } from "./approvals";
import { killMarkedNow, signalGroup } from "./processes";
import type { McpClientDeps } from "../../core/mcp/client-requests";
import { CliCredentialStore } from "./keychain";
import { sandboxWritablePaths } from "../commands/sandbox/paths";
import type { SandboxPath } from "../commands/sandbox/types";
import { readUserSandboxSettings } from "../agent-services";
import { FileCredentialStore, type McpCredentialStore, type McpOAuthOptions } from "./oauth";

export interface NodeMcpOptions {
  cwd: string;
  home?: string;
  /** Yoke's storage (default ~/.yoke). */
  storageDir?: string;
  trusted: boolean;
  env?: Record<string, string | undefined>;
  /** The workspace folders offered to servers as MCP roots (default: `cwd`). */
  roots?: readonly string[];
  /** Extra settings files (`--settings`) that may define `mcpServers` (the user's own); read here only without `settingsFiles`. */
  extraSettings?: string[];
  /**
   * The settings files as the one settings reader read them for this session
   * (SessionSettings.settingsFiles): their `mcpServers` are taken from these texts, with the
   * reader's origins, and the files are not read again. Without them they are read here.
   */
  settingsFiles?: readonly LoadedSource[];
  /**
   * The sandbox settings' paths (the session's: user file, VS Code's user setting, other workspace
   * folders); default: those of ~/.yoke/settings.json. Their `rw` folders are, like the workspace,
   * no neutral start folder for the person's own servers.
   */
  sandboxPaths?: readonly SandboxPath[];
  /** Answers `${input:id}` of .vscode/mcp.json (VS Code: an input box, asked before the session starts). */
  input?(spec: McpInputSpec, source: McpSourceKind): McpInputAnswer;
  approve?(req: ApprovalRequest): Promise<Approval | undefined>;
  budget?: Partial<McpBudget>;
  log?(message: string): void;
  /** A server's log message (MCP logging), for the host's own log (NodeMcpHubOptions.serverLog). */
  serverLog?: NodeMcpHubOptions["serverLog"];
  /** How the session answers servers' sampling and elicitation requests (src/core/mcp/client-requests.ts). */
  client?: McpClientDeps;
  /** Only these definitions (a custom agent's own servers), instead of the settings files'. */
  sources?: McpSourceFile[];
  /**
   * OAuth for remote servers: where tokens are kept (default: the system keychain where one answers,
   * else \`<storage>/mcp-oauth.json\`, mode 0600 — `CliCredentialStore`) and how the user is shown the sign-in URL (default: nobody; the start fails saying
   * to run \`yoke mcp login NAME\`).
   */
  oauth?: Partial<McpOAuthOptions>;
  /**
   * VS Code's user folder of the window's profile (`…/User`, or `…/User/profiles/<id>` for a
   * profile other than the default): its `mcp.json` is read as the user's own. The extension host
   * knows it (vscodeUserDirOf); the CLI looks in the usual places (config-files.ts).
   */
  vscodeUserDir?: string;
}

/** What a headless CLI run says about a server that needs a sign-in. */
export const CLI_SIGN_IN_HINT = (server: string): string =>
  `Sign in from a terminal with \`yoke mcp login ${server}\` (it prints the URL to open and waits for the browser), then run again; \`yoke run\` on a terminal asks by itself.`;

export interface NodeMcp {
  hub: NodeMcpHub;
  servers: McpServerConfig[];
  problems: McpConfigProblem[];
  /** Where remote servers' sign-ins are kept (its `where` names the place once it was used). */
  credentials: McpCredentialStore;
  /** The loop extension that offers the servers' tools (pass the names of the session's other tools). */
  extension(takenNames: Iterable<string>): Extension;
  dispose(): Promise<void>;
}

/** `${input:id}` in the CLI: from YOKE_MCP_INPUT_<ID> (upper case, other characters as `_`). */
export function inputFromEnv(env: Record<string, string | undefined>): (spec: McpInputSpec) => McpInputAnswer {
  return (spec) => {
    const name = `YOKE_MCP_INPUT_${spec.id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
    const v = env[name];
    if (v !== undefined) return v;
    // The CLI asks nothing (a run may have no terminal): the problem names the variable that gives the value.
    if (spec.type !== "command") return { unavailable: `the CLI does not ask for inputs; set ${name} to give the value (VS Code asks with an input box)` };
    // A command input's value comes from running a VS Code command: there is no VS Code here.
    return { unavailable: `it is the result of the VS Code command "${spec.command ?? "?"}", which only VS Code can run, so the server is not started here; set ${name} to give the value` };
  };
}

const live = new Set<NodeMcpHub>();
let exitHook = false;

/** A process that exits at once (a second Ctrl+C, the VS Code host after deactivate) still takes its servers' process groups, and what carries their markers, with it. */
function killOnExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const hub of live) for (const pid of hub.pids()) signalGroup(pid, "SIGKILL");
    for (const hub of live) for (const marker of hub.serverMarkers()) killMarkedNow(marker);
  });
}

export function createNodeMcp(opts: NodeMcpOptions): NodeMcp {
  const home = opts.home ?? homedir();
  const env = opts.env ?? process.env;
  const ctx = { env, input: opts.input ?? inputFromEnv(env) };
  const config = opts.sources
    ? parseMcpConfig(opts.sources, { ...ctx, workspaceFolder: opts.cwd, home, workspaceEnv: withoutProviderSecrets(env) })
    : loadMcpConfig(opts.cwd, home, ctx, opts.extraSettings, opts.settingsFiles, opts.vscodeUserDir ? { vscodeUserDir: opts.vscodeUserDir } : {});
  for (const p of config.problems) opts.log?.(p.message);
  // Claude Code's MCP_TIMEOUT / MCP_TOOL_TIMEOUT: a server's start, and its calls where its own `timeout` does not say.
  const limits = mcpTimeoutsFromEnv(env);
  for (const p of limits.problems) opts.log?.(p);
  // Claude Code's MAX_MCP_OUTPUT_TOKENS: the most of one tool result the model is shown (the whole stays recallable).
  const output = mcpOutputTokensFromEnv(env);
  for (const p of output.problems) opts.log?.(p);
  const servers = limits.toolMs ? config.servers.map((s) => (s.timeoutMs === undefined ? { ...s, timeoutMs: limits.toolMs } : s)) : config.servers;
  const credentials = opts.oauth?.store ?? new CliCredentialStore(new FileCredentialStore(join(opts.storageDir ?? join(home, ".yoke"), "mcp-oauth.json")), env);
  const hub = new NodeMcpHub({
    cwd: opts.cwd,
    home,
    storageDir: opts.storageDir ?? join(home, ".yoke"),
    servers,
    trusted: opts.trusted,
    ...(limits.startMs ? { startTimeoutMs: limits.startMs } : {}),
    approve: opts.approve,
    env,
    ...(opts.roots ? { roots: opts.roots } : {}),
    // The folders the agent may write besides the workspace (permissions.additionalDirectories, as the
    // gate merges them; the sandbox's `rw` paths): a home inside one is no neutral folder for the person's servers (red team P).
    workFolders: [...workFoldersOf(opts, home), ...sandboxFoldersOf(opts, home)],
    log: opts.log,
    ...(opts.serverLog ? { serverLog: opts.serverLog } : {}),
    oauth: {
      store: credentials,
      howToSignIn: opts.oauth?.howToSignIn ?? CLI_SIGN_IN_HINT,
      ...(opts.oauth?.authorize ? { authorize: opts.oauth.authorize } : {}),
      ...(opts.oauth?.timeoutMs ? { timeoutMs: opts.oauth.timeoutMs } : {}),
      ...(opts.oauth?.receiver ? { receiver: opts.oauth.receiver } : {}),
      ...(opts.oauth?.alsoRegister?.length ? { alsoRegister: opts.oauth.alsoRegister } : {}),
      ...(opts.oauth?.askClientSecret ? { askClientSecret: opts.oauth.askClientSecret } : {}),
    },
  });
  live.add(hub);
  killOnExit();
  return {
    hub,
    servers,
    problems: config.problems,
    credentials,
    extension: (takenNames) =>
      mcpExtension({ hub, takenNames, budget: opts.budget, ownsHub: true, ...(opts.client ? { client: opts.client } : {}), ...(output.tokens ? { outputTokens: output.tokens } : {}) }),
    dispose: async () => {
      await hub.dispose();
      live.delete(hub);
    },
  };
}

/**
 * The folders the sandbox lets commands write besides the workspace (home20): a sandbox setting that
 * makes the home (or a folder holding it) writable lets a command plant what a server started there
 * runs. Settings that cannot be read: the home counts as writable (the root is always safe).
 */
function sandboxFoldersOf(opts: NodeMcpOptions, home: string): string[] {
  try {
    return sandboxWritablePaths(opts.sandboxPaths ?? readUserSandboxSettings(home).paths, home);
  } catch {
    return [home];
  }
}

/** The permission working folders besides the workspace (permissions.additionalDirectories, merged as the gate merges them). */
function workFoldersOf(opts: NodeMcpOptions, home: string): string[] {
  try {
    const sources = opts.settingsFiles ? [...opts.settingsFiles] : settingsFilesForMerge(opts.cwd, home, opts.extraSettings ?? []);
    return mergeSettings(sources, { trusted: opts.trusted }).additionalDirectories.map((d) => resolveFrom(opts.cwd, d, home));
  } catch {
    return [];
  }
}
