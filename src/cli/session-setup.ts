/**
 * The CLI's sessions: its flags and trust decision become the session's settings, and the session
 * recipe (src/node/session-recipe.ts) builds the session with the terminal's approver.
 */
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import { shellQuote } from "../core/commands/shell-quote";
import type { PermissionMode } from "../core/loop/types";
import type { NewEvent } from "../core/events";
import { PERMISSION_MODES } from "../core/permissions/merge-settings";
import { isWithin } from "../core/permissions/posix-path";
import { createProvider } from "../core/providers/create";
import { listModels, type ListedModels } from "../core/providers/list-models";
import { parseLog } from "../core/session/session-log";
import { switchableProvider } from "../core/custom-commands/model-switch";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { createRipgrepSearcher } from "../node/ripgrep-searcher";
import { createFileSessionStore, defaultSessionDir, describeHolder, legacyCliSessionDir, migrateLegacySessions, type FileSessionStore } from "../node/session-store";
import { agentWorktreeOf } from "../node/background/paths";
import { nodeServicesFor, sessionRecipe, type SessionHost } from "../node/session-recipe";
import { readSessionSettings, SessionSettingsError } from "../node/session-settings";
import { UsageError } from "./args";
import { createTerminalApprover } from "./approver";
import { createTerminalElicitor } from "./elicitor";
import { createTerminalInput } from "./prompt-input";
import { createTerminalSignIn } from "./mcp-sign-in";
import type { McpOAuthOptions } from "../node/mcp/oauth";
import type { McpElicitor } from "../core/mcp/client-requests";
import { decideTrust } from "./trust";
import { providerConfigFromFlags } from "./provider-config";
import type { Provider, ProviderConfig } from "../core/providers/types";
import type { Approver } from "../core/loop/types";
import type { Extension } from "../core/extensions/types";
import type { NodeServices, NodeServicesOptions } from "../node/agent-services";
import { warn } from "./printable";

/** A provider for commands that must not call the model: says so if anything tries. */
function offlineProvider(config: Pick<ProviderConfig, "provider" | "model">): Provider {
  return {
    id: config.provider,
    model: config.model,
    // eslint-disable-next-line require-yield
    async *stream() {
      throw new Error("this command does not call the model");
    },
  };
}

export interface CliSessionFlags {
  cwd: string;
  provider?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  permissionMode?: PermissionMode;
  sessionDir?: string;
  maxTurns?: number;
  /** --fallback-model (repeatable): `model` or `provider:model`. */
  fallbackModels?: string[];
  maxCostUsd?: number;
  maxTimeS?: number;
  stream?: boolean;
  /** Extra settings files (highest priority). */
  settings?: string[];
  /** More workspace folders (a multi-root workspace whose first folder is cwd). */
  addDirs?: string[];
  json: boolean;
  /** --trust: the folders are trusted for this run (CI); else the stored decision, or a question on a terminal. */
  trust?: boolean;
  /** --output-style NAME: the output style the session starts with. */
  outputStyle?: string;
  /** --tools NAME[,NAME]...: only these tools are sent to the model and callable (a one-tool harness: --tools run_command). */
  tools?: string[];
  /** The command never calls the model (`yoke compact` with an extractive summary): no provider key is needed. */
  offline?: boolean;
  /**
   * On resume, the session goes on in the permission mode and on the model it had (its log's last
   * `mode_change` / `model_change`), before `permissionMode` and the settings' default mode
   * (`yoke acp`'s session/load: the flag is the mode NEW sessions start in). A mode the permission
   * settings now turn off is not restored. `"unflagged"` (`yoke resume`): only what no flag names —
   * `--permission-mode` and `--model` given for this run win.
   */
  restoreChoices?: boolean | "unflagged";
}

/**
 * The session folder of a workspace folder: the store the panel shares
 * (`~/.yoke/sessions/<workspace-key>/`). Sessions the CLI kept in its old per-path folder are
 * moved there the first time.
 */
export function cliSessionDir(cwd: string): string {
  // A background agent's worktree keeps its sessions in its workspace's store.
  const agent = agentWorktreeOf(cwd);
  if (agent) return agent.sessionDir;
  const dir = defaultSessionDir(cwd);
  const legacy = legacyCliSessionDir(cwd);
  const migrated = migrateLegacySessions(legacy, dir);
  if (migrated) {
    const { moved, skipped } = migrated;
    if (moved.length) warn(`yoke: moved ${moved.length} session(s) from ${legacy} to ${dir}\n`);
    for (const s of skipped) warn(`yoke: left session ${s.id} in ${legacy}: ${s.reason}\n`);
  }
  return dir;
}

/** A session another live process is writing: not resumed (exit status 1). */
export class SessionInUseError extends Error {}

/** What a front end other than the terminal gives the session (`yoke acp`: the editor's questions). */
export interface CliSessionHost {
  /** Asks the user (default: the terminal). */
  approver?: Approver;
  /** MCP servers' forms (default: the terminal's prompts when stdin is a terminal; otherwise declined). */
  elicitor?: McpElicitor;
  /** MCP OAuth sign-in (default: the URL printed when stdin is a terminal; otherwise the server fails saying how to sign in). */
  mcpAuthorize?: McpOAuthOptions["authorize"];
  /** Who writes the session, as another opener is told (default: "yoke run" / "yoke resume"). */
  owner?: string;
  /** Who starts the session's commands (`yoke acp`: the editor's terminal when it offers one). */
  launcher?: NodeServicesOptions["launcher"];
  /** The MCP hub of the session's servers (`yoke acp`: their prompts as the editor's slash commands). */
  onMcpHub?: SessionHost["onMcpHub"];
  /** The session's composer (a background agent's notes while it runs: src/node/background/inbox.ts). */
  composer?: () => Extension;
}

/** The session's model, and the models it may switch to. */
export interface SessionModels {
  provider: string;
  /** The session's own model and its fallback models of the same provider. */
  choices: string[];
  current(): string;
  /** What the provider's server lists (bounded, cached; none where it cannot list: see listModels). */
  listed(): Promise<ListedModels>;
  /** Requests go to this model from now on; recorded in the log (model_change), so a resumed session starts on it. */
  use(model: string): Promise<void>;
}

export async function buildCliSession(
  flags: CliSessionFlags,
  resumeId?: string,
  host: CliSessionHost = {},
): Promise<{
  options: AgentSessionOptions;
  sessionDir: string;
  store: FileSessionStore;
  services: NodeServices;
  trusted: boolean;
  models: SessionModels;
  recordModelChanges(session: { appendFromHost(e: NewEvent, o: { whileRunning: boolean }): unknown }): void;
  dispose(): Promise<void>;
}> {
  if (!existsSync(flags.cwd)) throw new UsageError(`--cwd ${flags.cwd}: no such folder`);
  for (const d of flags.addDirs ?? []) if (!existsSync(d)) throw new UsageError(`--add-dir ${d}: no such folder`);
  const sessionDir = flags.sessionDir ? resolve(flags.sessionDir) : cliSessionDir(flags.cwd);
  const dirFlag = flags.sessionDir ? ` --session-dir ${shellQuote(sessionDir)}` : "";
  const store = createFileSessionStore(sessionDir, { owner: host.owner ?? (resumeId ? "yoke resume" : "yoke run") });
  let providerFlags = { provider: flags.provider, baseUrl: flags.baseUrl, model: flags.model, apiKeyEnv: flags.apiKeyEnv, stream: flags.stream };
  let label: string | undefined;
  /** The session's own mode and model choice, from its log (restoreChoices). */
  let restored: { mode?: string; model?: { provider: string; model: string } } = {};
  if (resumeId) {
    if (!store.exists(resumeId)) throw new UsageError(`no session "${resumeId}" in ${sessionDir} (see \`yoke sessions --session-dir ${sessionDir}\`)`);
    // Held until this process exits: nobody else appends to the log meanwhile.
    const lock = store.lock(resumeId);
    if (!lock.ok) {
      throw new SessionInUseError(
        `session ${resumeId} is in use by ${describeHolder(lock.holder)}, which is writing to it. ` + `Wait until it is done there, or continue a copy of it: yoke fork ${resumeId}${dirFlag}`,
      );
    }
    const events = parseLog(store.read(resumeId)).events;
    const start = events.find((e) => e.type === "session_start");
    // The endpoint a log in a workspace folder names is the repository's or a command's choice: the
    // person's API key would go there (red team K, session 24). The person names it to go on.
    if (start?.type === "session_start" && !flags.provider && start.baseUrl && !flags.baseUrl && logInWorkspace(flags, sessionDir)) {
      throw new UsageError(
        `the session's log names the model endpoint ${start.baseUrl}, which is not taken from a log inside the workspace (${sessionDir}), where a command or a commit could have written it (your API key would be sent there); pass --base-url ${start.baseUrl} (or --provider) to go on`,
      );
    }
    if (start?.type === "session_start" && !flags.provider) {
      providerFlags = { ...providerFlags, provider: start.provider, model: flags.model ?? start.model, baseUrl: flags.baseUrl ?? start.baseUrl };
      label = start.label;
    }
    if (flags.restoreChoices) {
      const unflagged = flags.restoreChoices === "unflagged";
      const mode = unflagged && flags.permissionMode ? undefined : events.findLast((e) => e.type === "mode_change");
      const model = unflagged && flags.model ? undefined : events.findLast((e) => e.type === "model_change");
      restored = {
        ...(mode?.type === "mode_change" ? { mode: mode.mode } : !(unflagged && flags.permissionMode) && start?.type === "session_start" && start.permissionMode ? { mode: start.permissionMode } : {}),
        ...(model?.type === "model_change" ? { model: { provider: model.provider, model: model.model } } : {}),
      };
    }
  }
  const config = flags.offline
    ? { provider: (providerFlags.provider ?? "anthropic") as ProviderConfig["provider"], model: providerFlags.model ?? "unknown", baseUrl: providerFlags.baseUrl }
    : await providerConfigFromFlags(providerFlags);
  // The user's trust decision (src/cli/trust.ts): without it, Restricted Mode.
  const trust = await decideTrust({ folders: [resolve(flags.cwd), ...(flags.addDirs ?? []).map((d) => resolve(d))], flag: !!flags.trust, ask: !flags.offline });
  const addDirs = flags.addDirs ?? [];
  const settings = await readSessionSettings({
    cwd: flags.cwd,
    folders: addDirs,
    sessionDir,
    trusted: trust.trusted,
    restrictedHint: trust.hint,
    extraFiles: flags.settings,
    cli: { fallbackModels: flags.fallbackModels, maxCostUsd: flags.maxCostUsd, maxTimeS: flags.maxTimeS, maxTurns: flags.maxTurns, ...(flags.outputStyle ? { outputStyle: flags.outputStyle } : {}) },
    offline: flags.offline,
  }).catch((err: unknown) => {
    throw err instanceof SessionSettingsError ? new UsageError(err.message) : err;
  });
  const node = nodeServicesFor(settings, host.launcher ? { launcher: host.launcher } : {});
  const logged = PERMISSION_MODES.find((m) => m === restored.mode);
  // A log kept in a workspace folder is the repository's or a command's to write (a committed session
  // folder, or one written before it was protected: bgprot24): a mode it names that raises what runs
  // without a question is not taken from it. The person passes --permission-mode for that.
  const own = logged && logInWorkspace(flags, sessionDir) && RAISING_MODES.has(logged) ? undefined : logged;
  if (logged && !own)
    warn(
      `yoke: the session was in the mode ${logged}, which is not restored from a log inside the workspace (${sessionDir}), where a command or a commit could have written it; pass --permission-mode ${logged} to go on in it\n`,
    );
  const ownAllowed = own !== undefined && (await node.gate.modeAllowed(own));
  if (own && !ownAllowed) process.stderr.write(`yoke: the session was in the mode ${own}, which the permission settings now turn off; it goes on in another mode\n`);
  const permissionMode = (ownAllowed ? own : undefined) ?? flags.permissionMode ?? (await node.gate.defaultMode());
  if (!(await node.gate.modeAllowed(permissionMode))) {
    throw new Error(`--permission-mode ${permissionMode} is turned off by the permission settings (disableBypassPermissionsMode); choose another mode.`);
  }
  for (const p of await node.gate.problems()) warn(`yoke: settings: ${p.message}\n`);
  // A command that must not call the model (yoke compact) gets a provider that says so if anything tries.
  const make = async (provider: string | undefined, model: string): Promise<Provider> => {
    if (flags.offline) return offlineProvider({ provider: config.provider, model });
    const cfg: ProviderConfig = !provider || provider === config.provider ? { ...config, model } : await providerConfigFromFlags({ provider, model, stream: config.stream });
    return createProvider(cfg);
  };
  // MCP forms: the front end's own, or the terminal's (a front end with its own approver, \`yoke acp\`, has no terminal).
  const elicitor = host.elicitor ?? (host.approver ? undefined : createTerminalElicitor());
  const mcpAuthorize = host.mcpAuthorize ?? (host.approver ? undefined : createTerminalSignIn());
  // The session's own model, switchable while it runs (`yoke acp`'s model option); its fallback models stay behind it.
  const primary = switchableProvider(flags.offline ? offlineProvider(config) : createProvider(config), "the model chosen for the session");
  const choices = [config.model, ...settings.fallbackModels.filter((f) => !f.provider || f.provider === config.provider).map((f) => f.model)].filter((m, i, all) => m && all.indexOf(m) === i);
  const switchTo = async (model: string) => primary.use(model === config.model ? undefined : await make(undefined, model));
  let record: ((from: string, model: string) => void) | undefined;
  const models: SessionModels = {
    provider: config.provider,
    choices,
    current: () => primary.provider.model,
    listed: () => (flags.offline ? Promise.resolve({ ids: [], problem: "this command does not call the model" }) : listModels(config)),
    async use(model) {
      if (!model.trim()) throw new Error("no model named");
      const from = primary.provider.model;
      await switchTo(model);
      if (from !== model) record?.(from, model);
    },
  };
  // The model the session had chosen (same provider): requests go to it again.
  if (restored.model && restored.model.provider === config.provider && restored.model.model !== config.model && !flags.offline) await switchTo(restored.model.model);
  const askInput = host.approver ? undefined : createTerminalInput(); // a prompt file's ${input:name}
  const recipe = await sessionRecipe(settings, {
    store,
    fs: createNodeWorkspaceFs(flags.cwd, addDirs.length ? { folders: [{ root: flags.cwd }, ...addDirs.map((root) => ({ root }))] } : {}),
    search: createRipgrepSearcher(),
    warn: (m) => warn(`yoke: ${m}\n`),
    models: { primary: primary.provider, make, label, baseUrl: config.baseUrl },
    approver: host.approver ?? createTerminalApprover(),
    ...(elicitor ? { elicitor } : {}),
    ...(mcpAuthorize ? { mcpAuthorize } : {}),
    ...(askInput ? { askInput } : {}),
    permissionMode,
    services: node,
    ...(host.composer ? { composer: host.composer } : {}),
    ...(host.onMcpHub ? { onMcpHub: host.onMcpHub } : {}),
  });
  const options = flags.tools ? { ...recipe.options, onlyTools: flags.tools } : recipe.options;
  return {
    sessionDir,
    store,
    services: recipe.services,
    trusted: trust.trusted,
    models,
    /** The session the choices are recorded in (a model_change event each). */
    recordModelChanges(session: { appendFromHost(e: NewEvent, o: { whileRunning: boolean }): unknown }) {
      record = (from, model) => void session.appendFromHost({ type: "model_change", provider: config.provider, model, from, by: "user" }, { whileRunning: true });
    },
    dispose: () => recipe.dispose(),
    options,
  };
}

/** Modes that let more run without a question than the default does. */
const RAISING_MODES = new Set<string>(["acceptEdits", "bypassPermissions"]);

/** Is the session folder a workspace folder, or inside one (by written and real path)? */
function logInWorkspace(flags: { cwd: string; addDirs?: string[] }, sessionDir: string): boolean {
  return [flags.cwd, ...(flags.addDirs ?? [])].some((d) => isWithin(realOrSame(sessionDir), realOrSame(d)) || isWithin(resolve(sessionDir), resolve(d)));
}

function realOrSame(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}
