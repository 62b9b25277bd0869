// The panel's Customizations view, host side (issue 23): the one listing `yoke lessons list` prints
// (src/node/customizations.ts) for the first workspace folder, with the shown session's guidance
// events (what it sent, what the budget left out); opening an entry's file; and the plugins, managed
// as `yoke plugins` manages them — install, enable, disable, remove, and approve, keyed on the digest
// of the plugin's files the user was shown (a plugin changed since is not approved by that click).
import { homedir } from "node:os";
import * as vscode from "vscode";
import type { SessionEvent } from "../core/events";
import { listCustomizations, type CustomizationListing } from "../node/customizations";
import { rooStorageOf } from "./settings";
import { approvePlugin, installedPlugins, installPlugin, pluginDigest, PluginError, removePlugin, setUserEnabled, settingsMarketplaces } from "../node/plugins";
import type { HostToWebview, PluginView, WebviewToHost } from "../protocol/messages";
import { notify } from "./shown";

type PluginAction = Extract<WebviewToHost, { type: "plugins.action" }>;

export class HostCustomizations {
  /** Files the last listing named: the only ones "open" opens. */
  private paths = new Set<string>();
  /** The panel asked for the listing since it connected: session changes refresh it. */
  private wanted = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly post: (msg: HostToWebview) => void,
    private readonly events: () => readonly SessionEvent[],
    /** Yoke's global storage folder: Roo Code's global modes are beside it (rooStorageOf). */
    private readonly globalStorage?: vscode.Uri,
    private readonly home: string = process.env.HOME || homedir(),
  ) {}

  /** The listing of the first workspace folder (a local or remote file system the extension host sees). */
  async listing(): Promise<CustomizationListing | undefined> {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file" || f.uri.scheme === "vscode-remote").map((f) => f.uri.fsPath);
    if (!folders.length) return undefined;
    const events = this.events();
    return listCustomizations({
      cwd: folders[0]!,
      folders: folders.slice(1),
      home: this.home,
      trusted: vscode.workspace.isTrusted,
      ...(events.length ? { events } : {}),
      ...rooStorageOf(this.globalStorage),
    });
  }

  /** Lists everything and posts it (one listing at a time; a request during one runs after it). */
  refresh(): Promise<void> {
    this.wanted = true;
    const run = async () => {
      try {
        const l = await this.listing();
        if (!l)
          return this.post({ type: "customizations", items: [], problems: ["Open a folder: customizations are read from the workspace folder and your home folder."], plugins: [], marketplaces: [] });
        this.paths = new Set(l.items.flatMap((i) => (i.path ? [i.path] : [])));
        this.post({
          type: "customizations",
          items: l.items.map((i) => ({
            kind: i.kind,
            name: i.name,
            origin: i.origin,
            ...(i.plugin ? { plugin: i.plugin } : {}),
            source: i.source,
            ...(i.path ? { path: i.path } : {}),
            state: i.state,
            inForce: i.inForce,
            why: i.why,
            ...(i.description ? { description: i.description.slice(0, 500) } : {}),
          })),
          problems: l.problems.map((p) => `${p.at}: ${p.message}`),
          plugins: l.plugins.map((p): PluginView => ({
            id: p.id,
            ...(p.version ? { version: p.version } : {}),
            ...(p.description ? { description: p.description } : {}),
            enabled: p.enabled,
            runsPrograms: p.runsPrograms,
            approved: p.approved,
            programs: p.programs,
            digest: p.digest,
          })),
          marketplaces: l.marketplaces,
        });
      } catch (err) {
        this.log.warn(`customizations: ${(err as Error)?.message ?? String(err)}`);
        this.post({ type: "customizations", items: [], problems: [`Listing failed: ${(err as Error)?.message ?? String(err)}`], plugins: [], marketplaces: [] });
      }
    };
    this.running = (this.running ?? Promise.resolve()).then(run);
    return this.running;
  }

  private timer: ReturnType<typeof setTimeout> | undefined;

  /** The shown session changed or logged guidance: the listing follows (soon, once), if the panel asked for it. */
  sessionChanged(): void {
    if (!this.wanted || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, 300);
  }

  panelDisconnected(): void {
    this.wanted = false;
  }

  async open(path: string): Promise<void> {
    if (!this.paths.has(path)) {
      this.log.warn(`customizations: not opening ${path}: the listing did not name it`);
      return;
    }
    const uri = vscode.Uri.file(path);
    const stat = await vscode.workspace.fs.stat(uri).then(
      (s) => s,
      () => undefined,
    );
    if (stat?.type === vscode.FileType.Directory) await vscode.commands.executeCommand("revealInExplorer", uri);
    else await vscode.window.showTextDocument(uri, { preview: true });
  }

  /** A plugin action, with the CLI's trust rules (src/node/plugins): an approval is for the content the user was shown. */
  async pluginAction(msg: PluginAction): Promise<void> {
    const { id, action } = msg;
    try {
      switch (action) {
        case "install": {
          const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
          installPlugin(this.home, id, settingsMarketplaces(this.home, cwd, vscode.workspace.isTrusted));
          void notify("info", `Installed and enabled ${id}. New sessions get it.`);
          break;
        }
        case "enable":
        case "disable":
          this.installed(id);
          setUserEnabled(this.home, id, action === "enable");
          break;
        case "remove":
          this.installed(id);
          removePlugin(this.home, id);
          break;
        case "approve": {
          const path = this.installed(id);
          if (!msg.digest || msg.digest !== digestOf(path)) {
            void notify("warning", `${id} changed since it was shown: look at what it runs again before approving.`);
            break;
          }
          approvePlugin(this.home, id, true);
          void notify("info", `${id}: its hooks and MCP servers run in new sessions, as installed now.`);
          break;
        }
        case "deny":
          this.installed(id);
          approvePlugin(this.home, id, false);
          break;
      }
      this.log.info(`plugins: ${action} ${id}`);
    } catch (err) {
      const message = err instanceof PluginError ? err.message : ((err as Error)?.message ?? String(err));
      this.log.warn(`plugins: ${action} ${id}: ${message}`);
      this.post({ type: "error", message: `Plugin ${id}: ${message}` });
    }
    await this.refresh();
  }

  private installed(id: string): string {
    const p = installedPlugins(this.home)[id];
    if (!p) throw new PluginError(`no installed plugin "${id}"`);
    return p.installPath;
  }
}

function digestOf(path: string): string {
  try {
    return pluginDigest(path);
  } catch {
    return "";
  }
}
