// Shown when no provider is configured: what to set up, and local servers found on this machine.
import type { FirstRunView, WebviewToHost } from "../../src/protocol/messages";
import { button, progressRing } from "../ui/components";
import { el, clear } from "../ui/dom";

export class FirstRun {
  readonly root = el("section", { class: "first-run", "data-testid": "first-run", hidden: true });

  constructor(private readonly send: (msg: WebviewToHost) => void) {}

  show(info: FirstRunView | null): void {
    clear(this.root);
    this.root.hidden = !info;
    if (!info) return;
    const servers = info.probing
      ? el("div", { class: "probing" }, [progressRing(), " Looking for local model servers (Ollama, LM Studio, llama.cpp)…"])
      : info.servers.length
        ? el(
            "div",
            { class: "servers" },
            info.servers.map((s) =>
              button({
                label: `Use ${s.name} (${s.model})`,
                testid: "use-local-server",
                onClick: () => this.send({ type: "useLocalServer", baseUrl: s.baseUrl, model: s.model }),
              }),
            ),
          )
        : el("div", { class: "servers-none" }, ["No local server answered on ports 11434 (Ollama), 1234 (LM Studio) or 8080 (llama.cpp)."]);
    this.root.append(
      el("h2", {}, ["Choose a model"]),
      el("p", {}, [
        "Yoke needs a model provider. Set an API key for Anthropic or OpenAI, pick a model from another extension (provider ",
        el("code", {}, ["vscode-lm"]),
        "), or point ",
        el("code", {}, ["yoke.baseUrl"]),
        " at any OpenAI-compatible server.",
      ]),
      servers,
      // Demo model: one click to see Yoke work with no key and no server (src/host/demo-model.ts).
      ...(info.probing
        ? []
        : [
            el("div", { class: "first-run-demo" }, [
              button({ label: "Try the demo model", appearance: info.servers.length ? "secondary" : "primary", testid: "use-demo-model", onClick: () => this.send({ type: "useDemoModel" }) }),
              el("span", { class: "hint" }, [" A scripted stand-in for an LLM, built in: no key, no server. It shows each feature, and says so."]),
            ]),
          ]),
      el("div", { class: "first-run-actions" }, [
        button({ label: "Set API Key", appearance: "secondary", testid: "set-api-key", onClick: () => this.send({ type: "setApiKey" }) }),
        button({ label: "Open Settings", appearance: "secondary", onClick: () => this.send({ type: "openSettings" }) }),
        info.probing ? null : button({ label: "Look again", appearance: "secondary", onClick: () => this.send({ type: "probeLocalServers" }) }),
      ]),
      el("p", { class: "hint" }, ["Keys are kept in VS Code's secret storage, never in settings files."]),
    );
  }
}
