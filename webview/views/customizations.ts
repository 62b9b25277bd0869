// The Customizations view (issue 23): everything that customizes a session in this workspace —
// rules and memory, lessons, skills, commands, agents, output styles, hooks, plugins, MCP servers —
// grouped by kind, each with where it came from (user / project / plugin, its file: click to open),
// its state and why, and the problems found. Plugins are managed here: install from a marketplace,
// enable, disable, remove, and approve after reading what their hooks and servers run.
// Owned by src/host/customizations.ts; listed when the view is opened.
import type { CustomizationView, HostToWebview, MarketplaceView, PluginView, WebviewToHost } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el } from "../ui/dom";

type Listing = Extract<HostToWebview, { type: "customizations" }>;
type Send = (msg: WebviewToHost) => void;

const GROUPS: ReadonlyArray<[CustomizationView["kind"], string]> = [
  ["memory", "Project memory"],
  ["rule", "Rules"],
  ["skill", "Skills"],
  ["command", "Commands"],
  ["agent", "Agents"],
  ["output-style", "Output styles"],
  ["hook", "Hooks"],
  ["plugin", "Plugins"],
  ["mcp-server", "MCP servers"],
  ["ignore-file", "Ignore files"],
  ["lesson", "Lessons"],
  ["excluded", "Not used"],
];

const STATE_LABEL: Record<string, string> = {
  always: "always on",
  folder: "in its folder",
  glob: "on matching files",
  listed: "agent-requested",
  manual: "manual",
  match: "when it matches",
  active: "in force",
  "over-budget": "over budget",
  enabled: "enabled",
  disabled: "disabled",
  "not-approved": "not approved",
  "not-trusted": "not trusted",
  "needs-approval": "asks first",
  inactive: "inactive",
  overridden: "overridden",
  excluded: "not used",
};

export class CustomizationsView {
  readonly root = el("details", { class: "customizations", "data-testid": "customizations" });
  private readonly body = el("div", { class: "cz-body" });

  constructor(private readonly send: Send) {
    this.root.append(el("summary", { class: "cz-title", "data-testid": "customizations-title" }, ["Customizations"]), this.body);
    this.root.addEventListener("toggle", () => {
      if ((this.root as HTMLDetailsElement).open) {
        clear(this.body);
        this.body.append(el("div", { class: "cz-loading" }, ["Listing…"]));
        this.send({ type: "customizations.refresh" });
      }
    });
  }

  set(l: Listing): void {
    clear(this.body);
    const inForce = l.items.filter((i) => i.inForce).length;
    const title = this.root.querySelector("summary");
    if (title) title.textContent = `Customizations (${l.items.length}, ${inForce} in force${l.problems.length ? `, ${l.problems.length} problem${l.problems.length > 1 ? "s" : ""}` : ""})`;
    for (const p of l.problems) this.body.append(el("div", { class: "cz-problem", "data-testid": "customization-problem" }, [p]));
    for (const [kind, label] of GROUPS) {
      const items = l.items.filter((i) => i.kind === kind);
      if (kind === "plugin") {
        if (items.length || l.plugins.length || l.marketplaces.length) this.body.append(this.pluginsGroup(l.plugins, l.marketplaces, items));
        continue;
      }
      if (!items.length) continue;
      const group = el("details", { class: "cz-group", "data-testid": "customization-group", "data-kind": kind }, [el("summary", {}, [`${label} (${items.length})`])]);
      (group as HTMLDetailsElement).open = kind !== "lesson" && kind !== "excluded";
      for (const i of items) group.append(this.row(i));
      this.body.append(group);
    }
  }

  private row(i: CustomizationView): HTMLElement {
    const name = i.path ? el("a", { class: "cz-name", href: "#", title: `Open ${i.source}`, "data-testid": "customization-open" }, [i.name]) : el("span", { class: "cz-name" }, [i.name]);
    if (i.path) {
      const path = i.path;
      name.addEventListener("click", (ev) => {
        ev.preventDefault();
        this.send({ type: "customizations.open", path });
      });
    }
    const origin = i.origin === "plugin" && i.plugin ? `plugin ${i.plugin}` : i.origin;
    return el(
      "div",
      { class: "cz-item", "data-testid": "customization", "data-kind": i.kind, "data-name": i.name, "data-origin": i.origin, "data-state": i.state, "data-in-force": String(i.inForce) },
      [
        el("div", { class: "cz-line" }, [
          name,
          el("span", { class: "cz-origin", "data-testid": "customization-origin" }, [origin]),
          el("span", { class: `cz-state cz-${i.inForce ? "on" : "off"}`, "data-testid": "customization-state" }, [STATE_LABEL[i.state] ?? i.state]),
        ]),
        el("div", { class: "cz-why", "data-testid": "customization-why", title: i.source }, [i.description ? `${i.description} — ${i.why}` : i.why]),
        el("div", { class: "cz-source" }, [i.source]),
      ],
    );
  }

  private pluginsGroup(plugins: readonly PluginView[], markets: readonly MarketplaceView[], items: readonly CustomizationView[]): HTMLElement {
    const group = el("details", { class: "cz-group", "data-testid": "customization-group", "data-kind": "plugin" }, [el("summary", {}, [`Plugins (${plugins.length})`])]);
    (group as HTMLDetailsElement).open = true;
    const act = (id: string, action: "install" | "enable" | "disable" | "remove" | "approve" | "deny", digest?: string) => () =>
      this.send({ type: "plugins.action", id, action, ...(digest ? { digest } : {}) });
    for (const p of plugins) {
      const item = items.find((i) => i.name === p.id);
      const row = item ? this.row(item) : el("div", { class: "cz-item", "data-testid": "customization", "data-kind": "plugin", "data-name": p.id });
      row.setAttribute("data-testid", "plugin");
      row.setAttribute("data-approved", String(p.approved));
      row.setAttribute("data-enabled", String(p.enabled));
      if (p.runsPrograms) {
        row.append(
          el("div", { class: "cz-programs", "data-testid": "plugin-programs" }, [
            p.approved ? "Approved; it runs:" : "Its hooks and MCP servers would run (only after you approve them):",
            el(
              "ul",
              {},
              p.programs.map((g) => el("li", { "data-testid": "plugin-program" }, [`${g.kind === "hook" ? "hook" : "MCP server"} ${g.name}: `, el("code", {}, [g.run])])),
            ),
          ]),
        );
      }
      row.append(
        el("div", { class: "cz-buttons" }, [
          button({ label: p.enabled ? "Disable" : "Enable", appearance: "secondary", testid: p.enabled ? "plugin-disable" : "plugin-enable", onClick: act(p.id, p.enabled ? "disable" : "enable") }),
          p.runsPrograms && !p.approved
            ? button({ label: "Approve", appearance: "primary", testid: "plugin-approve", title: "Let its hooks and MCP servers run, as installed now", onClick: act(p.id, "approve", p.digest) })
            : null,
          p.runsPrograms && p.approved ? button({ label: "Revoke approval", appearance: "secondary", testid: "plugin-deny", onClick: act(p.id, "deny") }) : null,
          button({ label: "Remove", appearance: "secondary", testid: "plugin-remove", onClick: act(p.id, "remove") }),
        ]),
      );
      group.append(row);
    }
    for (const m of markets) {
      const available = m.plugins.filter((p) => !p.installed);
      if (!available.length && !m.problem) continue;
      const market = el("div", { class: "cz-market", "data-testid": "marketplace", "data-name": m.name }, [el("div", { class: "cz-line" }, [`Marketplace ${m.name}`])]);
      if (m.problem) market.append(el("div", { class: "cz-problem" }, [m.problem]));
      for (const p of available) {
        market.append(
          el("div", { class: "cz-line", "data-testid": "marketplace-plugin", "data-id": p.id }, [
            el("span", { class: "cz-name" }, [p.id]),
            el("span", { class: "cz-why" }, [p.description ?? ""]),
            button({ label: "Install", appearance: "secondary", testid: "plugin-install", onClick: act(p.id, "install") }),
          ]),
        );
      }
      group.append(market);
    }
    return group;
  }
}
