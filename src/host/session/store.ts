// The session store of this window's folder: where it is (a setting, the folder's shared store, or
// the window's storage), the one-time move of the old per-window sessions, writes through locks,
// and watching it for other writers (another window, the CLI) with a poll while one holds the shown session.
import { join } from "node:path";
import * as vscode from "vscode";
import { configuredSessionDir } from "../settings";
import { watchFolder, type FolderWatch } from "../../node/folder-watch";
import { createFileSessionStore, migrateLegacySessions, resolveSessionDir, type FileSessionStore } from "../../node/session-store";

/** Store changes (another window, the CLI) are looked at this long after the last one. */
const STORE_SETTLE_MS = 300;
/** While a session is shown read-only, how often its holder is checked (a killed one leaves no file event). */
const HOLDER_POLL_MS = 2_000;

export interface SessionStores {
  dir: string;
  /** Writes through locks (session-store.ts). */
  writer: FileSessionStore;
  /** Reads other processes' logs (the history). */
  view: FileSessionStore;
}

export class StoreLink {
  private store: SessionStores | undefined;
  private dirCache: { key: string; dir: string } | undefined;
  private watcher: FolderWatch | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private holderPoll: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    /** Called (settled) when something in the store may have changed. */
    private readonly onChanged: () => void,
    /** Called when the store was replaced (another folder): what was read from the old one is stale. */
    private readonly onReplaced: () => void,
  ) {}

  /**
   * The session folder: the setting `yoke.sessionDir` (user settings only), or the folder's shared
   * store `~/.yoke/sessions/<workspace-key>/` (node/session-location.ts), the one the CLI uses.
   * Without a folder on disk, the window's own storage.
   */
  dir(): string {
    const configured = configuredSessionDir();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const key = `${configured ?? ""}\n${folder?.uri.toString() ?? ""}`;
    if (this.dirCache?.key !== key) {
      const onDisk = folder && folder.uri.scheme === "file" ? folder.uri.fsPath : undefined;
      const dir = resolveSessionDir({ ...(configured ? { configured } : {}), ...(onDisk !== undefined ? { folder: onDisk } : {}), fallback: () => this.windowSessionDir() });
      this.dirCache = { key, dir };
    }
    return this.dirCache.dir;
  }

  /** Where sessions were kept before the shared store: VS Code's per-window workspace storage. */
  private windowSessionDir(): string {
    const base = this.ctx.storageUri ?? this.ctx.globalStorageUri;
    return join(base.fsPath, "sessions");
  }

  get(): SessionStores {
    const dir = this.dir();
    if (this.store?.dir === dir) return this.store;
    this.store?.writer.dispose();
    const legacy = this.windowSessionDir();
    // Once: the sessions of the old per-window storage move to the shared store (each to its folder's).
    const migrated = migrateLegacySessions(legacy, dir);
    if (migrated?.moved.length) this.log.info(`moved ${migrated.moved.length} session(s) from ${legacy} to the shared store ${dir}`);
    for (const x of migrated?.skipped ?? []) this.log.warn(`session ${x.id} stays in ${legacy}: ${x.reason}`);
    this.store = { dir, writer: createFileSessionStore(dir, { owner: vscode.env.appName || "VS Code" }), view: createFileSessionStore(dir, { readOnly: true }) };
    this.onReplaced();
    if (this.watcher) this.watch(true);
    return this.store;
  }

  /** Releases a lock of the open store (none is opened for it). */
  unlock(id: string): void {
    this.store?.writer.unlock(id);
  }

  /** Watches the store folder: another window or the CLI adding or writing sessions. */
  watch(restart = false): void {
    if (this.watcher && !restart) return;
    this.watcher?.close();
    this.watcher = undefined;
    const dir = this.get().dir;
    this.watcher = watchFolder(
      dir,
      () => this.changed(),
      (problem) => this.log.warn(`${problem}; the history refreshes when the window gets the focus`),
    );
  }

  /** Something in the store changed: `onChanged` once it settles. */
  changed(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.onChanged();
      } catch (err) {
        this.log.warn(`refreshing from the session store failed: ${(err as Error).message}`);
      }
    }, STORE_SETTLE_MS);
    this.timer.unref?.();
  }

  /** While another process holds the shown session: look again every few seconds. */
  pollHolder(on: boolean): void {
    if (on && !this.holderPoll) {
      this.holderPoll = setInterval(() => this.changed(), HOLDER_POLL_MS);
      this.holderPoll.unref?.();
    } else if (!on && this.holderPoll) {
      clearInterval(this.holderPoll);
      this.holderPoll = undefined;
    }
  }

  /** Stops watching. */
  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.pollHolder(false);
  }

  /** Nothing more is written from this window: another one (or the CLI) may take the sessions over. */
  dispose(): void {
    this.stop();
    this.store?.writer.dispose();
  }
}
