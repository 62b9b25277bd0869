// Extension entry point. activate() stays cheap: it registers the view and the commands; the
// session's ports (file system, search, store, provider) are built on first use.
import * as vscode from "vscode";
import type { Snapshot } from "../protocol/messages";
import { CHAT_VIEW_ID, ChatViewProvider } from "./panel/chat-view-provider";
import type { SessionController } from "./session-controller";
import { mcpOAuthUriHandler } from "./mcp-oauth-uri";
import { registerReview } from "./review"; // change review (src/host/review)
import { addToProjectMemory } from "./guidance";
import { ApiKeys, PROVIDERS, readSettings, writeUserSettings, type HostProviderId } from "./settings";
import { startHostWatchdog } from "./host-watchdog"; // event-loop watchdog (issue 12)
import { registerPalette } from "./commands"; // palette and editor commands, status bar (issue 13)

/** The session shown last in this window (written by the session controller). */
const LAST_SESSION_KEY = "yoke.lastSession";
import { notify, shownLog } from "./shown";

/** What activate() returns: used by tests running inside VS Code. */
export interface YokeExtensionApi {
  snapshot(): Promise<Snapshot>;
  send(text: string): Promise<void>;
}

export function activate(context: vscode.ExtensionContext): YokeExtensionApi {
  const started = performance.now();
  // Every line of the output channel is shown honestly (shown.ts): escapes, continuation lines indented.
  const log = shownLog(vscode.window.createOutputChannel("Yoke", { log: true }));
  const keys = new ApiKeys(context.secrets);
  context.subscriptions.push(startHostWatchdog(context, log));
  const review = registerReview(context, log); // change review: diff, CodeLens, commands
  let controller: SessionController | undefined;
  const getController = (): SessionController => {
    if (!controller) {
      controller = new (loadSessionModule().SessionController)(context, log, keys, () => panel.visible, review);
      context.subscriptions.push(controller);
      palette.attach(controller);
    }
    return controller;
  };
  const panel: ChatViewProvider = new ChatViewProvider(context.extensionUri, getController, log, () => loadSessionModule().parseWebviewToHost);
  const palette = registerPalette(context, { log, keys, review, reveal: () => panel.reveal(), controller: getController, existing: () => controller });

  context.subscriptions.push(
    log,
    panel,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.commands.registerCommand("yoke.focus", (args?: { fromKeybinding?: boolean }) => {
      // Ctrl+Alt+Y both focuses the chat and accepts the hunk at the cursor. If the key arrives in an
      // editor with a pending change before its context key has caught up, it still accepts the hunk.
      const editor = vscode.window.activeTextEditor;
      if (args?.fromKeybinding && editor && review.reviewer.pendingFor(editor.document.uri)) {
        return vscode.commands.executeCommand("yoke.acceptHunk");
      }
      return panel.reveal();
    }),
    vscode.commands.registerCommand("yoke.newSession", async () => {
      await panel.reveal();
      getController().newSession();
    }),
    vscode.commands.registerCommand("yoke.setApiKey", () => setApiKey(keys)),
    vscode.commands.registerCommand("yoke.clearApiKey", () => clearApiKey(keys)),
    vscode.commands.registerCommand("yoke.addToProjectMemory", () => addToProjectMemory()),
    vscode.commands.registerCommand("yoke.compactContext", () => getController().compact()),
    vscode.commands.registerCommand("yoke.restoreCheckpoint", () => getController().restoreCheckpoint()), // checkpoints (src/host/checkpoints.ts)
    vscode.commands.registerCommand("yoke.resetMcpInputs", () => getController().mcp.resetInputs()), // kept ${input:id} values (src/node/mcp/prompt-inputs.ts)
    vscode.window.registerUriHandler(mcpOAuthUriHandler(log)), // vscode://yoke-dev.yoke/mcp-oauth: MCP sign-ins in remote windows (src/host/mcp-oauth-uri.ts)
    vscode.commands.registerCommand("yoke.runInBackground", () => getController().agents.startFromPalette()), // background agents (src/host/agents)
  );

  log.info(`activated in ${(performance.now() - started).toFixed(1)} ms`);
  // A window that had a session: take up what it left open (a change under review comes back in
  // its editor, a question is asked again) even if the panel stays closed. After activation, so
  // the session bundle loads off the start-up path, and only when there was a session.
  if (context.workspaceState.get<string>(LAST_SESSION_KEY)) setTimeout(() => getController().restoreOnce(), 0);

  return {
    snapshot: () => getController().snapshot(),
    send: (text) => getController().send(text),
  };
}

export function deactivate(): void {}

/**
 * The agent core and the provider SDKs are a separate bundle (dist/session.js), compiled only when
 * the panel or a command first needs a session: activation itself loads a small file.
 */
function loadSessionModule(): typeof import("./session-controller") {
  const bundle = "./session.js"; // not a literal in require(): the bundler must not inline it
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load of the second bundle, on purpose
  return require(bundle) as typeof import("./session-controller");
}

const KEYED: readonly HostProviderId[] = ["anthropic", "openai", "openai-compatible"];

async function setApiKey(keys: ApiKeys): Promise<void> {
  const s = readSettings();
  let provider: HostProviderId | undefined = s.explicit && s.provider !== "vscode-lm" ? s.provider : undefined;
  if (!provider) {
    const pick = await vscode.window.showQuickPick(
      KEYED.map((p) => ({ label: p })),
      { title: "Yoke: Set API Key", placeHolder: "Which provider is the key for?" },
    );
    provider = pick?.label;
  }
  if (!provider) return;
  const key = await vscode.window.showInputBox({
    title: `Yoke: API key for ${provider}`,
    prompt: "Kept in VS Code's secret storage, never in settings files.",
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : "Enter the key, or press Escape to cancel."),
  });
  if (!key?.trim()) return;
  await keys.set(provider, key.trim());
  if (!s.explicit) await writeUserSettings({ provider });
  void notify("info", `Yoke: API key for ${provider} saved.`);
}

async function clearApiKey(keys: ApiKeys): Promise<void> {
  const stored: string[] = [];
  for (const p of PROVIDERS) if (await keys.get(p)) stored.push(p);
  if (!stored.length) {
    void notify("info", "Yoke: no API keys are stored.");
    return;
  }
  const pick = await vscode.window.showQuickPick(stored, { title: "Yoke: Clear API Key", placeHolder: "Remove the key of which provider?" });
  if (!pick) return;
  await keys.clear(pick);
  void notify("info", `Yoke: API key for ${pick} removed.`);
}
