// The demo model offered in the panel's first-run view ("Try the demo model"): the scripted demo
// server (src/demo) started inside the extension host on a loopback port, and the settings pointed
// at it (user settings: Restricted Mode ignores a folder's provider and URL). A window reload starts
// it again on a new port before the next request. `npm start -- --demo` runs its own server instead.
import * as vscode from "vscode";
import { demoModel } from "../demo/demo-model";
import { DEMO_PROMPTS } from "../demo/demo-tour";
import { startScriptedLlmServer, type ScriptedServer } from "../demo/scripted-llm-server";
import type { Snapshot } from "../protocol/messages";
import { writeUserSettings, type HostSettings } from "./settings";

/** yoke.demoLabel of the demo model (npm start --demo writes the same). */
export const DEMO_LABEL = "demo model";
/** Set while this extension (not npm start) serves the demo model for the user's settings. */
const STARTED_HERE_KEY = "yoke.demoModelStartedHere";

export class HostDemoModel implements vscode.Disposable {
  private server: Promise<ScriptedServer> | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Starts the demo model and points the settings at it. */
  async use(): Promise<void> {
    const server = await this.start();
    await this.point(server);
    await this.state.update(STARTED_HERE_KEY, true);
    this.log.info(`demo model on ${server.openaiBaseUrl} (a scripted stand-in for an LLM; no key)`);
  }

  /** Before a request: the settings name the demo model this extension served before a reload: serve it again. */
  async ensure(s: HostSettings): Promise<void> {
    if (s.demoLabel !== DEMO_LABEL || !this.state.get<boolean>(STARTED_HERE_KEY)) return;
    const server = await this.start();
    if (s.baseUrl !== server.openaiBaseUrl) await this.point(server);
  }

  /** What the empty panel suggests while the demo model is in use. */
  view(s: HostSettings): Snapshot["demo"] {
    return s.demoLabel === DEMO_LABEL ? { label: DEMO_LABEL, prompts: DEMO_PROMPTS.map((p) => ({ ...p })) } : undefined;
  }

  private start(): Promise<ScriptedServer> {
    this.server ??= startScriptedLlmServer({ script: demoModel }).catch((err: unknown) => {
      this.server = undefined;
      throw err;
    });
    return this.server;
  }

  private async point(server: ScriptedServer): Promise<void> {
    await writeUserSettings({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "demo", demoLabel: DEMO_LABEL });
  }

  dispose(): void {
    void this.server?.then((s) => s.close()).catch(() => undefined);
  }
}
