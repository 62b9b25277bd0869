// The context the editor commands attached ("Add Selection to Chat", "Add File to Chat"), as chips
// above the prompt box until the next message takes them; × removes one. The host owns the list.
import type { ContextChipView } from "../../src/protocol/messages";
import { clear, el, icon } from "../ui/dom";

export class ContextChips {
  readonly root = el("div", { class: "context-chips", "data-testid": "context-chips", role: "list", "aria-label": "Context for the next message", hidden: true });

  constructor(private readonly onRemove: (id: string) => void) {}

  set(items: readonly ContextChipView[]): void {
    clear(this.root);
    for (const item of items) {
      const remove = el("button", { class: "context-chip-remove", "data-testid": "context-chip-remove", title: `Remove ${item.label}`, "aria-label": `Remove ${item.label}` }, [icon("close")]);
      remove.addEventListener("click", () => this.onRemove(item.id));
      this.root.append(
        el("span", { class: "context-chip", "data-testid": "context-chip", "data-kind": item.kind, title: item.detail, role: "listitem" }, [
          icon(item.kind === "file" ? "file" : "selection"),
          el("span", { class: "context-chip-label" }, [item.label]),
          remove,
        ]),
      );
    }
    this.root.hidden = items.length === 0;
  }
}
