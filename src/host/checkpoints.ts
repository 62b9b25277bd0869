// Checkpoints in VS Code (issue 12): the panel's control on each turn and "Yoke: Restore
// Checkpoint…" — a preview of what a restore to the end of a turn changes (files with +/- counts,
// each diff in VS Code's diff editor), then the restore of the files, the conversation or both,
// an "Undo restore", and a fork from a turn with the files as they were then. The mechanics are
// the core's (src/core/checkpoints) over the shadow-git store (src/node/checkpoint-store.ts).
//
// A restore is refused while a turn runs: the agent may be writing a file or running a command
// that a restore would race with, and stopping it on the user's behalf would throw away work they
// did not ask to lose; the preview would be stale too. The user stops it (or waits), then restores.
import { join } from "node:path";
import * as vscode from "vscode";
import {
  checkpointAfterTurn,
  checkpointsOf,
  lastRestore,
  planStats,
  previewRestore,
  restoreForFork,
  restoreTarget,
  restoreTo,
  turnsOf,
  undoRestore,
  type CheckpointStore,
  type RestoreResult,
  type RestoreWhat,
} from "../core/checkpoints";
import type { NewEvent, SessionEvent } from "../core/events";
import type { WorkspaceFolder } from "../core/ports";
import { forkSession } from "../core/session/fork";
import { SessionLog } from "../core/session/session-log";
import { nodeCheckpointStore } from "../node/checkpoints";
import type { FileSessionStore } from "../node/session-store";
import type { CheckpointPreviewView, CheckpointUndoView, HostToWebview, WebviewToHost } from "../protocol/messages";
import { notify, shownItem, shownTitle } from "./shown";

export const CHECKPOINT_SCHEME = "yoke-checkpoint";

/** The panel's messages of the checkpoints block (src/protocol/messages.ts). */
export type CheckpointMessage = Extract<WebviewToHost, { type: "checkpointPreview" | "checkpointRestore" | "checkpointUndo" | "checkpointFork" | "checkpointDiff" }>;

/** How the controls reach the session the panel shows (implemented by the session controller). */
export interface CheckpointSessionAccess {
  /** The shown session's id and events (the live session's, or its log's); undefined when none. */
  shown(): { id: string; events: readonly SessionEvent[] } | undefined;
  /** A turn is running in this window. */
  running(): boolean;
  /** Changes of the agent waiting for review (a files restore under them is refused). */
  pendingReviews(): number;
  /**
   * Appends to the shown session — through the live session when there is one, else to its log
   * under its lock — and shows the result in the panel afterwards.
   */
  write<T>(act: (w: { events: () => readonly SessionEvent[]; append: (e: NewEvent) => SessionEvent }) => Promise<T>): Promise<T>;
  /** The session store of this workspace (writes through locks). */
  writer(): FileSessionStore;
  sessionDir(): string;
  /** Shows another session in the panel (e.g. a fork). */
  show(id: string): void;
  post(msg: HostToWebview): void;
  log: vscode.LogOutputChannel;
}

const WHAT_LABEL: Record<RestoreWhat, string> = { files: "the files", conversation: "the conversation", both: "the files and the conversation" };

export class CheckpointControls implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private storeCache: { dir: string; store: CheckpointStore } | undefined;

  private contentRegistered = false;

  constructor(private readonly access: CheckpointSessionAccess) {}

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  private store(): CheckpointStore {
    const dir = this.access.sessionDir();
    if (this.storeCache?.dir !== dir) this.storeCache = { dir, store: nodeCheckpointStore(dir) };
    return this.storeCache.store;
  }

  /** A message of the panel's checkpoints block. */
  async handle(msg: CheckpointMessage): Promise<void> {
    try {
      switch (msg.type) {
        case "checkpointPreview":
          this.access.post({ type: "checkpointPreview", preview: await this.preview(msg.turn, msg.userSeq) });
          return;
        case "checkpointRestore":
          await this.restore(msg.turn, msg.userSeq, msg.what);
          return;
        case "checkpointUndo":
          await this.undo();
          return;
        case "checkpointFork":
          await this.fork(msg.turn, msg.userSeq);
          return;
        case "checkpointDiff":
          await this.openDiff(msg.turn, msg.userSeq, msg.root, msg.path);
          return;
        default:
          msg satisfies never;
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.access.log.warn(`checkpoints: ${message}`);
      this.access.post({ type: "error", message: `Yoke: ${message}` });
    }
  }

  /** Posts the restore that can be undone (after every state the panel gets). */
  pushUndo(): void {
    this.access.post({ type: "checkpointUndo", undo: this.undoView() });
  }

  private undoView(): CheckpointUndoView | null {
    const shown = this.access.shown();
    const last = shown && lastRestore(shown.events);
    if (!last) return null;
    const what = last.files && last.conversation ? "both" : last.files ? "files" : "conversation";
    return { turn: last.turn, files: last.files, conversation: last.conversation, text: `Restored ${WHAT_LABEL[what]} to the end of turn ${last.turn}.` };
  }

  /** The session's events, checked against the turn the panel showed (a stale control is refused). */
  private eventsFor(turn: number, userSeq: number | undefined): { id: string; events: readonly SessionEvent[]; turns: number } {
    const shown = this.access.shown();
    if (!shown) throw new Error("no session is shown: open one first");
    const turns = turnsOf(shown.events);
    if (!Number.isInteger(turn) || turn < 0 || turn > turns.length) throw new Error(`this session has turns 0 to ${turns.length}, not ${turn}`);
    if (turn > 0 && userSeq !== undefined && turns[turn - 1]!.seq !== userSeq) throw new Error("the conversation changed since this was shown: look again at the turn you mean");
    return { id: shown.id, events: shown.events, turns: turns.length };
  }

  /** What restoring to the end of `turn` would change. */
  async preview(turn: number, userSeq?: number): Promise<CheckpointPreviewView> {
    const { events, turns } = this.eventsFor(turn, userSeq);
    const { target, plans, problems } = await previewRestore(this.store(), events, turn);
    const names = new Map((target.checkpoint?.folders ?? []).map((f) => [f.root, f.name]));
    const files = plans.flatMap((p) => planStats(p).map((st) => ({ folder: names.get(p.root) ?? p.root, root: p.root, ...st })));
    const kept = plans.reduce((n, p) => n + p.kept.length, 0);
    const undoHint = lastRestore(events) ? " To go back to the files before your last restore, use Undo restore." : "";
    const filesNote = !target.checkpoint
      ? turn === turns
        ? `Turn ${turn} is the last turn: the files are as the agent (or you) left them since.${undoHint}`
        : `No change was checkpointed after turn ${turn}: the files are as the agent left them then.`
      : files.length
        ? `${files.length} file${files.length === 1 ? "" : "s"} would be put back as they were after turn ${turn}${kept ? `; ${kept} left as they are (skipped or unknown then)` : ""}.`
        : `The files are already as they were after turn ${turn}.`;
    const conversationAvailable = target.fromSeq !== undefined;
    const conversationNote = conversationAvailable
      ? `Turn${turns - turn === 1 ? "" : "s"} ${turn + 1}${turns > turn + 1 ? `–${turns}` : ""} would leave the conversation (kept in the log: Undo restore brings ${turns - turn === 1 ? "it" : "them"} back).`
      : `Turn ${turn} is the last turn: the conversation has nothing to rewind.`;
    return { turn, userSeq: userSeq ?? turnsOf(events)[turn - 1]?.seq ?? 0, turns, files, kept, problems, filesAvailable: files.length > 0, filesNote, conversationAvailable, conversationNote };
  }

  /** A proposal under review was made against the files as they are: accepting it after a restore would mix the two. */
  private refuseUnderReview(): void {
    const n = this.access.pendingReviews();
    if (n) throw new Error(`${n} change${n === 1 ? " waits" : "s wait"} for your review: accept or reject ${n === 1 ? "it" : "them"} first, then restore the files`);
  }

  private refuseWhileRunning(what: string): void {
    if (this.access.running()) throw new Error(`the agent is working on a turn: stop it (or wait until it is done), then ${what}`);
  }

  /** The workspace folders a restore snapshots first (the undo point): those the checkpoints recorded. */
  private folders(events: readonly SessionEvent[]): WorkspaceFolder[] {
    const c = checkpointsOf(events).at(-1) ?? events.find((e): e is Extract<SessionEvent, { type: "checkpoint" }> => e.type === "checkpoint");
    if (c) return c.folders.map((f) => ({ name: f.name, root: f.root }));
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => ({ name: f.name, root: f.uri.fsPath }));
  }

  async restore(turn: number, userSeq: number | undefined, what: RestoreWhat): Promise<RestoreResult> {
    this.refuseWhileRunning("restore");
    this.eventsFor(turn, userSeq);
    if (what !== "conversation") this.refuseUnderReview();
    const result = await this.access.write((w) => restoreTo({ store: this.store(), events: w.events, append: w.append, folders: this.folders(w.events()) }, turn, what));
    this.access.log.info(`checkpoints: restored ${what} to turn ${turn}: ${result.lines.join("; ")}`);
    this.access.post({ type: "checkpointPreview", preview: null });
    this.pushUndo();
    return result;
  }

  async undo(): Promise<RestoreResult> {
    this.refuseWhileRunning("undo the restore");
    this.refuseUnderReview();
    const result = await this.access.write((w) => undoRestore({ store: this.store(), events: w.events, append: w.append, folders: this.folders(w.events()) }));
    this.access.log.info(`checkpoints: undid the last restore: ${result.lines.join("; ")}`);
    this.pushUndo();
    return result;
  }

  /** A new session from the end of `turn`, the files as they were then; shown in the panel. */
  async fork(turn: number, userSeq?: number): Promise<string> {
    this.refuseWhileRunning("fork");
    const { id: source, events, turns } = this.eventsFor(turn, userSeq);
    if (turn < 1) throw new Error("fork from turn 1 or later (a fork from before the first message is a new session)");
    if (turn < turns) this.refuseUnderReview();
    const writer = this.access.writer();
    const fork = forkSession(writer, source, undefined, turn < turns ? { turn } : {});
    try {
      if (turn < turns) {
        const checkpoint = checkpointAfterTurn(events, turn);
        if (checkpoint) {
          const { log } = SessionLog.open(writer, fork.id);
          const folders = checkpoint.folders.map((f) => ({ name: f.name, root: f.root }));
          await restoreForFork({ store: this.store(), events: () => log.events, append: (e) => log.append(e), folders }, checkpoint, turn).catch((err: unknown) => {
            throw new Error(`forked as ${fork.id}, but its files could not be put back as they were after turn ${turn}: ${err instanceof Error ? err.message : String(err)}`);
          });
          log.sync();
        }
      }
    } finally {
      writer.unlock(fork.id);
    }
    this.access.log.info(`checkpoints: session ${source} forked from turn ${turn} as ${fork.id}`);
    this.access.post({ type: "checkpointPreview", preview: null });
    this.access.show(fork.id);
    this.pushUndo();
    return fork.id;
  }

  /** Opens VS Code's diff editor: the file now (left) and as it was after the turn (right). */
  async openDiff(turn: number, userSeq: number | undefined, root: string, path: string): Promise<void> {
    const { events } = this.eventsFor(turn, userSeq);
    const folder = restoreTarget(events, turn).checkpoint?.folders.find((f) => f.root === root && f.commit);
    if (!folder?.commit) throw new Error(`no checkpoint of ${root} after turn ${turn}`);
    // First: the store checks the path is one inside the folder.
    const thenExists = (await this.store().readFile(root, folder.commit, path)) !== undefined;
    const now = fileUri(root, path);
    const exists = await vscode.workspace.fs.stat(now).then(
      () => true,
      () => false,
    );
    if (!this.contentRegistered) {
      // On first use: the right side of the diff, served from the shadow repository.
      this.disposables.push(vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, { provideTextDocumentContent: (uri) => this.content(uri) }));
      this.contentRegistered = true;
    }
    const then = checkpointUri(root, folder.commit, path);
    const empty = checkpointUri(root, "", path);
    await vscode.commands.executeCommand("vscode.diff", exists ? now : empty, thenExists ? then : empty, shownTitle(`${path} (now ↔ after turn ${turn})`), { preview: true });
  }

  private async content(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const root = q.get("root") ?? "";
    const commit = q.get("commit") ?? "";
    const path = q.get("path") ?? "";
    if (!commit) return "";
    const bytes = await this.store().readFile(root, commit, path);
    if (!bytes) return "";
    if (bytes.includes(0)) return `(binary file, ${bytes.length} bytes)`;
    return new TextDecoder().decode(bytes);
  }

  /** "Yoke: Restore Checkpoint…": a turn, what to restore, the preview (files open their diff), then restore. */
  async restoreCommand(): Promise<void> {
    try {
      const shown = this.access.shown();
      if (!shown) {
        void notify("info", "Yoke: no session is shown. Open one (Yoke: Open Session…) first.");
        return;
      }
      this.refuseWhileRunning("restore");
      const turns = turnsOf(shown.events);
      if (!turns.length) {
        void notify("info", "Yoke: this session has no turns to restore to yet.");
        return;
      }
      const turnPick = await vscode.window.showQuickPick(
        [
          ...[...turns].reverse().map((t) => ({ label: `Turn ${t.turn}`, description: t.text, turn: t.turn, userSeq: t.seq as number | undefined })),
          { label: "Turn 0", description: "before the first message", turn: 0, userSeq: undefined as number | undefined },
        ],
        { title: "Yoke: Restore Checkpoint", placeHolder: "Restore to the end of which turn?", matchOnDescription: true },
      );
      if (!turnPick) return;
      const preview = await this.preview(turnPick.turn, turnPick.userSeq);
      const options: { label: string; detail: string; what: RestoreWhat }[] = [];
      if (preview.filesAvailable && preview.conversationAvailable) options.push({ label: "Files and conversation", detail: `${preview.filesNote} ${preview.conversationNote}`, what: "both" });
      if (preview.filesAvailable) options.push({ label: "Files only", detail: preview.filesNote, what: "files" });
      if (preview.conversationAvailable) options.push({ label: "Conversation only", detail: preview.conversationNote, what: "conversation" });
      if (!options.length) {
        void notify("info", `Yoke: nothing to restore to the end of turn ${turnPick.turn}. ${preview.filesNote} ${preview.conversationNote}`);
        return;
      }
      const whatPick = await vscode.window.showQuickPick(options, { title: `Yoke: Restore to the end of turn ${turnPick.turn}`, placeHolder: "What to restore?" });
      if (!whatPick) return;
      if (!(await this.confirm(preview, whatPick.what))) return;
      const result = await this.restore(turnPick.turn, turnPick.userSeq, whatPick.what);
      void this.offerUndo(result.lines.join(" "));
    } catch (err) {
      void notify("error", `Yoke: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The palette's preview: the files a restore changes (selecting one opens its diff), then Restore or Cancel. */
  private confirm(preview: CheckpointPreviewView, what: RestoreWhat): Promise<boolean> {
    type Item = vscode.QuickPickItem & { act: "restore" | "cancel" | "diff"; root?: string; path?: string };
    const diffButton = { iconPath: new vscode.ThemeIcon("diff"), tooltip: "Open the diff" };
    const files = what === "conversation" ? [] : preview.files;
    const summary = [what !== "conversation" ? `${files.length} file${files.length === 1 ? "" : "s"}` : "", what !== "files" ? preview.conversationNote : ""].filter(Boolean).join(" · ");
    const items: Item[] = [
      { label: `$(history) Restore ${WHAT_LABEL[what]} to the end of turn ${preview.turn}`, detail: summary, act: "restore" },
      { label: "$(close) Cancel", act: "cancel" },
      ...(files.length ? [{ label: "Files", kind: vscode.QuickPickItemKind.Separator, act: "cancel" as const }] : []),
      ...files.map((f): Item => ({
        label: f.path,
        description: `${f.action === "delete" ? "deleted" : "restored"} · ${f.binary ? "binary" : f.counted ? `+${f.added} −${f.removed}` : "diff too long to count"}`,
        detail: preview.files.some((g) => g.root !== f.root) ? f.folder : undefined,
        buttons: [diffButton],
        act: "diff",
        root: f.root,
        path: f.path,
      })),
    ];
    return new Promise((resolve) => {
      const qp = vscode.window.createQuickPick<Item>();
      qp.title = `Yoke: Restore Checkpoint — preview (turn ${preview.turn})`;
      qp.placeholder = "Select a file to see its diff; then Restore, or Cancel";
      qp.items = items.map(shownItem);
      qp.ignoreFocusOut = true;
      let done = false;
      const finish = (ok: boolean) => {
        if (done) return;
        done = true;
        resolve(ok);
        qp.dispose();
      };
      const diff = (item: Item) =>
        void this.openDiff(preview.turn, preview.userSeq || undefined, item.root!, item.path!).catch((err: unknown) => void notify("error", `Yoke: ${(err as Error).message}`));
      qp.onDidTriggerItemButton((e) => diff(e.item));
      qp.onDidAccept(() => {
        const item = qp.selectedItems[0];
        if (!item) return;
        if (item.act === "diff") diff(item);
        else finish(item.act === "restore");
      });
      qp.onDidHide(() => finish(false));
      qp.show();
    });
  }

  private async offerUndo(text: string): Promise<void> {
    const pick = await notify("info", `Yoke: ${text}`, "Undo Restore");
    if (pick !== "Undo Restore") return;
    try {
      await this.undo();
    } catch (err) {
      void notify("error", `Yoke: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function fileUri(root: string, path: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === "file" && f.uri.fsPath === root);
  return folder ? vscode.Uri.joinPath(folder.uri, ...path.split("/")) : vscode.Uri.file(join(root, path));
}

function checkpointUri(root: string, commit: string, path: string): vscode.Uri {
  const query = new URLSearchParams({ root, commit, path }).toString();
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path}`, query });
}
