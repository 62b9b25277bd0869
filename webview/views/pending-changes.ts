// Changes the agent proposed (waiting for review) or applied (auto mode, revertable): one row per
// file with +/- counts and buttons. The files of one change of several files (a patch, issue 21)
// are listed together under one header whose buttons decide the whole change; each file keeps
// its own buttons (and its hunks their CodeLens in the editor). Owned by the change review (src/host/review).
import type { ReviewItemView, WebviewToHost } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el } from "../ui/dom";

type Action = Extract<WebviewToHost, { type: "reviewAction" }>["action"];

const OP_LETTER: Record<NonNullable<ReviewItemView["op"]>, string> = { update: "M", add: "A", delete: "D", move: "R" };
const OP_WORD: Record<NonNullable<ReviewItemView["op"]>, string> = { update: "changed", add: "added", delete: "deleted", move: "moved" };

export class PendingChanges {
  readonly root = el("section", { class: "pending-changes", "data-testid": "pending-changes", hidden: true });

  constructor(private readonly onAction: (editId: string, action: Action) => void) {}

  set(items: readonly ReviewItemView[]): void {
    clear(this.root);
    const shown = items.filter((i) => i.status !== "reverted");
    this.root.hidden = shown.length === 0;
    const pendingSets = new Set(shown.flatMap((i) => (i.status === "pending" && i.setId ? [i.setId] : [])));
    const pending = shown.filter((i) => i.status === "pending" && !i.setId).length + pendingSets.size;
    if (!shown.length) return;
    this.root.append(el("div", { class: "pending-title" }, [pending ? `Changes to review (${pending})` : "Applied changes"]));
    const done = new Set<string>();
    for (const item of shown) {
      if (!item.setId) {
        this.root.append(this.row(item));
        continue;
      }
      if (done.has(item.setId)) continue;
      done.add(item.setId);
      this.root.append(
        this.group(
          item.setId,
          shown.filter((i) => i.setId === item.setId),
        ),
      );
    }
  }

  /** One change of several files: a header deciding all of it, then a row per file. */
  private group(setId: string, files: readonly ReviewItemView[]): HTMLElement {
    const act = (action: Action) => () => this.onAction(setId, action);
    const left = files.reduce((n, f) => n + f.undecided, 0);
    const total = files.reduce((n, f) => n + f.hunks, 0);
    const header = el("div", { class: "pending-set-header" }, [
      el("span", { class: "pending-path" }, [`One change, ${files.length} files · ${left}/${total} hunks left`]),
      el("span", { class: "pending-buttons" }, [
        button({ icon: "check-all", title: "Accept the whole change (every file, every hunk still open)", testid: "accept-change-set", onClick: act("accept") }),
        button({ icon: "close-all", title: "Reject the whole change (no file is changed)", testid: "reject-change-set", onClick: act("reject") }),
      ]),
    ]);
    return el("div", { class: "pending-set", "data-testid": "pending-change-set", "data-set": setId, "data-files": String(files.length) }, [header, ...files.map((f) => this.row(f))]);
  }

  private row(item: ReviewItemView): HTMLElement {
    const act = (action: Action) => () => this.onAction(item.editId, action);
    const buttons =
      item.status === "pending"
        ? [
            button({ icon: "check", title: item.setId ? "Accept this file's hunks" : "Accept all hunks", testid: "accept-change", onClick: act("accept") }),
            button({ icon: "discard", title: item.setId ? "Reject this file's hunks" : "Reject all hunks", testid: "reject-change", onClick: act("reject") }),
            button({ icon: "diff", title: "Open diff", testid: "open-change-diff", onClick: act("openDiff") }),
          ]
        : [
            button({ icon: "diff", title: "Open diff", testid: "open-change-diff", onClick: act("openDiff") }),
            button({ icon: "history", title: "Revert this change", testid: "revert-change", onClick: act("revert") }),
          ];
    const hunks = item.status === "pending" && item.hunks > 1 ? ` · ${item.undecided}/${item.hunks} hunks left` : "";
    const label = item.op ? `${OP_LETTER[item.op]} ${item.from ? `${item.from} → ` : ""}${item.relPath}` : item.relPath;
    return el("div", { class: "pending-change", "data-testid": "pending-change", "data-path": item.relPath, "data-status": item.status, ...(item.op ? { "data-op": item.op } : {}) }, [
      el("span", { class: "pending-path", title: item.op ? `${label} (${OP_WORD[item.op]})` : item.relPath }, [label]),
      el("span", { class: "pending-counts" }, [el("span", { class: "added" }, [`+${item.added}`]), " ", el("span", { class: "removed" }, [`−${item.removed}`]), hunks]),
      el("span", { class: "pending-buttons" }, buttons),
    ]);
  }
}
