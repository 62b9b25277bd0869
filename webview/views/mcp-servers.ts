// The session's MCP servers: one collapsible row per server with its state, why (when it is not
// running) and its tools. Fed by the host's `mcpServers` message (src/host/mcp.ts).
import type { McpServerItemView } from "../../src/protocol/messages";
import { clear, el, icon } from "../ui/dom";

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

  set(servers: readonly McpServerItemView[]): void {
    clear(this.root);
    this.root.hidden = servers.length === 0;
    if (!servers.length) return;
    const running = servers.filter((s) => s.state === "running").length;
    this.root.append(el("summary", { class: "mcp-title" }, [icon("server"), ` MCP servers (${running}/${servers.length} running)`]));
    for (const s of servers) {
      const row = el("details", { class: "mcp-server", "data-testid": "mcp-server", "data-name": s.name, "data-state": s.state }, [
        el("summary", { title: s.source }, [
          icon(ICONS[s.state] ?? "circle-outline"),
          " ",
          el("span", { class: "mcp-name" }, [s.name]),
          " ",
          el("span", { class: "mcp-state" }, [LABELS[s.state] ?? s.state]),
          ` · ${s.tools.length} tools`,
        ]),
        s.detail ? el("div", { class: "mcp-detail" }, [s.detail]) : null,
        s.tools.length
          ? el(
              "ul",
              { class: "mcp-tools" },
              s.tools.map((t) => el("li", { "data-testid": "mcp-tool" }, [t])),
            )
          : null,
      ]);
      this.root.append(row);
    }
  }
}
