// Settings problems (malformed settings files), the sandbox warning, and the background commands of
// the session with a stop button each. Shown for as long as they apply.
import type { HostInfoView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { el, clear, icon, setText } from "../ui/dom";

export class HostInfoPanel {
  readonly root = el("div", { class: "host-info" });
  private readonly problems = el("div", { class: "banner warning settings-problems", "data-testid": "settings-problems", role: "status", hidden: true });
  private readonly sandboxWarning = el("div", { class: "banner warning", "data-testid": "sandbox-warning", role: "status", hidden: true });
  private readonly background = el("div", { class: "background-list", "data-testid": "background-processes", hidden: true });

  constructor(private readonly onKill: (id: string) => void) {
    this.root.append(this.problems, this.sandboxWarning, this.background);
  }

  set(info: HostInfoView): void {
    clear(this.problems);
    this.problems.hidden = info.problems.length === 0;
    if (info.problems.length) {
      this.problems.append(el("div", { class: "banner-title" }, [icon("warning"), " Settings problems"]));
      for (const p of info.problems) this.problems.append(el("div", { class: "settings-problem", "data-testid": "settings-problem" }, [p]));
    }
    const sb = info.sandbox;
    const warning = sb ? (sb.warning ?? (sb.name === "none" ? "Sandbox off: commands run with your full user rights." : undefined)) : undefined;
    this.sandboxWarning.hidden = !warning;
    setText(this.sandboxWarning, warning ?? "");
    clear(this.background);
    this.background.hidden = info.background.length === 0;
    if (info.background.length) this.background.append(el("div", { class: "background-title" }, ["Background commands"]));
    for (const p of info.background) {
      this.background.append(
        el("div", { class: "background-process", "data-testid": "background-process", "data-id": p.id }, [
          el("code", { class: "background-command", title: p.command }, [p.command]),
          button({ icon: "debug-stop", title: `Stop ${p.id}`, testid: "kill-process", onClick: () => this.onKill(p.id) }),
        ]),
      );
    }
  }
}
