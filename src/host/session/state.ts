// What the panel shows, shared by the parts of the session controller (src/host/session/): the
// session shown and its view model, whether a run goes on, who else writes it, the open in progress.
import type * as vscode from "vscode";
import type { LockHolder } from "../../node/session-store";
import type { HostToWebview, ViewItem } from "../../protocol/messages";
import { SessionViewModel } from "../../node/panel/view-model";

const LAST_SESSION_KEY = "yoke.lastSession";

export class PanelState {
  /** The session shown; null: a new one nothing was sent to yet. */
  shownId: string | null = null;
  vm = new SessionViewModel();
  /** Shown from its log (opened, or restored after a reload) and not continued yet. */
  resumed = false;
  running = false;
  /** The shown session is being written by another process (a `yoke` command, another window). */
  readOnly: LockHolder | undefined;
  /** Size of the shown log when the view was built from it (to see it grow under another writer). */
  shownBytes = -1;
  /** Long sessions: the open in progress (a newer one supersedes it). */
  opening: Promise<unknown> | undefined;
  openGen = 0;
  /** Every message for the panel (the controller routes it to the webview while it is connected). */
  post: (msg: HostToWebview) => void;

  constructor(
    private readonly memento: vscode.Memento,
    post: (msg: HostToWebview) => void,
  ) {
    this.post = post;
  }

  /** An item created or changed, with its place in the transcript (the panel shows a window over it). */
  postItem(view: ViewItem): void {
    const index = this.vm.indexOf(view.id);
    this.post({ type: "event", view, ...(index >= 0 ? { index } : {}), ...(this.vm.takeInserted(view.id) ? { insert: true } : {}) });
  }

  /** The session a window reload shows again. */
  get lastShown(): string | undefined {
    return this.memento.get<string>(LAST_SESSION_KEY);
  }

  remember(id: string | undefined): void {
    void this.memento.update(LAST_SESSION_KEY, id);
  }
}
