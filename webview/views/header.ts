// Top bar: model label, loop status, permission mode (switchable), sandbox badge, token/cost meter,
// new-session button.
import { PERMISSION_MODES, type HostInfoView, type UsageView, type ViewState } from "../../src/protocol/messages";
import { formatUsage, RUNNING_STATES, stateHint } from "../format";
import { button, progressRing } from "../ui/components";
import { el, setShownAttr, setText } from "../ui/dom";

export class Header {
  readonly root: HTMLElement;
  private readonly model = el("span", { class: "model-label", "data-testid": "model-label" });
  private readonly status = el("span", { class: "status", "data-testid": "status" });
  private readonly usage = el("span", { class: "usage-meter", "data-testid": "usage-meter" });
  private readonly ring = progressRing();
  private readonly mode = el("select", { class: "mode-select", "data-testid": "mode", "aria-label": "Permission mode", title: "Permission mode" }) as HTMLSelectElement;
  private readonly sandbox = el("span", { class: "sandbox-badge", "data-testid": "sandbox", hidden: true });

  constructor(onNewSession: () => void, onMode: (mode: (typeof PERMISSION_MODES)[number]) => void) {
    this.ring.hidden = true;
    for (const m of PERMISSION_MODES) this.mode.appendChild(el("option", { value: m }, [MODE_LABELS[m]]));
    this.mode.addEventListener("change", () => onMode(this.mode.value as (typeof PERMISSION_MODES)[number]));
    this.root = el("header", { class: "header" }, [
      el("div", { class: "header-main" }, [this.model, el("span", { class: "status-wrap" }, [this.ring, this.status])]),
      el("div", { class: "header-side" }, [this.mode, this.sandbox, this.usage, button({ icon: "add", title: "New session", testid: "new-session", onClick: onNewSession })]),
    ]);
  }

  setModel(label: string, mode: string): void {
    setText(this.model, label || "no model");
    setShownAttr(this.model, "title", `Model: ${label || "not configured"} · permission mode: ${mode}`);
  }

  /** The permission mode and the sandbox badge ("bwrap · network off"). */
  setHostInfo(info: Pick<HostInfoView, "mode" | "sandbox" | "disabledModes">): void {
    for (const option of Array.from(this.mode.options)) {
      const disabled = info.disabledModes?.includes(option.value as HostInfoView["mode"]) ?? false;
      option.disabled = disabled;
      option.title = disabled ? "Turned off by the settings (disableBypassPermissionsMode)" : "";
    }
    this.mode.value = info.mode;
    this.mode.dataset.mode = info.mode;
    const sb = info.sandbox;
    this.sandbox.hidden = !sb;
    if (!sb) return;
    setText(this.sandbox, sb.name === "none" || sb.name === "unavailable" ? `no sandbox` : `${sb.name}${sb.network ? ` · network ${sb.network}` : ""}`);
    this.sandbox.dataset.sandbox = sb.name;
    this.sandbox.classList.toggle("warning", Boolean(sb.warning) || sb.name === "none" || sb.name === "unavailable");
    setShownAttr(this.sandbox, "title", sb.warning ?? `Commands run in the ${sb.name} sandbox${sb.network ? `, network ${sb.network}` : ""}.`);
  }

  setStatus(state: ViewState, detail?: string): void {
    this.status.textContent = state;
    this.status.dataset.state = state;
    setShownAttr(this.status, "title", detail ? `${stateHint(state)} (${detail})` : stateHint(state));
    this.ring.hidden = !RUNNING_STATES.has(state);
  }

  setUsage(u: UsageView): void {
    this.usage.textContent = formatUsage(u);
    this.usage.title = u.detail
      ? `This session: ${u.detail}`
      : `${u.inputTokens} input tokens (${u.cacheReadTokens} from cache) · ${u.outputTokens} output tokens${u.costUsd === undefined ? " · price unknown" : ""}`;
  }
}

const MODE_LABELS: Record<(typeof PERMISSION_MODES)[number], string> = {
  default: "Ask (default)",
  acceptEdits: "Accept edits",
  plan: "Plan (read-only)",
  bypassPermissions: "Bypass permissions",
};
