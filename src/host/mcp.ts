/**
 * MCP in VS Code: one hub per session (src/node/mcp), asked for in the session options. A new
 * workspace-defined server needs the user's approval (a modal that says it runs as the user,
 * outside the command sandbox); `${input:id}` prompts of .vscode/mcp.json are asked with an input
 * box once per window. Workspace servers never start in Restricted Mode.
 */
import * as vscode from "vscode";
import type { Extension } from "../core/extensions/types";
import { parseJsonc, type McpInputSpec } from "../core/mcp/config";
import type { McpHub, McpServerStatus } from "../core/mcp/types";
import { createBuiltinTools } from "../core/tools/builtin";
import type { ApprovalRequest } from "../node/mcp/hub";
import { createNodeMcp, type NodeMcp } from "../node/mcp/setup";
import type { SessionSettings } from "../node/session-settings";

/** What the panel shows of one server. */
export interface McpServerView {
  name: string;
  state: string;
  detail?: string;
  source: string;
  tools: string[];
}

export class HostMcp {
  private readonly inputs = new Map<string, string>();
  private current: NodeMcp | undefined;
  private foldersWatch: vscode.Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<McpServerView[]>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** The extension of a new session (its hub stops every server when the session ends). */
  async extensions(settingsFiles?: SessionSettings["settingsFiles"]): Promise<Extension[]> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== "file") return [];
    const cwd = folder.uri.fsPath;
    const trusted = vscode.workspace.isTrusted;
    if (trusted) await this.askInputs(cwd);
    const folders = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
    const mcp = createNodeMcp({
      cwd,
      roots: folders(),
      trusted,
      input: (spec) => this.inputs.get(spec.id),
      approve: (req) => this.approve(req),
      log: (m) => this.log.warn(`MCP: ${m}`),
      ...(settingsFiles ? { settingsFiles } : {}),
    });
    for (const p of mcp.problems) void vscode.window.showWarningMessage(`Yoke: ${p.message}`);
    this.current = mcp;
    // Roots follow the window's folders (servers are told with roots/list_changed).
    this.foldersWatch?.dispose();
    this.foldersWatch = vscode.workspace.onDidChangeWorkspaceFolders(() => mcp.hub.setRoots(folders()));
    const fire = () => this.changed.fire(this.views());
    mcp.hub.onChange(fire);
    fire();
    return [mcp.extension(createBuiltinTools().map((t) => t.name))];
  }

  /** The hub of the latest session (the composer completes its prompts and resources). */
  hub(): McpHub | undefined {
    return this.current?.hub;
  }

  views(): McpServerView[] {
    return (this.current?.hub.status() ?? []).map(view);
  }

  dispose(): void {
    this.foldersWatch?.dispose();
    void this.current?.dispose();
    this.changed.dispose();
  }

  /** Asks, once per window, the `${input:id}` values .vscode/mcp.json refers to. */
  private async askInputs(cwd: string): Promise<void> {
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(`${cwd}/.vscode/mcp.json`)));
    } catch {
      return;
    }
    let value: { inputs?: unknown };
    try {
      value = parseJsonc(text) as { inputs?: unknown };
    } catch {
      return; // reported as a problem by the parser
    }
    const specs = Array.isArray(value?.inputs) ? (value.inputs as McpInputSpec[]) : [];
    for (const spec of specs) {
      if (!spec || typeof spec.id !== "string" || this.inputs.has(spec.id) || !text.includes(`\${input:${spec.id}}`)) continue;
      const answer = Array.isArray(spec.options)
        ? await vscode.window.showQuickPick(
            spec.options.filter((o): o is string => typeof o === "string"),
            { title: `MCP: ${spec.description || spec.id}`, ignoreFocusOut: true },
          )
        : await vscode.window.showInputBox({
            title: `MCP: ${spec.description || spec.id}`,
            prompt: `A value for \${input:${spec.id}} in .vscode/mcp.json`,
            password: spec.password === true,
            value: typeof spec.default === "string" ? spec.default : undefined,
            ignoreFocusOut: true,
          });
      if (answer !== undefined) this.inputs.set(spec.id, answer);
    }
  }

  private async approve(req: ApprovalRequest): Promise<"allow" | "deny" | undefined> {
    const start = "Start Server";
    const never = "Don't Start";
    const pick = await vscode.window.showWarningMessage(
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

function view(s: McpServerStatus): McpServerView {
  return { name: s.config.name, state: s.state, ...(s.detail ? { detail: s.detail } : {}), source: s.config.sourcePath, tools: (s.tools ?? []).map((t) => t.name) };
}
