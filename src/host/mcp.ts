/**
 * MCP in VS Code: one hub per session (src/node/mcp), asked for in the session options. A new
 * workspace-defined server needs the user's approval (a modal that says it runs as the user,
 * outside the command sandbox); `${input:id}` prompts of the mcp.json and settings.json files are
 * asked with an input box once and kept in the secret storage. Workspace servers never start in Restricted Mode.
 */
import * as vscode from "vscode";
import type { Extension } from "../core/extensions/types";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { McpInputAnswer, McpSourceKind } from "../core/mcp/config";
import { askFileInputs, forgetInputs, type InputFile } from "../node/mcp/prompt-inputs";
import { readSettingsText } from "../node/settings/files";
import { editorInputs, runCommandInputs } from "../node/mcp/command-inputs";
import type { McpHub } from "../core/mcp/types";
import { createBuiltinTools } from "../core/tools/builtin";
import type { ApprovalRequest } from "../node/mcp/hub";
import { createNodeMcp, type NodeMcp } from "../node/mcp/setup";
import type { SessionSettings } from "../node/session-settings";
import type { SandboxSettings } from "../node/commands/session-runner";
import type { McpClientDeps, McpElicitor, McpUrlElicitRequest } from "../core/mcp/client-requests";
import { validateElicitation, type ElicitAnswer, type ElicitRequest } from "../core/mcp/elicitation";
import type { McpElicitationView } from "../protocol/messages";
import { askToSignIn, openExactly, SecretCredentialStore, windowReceiver, sharedRedirects } from "./mcp-oauth";
import { YOKE_EXTENSION_ID } from "../node/mcp/oauth-redirect";
import { vscodeUserDirOf, vscodeUserMcpJson } from "../node/mcp/config-files";
import { agentMcpRegistry } from "../node/mcp/agent-hubs";
import { serverViews, type McpServerView } from "../node/mcp/server-views";
import { mcpLogLine, notify } from "./shown";

export type { McpServerView } from "../node/mcp/server-views";

interface OpenForm {
  view: McpElicitationView;
  req: ElicitRequest;
  settle(answer: ElicitAnswer): void;
}

export class HostMcp {
  /** The `${input:id}` values asked (or read from the secret storage) in this window, by file and id (prompt-inputs.ts inputKey). */
  private readonly inputs = new Map<string, string>();
  /** The values of the command inputs of the user's own mcp.json, run once per window (src/node/mcp/command-inputs.ts). */
  private commandInputs: Map<string, McpInputAnswer> | undefined;
  private current: NodeMcp | undefined;
  private foldersWatch: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<McpServerView[]>();
  readonly onDidChange = this.changed.event;
  private form: OpenForm | undefined;
  private formSeq = 0;
  private readonly formChanged = new vscode.EventEmitter<McpElicitationView | null>();
  /** Fires with the server's form to show in the panel, or null once it is answered or withdrawn. */
  readonly onDidChangeForm = this.formChanged.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where remote servers' OAuth tokens are kept (undefined: ~/.yoke/mcp-oauth.json, as the CLI). */
    private readonly secrets?: vscode.SecretStorage,
    /** The extension's global storage folder: where the window's profile (and its mcp.json) is. */
    private readonly globalStorage?: vscode.Uri,
  ) {}

  /** Custom agents' own servers (src/node/mcp/agent-hubs.ts) change the view too. */
  private readonly agentsWatch = agentMcpRegistry().onChange(() => this.changed.fire(this.views()));

  /** The panel's form for MCP elicitation: one open form at a time (a newer one cancels the older). */
  readonly elicitor: McpElicitor = {
    elicit: (req, signal) => {
      this.form?.settle({ action: "cancel" });
      return new Promise<ElicitAnswer>((resolve) => {
        const onAbort = () => entry.settle({ action: "cancel" });
        const entry: OpenForm = {
          view: { id: `form-${++this.formSeq}`, server: req.server, message: req.message, fields: req.fields },
          req,
          settle: (answer) => {
            if (this.form !== entry) return;
            this.form = undefined;
            signal.removeEventListener("abort", onAbort);
            this.formChanged.fire(null);
            resolve(answer);
          },
        };
        this.form = entry;
        signal.addEventListener("abort", onAbort, { once: true });
        this.formChanged.fire(entry.view);
        void notify("info", `Yoke: the MCP server "${req.server}" asks you to fill in a form in the Yoke panel.`, "Show").then((c) => {
          if (c === "Show") void vscode.commands.executeCommand("yoke.focus");
        });
      });
    },
    openUrl: (req) => this.openUrl(req),
    // "URL elicitation required": after Open, a notification's Done says the user finished (the
    // call is retried at once); it is ignored once the server's word or the timeout came first.
    urlDone: (req, signal) =>
      new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(new Error("the wait ended"));
        signal.addEventListener("abort", onAbort, { once: true });
        void notify("info", `Yoke: waiting for the MCP server "${req.server}" to hear that you finished at ${req.where}. Press Done when you have finished in the browser.`, "Done").then((c) => {
          signal.removeEventListener("abort", onAbort);
          if (c === "Done") resolve();
        });
      }),
  };

  /** URL mode: a modal shows the server and the URL; Open opens the browser (nothing is opened without it). */
  private async openUrl(req: McpUrlElicitRequest): Promise<"accept" | "decline" | "cancel"> {
    const choice = await notify("info", `Yoke: the MCP server "${req.server}" asks you to open a URL`, { modal: true, detail: `${req.message}\n\n${req.url}` }, "Open", "Decline");
    if (choice === "Decline") return "decline";
    if (choice !== "Open") return "cancel";
    return (await openExactly(req.url)) ? "accept" : "cancel";
  }

  /** The open form, if any (the panel asks for it when it connects). */
  get openForm(): McpElicitationView | null {
    return this.form?.view ?? null;
  }

  /** The panel's answer to the open form: a form with errors is shown again with them. */
  answerForm(id: string, action: "accept" | "decline" | "cancel", content: Record<string, unknown> | undefined): void {
    const form = this.form;
    if (!form || form.view.id !== id) return;
    if (action !== "accept") return form.settle({ action });
    const r = validateElicitation(form.req.fields, content ?? {});
    if ("errors" in r) {
      form.view = { ...form.view, errors: r.errors };
      this.formChanged.fire(form.view);
      return;
    }
    form.settle({ action: "accept", content: r.content });
  }

  /** The MCP view's Restart / Approve / Deny of one server of the current session. */
  async serverAction(server: string, action: "restart" | "approve" | "deny"): Promise<void> {
    const hub = this.current?.hub;
    if (!hub) throw new Error("No session has MCP servers yet: send a message first.");
    if (action === "restart") await hub.restart(server);
    else await hub.decide(server, action === "approve" ? "allow" : "deny");
    this.changed.fire(this.views());
  }

  /** The extension of a new session (its hub stops every server when the session ends). */
  async extensions(settingsFiles?: SessionSettings["settingsFiles"], client?: McpClientDeps, sandboxPaths?: SandboxSettings["paths"]): Promise<Extension[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== "file") return [];
    const cwd = folder.uri.fsPath;
    const trusted = vscode.workspace.isTrusted;
    const userDir = this.globalStorage?.scheme === "file" ? vscodeUserDirOf(this.globalStorage.fsPath) : undefined;
    const prompted = await this.askInputs(cwd, trusted, userDir);
    if (userDir) await this.runCommandInputs(userDir);
    const folders = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
    const mcp = createNodeMcp({
      cwd,
      roots: folders(),
      trusted,
      input: editorInputs(prompted, this.commandInputs ?? new Map()),
      approve: (req) => this.approve(req),
      log: (m) => this.log.warn(`MCP: ${m}`),
      // A server's own log messages go to Yoke's output channel at their level.
      serverLog: (server, e) => {
        // One server message is one entry: each of its continuation lines names the server (shown.ts mcpLogLine).
        const line = mcpLogLine(server, e.level, e.text);
        if (e.level === "debug") this.log.debug(line);
        else if (e.level === "info" || e.level === "notice") this.log.info(line);
        else if (e.level === "warning") this.log.warn(line);
        else this.log.error(line);
        // The MCP view shows the last ones (the hub passes at most MCP_LOG_PER_MINUTE a minute here).
        this.changed.fire(this.views());
      },
      // OAuth: tokens in the secret storage; a sign-in asked with a notification that opens the browser.
      oauth: {
        ...(this.secrets ? { store: new SecretCredentialStore(this.secrets) } : {}),
        authorize: askToSignIn,
        // A pre-registered client's secret (Claude Code's `oauth.clientId`): a password box, kept in the secret storage.
        askClientSecret: ({ server, clientId }) =>
          Promise.resolve(
            vscode.window.showInputBox({
              title: `Yoke: the MCP server "${server}" signs in as the OAuth client ${clientId}`,
              prompt: "Its client secret (leave empty for a public client with none). It is kept in VS Code's secret storage.",
              password: true,
              ignoreFocusOut: true,
            }),
          ),
        // A remote window: the browser's answer comes through the URI handler, not 127.0.0.1.
        ...(() => {
          const receiver = windowReceiver(YOKE_EXTENSION_ID);
          return { ...(receiver ? { receiver } : {}), alsoRegister: sharedRedirects(YOKE_EXTENSION_ID) };
        })(),
        howToSignIn: () => "Restart the server from the MCP servers view to be asked again.",
      },
      ...(settingsFiles ? { settingsFiles } : {}),
      // The sandbox's writable folders of this session: no neutral start folder for the person's servers.
      ...(sandboxPaths ? { sandboxPaths } : {}),
      ...(client ? { client: { ...client, elicitor: this.elicitor } } : {}),
      // VS Code's user-profile mcp.json: the profile of this window (a named profile's own folder).
      ...(() => {
        const dir = this.globalStorage?.scheme === "file" ? vscodeUserDirOf(this.globalStorage.fsPath) : undefined;
        return dir ? { vscodeUserDir: dir } : {};
      })(),
    });
    // Notes about keys Yoke does not apply (the server loaded) stay in the log and the Customizations view, not a warning each session.
    for (const p of mcp.problems) if (!p.loaded) void notify("warning", `Yoke: ${p.message}`);
    this.current = mcp;
    // The finished agents of the previous session leave the view.
    agentMcpRegistry().clearFinished();
    // Roots follow the window's folders (servers are told with roots/list_changed).
    this.foldersWatch?.dispose();
    this.foldersWatch = vscode.workspace.onDidChangeWorkspaceFolders(() => mcp.hub.setRoots(folders()));
    const fire = () => this.changed.fire(this.views());
    mcp.hub.onChange(fire);
    fire();
    return [mcp.extension(createBuiltinTools().map((t) => t.name))];
  }

  /** "Yoke: Reset MCP Inputs" (VS Code's "MCP: Reset Cached Inputs"): the kept `${input:id}` values are forgotten and asked again at the next session. */
  async resetInputs(): Promise<void> {
    const n = this.secrets ? await forgetInputs(this.secrets, this.inputs) : (this.inputs.clear(), 0);
    void notify("info", `Yoke: ${n} kept MCP input value${n === 1 ? "" : "s"} forgotten; the next session asks again.`);
  }

  /** The hub of the latest session (the composer completes its prompts and resources). */
  hub(): McpHub | undefined {
    return this.current?.hub;
  }

  /** The session's servers, then those custom agents brought, under their agent. */
  views(): McpServerView[] {
    return serverViews(this.current?.hub.status() ?? [], agentMcpRegistry().list());
  }

  dispose(): void {
    this.form?.settle({ action: "cancel" });
    this.formChanged.dispose();
    this.foldersWatch?.dispose();
    this.agentsWatch.dispose();
    void this.current?.dispose();
    this.changed.dispose();
  }

  /** Runs, once per window, the commands of the `type: "command"` inputs the user's own mcp.json uses (never a repository's). */
  private async runCommandInputs(userDir: string): Promise<void> {
    if (this.commandInputs) return;
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(`${userDir}/mcp.json`)));
    } catch {
      return;
    }
    this.commandInputs = await runCommandInputs(text, async (command, args) => (args === undefined ? vscode.commands.executeCommand(command) : vscode.commands.executeCommand(command, args)));
    for (const [id, v] of this.commandInputs) if (typeof v === "object") this.log.warn(`MCP: \${input:${id}} of your mcp.json: ${v.unavailable}`);
  }

  /**
   * Asks the `${input:id}` prompts of .vscode/mcp.json, .vscode/settings.json (`mcp.inputs`; only in
   * a trusted workspace) and your mcp.json and settings.json, each once: the answer is kept in the
   * secret storage (src/node/mcp/prompt-inputs.ts), so a later window does not ask again.
   */
  private askInputs(cwd: string, trusted: boolean, userDir: string | undefined) {
    const user = userDir ?? dirname(vscodeUserMcpJson(homedir()));
    const file = (kind: McpSourceKind, path: string, label: string): InputFile => ({ kind, text: readSettingsText(path).text, label });
    const files = [
      ...(trusted ? [file("vscode-mcp-json", join(cwd, ".vscode", "mcp.json"), ".vscode/mcp.json"), file("vscode-settings", join(cwd, ".vscode", "settings.json"), ".vscode/settings.json")] : []),
      file("vscode-user-mcp-json", join(user, "mcp.json"), "your mcp.json"),
      file("vscode-user-settings", join(user, "settings.json"), "your settings.json"),
    ];
    return askFileInputs(
      files,
      cwd,
      this.inputs,
      (spec, f) =>
        Array.isArray(spec.options) && spec.options.length
          ? vscode.window.showQuickPick(spec.options, { title: `MCP: ${spec.description || spec.id}`, ignoreFocusOut: true })
          : vscode.window.showInputBox({
              title: `MCP: ${spec.description || spec.id}`,
              prompt: `A value for \${input:${spec.id}} in ${f.label} (kept in VS Code's secret storage)`,
              password: spec.password === true,
              value: spec.default,
              ignoreFocusOut: true,
            }),
      this.secrets,
    );
  }

  private async approve(req: ApprovalRequest): Promise<"allow" | "deny" | undefined> {
    const start = "Start Server";
    const never = "Don't Start";
    const pick = await notify(
      "warning",
      `Start the MCP server "${req.server.name}" defined by this workspace?`,
      {
        modal: true,
        detail: `${req.description}\n\nFrom ${req.server.sourcePath}.\nIt runs as you, outside Yoke's command sandbox, with your files and network. Yoke remembers your answer; a changed definition asks again.`,
      },
      start,
      never,
    );
    return pick === start ? "allow" : pick === never ? "deny" : undefined;
  }
}
