// The side panel: a WebviewViewProvider that validates every inbound message and hands it to the controller.
import { activity } from "../../node/watchdog";
import * as vscode from "vscode";
import type { HostToWebview, parseWebviewToHost } from "../../protocol/messages";
import type { SessionController } from "../session-controller";
import { renderPanelHtml } from "../../node/panel/html";

export const CHAT_VIEW_ID = "yoke.chat";

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private subs: vscode.Disposable[] = [];

  /**
   * `parser`: the protocol's check of the webview's messages, from the session bundle (its zod
   * schemas are built when the first message arrives, not at activation; that message loads the
   * session bundle for the controller anyway).
   */
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: () => SessionController,
    private readonly log: vscode.LogOutputChannel,
    private readonly parser: () => typeof parseWebviewToHost,
  ) {}

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.disposeView();
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    const asUri = (name: string) => view.webview.asWebviewUri(vscode.Uri.joinPath(dist, name)).toString();
    view.webview.html = renderPanelHtml({
      cspSource: view.webview.cspSource,
      scriptUri: asUri("webview.js"),
      styleUri: asUri("webview.css"),
      codiconUri: asUri("codicon.css"),
    });
    const resolved = performance.now();
    /** When the webview last said ready and has not had its state yet (timing for the log). */
    let readyAt: number | undefined;
    const post = (msg: HostToWebview) => {
      if (this.view !== view) return;
      if (msg.type === "state" && readyAt !== undefined) {
        this.log.info(`panel: state sent ${(performance.now() - readyAt).toFixed(0)} ms after ready`);
        readyAt = undefined;
      }
      void view.webview.postMessage(msg).then(undefined, () => undefined);
    };
    // The controller (and the session bundle behind it) is loaded after this returns, so the
    // webview boots while the extension host compiles it.
    let controller: SessionController | undefined;
    const connected = (): SessionController => {
      if (!controller) {
        controller = this.controller();
        controller.connect(post);
      }
      return controller;
    };
    const warmUp = setTimeout(() => {
      if (this.view === view) connected();
    }, 0);
    this.subs.push(
      { dispose: () => clearTimeout(warmUp) },
      view.webview.onDidReceiveMessage((raw: unknown) => {
        const parsed = this.parser()(raw);
        if (!parsed.ok) {
          this.log.warn(`dropped an invalid message from the webview: ${parsed.error}`);
          return;
        }
        if (parsed.message.type === "ready") {
          readyAt = performance.now();
          this.log.info(`panel: webview ready ${(readyAt - resolved).toFixed(0)} ms after the view was resolved`);
        }
        activity(`webview:${parsed.message.type}`, () => connected().handle(parsed.message)).catch((err: unknown) => {
          this.log.error(`handling ${parsed.message.type} failed: ${(err as Error)?.stack ?? String(err)}`);
          post({ type: "error", message: (err as Error)?.message ?? String(err) });
        });
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          controller?.disconnect();
          this.disposeView();
        }
      }),
    );
  }

  /** Reveals the panel (the view container and the view). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  dispose(): void {
    this.disposeView();
  }

  private disposeView(): void {
    for (const s of this.subs) s.dispose();
    this.subs = [];
    this.view = undefined;
  }
}
