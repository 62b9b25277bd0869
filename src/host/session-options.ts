// The panel's sessions: the yoke.* settings become the session's settings, and the session recipe
// (src/node/session-recipe.ts) builds the session with what only VS Code has — the VS Code ports
// (workspace fs, language servers' problems), the models and keys, the panel's approver, review,
// composer, MCP dialogs and guidance pins, and the terminal mirror (host-services.ts).
import * as vscode from "vscode";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import type { Extension } from "../core/extensions/types";
import type { McpClientDeps } from "../core/mcp/client-requests";
import type { SubagentOptions } from "../core/subagents";
import type { GuidancePrefs } from "../core/guidance/types";
import type { Approver, PermissionMode } from "../core/loop/types";
import type { ChangeReviewer, SessionServices, SessionStore, WorkspaceFs } from "../core/ports";
import { createProvider } from "../core/providers/create";
import type { Provider } from "../core/providers/types";
import type { NodeServices } from "../node/agent-services";
import type { SandboxSettings } from "../node/commands/session-runner";
import { createRipgrepSearcher } from "../node/ripgrep-searcher";
import { sessionRecipe } from "../node/session-recipe";
import { readSessionSettings, SessionSettingsError, type SessionSettings } from "../node/session-settings";
import { vscodeSessionValues } from "./host-services";
import { type ApiKeys, needsKey, providerConfig, readSettings, rooStorageOf, type HostSettings } from "./settings";
import { withTiming } from "./timed-provider";
import { createVscodeLmProvider } from "./vscode-lm-provider";
import { createVscodeWorkspaceFs } from "./workspace-fs";
import { createVscodeDiagnostics } from "./diagnostics";
import type { TypingWatch } from "./editor-typing";

/** A problem the user fixes (no key, no folder): shown as is, not logged as a failure. */
export class UserFacingError extends Error {}

export interface SessionOptionsDeps {
  log: vscode.LogOutputChannel;
  keys: ApiKeys;
  approver: Approver;
  store: () => SessionStore;
  /** The change review (the extension's diff review), if the host has one. */
  reviewer?: ChangeReviewer;
  /** Whether the user is typing (a file shown for its language server then goes beside that editor). */
  typing?: TypingWatch;
  /** The window's Node services (the watched permission engine, hooks, command runners), its session folder and terminal mirror (host-services.ts). */
  services?: () =>
    { services: NodeServices; sessionDir: string; globalStorage?: vscode.Uri; onCommands(sessionId: string, commands: Pick<SessionServices, "commands" | "commandsUnavailable">): void } | undefined;
  /** Extensions of each new session (MCP servers' tools, from the settings files the session's settings reader read). */
  extensions?: (settingsFiles: SessionSettings["settingsFiles"], client: McpClientDeps, sandboxPaths: SandboxSettings["paths"]) => Promise<Extension[]>;
  /** The permission mode sessions start (or resume) in; default: the yoke.permissionMode setting. */
  mode?: () => PermissionMode;
  /** Pinned and muted guidance of this workspace (the panel's list). */
  guidancePrefs?: () => GuidancePrefs;
  /** The composer of each new session (@-mentions, steering, the queue: src/host/composer.ts). */
  composer?: () => Extension;
  /** Starts a turn delivering a finished background agent's result (SessionHost.deliver). */
  deliver?: SubagentOptions["deliver"];
}

export class SessionOptionsBuilder {
  private fs: { key: string; fs: WorkspaceFs } | undefined;
  /** The language servers' problems, for verification after the agent's edits. */
  private readonly diagnostics: ReturnType<typeof createVscodeDiagnostics>;

  constructor(private readonly deps: SessionOptionsDeps) {
    this.diagnostics = createVscodeDiagnostics(deps.log, { column: (uri) => deps.typing?.besideTyping(uri) });
  }

  async build(): Promise<AgentSessionOptions> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders[0];
    const parts = this.deps.services?.();
    if (!folder || !parts) throw new UserFacingError("Open a folder first: Yoke works on the files of a workspace folder.");
    const s = readSettings();
    const log = this.deps.log;
    const trusted = vscode.workspace.isTrusted;
    const settings = await readSessionSettings({
      cwd: folder.uri.fsPath,
      folders: folders.slice(1).map((f) => f.uri.fsPath),
      sessionDir: parts.sessionDir,
      trusted,
      localFiles: folder.uri.scheme === "file",
      vscode: { ...vscodeSessionValues(), maxTurns: s.maxTurns, ...rooStorageOf(parts.globalStorage) },
    }).catch((err: unknown) => {
      throw err instanceof SessionSettingsError ? new UserFacingError(err.message) : err;
    });
    const key = folders.map((f) => `${f.name}=${f.uri.toString()}`).join("|");
    if (this.fs?.key !== key) this.fs = { key, fs: createVscodeWorkspaceFs(folder.uri, folders) };
    const mode = this.deps.mode?.() ?? s.permissionMode;
    const make = async (id: string | undefined, model: string) =>
      withTiming(await this.provider({ ...s, ...(id && id !== s.provider ? { provider: id as HostSettings["provider"], baseUrl: "" } : {}), model }), log);
    log.info(`session options: ${s.provider}/${s.model || "(default)"}, mode ${mode}, trusted ${trusted}`);
    const { extensions, composer } = this.deps;
    const recipe = await sessionRecipe(settings, {
      store: this.deps.store(),
      fs: this.fs.fs,
      search: createRipgrepSearcher({ vscodeAppRoot: vscode.env.appRoot }),
      log,
      warn: (m) => log.warn(m),
      models: { primary: withTiming(await this.provider(s), log), make, label: s.demoLabel || undefined, baseUrl: s.baseUrl || undefined },
      approver: this.deps.approver,
      permissionMode: mode,
      ...(this.deps.reviewer ? { reviewer: this.deps.reviewer } : {}),
      diagnostics: this.diagnostics,
      services: parts.services,
      watchesGate: true, // host-services.ts reloads the window's gate on VS Code's file watcher (gate-watch.ts)
      onCommands: (id, commands) => parts.onCommands(id, commands),
      ...(extensions ? { mcp: (_tools, settingsFiles, client, sandboxPaths) => extensions(settingsFiles, client, sandboxPaths) } : {}),
      guidancePrefs: this.deps.guidancePrefs,
      ...(composer ? { composer } : {}),
      ...(this.deps.deliver ? { deliver: this.deps.deliver } : {}),
      editor: async () => editorContext(),
      askInput: async (q) =>
        vscode.window.showInputBox({
          title: `/${q.command}`,
          prompt: `/${q.command} needs ${q.name}`,
          ...(q.placeholder ? { placeHolder: q.placeholder } : {}),
          ignoreFocusOut: true,
        }),
    });
    return recipe.options;
  }

  private async provider(s: HostSettings): Promise<Provider> {
    if (s.provider === "vscode-lm") return createVscodeLmProvider(s.model);
    const key = await this.deps.keys.get(s.provider);
    if (needsKey(s) && !key) {
      throw new UserFacingError(`No API key for ${s.provider}. Run "Yoke: Set API Key" (the key is kept in VS Code's secret storage), or choose another provider in the yoke.provider setting.`);
    }
    return createProvider(providerConfig(s, key));
  }
}

/** The active editor's file and selection, for a Copilot prompt file's `${file}`, `${selection}`, … (local files only). */
function editorContext(): { file?: string; selection?: string } | undefined {
  const ed = vscode.window.activeTextEditor;
  if (!ed) return {};
  const uri = ed.document.uri;
  const file = uri.scheme === "file" || uri.scheme === "vscode-remote" ? uri.fsPath.replace(/\\/g, "/") : undefined;
  const selection = ed.selection && !ed.selection.isEmpty ? ed.document.getText(ed.selection) : "";
  return { ...(file ? { file } : {}), selection };
}
