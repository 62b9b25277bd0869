// The fake `vscode` of test/unit/protocol/fake-vscode.ts plus the editor side the change review
// uses: text documents backed by the real disk (or a registered FileSystemProvider), WorkspaceEdit,
// save participants (onWillSaveTextDocument with waitUntil edits, as VS Code applies them), editors,
// tab groups, CodeLens providers and commands. `reload()` plays a window reload: the extension's
// listeners are gone, and the documents stay as hot exit keeps them (dirty text and all) or not.
//   vi.mock("vscode", async () => (await import("./fake-editor")).createFakeEditor());
import * as fs from "node:fs";
import * as nodePath from "node:path";
import { createFakeVscode, EventEmitter } from "../protocol/fake-vscode";

export class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = "",
    readonly authority = "",
  ) {}
  get fsPath(): string {
    return this.path;
  }
  with(change: { scheme?: string; path?: string; query?: string; authority?: string }): Uri {
    return new Uri(change.scheme ?? this.scheme, change.path ?? this.path, change.query ?? this.query, change.authority ?? this.authority);
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ""}`;
  }
  static file(p: string): Uri {
    return new Uri("file", p);
  }
  static from(c: { scheme: string; path?: string; query?: string; authority?: string }): Uri {
    return new Uri(c.scheme, c.path ?? "/", c.query ?? "", c.authority ?? "");
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return base.with({ path: nodePath.posix.join(base.path, ...parts) });
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === "number") {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

export class TextEdit {
  constructor(
    readonly range: Range,
    readonly newText: string,
  ) {}
  static replace(range: Range, newText: string): TextEdit {
    return new TextEdit(range, newText);
  }
}

type EditOp = { kind: "replace"; uri: Uri; range: Range; text: string } | { kind: "create"; uri: Uri; ignoreIfExists: boolean } | { kind: "delete"; uri: Uri; ignoreIfNotExists: boolean };

export class WorkspaceEdit {
  readonly ops: EditOp[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.ops.push({ kind: "replace", uri, range, text });
  }
  createFile(uri: Uri, opts: { ignoreIfExists?: boolean } = {}): void {
    this.ops.push({ kind: "create", uri, ignoreIfExists: opts.ignoreIfExists ?? false });
  }
  deleteFile(uri: Uri, opts: { ignoreIfNotExists?: boolean } = {}): void {
    this.ops.push({ kind: "delete", uri, ignoreIfNotExists: opts.ignoreIfNotExists ?? false });
  }
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export const TextDocumentSaveReason = { Manual: 1, AfterDelay: 2, FocusOut: 3 } as const;
export const ViewColumn = { Active: -1, Beside: -2, One: 1, Two: 2 } as const;

interface FsProvider {
  readFile(uri: Uri): Uint8Array;
  writeFile(uri: Uri, content: Uint8Array, o: { create: boolean; overwrite: boolean }): void;
  onDidChangeFile(l: (e: Array<{ type: number; uri: Uri }>) => void): { dispose(): void };
}

export class FakeDocument {
  version = 1;
  isDirty = false;
  closed = false;
  constructor(
    readonly uri: Uri,
    public text: string,
    readonly languageId: string,
    private readonly saver: (doc: FakeDocument) => Promise<boolean>,
  ) {}
  getText(): string {
    return this.text;
  }
  get lineCount(): number {
    return this.text.split("\n").length;
  }
  lineAt(line: number) {
    const text = this.text.split("\n")[line] ?? "";
    return { text, range: new Range(line, 0, line, text.length) };
  }
  offsetAt(p: Position): number {
    const lines = this.text.split("\n");
    if (p.line >= lines.length) return this.text.length;
    let off = 0;
    for (let i = 0; i < p.line; i++) off += lines[i]!.length + 1;
    return off + Math.min(p.character, lines[p.line]!.length);
  }
  save(): Promise<boolean> {
    return this.saver(this);
  }
}

class FakeEditor {
  readonly decorations = new Map<unknown, Range[]>();
  selection = { active: new Position(0, 0) };
  constructor(
    readonly document: FakeDocument,
    public viewColumn: number,
  ) {}
  setDecorations(type: unknown, ranges: Array<Range | { range: Range }>): void {
    this.decorations.set(
      type,
      ranges.map((r) => ("range" in r ? r.range : r)),
    );
  }
  revealRange(): void {}
}

interface FakeTab {
  input: TabInputText | TabInputTextDiff;
  isActive: boolean;
  group: FakeGroup;
}
interface FakeGroup {
  viewColumn: number;
  tabs: FakeTab[];
  readonly activeTab: FakeTab | undefined;
}

function languageOf(path: string): string {
  return path.endsWith(".ts") ? "typescript" : path.endsWith(".md") ? "markdown" : "plaintext";
}

export interface EditorState {
  docs: Map<string, FakeDocument>;
  editors: FakeEditor[];
  groups: FakeGroup[];
  active: FakeEditor | undefined;
  commands: Map<string, (...args: unknown[]) => unknown>;
  lensProviders: Array<{ provideCodeLenses(doc: FakeDocument): Array<{ range: Range; command?: { title: string; command: string; arguments?: unknown[] } }> }>;
  fsProviders: Map<string, FsProvider>;
  contentProviders: Map<string, { provideTextDocumentContent(uri: Uri): string }>;
  info: string[];
  /** Every write to the disk through a document save, in order: [path, text]. */
  saves: Array<[string, string]>;
}

export function createFakeEditor() {
  const base = createFakeVscode();
  const changed = new EventEmitter<{ document: FakeDocument; contentChanges: Array<{ range: Range; text: string }> }>();
  const closed = new EventEmitter<FakeDocument>();
  const willSave = new EventEmitter<{ document: FakeDocument; reason: number; waitUntil(p: Promise<unknown>): void }>();
  const didSave = new EventEmitter<FakeDocument>();
  const visibleChanged = new EventEmitter<FakeEditor[]>();
  const activeChanged = new EventEmitter<FakeEditor | undefined>();
  const selectionChanged = new EventEmitter<unknown>();
  const ed: EditorState = {
    docs: new Map(),
    editors: [],
    groups: [],
    active: undefined,
    commands: new Map(),
    lensProviders: [],
    fsProviders: new Map(),
    contentProviders: new Map(),
    info: [],
    saves: [],
  };

  /** Applies one text change and reports it as VS Code does. */
  const change = (doc: FakeDocument, range: Range, text: string) => {
    const from = doc.offsetAt(range.start);
    const to = doc.offsetAt(range.end);
    doc.text = doc.text.slice(0, from) + text + doc.text.slice(to);
    doc.version++;
    doc.isDirty = true;
    changed.fire({ document: doc, contentChanges: [{ range, text }] });
  };

  /** Saves as VS Code does: participants (their edits applied if the document did not change meanwhile), write, didSave. */
  const saveDocument = async (doc: FakeDocument, reason: number = TextDocumentSaveReason.Manual): Promise<boolean> => {
    const waits: Array<Promise<unknown>> = [];
    const version = doc.version;
    willSave.fire({ document: doc, reason, waitUntil: (p) => void waits.push(p) });
    const results = await Promise.all(waits);
    if (doc.version === version) {
      const edits = results.flatMap((r) => (Array.isArray(r) ? (r as TextEdit[]) : []));
      for (const e of [...edits].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start))) change(doc, e.range, e.newText);
    }
    if (doc.uri.scheme === "file") {
      fs.mkdirSync(nodePath.dirname(doc.uri.path), { recursive: true });
      fs.writeFileSync(doc.uri.path, doc.text);
      ed.saves.push([doc.uri.path, doc.text]);
    } else {
      const p = ed.fsProviders.get(doc.uri.scheme);
      if (!p) return false;
      p.writeFile(doc.uri, new TextEncoder().encode(doc.text), { create: true, overwrite: true });
    }
    doc.isDirty = false;
    didSave.fire(doc);
    return true;
  };

  const load = (uri: Uri): string => {
    if (uri.scheme === "file") return fs.readFileSync(uri.path, "utf8");
    const p = ed.fsProviders.get(uri.scheme);
    if (p) return new TextDecoder().decode(p.readFile(uri));
    const c = ed.contentProviders.get(uri.scheme);
    if (c) return c.provideTextDocumentContent(uri);
    throw new Error(`no provider for ${uri.toString()}`);
  };

  const openTextDocument = async (uri: Uri): Promise<FakeDocument> => {
    const key = uri.toString();
    const open = ed.docs.get(key);
    if (open) return open;
    const doc = new FakeDocument(uri, load(uri), languageOf(uri.path), (d) => saveDocument(d));
    ed.docs.set(key, doc);
    return doc;
  };

  const visible = () => ed.groups.flatMap((g) => (g.activeTab ? ed.editors.filter((e) => e.viewColumn === g.viewColumn && tabUri(g.activeTab!) === e.document.uri.toString()) : []));
  const tabUri = (t: FakeTab) => (t.input instanceof TabInputText ? t.input.uri.toString() : t.input.modified.toString());
  const group = (column: number): FakeGroup => {
    let g = ed.groups.find((x) => x.viewColumn === column);
    if (!g) {
      const tabs: FakeTab[] = [];
      g = {
        viewColumn: column,
        tabs,
        get activeTab() {
          return tabs.find((t) => t.isActive);
        },
      };
      ed.groups.push(g);
      ed.groups.sort((a, b) => a.viewColumn - b.viewColumn);
    }
    return g;
  };

  const showTextDocument = async (doc: FakeDocument, opts: { viewColumn?: number; preserveFocus?: boolean } = {}) => {
    const activeColumn = ed.active?.viewColumn ?? 1;
    const column = opts.viewColumn === ViewColumn.Beside ? activeColumn + 1 : opts.viewColumn === undefined || opts.viewColumn === ViewColumn.Active ? activeColumn : opts.viewColumn;
    const g = group(column);
    let tab = g.tabs.find((t) => t.input instanceof TabInputText && t.input.uri.toString() === doc.uri.toString());
    if (!tab) {
      tab = { input: new TabInputText(doc.uri), isActive: false, group: g };
      g.tabs.push(tab);
    }
    for (const t of g.tabs) t.isActive = t === tab;
    let editor = ed.editors.find((e) => e.document === doc && e.viewColumn === column);
    if (!editor) {
      editor = new FakeEditor(doc, column);
      ed.editors.push(editor);
    }
    if (!opts.preserveFocus || !ed.active) {
      ed.active = editor;
      activeChanged.fire(editor);
    }
    visibleChanged.fire(visible());
    return editor;
  };

  const closeTabs = async (tabs: FakeTab[]) => {
    for (const t of tabs) {
      t.group.tabs.splice(t.group.tabs.indexOf(t), 1);
      if (t.isActive && t.group.tabs[0]) t.group.tabs[0].isActive = true;
    }
    ed.editors = ed.editors.filter((e) => ed.groups.some((g) => g.viewColumn === e.viewColumn && g.tabs.some((t) => tabUri(t) === e.document.uri.toString())));
    if (ed.active && !ed.editors.includes(ed.active)) ed.active = visible()[0];
    visibleChanged.fire(visible());
    return true;
  };

  const applyEdit = async (edit: WorkspaceEdit): Promise<boolean> => {
    const replaces = new Map<string, Array<{ range: Range; text: string }>>();
    for (const op of edit.ops) {
      if (op.kind === "create") {
        if (fs.existsSync(op.uri.path)) {
          if (!op.ignoreIfExists) return false;
          continue;
        }
        fs.mkdirSync(nodePath.dirname(op.uri.path), { recursive: true });
        fs.writeFileSync(op.uri.path, "");
      } else if (op.kind === "delete") {
        if (!fs.existsSync(op.uri.path)) {
          if (!op.ignoreIfNotExists) return false;
          continue;
        }
        fs.rmSync(op.uri.path);
        const doc = ed.docs.get(op.uri.toString());
        if (doc) {
          ed.docs.delete(op.uri.toString());
          doc.closed = true;
          closed.fire(doc);
        }
      } else {
        const key = op.uri.toString();
        replaces.set(key, [...(replaces.get(key) ?? []), { range: op.range, text: op.text }]);
      }
    }
    for (const [key, list] of replaces) {
      const doc = ed.docs.get(key) ?? (await openTextDocument([...edit.ops].find((o) => o.uri.toString() === key)!.uri));
      for (const r of [...list].sort((a, b) => doc.offsetAt(b.range.start) - doc.offsetAt(a.range.start))) change(doc, r.range, r.text);
    }
    return true;
  };

  const fake = {
    ...base,
    __editor: ed,
    Uri,
    Position,
    Range,
    TextEdit,
    WorkspaceEdit,
    TabInputText,
    TabInputTextDiff,
    TextDocumentSaveReason,
    ViewColumn,
    FileChangeType: { Changed: 1, Created: 2, Deleted: 3 },
    OverviewRulerLane: { Left: 1 },
    TextEditorRevealType: { InCenterIfOutsideViewport: 2 },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    MarkdownString: class {
      value = "";
      constructor(v = "") {
        this.value = v;
      }
      appendCodeblock(code: string) {
        this.value += `\n\`\`\`\n${code}\n\`\`\``;
        return this;
      }
      appendMarkdown(md: string) {
        this.value += md;
        return this;
      }
    },
    Disposable: class {
      constructor(private readonly fn: () => void) {}
      dispose() {
        this.fn();
      }
    },
    CodeLens: class {
      constructor(
        readonly range: Range,
        readonly command?: { title: string; command: string; arguments?: unknown[] },
      ) {}
    },
    FileSystemError: Object.assign(base.FileSystemError, {
      FileNotFound: (uri?: Uri) => new base.FileSystemError(`not found: ${uri?.toString()}`, "FileNotFound"),
      NoPermissions: (uri?: Uri) => new base.FileSystemError(`no permissions: ${uri?.toString()}`, "NoPermissions"),
    }),
    commands: {
      executeCommand: async (id: string, ...args: unknown[]) => {
        base.__state.commands.push([id, ...args]);
        const handler = ed.commands.get(id);
        return handler ? handler(...args) : undefined;
      },
      registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
        ed.commands.set(id, handler);
        return { dispose: () => ed.commands.get(id) === handler && ed.commands.delete(id) };
      },
    },
    languages: {
      registerCodeLensProvider: (_selector: unknown, provider: EditorState["lensProviders"][number]) => {
        ed.lensProviders.push(provider);
        return { dispose: () => ed.lensProviders.splice(ed.lensProviders.indexOf(provider), 1) };
      },
    },
    window: {
      ...base.window,
      showInformationMessage: async (message: string) => {
        ed.info.push(message);
        return undefined;
      },
      showInputBox: async () => undefined,
      get activeTextEditor() {
        return ed.active;
      },
      get visibleTextEditors() {
        return visible();
      },
      showTextDocument,
      createTextEditorDecorationType: () => ({ dispose() {} }),
      onDidChangeVisibleTextEditors: visibleChanged.event,
      onDidChangeActiveTextEditor: activeChanged.event,
      onDidChangeTextEditorSelection: selectionChanged.event,
      tabGroups: {
        get all() {
          return ed.groups;
        },
        close: (tabs: FakeTab | FakeTab[]) => closeTabs(Array.isArray(tabs) ? tabs : [tabs]),
      },
    },
    workspace: {
      ...base.workspace,
      get isTrusted() {
        return base.workspace.isTrusted;
      },
      get workspaceFolders() {
        return base.workspace.workspaceFolders;
      },
      get textDocuments() {
        return [...ed.docs.values()];
      },
      openTextDocument,
      applyEdit,
      onDidChangeTextDocument: changed.event,
      onDidCloseTextDocument: closed.event,
      onWillSaveTextDocument: willSave.event,
      onDidSaveTextDocument: didSave.event,
      registerFileSystemProvider: (scheme: string, provider: FsProvider) => {
        ed.fsProviders.set(scheme, provider);
        // An open document of the scheme reloads when its content changes and it has no unsaved edits.
        const sub = provider.onDidChangeFile((events) => {
          for (const e of events) {
            const doc = ed.docs.get(e.uri.toString());
            if (!doc || doc.isDirty || e.type === 3) continue;
            try {
              const text = load(doc.uri);
              if (text !== doc.text) {
                doc.text = text;
                doc.version++;
              }
            } catch {
              // gone
            }
          }
        });
        return { dispose: () => (sub.dispose(), ed.fsProviders.get(scheme) === provider && ed.fsProviders.delete(scheme)) };
      },
      registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) => {
        ed.contentProviders.set(scheme, provider);
        return { dispose: () => ed.contentProviders.delete(scheme) };
      },
      asRelativePath: (p: string | Uri) => (typeof p === "string" ? p : p.path),
    },
    /** Test steering, not VS Code API. */
    __test: {
      /** A save as VS Code's auto save (or the user) makes it. */
      save: saveDocument,
      /** The user types: replaces a range of an open document. */
      type: async (doc: FakeDocument, range: Range, text: string) => change(doc, range, text),
      /** CodeLens titles (with their command arguments) every provider gives for a document. */
      lenses: (doc: FakeDocument) => ed.lensProviders.flatMap((p) => p.provideCodeLenses(doc)),
      /**
       * A window reload: the old extension's listeners must be disposed by the caller (as VS Code
       * deactivates it). With hot exit, documents keep their unsaved text; without it, they are
       * reloaded from disk. Documents of other schemes than file: go (their providers are new).
       */
      reload(opts: { hotExit: boolean }) {
        for (const [key, doc] of ed.docs) {
          if (doc.uri.scheme !== "file") {
            if (!opts.hotExit || !doc.isDirty) ed.docs.delete(key);
            continue;
          }
          if (!fs.existsSync(doc.uri.path)) ed.docs.delete(key);
          else if (!opts.hotExit && doc.isDirty) ed.docs.delete(key);
        }
        ed.commands.clear();
        ed.lensProviders.length = 0;
        ed.fsProviders.clear();
        ed.contentProviders.clear();
        ed.editors = ed.editors.filter((e) => ed.docs.has(e.document.uri.toString()));
        for (const g of ed.groups) g.tabs.splice(0, g.tabs.length, ...g.tabs.filter((t) => ed.docs.has(tabUri(t))));
        ed.groups = ed.groups.filter((g) => g.tabs.length);
        for (const g of ed.groups) if (!g.activeTab && g.tabs[0]) g.tabs[0].isActive = true;
        ed.active = visible()[0];
      },
      reset() {
        ed.docs.clear();
        ed.editors = [];
        ed.groups = [];
        ed.active = undefined;
        ed.commands.clear();
        ed.lensProviders.length = 0;
        ed.fsProviders.clear();
        ed.contentProviders.clear();
        ed.info.length = 0;
        ed.saves.length = 0;
        base.__state.commands.length = 0;
        base.__state.writes.length = 0;
        base.__state.warnings.length = 0;
        base.__state.config.clear();
      },
    },
  };
  return fake;
}

export type FakeEditorVscode = ReturnType<typeof createFakeEditor>;
