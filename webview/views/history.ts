// Sessions of this workspace: a collapsible list; clicking one opens (resumes) it.
import type { SessionItemView } from "../../src/protocol/messages";
import { formatWhen } from "../format";
import { el, clear, icon } from "../ui/dom";

export class History {
  readonly root: HTMLDetailsElement;
  private readonly title = el("span", {}, ["History"]);
  private readonly list = el("ul", { class: "history-list" });

  constructor(onOpen: (id: string) => void) {
    this.root = el("details", { class: "history", "data-testid": "history" }, [el("summary", {}, [icon("history"), " ", this.title]), this.list]);
    this.list.addEventListener("click", (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>("[data-session-id]");
      if (item?.dataset.sessionId) {
        onOpen(item.dataset.sessionId);
        this.root.open = false;
      }
    });
    this.list.addEventListener("keydown", (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>("[data-session-id]");
      if (item?.dataset.sessionId && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        onOpen(item.dataset.sessionId);
      }
    });
  }

  set(sessions: SessionItemView[]): void {
    this.title.textContent = `History (${sessions.length})`;
    this.root.hidden = sessions.length === 0;
    clear(this.list);
    if (!sessions.length) {
      this.list.appendChild(el("li", { class: "history-empty" }, ["No sessions yet."]));
      return;
    }
    for (const s of sessions) {
      this.list.appendChild(
        el(
          "li",
          {
            class: `session-item${s.active ? " active" : ""}${s.parentId ? " sub-session" : ""}`,
            "data-testid": "session-item",
            "data-session-id": s.id,
            "data-status": s.status,
            ...(s.inUse ? { "data-in-use": "true" } : {}),
            tabindex: "0",
            role: "button",
          },
          [el("span", { class: "session-title" }, [s.title]), el("span", { class: "session-meta" }, [s.inUse ? `in use by ${s.inUse}` : `${s.status} · ${formatWhen(s.updatedAt)}`])],
        ),
      );
    }
  }
}
