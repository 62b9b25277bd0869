// Top bar: model label, loop status, token/cost meter, new-session button.
import type { UsageView, ViewState } from "../../src/protocol/messages";
import { formatUsage, RUNNING_STATES, stateHint } from "../format";
import { button, progressRing } from "../ui/components";
import { el } from "../ui/dom";

export class Header {
  readonly root: HTMLElement;
  private readonly model = el("span", { class: "model-label", "data-testid": "model-label" });
  private readonly status = el("span", { class: "status", "data-testid": "status" });
  private readonly usage = el("span", { class: "usage-meter", "data-testid": "usage-meter" });
  private readonly ring = progressRing();

  constructor(onNewSession: () => void) {
    this.ring.hidden = true;
    this.root = el("header", { class: "header" }, [
      el("div", { class: "header-main" }, [this.model, el("span", { class: "status-wrap" }, [this.ring, this.status])]),
      el("div", { class: "header-side" }, [
        this.usage,
        button({ icon: "add", title: "New session", testid: "new-session", onClick: onNewSession }),
      ]),
    ]);
  }

  setModel(label: string, mode: string): void {
    this.model.textContent = label || "no model";
    this.model.title = `Model: ${label || "not configured"} · permission mode: ${mode}`;
  }

  setStatus(state: ViewState, detail?: string): void {
    this.status.textContent = state;
    this.status.dataset.state = state;
    this.status.title = detail ? `${stateHint(state)} (${detail})` : stateHint(state);
    this.ring.hidden = !RUNNING_STATES.has(state);
  }

  setUsage(u: UsageView): void {
    this.usage.textContent = formatUsage(u);
    this.usage.title = `${u.inputTokens} input tokens (${u.cacheReadTokens} from cache) · ${u.outputTokens} output tokens${u.costUsd === undefined ? " · price unknown" : ""}`;
  }
}
