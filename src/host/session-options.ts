// Builds the AgentSession's options from the settings, the secret storage and the workspace:
// the VS Code ports (workspace fs, ripgrep, session store), the provider and the approver.
import * as vscode from "vscode";
import { readCompactionSettings } from "../node/compaction-settings";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import type { Extension } from "../core/extensions/types";
import { guidanceExtension } from "../core/guidance";
import type { GuidancePrefs } from "../core/guidance/types";
import { createNodeGuidanceFiles } from "../node/guidance-files";
import { nodeSubagentsExtension } from "../node/subagent-settings";
import type { Approver, PermissionMode } from "../core/loop/types";
import type { ChangeReviewer, SessionServices, SessionStore, WorkspaceFs } from "../core/ports";
import { createProvider } from "../core/providers/create";
import type { Provider } from "../core/providers/types";
import { createBuiltinTools } from "../core/tools/builtin";
import { createRipgrepSearcher } from "../node/ripgrep-searcher";
import { type ApiKeys, needsKey, providerConfig, readSettings, yokeConfiguration, type HostSettings } from "./settings";
import { hostArchitect } from "./architect";
import { hostTelemetry } from "./telemetry";
import { hostLoopControl, LoopSettingsError } from "./loop-control";
import { withTiming } from "./timed-provider";
import { createVscodeLmProvider } from "./vscode-lm-provider";
import { createVscodeWorkspaceFs } from "./workspace-fs";
import { createVscodeDiagnostics } from "./diagnostics";

/** A problem the user fixes (no key, no folder): shown as is, not logged as a failure. */
export class UserFacingError extends Error {}

export interface SessionOptionsDeps {
  log: vscode.LogOutputChannel;
  keys: ApiKeys;
  approver: Approver;
  store: () => SessionStore;
  /** The change review (the extension's diff review), if the host has one. */
  reviewer?: ChangeReviewer;
  /** The Node services: the permission engine and hooks, and per session the command runner and the deny rules for content tools. */
  services?: () => { options: Pick<AgentSessionOptions, "gate" | "hooks" | "extensions">; session: (session: { id: string }) => Partial<SessionServices> } | undefined;
  /** Extensions of each new session (MCP servers' tools). */
  extensions?: () => Promise<Extension[]>;
  /** The permission mode sessions start (or resume) in; default: the yoke.permissionMode setting. */
  mode?: () => PermissionMode;
  /** Pinned and muted guidance of this workspace (the panel's list). */
  guidancePrefs?: () => GuidancePrefs;
  /** The composer of each new session (@-mentions, steering, the queue: src/host/composer.ts). */
  composer?: () => Extension;
}

export class SessionOptionsBuilder {
  private fs: { key: string; fs: WorkspaceFs } | undefined;
  /** The language servers' problems, for verification after the agent's edits. */
  private readonly diagnostics: ReturnType<typeof createVscodeDiagnostics>;

  constructor(private readonly deps: SessionOptionsDeps) {
    this.diagnostics = createVscodeDiagnostics(deps.log);
  }

  async build(): Promise<AgentSessionOptions> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders[0];
    if (!folder) throw new UserFacingError("Open a folder first: Yoke works on the files of a workspace folder.");
    const s = readSettings();
    const make = async (id: string | undefined, model: string) =>
      withTiming(await this.provider({ ...s, ...(id && id !== s.provider ? { provider: id as HostSettings["provider"], baseUrl: "" } : {}), model }), this.deps.log);
    const userFacing = (err: unknown) => {
      throw err instanceof LoopSettingsError ? new UserFacingError(err.message) : err;
    };
    const loop = await hostLoopControl(withTiming(await this.provider(s), this.deps.log), createBuiltinTools(), make).catch(userFacing);
    const architect = await hostArchitect(loop.provider, loop.tools, make).catch(userFacing);
    const provider = architect?.provider ?? loop.provider;
    const key = folders.map((f) => `${f.name}=${f.uri.toString()}`).join("|");
    if (this.fs?.key !== key) this.fs = { key, fs: createVscodeWorkspaceFs(folder.uri, folders) };
    const fs = this.fs.fs;
    const mode = this.deps.mode?.() ?? s.permissionMode;
    const node = this.deps.services?.();
    const search = createRipgrepSearcher({ vscodeAppRoot: vscode.env.appRoot });
    const { reviewer } = this.deps;
    const log = this.deps.log;
    this.deps.log.info(`session options: ${s.provider}/${s.model || "(default)"}, mode ${mode}, trusted ${vscode.workspace.isTrusted}`);
    return {
      store: this.deps.store(),
      provider,
      ...(s.demoLabel ? { providerLabel: s.demoLabel } : {}),
      ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}),
      tools: loop.tools,
      services: (session) => ({ fs, search, log, diagnostics: this.diagnostics, ...(reviewer ? { reviewer } : {}), ...node?.session(session) }),
      approver: this.deps.approver,
      permissionMode: mode,
      trusted: vscode.workspace.isTrusted,
      platform: process.platform,
      log: this.deps.log,
      maxTurns: s.maxTurns,
      compaction: await this.compaction(folder, provider, s),
      ...node?.options,
      // Every mechanism of the session: what the node services bring (verification, checkpoints), guidance, MCP servers' tools, loop control.
      extensions: [
        ...(node?.options.extensions ?? []),
        guidanceExtension({ files: createNodeGuidanceFiles(), prefs: this.deps.guidancePrefs }),
        ...((await this.deps.extensions?.()) ?? []),
        await nodeSubagentsExtension(folder.uri.fsPath, (m) => log.warn(m), { trusted: vscode.workspace.isTrusted, vscode: yokeConfiguration() }),
        ...loop.extensions,
        ...(architect ? [architect.extension] : []),
        ...(await hostTelemetry(this.deps.log)),
        ...(this.deps.composer ? [this.deps.composer()] : []),
      ],
    };
  }

  /** Compaction settings: the settings files and the yoke.compaction VS Code setting, through the one settings reader (a workspace may only tighten). */
  private async compaction(folder: vscode.WorkspaceFolder, provider: Provider, s: HostSettings): Promise<AgentSessionOptions["compaction"]> {
    const parsed = await readCompactionSettings(folder.uri.fsPath, { trusted: vscode.workspace.isTrusted, vscode: yokeConfiguration() });
    for (const p of parsed.problems) this.deps.log.warn(`settings: ${p}`);
    const model = parsed.settings.model;
    let summaryProvider: Provider | undefined;
    if (parsed.settings.strategy === "llm") {
      summaryProvider = model && model !== provider.model && s.provider !== "vscode-lm" ? createProvider({ ...providerConfig(s, await this.deps.keys.get(s.provider)), model }) : provider;
    }
    return { settings: parsed.settings, ...(summaryProvider ? { summaryProvider } : {}) };
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
