// Guidance in force in this session (lessons, skills, rules, project memory) and why; each entry
// can be pinned (always in force in this workspace) or muted (never). Owned by src/host/guidance.ts.
import type { GuidanceItemView, WebviewToHost } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el } from "../ui/dom";

type Action = Extract<WebviewToHost, { type: "guidanceAction" }>["action"];

const KIND = { lesson: "lesson", skill: "skill", rule: "rule", memory: "memory" } as const;

export class GuidanceList {
  readonly root = el("details", { class: "guidance", "data-testid": "guidance", hidden: true });

  constructor(private readonly onAction: (id: string, action: Action) => void) {
    (this.root as HTMLDetailsElement).open = true;
  }

  set(items: readonly GuidanceItemView[], problems: readonly string[]): void {
    const open = (this.root as HTMLDetailsElement).open;
    clear(this.root);
    this.root.hidden = items.length === 0 && problems.length === 0;
    if (this.root.hidden) return;
    const active = items.filter((i) => i.state === "active" && !i.muted).length;
    this.root.append(
      el("summary", { class: "guidance-title", "data-testid": "guidance-title" }, [
        `Guidance (${active} active${problems.length ? `, ${problems.length} problem${problems.length > 1 ? "s" : ""}` : ""})`,
      ]),
    );
    for (const p of problems) this.root.append(el("div", { class: "guidance-problem", "data-testid": "guidance-problem" }, [p]));
    for (const item of items) {
      const act = (action: Action) => () => this.onAction(item.id, action);
      const why = item.muted ? "muted" : item.reasons.length ? item.reasons.join("; ") : item.pinned ? "pinned" : item.state === "listed" ? "listed" : "";
      this.root.append(
        el(
          "div",
          {
            class: "guidance-item",
            "data-testid": "guidance-item",
            "data-id": item.id,
            "data-kind": item.kind,
            "data-state": item.state,
            "data-pinned": String(item.pinned),
            "data-muted": String(item.muted),
          },
          [
            el("span", { class: "guidance-kind" }, [KIND[item.kind]]),
            el("span", { class: "guidance-name", title: item.source }, [item.name]),
            el("span", { class: "guidance-reason", "data-testid": "guidance-reason" }, [why]),
            el("span", { class: "guidance-buttons" }, [
              button({
                icon: item.pinned ? "pinned" : "pin",
                title: item.pinned ? "Unpin" : "Pin: always in force in this workspace",
                testid: "guidance-pin",
                onClick: act(item.pinned ? "unpin" : "pin"),
              }),
              button({
                icon: item.muted ? "unmute" : "mute",
                title: item.muted ? "Unmute" : "Mute: never in force in this workspace",
                testid: "guidance-mute",
                onClick: act(item.muted ? "unmute" : "mute"),
              }),
            ]),
          ],
        ),
      );
    }
    (this.root as HTMLDetailsElement).open = open;
  }
}
