// The Node services of the extension's sessions (src/node/session-recipe.ts nodeServicesFor): the
// permission gate over the settings files and the VS Code settings, hooks, and the sandboxed command
// runner, with what only VS Code adds: a watcher that reloads the gate, the terminal mirror, the
// background list. vscodeSessionValues() reads the yoke.* settings a session is built from.
import * as vscode from "vscode";
import type { RunningCommand, CommandRunner } from "../core/commands/types";
import type { PermissionMode } from "../core/loop/types";
import type { YokePermissionGate } from "../core/permissions/gate";
import type { Disposable, SessionServices } from "../core/ports";
import type { NodeServices } from "../node/agent-services";
import { nodeServicesFor } from "../node/session-recipe";
import { workspaceSettings, type VscodeSessionValues } from "../node/session-settings";
import type { BackgroundProcessView } from "../protocol/messages";
import { TerminalMirror } from "./terminal-mirror";
import { watchGateFiles } from "./gate-watch";
import { scopedMode } from "../core/settings/origin";
import { problemLines } from "../node/settings/reader";
import { workspaceSettings as readWorkspaceSettings, yokeConfiguration, yokeSetting } from "./settings";

const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

/**
 * The permission mode the user chose in VS Code settings, if any. A workspace's value (from
 * .vscode/settings.json or a .code-workspace file, shared with the repository) counts only when
 * it is not looser than the user's own (or than the mode the settings files choose): a repository
 * may choose plan, never acceptEdits or bypassPermissions; in Restricted Mode it counts not at all.
 */
export function configuredPermissionMode(fallback: PermissionMode = "default", warn?: (message: string) => void): PermissionMode | undefined {
  const i = yokeSetting<string>("permissionMode").scopes;
  if (!i) return undefined;
  const valid = (v: unknown): v is PermissionMode => MODES.includes(v as PermissionMode);
  const user = valid(i.globalValue) ? i.globalValue : undefined;
  const ws = i.workspaceFolderValue ?? i.workspaceValue;
  if (!vscode.workspace.isTrusted || !valid(ws)) return user;
  const chosen = scopedMode(user, ws, fallback);
  if (chosen.ignored) warn?.(chosen.ignored);
  return chosen.mode;
}

/**
 * An object setting (yoke.permissions, yoke.hooks), as two sources: the user's own value, and the
 * workspace's (from .vscode/settings.json or a .code-workspace file, shared with the repository),
 * which the permission engine lets restrict but never loosen.
 */
function objectSetting(key: string): { user?: Record<string, unknown>; workspace?: Record<string, unknown> } {
  const { value, scopes: inspect } = yokeSetting<unknown>(key);
  if (!inspect) return { user: asObject(value) };
  const user = asObject(inspect.globalValue);
  const ws = asObject(inspect.workspaceValue);
  const folder = asObject(inspect.workspaceFolderValue);
  const workspace = ws && folder ? { ...ws, ...folder } : (folder ?? ws);
  return { ...(user ? { user } : {}), ...(workspace ? { workspace } : {}) };
}

/**
 * The yoke.* settings a session is built from, read here once and handed to the session's
 * settings (src/node/session-settings.ts), which decides what each one is worth.
 */
export function vscodeSessionValues(): VscodeSessionValues {
  return {
    permissions: objectSetting("permissions"),
    hooks: objectSetting("hooks"),
    verification: objectSetting("verification"),
    // Only the user's own value: a workspace must not turn the sandbox off or the network on.
    sandbox: yokeSetting<unknown>("sandbox").scopes?.globalValue,
    // Every yoke.* value by scope, for the one settings reader (it decides what a workspace may set).
    config: yokeConfiguration(),
  };
}

function asObject(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}

interface Current {
  key: string;
  services: NodeServices;
  watcher: vscode.Disposable | undefined;
}

export class HostServices implements vscode.Disposable {
  private current: Current | undefined;
  private readonly mirror = new TerminalMirror();
  /** The command runner of each session not ended yet, by session id. */
  private readonly runners = new Map<string, { runner: CommandRunner; sub: Disposable }>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Settings problems, the sandbox or the background commands changed. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly sessionDir: () => string,
  ) {}

  /** The services for the open folder and the current settings (made again when they change). */
  services(): NodeServices | undefined {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = folders[0];
    if (!folder) return undefined;
    const settings = workspaceSettings({
      cwd: folder.uri.fsPath,
      folders: folders.slice(1).map((f) => f.uri.fsPath),
      sessionDir: this.sessionDir(),
      trusted: vscode.workspace.isTrusted,
      vscode: vscodeSessionValues(),
    });
    const key = JSON.stringify([folders.map((f) => f.uri.toString()), settings]);
    if (this.current?.key === key) return this.current.services;
    this.current?.watcher?.dispose();
    const dist = this.ctx.extensionUri ? vscode.Uri.joinPath(this.ctx.extensionUri, "dist").fsPath : undefined;
    const services = nodeServicesFor(settings, { wasmDirs: dist ? [dist] : undefined, log: this.log });
    this.current = { key, services, watcher: this.watch(folders, services.gate) };
    this.changed.fire();
    return services;
  }

  get gate(): YokePermissionGate | undefined {
    return this.services()?.gate;
  }

  /**
   * What the session recipe takes from this window: its Node services (the watched gate) and the
   * session folder; each session's command runner is mirrored into a terminal and listed.
   */
  sessionParts():
    { services: NodeServices; sessionDir: string; globalStorage: vscode.Uri; onCommands(sessionId: string, commands: Pick<SessionServices, "commands" | "commandsUnavailable">): void } | undefined {
    const services = this.services();
    if (!services) return undefined;
    return {
      services,
      sessionDir: this.sessionDir(),
      globalStorage: this.ctx.globalStorageUri,
      onCommands: (id, commands) => {
        if (commands.commands) this.adopt(id, commands.commands);
        else if (commands.commandsUnavailable) this.log.warn(`session ${id}: ${commands.commandsUnavailable}`);
      },
    };
  }

  async problems(): Promise<string[]> {
    const gate = this.gate;
    if (!gate) return [];
    // Unknown keys, invalid values and what the workspace may not set, from the one settings reader.
    const others = await readWorkspaceSettings().then(
      (r) => problemLines(r),
      (err: unknown) => [`The settings could not be read: ${(err as Error).message}`],
    );
    try {
      return [...(await gate.problems()).map((p) => p.message), ...others];
    } catch (err) {
      return [`The permission settings could not be read: ${(err as Error).message}`, ...others];
    }
  }

  /** The mode a new session starts in: yoke.permissionMode if set, else the settings files' defaultMode. */
  async startMode(): Promise<PermissionMode> {
    let fromFiles: PermissionMode;
    try {
      fromFiles = (await this.gate?.defaultMode()) ?? "default";
    } catch {
      fromFiles = "default";
    }
    return configuredPermissionMode(fromFiles, (m) => this.log.warn(m)) ?? fromFiles;
  }

  /** Network of a session's commands ("off", "on"). */
  network(sessionId: string): string | undefined {
    return this.runners.get(sessionId)?.runner.info.network;
  }

  /** A session's background commands still running. */
  background(sessionId: string): BackgroundProcessView[] {
    const runner = this.runners.get(sessionId)?.runner;
    return (runner?.list() ?? []).filter((c) => c.background && !c.result).map((c) => ({ id: c.id, command: c.command }));
  }

  async kill(sessionId: string, id: string): Promise<void> {
    await this.runners.get(sessionId)?.runner.get(id)?.kill();
  }

  /** Forgets a session's runner (after session.end() stopped its commands). */
  release(sessionId: string): void {
    this.runners.get(sessionId)?.sub.dispose();
    this.runners.delete(sessionId);
    this.changed.fire();
  }

  dispose(): void {
    for (const r of this.runners.values()) r.sub.dispose();
    this.runners.clear();
    this.current?.watcher?.dispose();
    this.mirror.dispose();
    this.changed.dispose();
  }

  private adopt(sessionId: string, runner: CommandRunner): void {
    this.runners.get(sessionId)?.sub.dispose();
    const mirror = this.mirror.watch(runner);
    const started = runner.onDidStart((cmd: RunningCommand) => {
      if (!cmd.background) return;
      this.changed.fire();
      cmd.onExit(() => this.changed.fire());
    });
    this.runners.set(sessionId, { runner, sub: { dispose: () => (mirror.dispose(), started.dispose()) } });
    this.changed.fire();
  }

  /** Reloads the gate when a file it reads changes (settings, Cursor's hooks, ignore files), so fixes and new rules apply at once. */
  private watch(folders: readonly vscode.WorkspaceFolder[], gate: YokePermissionGate): vscode.Disposable | undefined {
    const create = vscode.workspace.createFileSystemWatcher as typeof vscode.workspace.createFileSystemWatcher | undefined;
    if (!create) return undefined;
    return watchGateFiles(folders, gate, (folder, pattern) => create(new vscode.RelativePattern(folder as vscode.WorkspaceFolder, pattern)), {
      reloaded: () => this.changed.fire(),
      failed: (message) => this.log.warn(message),
    });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
