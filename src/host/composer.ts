// The composer's host side (issue 13): completion of @-mentions over the workspace's files and
// folders (VS Code's findFiles: works in remote windows), what only VS Code knows (the editor's
// selection, the problems), and each session's queue of messages typed while the agent works.
// The core (src/core/composer) resolves the mentions and delivers steered messages.
import { homedir } from "node:os";
import * as vscode from "vscode";
import { originLabel } from "../core/custom-commands";
import { loadNodeCommands } from "../node/custom-commands";
import { effectiveEntries, loadGuidance } from "../core/guidance";
import type { GuidanceEntry } from "../core/guidance/types";
import { createNodeGuidanceFiles } from "../node/guidance-files";
import { createNodeWorkspaceFs } from "../node/node-fs";
import { pluginCommandSources, pluginSkillFolders } from "../node/plugins";
import { rankPaths, type PathEntry as Entry } from "../core/composer/rank";
import { composerExtension, itemLabel, MENTION_KEYWORDS, parseMentions, queueFromEvents, type ContextItem, type QueuedMessage, type SessionComposer } from "../core/composer";
import type { SessionEvent } from "../core/events";
import type { Extension } from "../core/extensions/types";
import { completeMcpCommand, completeMcpMention } from "../core/mcp/completion";
import type { McpHub } from "../core/mcp/types";
import type { Diagnostic } from "../core/verification/types";
import type { CompletionView, ContextItemView, HostToWebview, QueuedView } from "../protocol/messages";
import { codeOf, severityOf } from "./diagnostics";
import { uriPathToFsPath } from "./workspace-fs";

/** How long the completion waits for MCP servers (a server started to list its prompts or resources). */
const MCP_COMPLETION_MS = 15_000;
/** Completion entries shown at most. */
const MAX_COMPLETIONS = 30;
/** Workspace files listed for completion at most, and how long the list is reused. */
const MAX_FILES = 20_000;
const FILES_TTL_MS = 5_000;
const EXCLUDE = "**/{node_modules,.git}/**";

export class HostComposer implements vscode.Disposable {
  private readonly bySession = new Map<string, SessionComposer>();
  private files: { at: number; entries: Promise<Entry[]> } | undefined;
  private named: { at: number; entries: Promise<GuidanceEntry[]> } | undefined;
  private shownSession: string | undefined;
  private fromLog: { id: string; items: QueuedMessage[] } | undefined;
  private pendingAdds: ContextItemView[] = [];
  private panelReady = false;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly post: (msg: HostToWebview) => void,
    /** The MCP hub of the latest session: its prompts (`/mcp__…`) and resources (`@server:uri`) are completed. */
    private readonly mcpHub: () => McpHub | undefined = () => undefined,
  ) {}

  /** The composer extension of a new session (in the session's `extensions:` list). */
  extension(): Extension {
    return composerExtension({
      problems: async (path) => problems(path),
      onReady: (c) => {
        this.bySession.set(c.sessionId, c);
        c.onChange(() => {
          if (c.sessionId === this.shownSession) this.postQueue(c.sessionId);
        });
      },
    });
  }

  /** The composer of a live session. */
  of(sessionId: string | undefined): SessionComposer | undefined {
    return sessionId ? this.bySession.get(sessionId) : undefined;
  }

  /** The session ended: its composer goes. */
  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  /** The panel shows this session (or none): its queue is what the panel lists. */
  show(sessionId: string | undefined, events?: readonly SessionEvent[]): void {
    this.shownSession = sessionId;
    this.fromLog = events && sessionId ? { id: sessionId, items: queueFromEvents(events) } : undefined;
    this.postQueue(sessionId);
  }

  postQueue(sessionId = this.shownSession): void {
    // A session shown from its log (not live yet): the queue as the log left it.
    const items = this.of(sessionId)?.list() ?? (this.fromLog?.id === sessionId ? this.fromLog?.items : undefined) ?? [];
    this.post({ type: "composer.queue", items: items.map(queuedView) });
  }

  /**
   * "Add Selection to Chat" / "Add File to Chat": a chip in the panel's input, the same chip an
   * @-mention makes (the webview keeps the chips, also across a hidden and shown panel). An item
   * added while no panel listens (closed, or still loading) is given to it when it says `ready`.
   */
  addContext(item: ContextItemView): void {
    if (!this.panelReady) this.pendingAdds.push(item);
    this.post({ type: "composer.addContext", item });
  }

  /** The panel connected (`ready`): the chips added meanwhile (the webview drops repeats). */
  panelConnected(): void {
    this.panelReady = true;
    const adds = this.pendingAdds.splice(0);
    for (const item of adds) this.post({ type: "composer.addContext", item });
  }

  /** The panel's webview went (hidden or closed): adds wait for the next one. */
  panelDisconnected(): void {
    this.panelReady = false;
  }

  /** The active editor's selection as a context item (undefined: no editor, or nothing selected). */
  selection(): ContextItem | undefined {
    const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
    if (!editor || editor.selection.isEmpty) return undefined;
    const s = editor.selection;
    const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1;
    return { kind: "selection", path: relOf(editor.document.uri), startLine: s.start.line + 1, endLine, text: editor.document.getText(s) };
  }

  /**
   * What a message carries: its chips, then the mentions typed in its text that name something
   * (a keyword, or a file or folder that exists; other `@words` stay text).
   */
  async itemsOf(text: string, chips: readonly ContextItemView[]): Promise<ContextItem[]> {
    const out: ContextItem[] = [...chips];
    for (const { ref } of parseMentions(text)) {
      if (ref.kind === "selection") {
        const sel = this.selection();
        if (sel) out.push(sel);
      } else if (ref.kind === "path") {
        const kind = await pathKind(ref.path);
        if (kind) out.push({ kind, path: ref.path.replace(/\/+$/, "") });
      } else if (ref.kind === "problems") out.push(ref.path ? { kind: "problems", path: ref.path } : { kind: "problems" });
      else out.push({ kind: ref.kind });
    }
    return out;
  }

  /** The completion list for `@query`: the keywords that match, then files and folders, best first. */
  async complete(requestId: number, query: string): Promise<void> {
    const items: CompletionView[] = [];
    try {
      const hub = this.mcpHub();
      if (hub) {
        const mcp = await completeMcpMention(hub, query, AbortSignal.timeout(MCP_COMPLETION_MS)).catch(() => []);
        for (const c of mcp) items.push({ label: c.label, detail: c.detail, insert: c.insert });
        if (query.includes(":") && mcp.length) return;
      }
      const q = query.toLowerCase();
      for (const k of MENTION_KEYWORDS) {
        if (!k.keyword.startsWith(q) && !(q && k.keyword.includes(q))) continue;
        if (k.kind === "selection") {
          const sel = this.selection();
          if (sel) items.push({ label: "@selection", detail: `${itemLabel(sel)} — ${k.detail}`, item: sel });
        } else if (k.kind === "problems") {
          items.push({ label: "@problems", detail: k.detail, item: { kind: "problems" } });
          const doc = vscode.window.activeTextEditor?.document;
          if (doc && doc.uri.scheme !== "output") items.push({ label: `@problems:${relOf(doc.uri)}`, detail: "the problems of the active file", item: { kind: "problems", path: relOf(doc.uri) } });
        } else items.push({ label: `@${k.keyword}`, detail: k.detail, item: { kind: k.kind } });
      }
      // Rules and skills used by name (Cursor's @ruleName): manual and agent-requested rules, skills.
      for (const e of await this.namedGuidance(q)) {
        if (items.length >= MAX_COMPLETIONS) break;
        const how = e.kind === "skill" ? "skill" : e.activation === "manual" ? "rule (manual)" : "rule (agent-requested)";
        items.push({ label: `@${e.name}`, detail: [how, e.description, e.source].filter(Boolean).join(" — "), insert: `@${e.name} ` });
      }
      for (const e of rankPaths(await this.entries(), q).slice(0, MAX_COMPLETIONS - items.length)) {
        items.push({ label: e.folder ? `${e.rel}/` : e.rel, detail: e.folder ? "folder" : "file", item: e.folder ? { kind: "folder", path: e.rel } : { kind: "file", path: e.rel } });
      }
    } catch (err) {
      this.log.warn(`mention completion failed: ${(err as Error)?.message ?? String(err)}`);
    } finally {
      this.post({ type: "composer.completions", requestId, items });
    }
  }

  /**
   * The completion list for `/query` at the start of the box: the custom slash commands of the
   * workspace's folders and the user's (src/core/custom-commands), with their descriptions and
   * argument hints, and `/output-style`. The session expands the one sent (the CLI does the same).
   */
  async completeCommand(requestId: number, query: string): Promise<void> {
    const items: CompletionView[] = [];
    const hub = this.mcpHub();
    // After `/mcp__server__prompt `: the values of the argument being typed (completion/complete).
    if (/\s/.test(query)) {
      const values = hub ? await completeMcpCommand(hub, query, AbortSignal.timeout(MCP_COMPLETION_MS)).catch(() => []) : [];
      this.post({ type: "composer.completions", requestId, items: values.map((c) => ({ label: c.label, detail: c.detail, insert: c.insert })) });
      return;
    }
    try {
      const q = query.toLowerCase();
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
      const home = process.env.HOME || homedir();
      const { commands } = folders.length
        ? await loadNodeCommands({ cwd: folders[0]!, folders: folders.slice(1), home }, pluginCommandSources({ home, cwd: folders[0]!, trusted: vscode.workspace.isTrusted }))
        : { commands: [] };
      const builtin = [{ name: "output-style", detail: "[name] — choose the output style for the rest of the session" }];
      const all = [
        ...builtin.map((b) => ({ name: b.name, detail: b.detail })),
        ...commands.map((c) => ({ name: c.name, detail: [c.argumentHint, c.description, originLabel(c)].filter(Boolean).join(" — ") })),
      ];
      const matching = all.filter((c) => c.name.toLowerCase().startsWith(q)).concat(all.filter((c) => !c.name.toLowerCase().startsWith(q) && q && c.name.toLowerCase().includes(q)));
      for (const c of matching.slice(0, MAX_COMPLETIONS)) items.push({ label: `/${c.name}`, detail: c.detail, insert: `/${c.name} ` });
      // The MCP servers' prompts (src/core/mcp/completion.ts).
      if (hub) for (const c of await completeMcpCommand(hub, query, AbortSignal.timeout(MCP_COMPLETION_MS)).catch(() => [])) items.push({ label: c.label, detail: c.detail, insert: c.insert });
    } catch (err) {
      this.log.warn(`slash command completion failed: ${(err as Error)?.message ?? String(err)}`);
    }
    this.post({ type: "composer.completions", requestId, items });
  }

  dispose(): void {
    this.bySession.clear();
  }

  /** The skills and the manual and agent-requested rules whose name matches `q` (prefix first), from a list reused for a few seconds. */
  private async namedGuidance(q: string): Promise<GuidanceEntry[]> {
    const now = Date.now();
    if (!this.named || now - this.named.at >= FILES_TTL_MS) {
      const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === "file");
      const home = process.env.HOME || homedir();
      const entries: Promise<GuidanceEntry[]> = folder
        ? loadGuidance({
            fs: createNodeWorkspaceFs(folder.uri.fsPath),
            files: createNodeGuidanceFiles({ home, skillDirs: pluginSkillFolders({ home, cwd: folder.uri.fsPath, trusted: vscode.workspace.isTrusted }) }),
          }).then((set) => effectiveEntries(set.entries).filter((e) => e.kind === "skill" || (e.kind === "rule" && (e.activation === "manual" || e.activation === "requested"))))
        : Promise.resolve([]);
      this.named = { at: now, entries };
      entries.catch(() => (this.named = undefined));
    }
    const all = await this.named.entries;
    const name = (e: GuidanceEntry) => e.name.toLowerCase();
    return [...all.filter((e) => name(e).startsWith(q)), ...all.filter((e) => q && !name(e).startsWith(q) && name(e).includes(q))];
  }

  /** The workspace's files and their folders (findFiles, reused for a few seconds). */
  private entries(): Promise<Entry[]> {
    const now = Date.now();
    if (this.files && now - this.files.at < FILES_TTL_MS) return this.files.entries;
    const entries = Promise.resolve(vscode.workspace.findFiles("**/*", EXCLUDE, MAX_FILES)).then((uris) => {
      const out: Entry[] = [];
      const folders = new Set<string>();
      for (const uri of uris) {
        const rel = relOf(uri);
        out.push({ rel, folder: false });
        const parts = rel.split("/");
        for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
      }
      for (const f of folders) out.push({ rel: f, folder: true });
      return out;
    });
    this.files = { at: now, entries };
    entries.catch(() => (this.files = undefined));
    return entries;
  }
}

function queuedView(m: QueuedMessage): QueuedView {
  return { id: m.id, text: m.text, mode: m.mode, chips: m.items.map((i) => ({ kind: i.kind, label: itemLabel(i) })) };
}

/** Workspace-relative (with the folder's name in a multi-root workspace), the paths the core takes. */
function relOf(uri: vscode.Uri): string {
  const multi = (vscode.workspace.workspaceFolders?.length ?? 0) > 1;
  const rel = vscode.workspace.asRelativePath(uri, multi);
  return rel === uri.fsPath || rel === uri.path ? uriPathToFsPath(uri.path) : rel;
}

function uriOf(path: string): vscode.Uri | undefined {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (path.startsWith("/")) return folders.length ? folders[0]!.uri.with({ path }) : undefined;
  const [first, ...rest] = path.split("/");
  const named = folders.length > 1 ? folders.find((f) => f.name === first) : undefined;
  if (named) return vscode.Uri.joinPath(named.uri, ...rest);
  return folders[0] ? vscode.Uri.joinPath(folders[0].uri, path) : undefined;
}

async function pathKind(path: string): Promise<"file" | "folder" | undefined> {
  const uri = uriOf(path.replace(/\/+$/, ""));
  if (!uri) return undefined;
  try {
    const st = await vscode.workspace.fs.stat(uri);
    return st.type & vscode.FileType.Directory ? "folder" : "file";
  } catch {
    return undefined;
  }
}

/** VS Code's problems of one file, or of every file. */
function problems(path: string | undefined): Diagnostic[] {
  const out: Diagnostic[] = [];
  const add = (uri: vscode.Uri, list: readonly vscode.Diagnostic[]) => {
    for (const d of list) {
      const code = codeOf(d);
      out.push({
        path: uriPathToFsPath(uri.path),
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        severity: severityOf(d.severity),
        message: d.message,
        ...(d.source ? { source: d.source } : {}),
        ...(code ? { code } : {}),
      });
    }
  };
  if (path) {
    const folder = (vscode.workspace.workspaceFolders ?? [])[0];
    const uri = folder ? folder.uri.with({ path }) : vscode.Uri.file(path);
    add(uri, vscode.languages.getDiagnostics(uri));
  } else for (const [uri, list] of vscode.languages.getDiagnostics()) if (uri.scheme === "file" || uri.scheme === "vscode-remote") add(uri, list);
  return out;
}
