// The session's MCP servers: one collapsible row per server with its state, why (when it is not
// running), its last error, its last log messages, its tools, and its actions: Restart (an approved server), Approve /
// Deny (a workspace server waiting for approval). Fed by the host's `mcpServers` message
// (src/host/mcp.ts); actions go back as `mcpServerAction`.
import type { McpServerItemView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { clear, el, icon } from "../ui/dom";

export type McpServerAction = "restart" | "approve" | "deny";

/** States of a server that may run in this session (approved): Restart applies. */
const RESTARTABLE = new Set(["running", "configured", "starting", "failed", "stopped"]);

const ICONS: Record<string, string> = {
  running: "pass",
  configured: "circle-outline",
  starting: "loading",
  failed: "error",
  stopped: "debug-stop",
  not_approved: "question",
  untrusted: "shield",
  disabled: "circle-slash",
};

const LABELS: Record<string, string> = {
  configured: "starts on first use",
  not_approved: "not approved",
  untrusted: "not started: workspace not trusted",
};

export class McpServersPanel {
  readonly root = el("details", { class: "mcp-servers", "data-testid": "mcp-servers", hidden: true });
  /** Servers the user opened, kept open across updates. */
  private readonly open = new Set<string>();

  constructor(private readonly onAction: (server: string, action: McpServerAction) => void = () => undefined) {}

  set(servers: readonly McpServerItemView[]): void {
    clear(this.root);
    this.root.hidden = servers.length === 0;
    if (!servers.length) return;
    const wasOpen = (this.root as HTMLDetailsElement).open;
    const running = servers.filter((s) => s.state === "running").length;
    this.root.append(el("summary", { class: "mcp-title" }, [icon("server"), ` MCP servers (${running}/${servers.length} running)`]));
    let agent: string | undefined;
    for (const s of servers) {
      // Servers a custom agent brought (its own mcpServers): under a heading for that agent.
      if (s.agent !== undefined && s.agent !== agent) {
        agent = s.agent;
        this.root.append(
          el("div", { class: "mcp-agent", "data-testid": "mcp-agent", "data-agent": s.agent }, [icon("hubot"), ` Agent ${s.agent} (${s.agentRunning ? "running" : "finished"}): its own servers`]),
        );
      }
      const key = s.agent !== undefined ? `${s.agent}/${s.name}` : s.name;
      const row = el("details", { class: "mcp-server", "data-testid": "mcp-server", "data-name": s.name, "data-state": s.state, ...(s.agent !== undefined ? { "data-agent": s.agent } : {}) }, [
        el("summary", { title: s.source }, [
          icon(ICONS[s.state] ?? "circle-outline"),
          " ",
          el("span", { class: "mcp-name" }, [s.name]),
          " ",
          el("span", { class: "mcp-state" }, [LABELS[s.state] ?? s.state]),
          ` · ${s.tools.length} tools`,
        ]),
        s.detail ? el("div", { class: "mcp-detail" }, [s.detail]) : null,
        s.lastError && s.lastError !== s.detail ? el("div", { class: "mcp-last-error", "data-testid": "mcp-last-error" }, [`Last error: ${s.lastError}`]) : null,
        this.actions(s),
        // The server's last log messages (MCP logging; its level: `logLevel` in its definition).
        s.logs?.length
          ? el("div", { class: "mcp-logs", "data-testid": "mcp-logs" }, [
              el("div", { class: "mcp-logs-title" }, [`Log (last ${s.logs.length})`]),
              el(
                "ul",
                {},
                s.logs.map((l) => el("li", { "data-testid": "mcp-log" }, [l])),
              ),
            ])
          : null,
        s.tools.length
          ? el(
              "ul",
              { class: "mcp-tools" },
              s.tools.map((t) => el("li", { "data-testid": "mcp-tool" }, [t])),
            )
          : null,
      ]);
      if (this.open.has(key)) (row as HTMLDetailsElement).open = true;
      row.addEventListener("toggle", () => ((row as HTMLDetailsElement).open ? this.open.add(key) : this.open.delete(key)));
      this.root.append(row);
    }
    (this.root as HTMLDetailsElement).open = wasOpen;
  }

  private actions(s: McpServerItemView): HTMLElement | null {
    const act = (action: McpServerAction) => () => this.onAction(s.name, action);
    const buttons: HTMLElement[] = [];
    // An agent's server lives with the agent's run: nothing to restart or approve here.
    if (s.agent !== undefined) return null;
    if (s.state === "not_approved" && s.workspace) {
      buttons.push(button({ label: "Approve", title: `Start ${s.name} (defined by the workspace: it runs as you, outside the sandbox)`, testid: "mcp-approve", onClick: act("approve") }));
      buttons.push(button({ label: "Deny", appearance: "secondary", testid: "mcp-deny", onClick: act("deny") }));
    } else if (RESTARTABLE.has(s.state)) {
      buttons.push(button({ label: "Restart", appearance: "secondary", title: `Stop ${s.name} if it runs and start it again`, testid: "mcp-restart", onClick: act("restart") }));
    }
    return buttons.length ? el("div", { class: "mcp-actions" }, buttons) : null;
  }
}
