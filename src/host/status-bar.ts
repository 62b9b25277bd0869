// The status-bar item: Yoke's state (idle / working / waiting for you), the permission mode and the
// model; clicking it focuses the chat. Before the session bundle is loaded it shows the settings;
// once a controller exists it follows what the controller posts to the panel (also while the panel
// is closed) and the change review's pending list.
import * as vscode from "vscode";
import type { HostToWebview, ViewState } from "../protocol/messages";
import type { ReviewFeature } from "./review";
import type { SessionController } from "./session-controller";
import { readSettings } from "./settings";
import { statusBarView, type StatusBarFacts } from "./status-view";

export const STATUS_BAR_ID = "yoke.status";

export class YokeStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subs: vscode.Disposable[] = [];
  private state: ViewState = "idle";
  private asking = false;
  /** The mode the controller reported; undefined until it did (then the setting is shown). */
  private mode: string | undefined;

  constructor(private readonly review: ReviewFeature) {
    this.item = vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Yoke";
    this.item.command = "yoke.focus";
    this.subs.push(
      this.item,
      review.onDidChange(() => this.render()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("yoke")) this.render();
      }),
    );
    this.render();
    this.item.show();
  }

  /** Follows the controller from now on (called once it is created). */
  attach(controller: SessionController): void {
    this.subs.push(controller.onDidPost((msg) => this.onPost(msg)));
    this.state = controller.isRunning ? "thinking" : this.state;
    void controller.currentMode().then(
      (mode) => {
        this.mode = mode;
        this.render();
      },
      () => undefined,
    );
  }

  private onPost(msg: HostToWebview): void {
    switch (msg.type) {
      case "state":
        this.state = msg.snapshot.state;
        this.asking = msg.snapshot.pending !== null;
        if (msg.snapshot.hostInfo) this.mode = msg.snapshot.hostInfo.mode;
        break;
      case "status":
        this.state = msg.state;
        break;
      case "permission":
        this.asking = msg.request !== null;
        break;
      case "hostInfo":
        this.mode = msg.info.mode;
        break;
      default:
        return;
    }
    this.render();
  }

  private facts(): StatusBarFacts {
    const s = readSettings();
    return {
      state: this.state,
      asking: this.asking,
      reviewing: this.review.list().filter((r) => r.status === "pending").length,
      mode: this.mode ?? s.permissionMode,
      model: s.demoLabel || s.model || (s.provider === "vscode-lm" ? "VS Code model" : ""),
    };
  }

  private render(): void {
    const view = statusBarView(this.facts());
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.accessibility, role: "button" };
    this.item.backgroundColor = view.state === "waiting" ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
