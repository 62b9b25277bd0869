// Checkpoints (src/host/checkpoints.ts): the control at the end of each turn (Restore…, Fork),
// the preview a restore shows first (the files it changes with +/- counts, each diff in VS Code's
// diff editor; what leaves the conversation) with its Restore buttons, and "Undo restore".
import type { CheckpointPreviewView, CheckpointUndoView, ViewItem, WebviewToHost } from "../../src/protocol/messages";
import { button, setDisabled } from "../ui/components";
import { clear, el, icon } from "../ui/dom";

type TurnItem = Extract<ViewItem, { kind: "turn" }>;

/** The control under a turn's answer. Its buttons act through CheckpointsPanel.handleClick (event delegation). */
export function renderTurnControl(item: TurnItem): HTMLElement {
  const act = (action: string, label: string, iconName: string, title: string) => {
    const b = button({ label, icon: iconName, appearance: "secondary", title, testid: `turn-${action}`, onClick: () => {} });
    b.setAttribute("data-checkpoint-action", action);
    return b;
  };
  return el("div", { class: "turn-control", "data-testid": "turn-control", "data-id": item.id, "data-turn": String(item.turn), "data-user-seq": String(item.userSeq) }, [
    el("span", { class: "turn-label" }, [icon("history"), ` Turn ${item.turn}`]),
    act("restore", "Restore…", "discard", `Restore the files and/or the conversation to the end of turn ${item.turn} (a preview first)`),
    act("fork", "Fork", "repo-forked", `A new session from the end of turn ${item.turn}, with the files as they were then`),
    ...(item.cost ? [el("span", { class: "turn-cost", "data-testid": "turn-cost", title: item.cost.detail }, [item.cost.line])] : []),
  ]);
}

export class CheckpointsPanel {
  readonly root = el("section", { class: "checkpoints", "data-testid": "checkpoints" });
  private readonly previewBox = el("div", { class: "checkpoint-preview", "data-testid": "checkpoint-preview", role: "dialog", hidden: true });
  private readonly undoBox = el("div", { class: "checkpoint-undo", "data-testid": "checkpoint-undo-bar", role: "status", hidden: true });
  private undoDismissed: string | undefined;
  private running = false;
  private readonly buttons: HTMLElement[] = [];
  private undoButton: HTMLElement | undefined;

  constructor(private readonly send: (msg: WebviewToHost) => void) {
    this.root.append(this.previewBox, this.undoBox);
  }

  /** A click in the transcript: a turn control's button asks the host (preview first, or fork). */
  handleClick(ev: Event): void {
    const target = ev.target instanceof Element ? ev.target.closest("[data-checkpoint-action]") : null;
    const control = target?.closest("[data-testid=turn-control]");
    if (!target || !control || target.hasAttribute("disabled")) return;
    const turn = Number(control.getAttribute("data-turn"));
    const userSeq = Number(control.getAttribute("data-user-seq"));
    if (target.getAttribute("data-checkpoint-action") === "fork") this.send({ type: "checkpointFork", turn, userSeq });
    else this.send({ type: "checkpointPreview", turn, userSeq });
  }

  /** While a turn runs, restores are refused by the host: the buttons say so before it does. */
  setRunning(running: boolean): void {
    this.running = running;
    for (const b of this.buttons) setDisabled(b, running);
    if (this.undoButton) setDisabled(this.undoButton, running);
  }

  showPreview(p: CheckpointPreviewView | null): void {
    clear(this.previewBox);
    this.buttons.length = 0;
    this.previewBox.hidden = !p;
    if (!p) return;
    this.previewBox.setAttribute("data-turn", String(p.turn));
    const ref = { turn: p.turn, userSeq: p.userSeq };
    const restore = (what: "files" | "conversation" | "both", label: string, enabled: boolean, appearance: "primary" | "secondary") => {
      const b = button({ label, appearance, testid: `checkpoint-restore-${what}`, onClick: () => this.send({ type: "checkpointRestore", ...ref, what }) });
      if (!enabled) b.setAttribute("data-unavailable", "");
      setDisabled(b, !enabled || this.running);
      if (enabled) this.buttons.push(b);
      return b;
    };
    const files = p.files.map((f) =>
      el("div", { class: "checkpoint-file", "data-testid": "checkpoint-file", "data-path": f.path, "data-action": f.action }, [
        el("span", { class: `checkpoint-action ${f.action}` }, [f.action === "delete" ? "D" : "M"]),
        el("span", { class: "checkpoint-path", title: `${f.folder}: ${f.path}` }, [p.files.some((g) => g.root !== f.root) ? `${f.folder}/${f.path}` : f.path]),
        el(
          "span",
          { class: "checkpoint-counts", "data-testid": "checkpoint-file-counts" },
          f.binary ? ["binary"] : f.counted ? [el("span", { class: "added" }, [`+${f.added}`]), " ", el("span", { class: "removed" }, [`−${f.removed}`])] : ["diff too long to count"],
        ),
        button({ icon: "diff", title: `Open the diff of ${f.path}`, testid: "checkpoint-file-diff", onClick: () => this.send({ type: "checkpointDiff", ...ref, root: f.root, path: f.path }) }),
      ]),
    );
    this.previewBox.append(
      el("div", { class: "checkpoint-title" }, [`Restore to the end of turn ${p.turn}`]),
      el("div", { class: "checkpoint-section" }, [el("strong", {}, ["Files: "]), p.filesNote]),
      ...files,
      ...p.problems.map((x) => el("div", { class: "checkpoint-problem" }, [x])),
      el("div", { class: "checkpoint-section" }, [el("strong", {}, ["Conversation: "]), p.conversationNote]),
      el("div", { class: "checkpoint-buttons" }, [
        restore("both", "Restore both", p.filesAvailable && p.conversationAvailable, "primary"),
        restore("files", "Files only", p.filesAvailable, "secondary"),
        restore("conversation", "Conversation only", p.conversationAvailable, "secondary"),
        button({ label: "Cancel", appearance: "secondary", testid: "checkpoint-cancel", onClick: () => this.showPreview(null) }),
      ]),
    );
    this.previewBox.scrollIntoView?.({ block: "nearest" });
  }

  setUndo(u: CheckpointUndoView | null): void {
    clear(this.undoBox);
    this.undoButton = undefined;
    const key = u ? JSON.stringify(u) : undefined;
    this.undoBox.hidden = !u || key === this.undoDismissed;
    if (!u) return;
    const undo = button({ label: "Undo restore", icon: "reply", appearance: "secondary", testid: "checkpoint-undo", onClick: () => this.send({ type: "checkpointUndo" }) });
    setDisabled(undo, this.running);
    this.undoButton = undo;
    this.undoBox.append(
      el("span", { class: "checkpoint-undo-text" }, [u.text]),
      undo,
      button({
        icon: "close",
        title: "Dismiss",
        onClick: () => {
          this.undoDismissed = key;
          this.undoBox.hidden = true;
        },
      }),
    );
  }
}
