/**
 * THE session recipe: every mechanism of a Yoke session, in order, one line each, each built from
 * the session's settings (SessionSettings, src/node/session-settings.ts). The panel (src/host), the
 * CLI (src/cli), the benchmarks (src/bench) and every sub-agent (which inherits its parent's list,
 * src/core/loop/child-options.ts) get their sessions from here. A host passes only what truly
 * differs between hosts (SessionHost): how it asks the user (the approver), its change review,
 * the terminal mirror of commands, its UI sinks (the composer, the MCP approval dialogs, guidance
 * pins), its store, file system and models.
 *
 * Adding a mechanism: one folder (src/core/NAME for the mechanism, src/node for what needs Node),
 * one line below, and — if it has settings — one field of SessionSettings filled in
 * readSessionSettings. docs/architecture.md walks through it.
 */
import { architectMode } from "../core/architect";
import { budgetsExtension } from "../core/budgets";
import { toolBreakersExtension } from "../core/breakers";
import { defaultGates, withConcurrencyGates } from "../core/concurrency";
import type { ChildWorkspace, Extension, SessionInfo } from "../core/extensions/types";
import { fallbackChain } from "../core/fallback";
import { guidanceExtension } from "../core/guidance";
import { modelCommandBridge, skillPreprocessor } from "../core/custom-commands";
import type { GuidancePrefs } from "../core/guidance/types";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import type { Approver, PermissionMode } from "../core/loop/types";
import { silentLogger, type ChangeReviewer, type Logger, type SessionServices, type SessionStore, type WorkspaceFs, type Searcher } from "../core/ports";
import type { Provider } from "../core/providers/types";
import { stuckExtension } from "../core/stuck";
import { toolHintsExtension } from "../core/tool-hints";
import { createBuiltinTools } from "../core/tools/builtin";
import { editToolFor } from "../core/tools/edit-tool";
import type { ToolDefinition } from "../core/tools/types";
import { turnTimeExtension } from "../core/turn-time";
import { verificationExtension } from "../core/verification/extension";
import { watchGateFolders } from "../core/permissions/gate-files";
import { createNodeServices, type NodeServices, type NodeServicesOptions } from "./agent-services";
import { nodeCheckpointsExtension } from "./checkpoints";
import type { EditorContext } from "../core/custom-commands";
import { commandModels, initialOutputStyle, nodeCustomCommandsExtension, nodeOutputStylesExtension, outputStyleSetting } from "./custom-commands";
import { createNodeGuidanceFiles } from "./guidance-files";
import { createNodeMcp } from "./mcp/setup";
import type { SandboxSettings } from "./commands/session-runner";
import { createNodeWorkspaceFs } from "./node-fs";
import type { McpOAuthOptions } from "./mcp/oauth";
import type { McpClientDeps, McpElicitor } from "../core/mcp/client-requests";
import type { McpHub } from "../core/mcp/types";
import type { SessionSettings, WorkspaceSettings } from "./session-settings";
import { nodeSubagentsExtension, sessionAgents } from "./subagent-settings";
import { pluginAgentFolders, pluginCommandSources, pluginOutputStyleSources, pluginsAwaitingApproval, pluginSkillFolders } from "./plugins";
import { nodeTelemetry } from "./telemetry";
import { loadVerificationSettings } from "./verification-settings";
import { agentWorkspaceOf } from "./background/registry";

/** What differs between the hosts that build sessions. Everything else comes from the settings. */
export interface SessionHost {
  store: SessionStore;
  fs: WorkspaceFs;
  search: Searcher;
  log?: Logger;
  /** Where settings problems and warnings go (the CLI: stderr; the panel: its output channel). */
  warn(message: string): void;
  /** The session's own model, and how the host makes another one (fallback entries, the architect's planner and editor, the summary model). */
  models: { primary: Provider; make(provider: string | undefined, model: string): Promise<Provider>; label?: string; baseUrl?: string };
  /** Asks the user (the panel's question card, the terminal, a bench's fixed answer). */
  approver: Approver;
  permissionMode: PermissionMode;
  /** The change review (the panel's diff review), if the host has one. */
  reviewer?: ChangeReviewer;
  /** Language servers' problems, for verification after edits (the panel). */
  diagnostics?: SessionServices["diagnostics"];
  /**
   * The Node services (permission engine, hooks, command runner) when the host keeps them across
   * sessions (the panel reloads its gate when a settings file changes); default: made from the settings.
   */
  services?: NodeServices;
  /** The host reloads the gate itself when a file it reads changes (the panel's VS Code watcher); without: the recipe watches them through `fs.watch`. */
  watchesGate?: boolean;
  /** Each new session's command runner (the panel's terminal mirror and background list). */
  onCommands?(sessionId: string, commands: Pick<SessionServices, "commands" | "commandsUnavailable">): void;
  /**
   * The MCP servers' tools with the host's approval dialogs (the panel), given the settings files
   * as the settings reader read them (their `mcpServers`); default: the settings files' servers, started for this process.
   */
  /** `sandboxPaths`: the session's sandbox paths (its `rw` ones are no neutral start folder for the person's servers). */
  mcp?(toolNames: string[], settingsFiles: SessionSettings["settingsFiles"], client: McpClientDeps, sandboxPaths: SandboxSettings["paths"]): Promise<Extension[]>;
  /** The MCP hub of the settings files' servers when the recipe starts them (no `mcp` above): `yoke acp` lists their prompts as slash commands. */
  onMcpHub?(hub: McpHub): void;
  /** MCP elicitation forms (the panel's form, the terminal's prompts); without: servers' forms are declined. */
  elicitor?: McpElicitor;
  /** MCP OAuth: shows a remote server's sign-in URL (the terminal prints it); without: headless, the server fails saying how to sign in. */
  mcpAuthorize?: McpOAuthOptions["authorize"];
  /** Pinned and muted guidance (the panel's list). */
  guidancePrefs?: () => GuidancePrefs;
  /** Starts a turn of the session that delivers a finished background agent's result; false when a turn runs (SubagentOptions.deliver). Without: the turn waits for them. */
  deliver?(session: SessionInfo, text: string, when?: { ended: boolean }): Promise<boolean>;
  /** The editor's active file and selection (the panel): a Copilot prompt file's `${file}`, `${selection}`, … */
  editor?(): Promise<EditorContext | undefined>;
  /** Asks the user for a Copilot prompt's `${input:name}` (the panel's input box, the terminal); without: the message is refused, saying how to give it. */
  askInput?(q: { command: string; name: string; placeholder?: string }): Promise<string | undefined>;
  /** The composer (@-mentions, steering, the queue): the panel's input box. */
  composer?: () => Extension;
  /** The tools before the recipe's wrappers (default: the built-in tools). */
  tools?: ToolDefinition[];
  /** The loop's limits besides maxTurns (benches, tests). */
  limits?: Pick<AgentSessionOptions, "retry" | "timeouts">;
  platform?: string;
  /** Folders where the bundled tree-sitter wasm files may be (the extension's dist/). */
  wasmDirs?: string[];
  env?: Record<string, string | undefined>;
  /** Who starts the session's commands (`yoke acp`: the editor's terminal); default: the runner. */
  launcher?: NodeServicesOptions["launcher"];
}

export interface SessionRecipe {
  options: AgentSessionOptions;
  services: NodeServices;
  /** After the session ended: flush traces, stop the MCP servers this recipe started. */
  dispose(): Promise<void>;
}

// One process, one set of circuits and concurrency gates: a dead server or a busy machine is the
// same for every session of a window (or of a CLI run and its sub-agents).
const gates = defaultGates();
const breakers = toolBreakersExtension();

/** The Node services of these settings (the panel caches them per window; the CLI makes them per run). */
export function nodeServicesFor(s: WorkspaceSettings & { localSettingsFrom?: string }, more: Pick<SessionHost, "log" | "wasmDirs" | "env" | "launcher"> = {}): NodeServices {
  return createNodeServices({
    cwd: s.cwd,
    folders: s.folders,
    sessionDir: s.sessionDir,
    trusted: s.trusted,
    home: s.home,
    ...(s.restrictedHint ? { restrictedHint: s.restrictedHint } : {}),
    extraSettings: s.extraFiles,
    ...(s.localSettingsFrom !== undefined ? { localSettingsFrom: s.localSettingsFrom } : {}),
    vscodePermissions: s.vscode?.permissions?.user,
    vscodeWorkspacePermissions: s.vscode?.permissions?.workspace,
    vscodeHooks: s.vscode?.hooks?.user,
    vscodeWorkspaceHooks: s.vscode?.hooks?.workspace,
    vscodeSandbox: s.vscode?.sandbox,
    wasmDirs: more.wasmDirs,
    log: more.log,
    env: more.env,
    launcher: more.launcher,
  });
}

export async function sessionRecipe(s: SessionSettings, host: SessionHost): Promise<SessionRecipe> {
  for (const p of s.problems) host.warn(`settings: ${p}`);
  const log = host.log ?? silentLogger;
  const node = host.services ?? nodeServicesFor(s, host);
  const cleanup: Array<() => Promise<void>> = [];

  // --- wrappers: the tools and the model (not extension points: docs/architecture.md says why) ---
  const tools = withConcurrencyGates(host.tools ?? createBuiltinTools(editToolFor(s.editTool, host.models.primary.model).tool, s.applyPatchFreeform), gates); // the edit tool the model was trained on; concurrency gates
  const chain = fallbackChain([host.models.primary, ...(await Promise.all(s.fallbackModels.map((m) => host.models.make(m.provider, m.model))))]); // model fallback
  const architect = s.architect // architect mode: a planner model hands over to an editor model
    ? architectMode({
        planner: s.architect.model ? fallbackChain([await host.models.make(s.architect.model.provider, s.architect.model.model)]) : chain,
        editor: fallbackChain([await host.models.make(s.architect.editorModel.provider, s.architect.editorModel.model)]),
        tools,
      })
    : undefined;
  const models = commandModels(architect?.provider ?? chain, host.models.make); // a custom command's `model` answers its turn
  const provider = models.provider;
  const pluginStyles = pluginOutputStyleSources({ home: s.home, cwd: s.cwd, trusted: s.trusted }); // the enabled plugins' output styles
  const outputStyle = await initialOutputStyle(s, s.outputStyle ?? outputStyleSetting(s.settingsFiles), host.warn, pluginStyles); // the output style, fixed in the system prompt
  const summaryModel =
    !s.offline && s.compaction.strategy === "llm" && s.compaction.model && s.compaction.model !== host.models.primary.model ? await host.models.make(undefined, s.compaction.model) : undefined;
  const telemetry = s.telemetry ? await nodeTelemetry(s.telemetry) : undefined;
  if (telemetry) cleanup.push(() => telemetry.flush().catch(() => undefined));
  // MCP servers' sampling (the session's model, the approver, the rules) and elicitation (the host's form).
  const mcpClient: McpClientDeps = { provider, approver: host.approver, check: (req, mode) => node.gate.check(req, mode), ...(host.elicitor ? { elicitor: host.elicitor } : {}) };
  const mcp = host.mcp
    ? await host.mcp(
        tools.map((t) => t.name),
        s.settingsFiles,
        mcpClient,
        node.sandboxSettings.paths,
      )
    : nodeMcp(s, tools, host, cleanup, mcpClient, node.sandboxSettings.paths);

  // The enabled Claude Code plugins (src/node/plugins): their agents and skills below; their hooks
  // (the permission engine's sources) and MCP servers (the MCP files) only once approved.
  const plugins = { home: s.home, cwd: s.cwd, trusted: s.trusted };
  for (const id of pluginsAwaitingApproval(plugins)) host.warn(`plugins: ${id} has hooks or MCP servers that do not run until you approve them: yoke plugins approve ${id}`);

  // The gate's files (settings, Cursor's hooks, other agents' ignore files) watched: a change counts
  // from the next call. The panel watches them with VS Code's watcher (watchesGate); the rest here.
  if (!host.watchesGate && host.fs.watch) {
    const watchFs = host.fs.watch.bind(host.fs);
    const watched = watchGateFolders([s.cwd, ...s.folders], node.gate, (dir, onChange) => watchFs(dir, onChange, { recursive: false }), { failed: (m) => log.warn(m) });
    cleanup.push(async () => watched.dispose());
  }

  // The custom commands the model may run itself (load_skill): listed by the guidance, run by the commands.
  const modelCommands = modelCommandBridge();
  // --- the mechanisms, in the order the session sets them up ---
  const extensions: Extension[] = [
    // (the core installs first, from the options below: the permission engine `gate`, the Claude hooks `hooks`, compaction `compaction`, and the prompt-cache watch)
    verificationExtension({
      settings: () => verificationSettings(s),
      authorize: (command, mode) => node.gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode),
    }),
    nodeCheckpointsExtension(s.sessionDir),
    guidanceExtension({
      files: createNodeGuidanceFiles({ home: s.home, skillDirs: pluginSkillFolders(plugins) }),
      prefs: host.guidancePrefs,
      budget: s.guidanceBudget,
      preprocess: skillPreprocessor({ approver: host.approver, check: (req, mode) => node.gate.check(req, mode) }), // a loaded skill's `!` lines: the commands' gate
      useModel: models.useModel, // an inline skill's `model` for its turn: the commands' model switch
      commands: modelCommands, // the custom commands the model may run, beside the skills
    }),
    ...mcp,
    await nodeSubagentsExtension(s.cwd, (m) => host.warn(m), {
      home: s.home,
      trusted: s.trusted,
      extraFiles: s.extraFiles,
      ...(s.vscode?.config ? { vscode: s.vscode.config } : {}),
      model: (m) => host.models.make(undefined, m), // a custom agent's model, on the session's provider
      agentFolders: pluginAgentFolders(plugins),
      skillDirs: pluginSkillFolders(plugins), // an agent's `skills`
      mcp: { ...(host.env ? { env: host.env } : {}), client: mcpClient, sandboxPaths: node.sandboxSettings.paths ?? [] }, // an agent's own `mcpServers`
      isolation: { sessionDir: s.sessionDir, home: s.home, workspace: (root) => worktreeWorkspace(s, host, root) }, // an agent's `isolation: worktree`
      ...(host.deliver ? { deliver: host.deliver } : {}), // `background: true` agents hand back (the panel)
      ...(s.rooStorage ? { rooStorage: s.rooStorage } : {}), // Roo Code's global modes: this VS Code's storage
    }),
    nodeCustomCommandsExtension(
      { ...s, extraSources: pluginCommandSources(plugins) },
      {
        approver: host.approver,
        check: (req, mode) => node.gate.check(req, mode),
        useModel: models.useModel,
        warn: host.warn,
        ...(host.editor ? { editor: host.editor } : {}),
        ...(host.askInput ? { askInput: host.askInput } : {}),
        agents: async (session) => (await sessionAgents(session, s.home, pluginAgentFolders(plugins), s.rooStorage)).agents, // a prompt file's `agent`
        bridge: modelCommands, // load_skill runs a command the model may run
      },
    ), // custom slash commands
    nodeOutputStylesExtension(s, outputStyle, pluginStyles), // /output-style NAME during a session
    breakers,
    budgetsExtension(s.budgets),
    stuckExtension(),
    toolHintsExtension(),
    ...(architect ? [architect.extension] : []),
    ...(telemetry ? [telemetry.extension] : []),
    turnTimeExtension(),
    ...(host.composer ? [host.composer()] : []),
  ];

  const { reviewer, diagnostics, fs, search } = host;
  return {
    services: node,
    dispose: async () => {
      for (const c of cleanup) await c();
    },
    options: {
      store: host.store,
      provider,
      ...(host.models.label ? { providerLabel: host.models.label } : {}),
      ...(host.models.baseUrl ? { baseUrl: host.models.baseUrl } : {}),
      tools,
      ...(outputStyle ? { outputStyle } : {}),
      services: (session) => {
        const commands = node.commands(session);
        host.onCommands?.(session.id, commands);
        return { fs, search, log, access: node.access, syntax: node.syntax, ...(diagnostics ? { diagnostics } : {}), ...(reviewer ? { reviewer } : {}), ...commands };
      },
      approver: host.approver,
      ...node.sessionOptions,
      compaction: { settings: s.compaction, ...(!s.offline && s.compaction.strategy === "llm" ? { summaryProvider: summaryModel ?? provider } : {}) },
      permissionMode: host.permissionMode,
      trusted: s.trusted,
      ...(s.restrictedHint ? { restrictedHint: s.restrictedHint } : {}),
      platform: host.platform ?? process.platform,
      log,
      ...(s.maxTurns !== undefined ? { maxTurns: s.maxTurns } : {}),
      ...host.limits,
      extensions,
    },
  };
}

/**
 * A folder's own session services (an isolated agent's worktree): its file system, its command
 * runner and sandbox, its permission rules and hooks, as the session's are made for its workspace.
 * No change review: the worktree's change is reviewed as a whole, as a background agent's.
 */
function worktreeWorkspace(s: SessionSettings, host: SessionHost, root: string): ChildWorkspace {
  // The workspace's local settings files (untracked, so not in the worktree) govern the agent too — the
  // person's workspace, also when this session itself works in an agent's worktree (a worktree of a worktree).
  const node = nodeServicesFor({ ...s, cwd: root, folders: [], localSettingsFrom: agentWorkspaceOf(s.cwd, s.home) ?? s.cwd }, host);
  const fs = createNodeWorkspaceFs(root);
  const log = host.log ?? silentLogger;
  return {
    root,
    sessionOptions: node.sessionOptions,
    // "Always allow" on the agent's question: proposed from this folder's rules and added to them (the host saves it for the workspace).
    rules: { propose: (req) => node.gate.proposeRule(req), add: (rule, list) => node.gate.addSessionRule(rule, list) },
    services: (session) => {
      const commands = node.commands(session);
      host.onCommands?.(session.id, commands);
      return { fs, search: host.search, log, access: node.access, syntax: node.syntax, ...commands };
    },
  };
}

/** The MCP servers of the settings files, for hosts without their own approval dialogs (the CLI). */
function nodeMcp(s: SessionSettings, tools: ToolDefinition[], host: SessionHost, cleanup: Array<() => Promise<void>>, client: McpClientDeps, sandboxPaths: SandboxSettings["paths"]): Extension[] {
  const mcp = createNodeMcp({
    client,
    // The sandbox's own list of writable folders (the session's: user settings, VS Code's, other folders).
    sandboxPaths: sandboxPaths ?? [],
    cwd: s.cwd,
    home: s.home,
    trusted: s.trusted,
    settingsFiles: s.settingsFiles,
    roots: [s.cwd, ...s.folders],
    log: (m) => host.warn(`mcp: ${m}`),
    ...(host.env ? { env: host.env } : {}),
    ...(host.mcpAuthorize ? { oauth: { authorize: host.mcpAuthorize } } : {}),
  });
  cleanup.push(() => mcp.dispose());
  host.onMcpHub?.(mcp.hub);
  return [mcp.extension(tools.map((t) => t.name))];
}

function verificationSettings(s: SessionSettings) {
  return loadVerificationSettings({
    cwd: s.cwd,
    home: s.home,
    trusted: s.trusted,
    extraFiles: s.extraFiles,
    vscodeUser: s.vscode?.verification?.user,
    vscodeWorkspace: s.vscode?.verification?.workspace,
  });
}
