// Changes the agent proposed (waiting for review) or applied (auto mode, revertable): one row per
// file with +/- counts and buttons. Owned by the change review (src/host/review).
import type { ReviewItemView, WebviewToHost } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el } from "../ui/dom";

type Action = Extract<WebviewToHost, { type: "reviewAction" }>["action"];

export class PendingChanges {
  readonly root = el("section", { class: "pending-changes", "data-testid": "pending-changes", hidden: true });

  constructor(private readonly onAction: (editId: string, action: Action) => void) {}

  set(items: readonly ReviewItemView[]): void {
    clear(this.root);
    const shown = items.filter((i) => i.status !== "reverted");
    this.root.hidden = shown.length === 0;
    const pending = shown.filter((i) => i.status === "pending").length;
    if (!shown.length) return;
    this.root.append(el("div", { class: "pending-title" }, [pending ? `Changes to review (${pending})` : "Applied changes"]));
    for (const item of shown) {
      const act = (action: Action) => () => this.onAction(item.editId, action);
      const buttons =
        item.status === "pending"
          ? [
              button({ icon: "check", title: "Accept all hunks", testid: "accept-change", onClick: act("accept") }),
              button({ icon: "discard", title: "Reject all hunks", testid: "reject-change", onClick: act("reject") }),
              button({ icon: "diff", title: "Open diff", testid: "open-change-diff", onClick: act("openDiff") }),
            ]
          : [
              button({ icon: "diff", title: "Open diff", testid: "open-change-diff", onClick: act("openDiff") }),
              button({ icon: "history", title: "Revert this change", testid: "revert-change", onClick: act("revert") }),
            ];
      const hunks = item.status === "pending" && item.hunks > 1 ? ` · ${item.undecided}/${item.hunks} hunks left` : "";
      this.root.append(
        el("div", { class: "pending-change", "data-testid": "pending-change", "data-path": item.relPath, "data-status": item.status }, [
          el("span", { class: "pending-path", title: item.relPath }, [item.relPath]),
          el("span", { class: "pending-counts" }, [el("span", { class: "added" }, [`+${item.added}`]), " ", el("span", { class: "removed" }, [`−${item.removed}`]), hunks]),
          el("span", { class: "pending-buttons" }, buttons),
        ]),
      );
    }
  }
}
