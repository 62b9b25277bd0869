// The @-mention completion list under the prompt box: the host answers each `@query` with files,
// folders and the keywords; arrows move, Enter or Tab picks, Escape closes.
import type { CompletionView } from "../../src/protocol/messages";
import { clear, el, icon } from "../ui/dom";

const ICONS: Record<string, string> = { file: "file", folder: "folder", selection: "selection", problems: "warning", terminal: "terminal", "git-diff": "git-compare" };

/** The `@query` that ends at the caret, if the caret is in one (`@` at the start or after white space). */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|[\s(])@([^\s@"]{0,200})$/.exec(before);
  if (!m) return undefined;
  return { start: before.length - m[2]!.length - 1, query: m[2]! };
}

export class MentionList {
  readonly root = el("div", { class: "mention-list", role: "listbox", "data-testid": "mention-list", "aria-label": "Mentions", hidden: true });
  private items: CompletionView[] = [];
  private active = 0;

  constructor(private readonly onPick: (item: CompletionView) => void) {}

  get open(): boolean {
    return !this.root.hidden;
  }

  show(items: CompletionView[]): void {
    this.items = items;
    this.active = 0;
    this.render();
  }

  close(): void {
    this.items = [];
    this.root.hidden = true;
    clear(this.root);
  }

  /** Handles a key while open; true when it was the list's. */
  key(e: KeyboardEvent): boolean {
    if (!this.open) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const n = this.items.length;
      if (n === 0) return true;
      this.active = (this.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      this.render();
      return true;
    }
    if ((e.key === "Enter" && !e.shiftKey) || e.key === "Tab") {
      const item = this.items[this.active];
      if (!item) {
        this.close();
        return e.key === "Tab";
      }
      this.onPick(item);
      return true;
    }
    if (e.key === "Escape") {
      this.close();
      return true;
    }
    return false;
  }

  private render(): void {
    clear(this.root);
    this.root.hidden = false;
    if (this.items.length === 0) {
      this.root.append(el("div", { class: "mention-empty" }, ["No matching files, folders or mentions"]));
      return;
    }
    this.items.forEach((item, i) => {
      const row = el(
        "div",
        {
          class: `mention-item${i === this.active ? " active" : ""}`,
          role: "option",
          "aria-selected": i === this.active ? "true" : "false",
          "data-testid": "mention-item",
          "data-kind": item.item?.kind ?? "command",
        },
        [
          icon(item.item ? (ICONS[item.item.kind] ?? "mention") : "terminal-cmd"),
          el("span", { class: "mention-label" }, [item.label]),
          item.detail ? el("span", { class: "mention-detail" }, [item.detail]) : null,
        ],
      );
      // mousedown, not click: the textarea keeps the focus.
      row.addEventListener("mousedown", (e) => {
        e.preventDefault();
        this.onPick(item);
      });
      this.root.append(row);
      if (i === this.active) row.scrollIntoView?.({ block: "nearest" });
    });
  }
}
