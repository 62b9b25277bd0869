// A stand-in for the parts of the `vscode` module the host uses, backed by the real disk, for
// tests outside VS Code: `vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode())`.
import * as fs from "node:fs";
import * as nodePath from "node:path";

type Listener<T> = (e: T) => void;

export class EventEmitter<T> {
  private readonly listeners = new Set<Listener<T>>();
  readonly event = (l: Listener<T>) => {
    this.listeners.add(l);
    return { dispose: () => this.listeners.delete(l) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  with(change: { path?: string }): Uri {
    return new Uri(this.scheme, change.path ?? this.path);
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
  static file(p: string): Uri {
    return new Uri("file", p);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, nodePath.posix.join(base.path, ...parts));
  }
}

export const FileType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 };

export class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const FS_CODES: Record<string, string> = { ENOENT: "FileNotFound", EEXIST: "FileExists", ENOTDIR: "FileNotADirectory", EISDIR: "FileIsADirectory", EACCES: "NoPermissions" };

async function wrap<T>(f: () => T): Promise<T> {
  try {
    return f();
  } catch (err) {
    throw new FileSystemError((err as Error).message, FS_CODES[(err as { code?: string }).code ?? ""] ?? "Unknown");
  }
}

function statOf(p: string) {
  const l = fs.lstatSync(p);
  const s = l.isSymbolicLink() ? fs.statSync(p, { throwIfNoEntry: false }) : l;
  const base = s?.isDirectory() ? FileType.Directory : s?.isFile() ? FileType.File : FileType.Unknown;
  return { type: base | (l.isSymbolicLink() ? FileType.SymbolicLink : 0), size: s?.size ?? 0, mtime: s?.mtimeMs ?? 0, ctime: 0 };
}

/** What tests can see and steer. */
export interface FakeVscodeState {
  isTrusted: boolean;
  folders: Array<{ uri: Uri; name: string; index: number }>;
  config: Map<string, unknown>;
  warnings: string[];
  /** The button the next showWarningMessage "clicks". */
  warningAnswer: string | undefined;
  /** When set, picks the button instead (from the message and the buttons offered). */
  warningPick?: (message: string, buttons: string[]) => string | undefined;
  /** Every warning notification with the buttons it offered. */
  notifications: Array<{ message: string; buttons: string[] }>;
  commands: unknown[][];
  writes: string[];
  grantTrust(): void;
}

/**
 * A trusted window with one folder ("ws", at `uri`) and no settings but, when given, the session
 * folder (`yoke.sessionDir`: sessions in the test's temp folder, not in the shared store under the
 * real home).
 */
export function openTrustedFolder(state: FakeVscodeState, uri: Uri, sessionDir?: string): void {
  state.isTrusted = true;
  state.folders = [{ uri, name: "ws", index: 0 }];
  state.config.clear();
  if (sessionDir !== undefined) state.config.set("yoke.sessionDir", sessionDir);
}

export function createFakeVscode() {
  const configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const trustGranted = new EventEmitter<void>();
  const state: FakeVscodeState = {
    isTrusted: true,
    folders: [],
    config: new Map(),
    warnings: [],
    warningAnswer: undefined,
    notifications: [],
    commands: [],
    writes: [],
    grantTrust() {
      state.isTrusted = true;
      trustGranted.fire();
    },
  };
  return {
    __state: state,
    EventEmitter,
    Uri,
    FileType,
    FileSystemError,
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    RelativePattern: class {
      constructor(
        readonly base: unknown,
        readonly pattern: string,
      ) {}
    },
    UIKind: { Desktop: 1, Web: 2 },
    env: { appRoot: "/nonexistent-vscode-app-root", uiKind: 1, uriScheme: "vscode" },
    commands: {
      executeCommand: async (...args: unknown[]) => {
        state.commands.push(args);
      },
    },
    window: {
      showWarningMessage: async (message: string, ...rest: unknown[]) => {
        state.warnings.push(message);
        const buttons = rest.filter((r): r is string => typeof r === "string");
        state.notifications.push({ message, buttons });
        return state.warningPick ? state.warningPick(message, buttons) : state.warningAnswer;
      },
      showInformationMessage: async () => undefined,
    },
    workspace: {
      get isTrusted() {
        return state.isTrusted;
      },
      get workspaceFolders() {
        return state.folders;
      },
      onDidGrantWorkspaceTrust: trustGranted.event,
      onDidChangeWorkspaceFolders: () => ({ dispose() {} }),
      onDidChangeConfiguration: configChanged.event,
      getConfiguration(section: string) {
        return {
          get: <T>(key: string, fallback?: T) => (state.config.has(`${section}.${key}`) ? (state.config.get(`${section}.${key}`) as T) : fallback),
          /** Every value set counts as the user's (global) value. */
          inspect: <T>(key: string) => ({ key: `${section}.${key}`, globalValue: state.config.get(`${section}.${key}`) as T | undefined }),
          update: async (key: string, value: unknown) => {
            state.config.set(`${section}.${key}`, value);
            configChanged.fire({ affectsConfiguration: (s: string) => `${section}.${key}`.startsWith(s) });
          },
        };
      },
      createFileSystemWatcher: () => {
        const none = () => ({ dispose() {} });
        return { onDidChange: none, onDidCreate: none, onDidDelete: none, dispose() {} };
      },
      fs: {
        stat: (u: Uri) => wrap(() => statOf(u.path)),
        readFile: (u: Uri) => wrap(() => new Uint8Array(fs.readFileSync(u.path))),
        writeFile: (u: Uri, data: Uint8Array) => wrap(() => (state.writes.push(u.path), fs.writeFileSync(u.path, data))),
        createDirectory: (u: Uri) => wrap(() => fs.mkdirSync(u.path, { recursive: true })),
        rename: (a: Uri, b: Uri) => wrap(() => fs.renameSync(a.path, b.path)),
        delete: (u: Uri) => wrap(() => fs.rmSync(u.path, { recursive: true })),
        readDirectory: (u: Uri) => wrap(() => fs.readdirSync(u.path).map((n) => [n, statOf(nodePath.join(u.path, n)).type])),
      },
    },
  };
}

/** A Memento, SecretStorage and LogOutputChannel for an ExtensionContext stand-in. */
export function fakeExtensionParts(storageDir: string) {
  const memento = new Map<string, unknown>();
  const secrets = new Map<string, string>();
  const secretChanged = new EventEmitter<{ key: string }>();
  const logLines: string[] = [];
  const line = (level: string) => (msg: string) => logLines.push(`[${level}] ${msg}`);
  return {
    logLines,
    log: { info: line("info"), warn: line("warn"), error: line("error"), debug: line("debug"), trace: line("trace"), show() {} },
    context: {
      storageUri: Uri.file(storageDir),
      globalStorageUri: Uri.file(storageDir),
      subscriptions: [] as Array<{ dispose(): void }>,
      workspaceState: {
        get: <T>(key: string) => memento.get(key) as T | undefined,
        update: async (key: string, value: unknown) => void memento.set(key, value),
      },
      globalState: {
        get: <T>(key: string) => memento.get(`global:${key}`) as T | undefined,
        update: async (key: string, value: unknown) => void memento.set(`global:${key}`, value),
      },
      secrets: {
        get: async (key: string) => secrets.get(key),
        store: async (key: string, value: string) => {
          secrets.set(key, value);
          secretChanged.fire({ key });
        },
        delete: async (key: string) => {
          secrets.delete(key);
          secretChanged.fire({ key });
        },
        onDidChange: secretChanged.event,
      },
    },
  };
}
