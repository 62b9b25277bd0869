// Messages typed while the agent works, waiting: "steer" ones go in at the next step, queued ones
// after the task. Each can be edited (Enter saves, Escape cancels) or removed before it is sent.
import type { QueuedView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el, setText } from "../ui/dom";

export class QueueList {
  readonly root = el("div", { class: "queue-list", "data-testid": "queue-list", hidden: true });
  private editing: string | undefined;

  constructor(
    private readonly onEdit: (id: string, text: string) => void,
    private readonly onRemove: (id: string) => void,
    private readonly onMode: (id: string, mode: "steer" | "queue") => void,
  ) {}

  set(items: readonly QueuedView[]): void {
    if (this.editing && !items.some((i) => i.id === this.editing)) this.editing = undefined;
    // Never re-render under an open editor: typing there is not lost.
    if (this.editing) return;
    clear(this.root);
    this.root.hidden = items.length === 0;
    for (const item of items) this.root.append(this.row(item));
  }

  private row(item: QueuedView): HTMLElement {
    const text = el("div", { class: "queued-text", "data-testid": "queued-text" }, [item.text]);
    const chips = item.chips.length
      ? el(
          "div",
          { class: "chips" },
          item.chips.map((c) => el("span", { class: "chip", "data-kind": c.kind }, [`@${c.label}`])),
        )
      : null;
    const mode = item.mode === "steer" ? "steer: at the next step" : "queued: after the task";
    return el("div", { class: "queued", "data-testid": "queued-message", "data-id": item.id, "data-mode": item.mode }, [
      el("span", { class: "queued-mode" }, [mode]),
      text,
      chips,
      el("div", { class: "queued-actions" }, [
        button({
          icon: item.mode === "steer" ? "list-ordered" : "debug-step-into",
          title: item.mode === "steer" ? "Queue it instead (send after the task)" : "Steer instead (deliver at the next step)",
          testid: "queued-mode",
          onClick: () => this.onMode(item.id, item.mode === "steer" ? "queue" : "steer"),
        }),
        button({ icon: "edit", title: "Edit", testid: "queued-edit", onClick: () => this.edit(text, item) }),
        button({ icon: "close", title: "Remove (never sent)", testid: "queued-remove", onClick: () => this.onRemove(item.id) }),
      ]),
    ]);
  }

  private edit(text: HTMLElement, item: QueuedView): void {
    this.editing = item.id;
    const box = el("textarea", { class: "prompt-input queued-editor", "data-testid": "queued-editor", rows: "2", "aria-label": "Edit the waiting message" });
    box.value = item.text;
    const done = (save: boolean) => {
      const value = box.value.trim();
      this.editing = undefined;
      if (save && value && value !== item.text) this.onEdit(item.id, value);
      else text.hidden = false;
      box.remove();
      if (!save || !value || value === item.text) return;
      setText(text, value);
      text.hidden = false;
    };
    box.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        done(true);
      } else if (e.key === "Escape") {
        e.preventDefault();
        done(false);
      }
    });
    box.addEventListener("blur", () => {
      if (this.editing === item.id) done(true);
    });
    text.hidden = true;
    text.after(box);
    box.focus();
  }
}
