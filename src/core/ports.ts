/**
 * What the harness-neutral core needs from its host. The CLI implements these with Node
 * (src/node), the extension with VS Code APIs (src/host). The core never imports either.
 * SessionServices (below) is the one object a host hands a session.
 */
import type { CommandRunner } from "./commands/types";
import type { Disposable } from "./disposable";
import type { ChangeReviewer } from "./review";
import type { SyntaxChecker } from "./edit/syntax-check";
import type { DiagnosticsService } from "./verification/types";

export type { CommandRunner, ChangeReviewer, Disposable };

export type FileType = "file" | "directory" | "symlink" | "other";

export interface FileStat {
  type: FileType;
  size: number;
  mtimeMs: number;
}

/**
 * A file operation refused because the path no longer leads to what was checked: a symbolic link
 * (or something that is not a regular file or folder) appeared on the way after the permission
 * check. `detail` says what was found, in words for the model.
 */
export class PathChangedError extends Error {
  readonly code = "YOKE_PATH_CHANGED";
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = "PathChangedError";
  }
}

/** True for a PathChangedError (also one from another bundle: the code decides). */
export function isPathChanged(err: unknown): err is PathChangedError {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "YOKE_PATH_CHANGED";
}

/** A file's bytes and its stat, both from the one descriptor that was opened. */
export interface CheckedRead {
  data: Uint8Array;
  stat: FileStat;
  /**
   * Set when `data` holds only the lines asked for (readChecked's `range`): they start at line
   * `from` (1-based) of a file of `total` lines. Absent: `data` is the whole file.
   */
  range?: { from: number; total: number };
}

/** Bytes a reader wants: `length` bytes from `offset` (fewer at the end of the file). */
export interface ByteRange {
  offset: number;
  length: number;
}

/** Lines a reader wants (1-based first line, how many): a file system may read just those. */
export interface ReadRange {
  line: number;
  limit: number;
}

/**
 * The workspace file system. Paths given to it are absolute, normalised POSIX-style paths that
 * the core has already resolved and checked to lie inside the workspace (see paths.ts);
 * implementations must not interpret `..` or follow anything the core did not ask for.
 */
export interface WorkspaceFolder {
  /** The folder's name, as VS Code shows it (the name relative paths start with in a multi-root workspace). */
  name: string;
  /** Absolute root, POSIX separators, no trailing slash. */
  root: string;
}

export interface WorkspaceFs {
  /** Absolute path of the workspace root (the first folder's), POSIX separators, no trailing slash. */
  readonly root: string;
  /**
   * Every folder of a multi-root workspace, the first being `root`. Absent or one entry: a
   * single folder. Paths of any folder may be given to the methods below.
   */
  readonly folders?: readonly WorkspaceFolder[];
  readFile(path: string): Promise<Uint8Array>;
  /** Writes atomically where the platform allows (temp file + rename); creates parent folders. */
  writeFile(path: string, data: Uint8Array): Promise<void>;
  /** `undefined` when the path does not exist. Does not follow a final symlink. */
  stat(path: string): Promise<FileStat | undefined>;
  /** Entries of a folder: [name, type]; a symlink is reported as "symlink". */
  readDir(path: string): Promise<Array<[string, FileType]>>;
  /** The path with every symlink resolved; `undefined` when it does not exist. */
  realPath(path: string): Promise<string | undefined>;
  delete(path: string): Promise<void>;
  /**
   * The file tools' read: `path` is the canonical path the permission gate checked (no symbolic
   * link below its workspace folder's root; see `canonicalWorkspacePath`). Opens it without
   * following any link and makes sure the descriptor is that very file (never resolving the path
   * again), then reads from the descriptor. Throws PathChangedError when a link or a non-file is
   * found there now; a missing file throws with code ENOENT as readFile does.
   */
  readChecked(path: string, range?: ReadRange): Promise<CheckedRead>;
  /**
   * Byte ranges of a file, opened as readChecked opens it (no link followed, checked to be the
   * file at that path): what it holds there (shorter past its end). Optional: without it a caller
   * reads the whole file with readChecked.
   */
  readCheckedBytes?(path: string, ranges: readonly ByteRange[]): Promise<{ chunks: Uint8Array[]; stat: FileStat }>;
  /**
   * The file tools' write: like writeFile (temp file + rename, mode of the replaced file kept,
   * missing parent folders created), but inside the parent folder opened without following links
   * and checked to be the canonical one; the name is never resolved again. Refuses (PathChangedError)
   * when a link is on the way or at the name. Returns the written file's stat.
   */
  writeChecked(path: string, data: Uint8Array): Promise<FileStat>;
  /**
   * Watches a file or folder: `onChange` gets the absolute path of what changed. `recursive: false`
   * watches a folder's own entries only (not its tree). Undefined-safe: a path that cannot be watched
   * (missing) gives a watch that reports nothing.
   */
  watch?(path: string, onChange: (path: string) => void, options?: { recursive?: boolean }): Disposable;
}

export interface GrepOptions {
  /** Regular expression (Rust/PCRE-ish syntax as ripgrep understands it). */
  pattern: string;
  /** Absolute folder or file to search in. */
  path: string;
  /** Glob filter on file names, e.g. "*.ts" or "src/**\/*.tsx". */
  glob?: string;
  ignoreCase?: boolean;
  /** Lines of context before and after each match. */
  context?: number;
  /** Stop after this many matching lines in all. */
  maxMatches: number;
  /**
   * The workspace folder holding `path`, which is then canonical (no symbolic link below this
   * folder): the searcher reads only what is really there, refusing (PathChangedError) a link
   * swapped in on the way. Absent: `path` is searched as it resolves.
   */
  within?: string;
  /** Stop after this long (ms), keeping what was found; default: no limit. */
  timeLimitMs?: number;
  signal?: AbortSignal;
}

export interface GrepLine {
  /** Absolute path. */
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
  /** false for a context line. */
  match: boolean;
  /**
   * Where the line is in the file as the searcher read it: its first byte's offset and its length in
   * bytes (without the newline). A UTF-8 byte order mark the searcher dropped is not counted.
   */
  bytes?: { offset: number; length: number };
}

export interface GrepResult {
  /** Grouped by file, the files in path order. When the search stopped early, which files it had reached may vary between runs. */
  lines: GrepLine[];
  /** true when the search stopped early (maxMatches or the time limit): more matches may exist. */
  truncated: boolean;
  /** Why it stopped early: at maxMatches ("limit") or at the time limit ("time", files not yet reached not searched). */
  stopped?: "limit" | "time";
}

export interface GlobOptions {
  pattern: string;
  /** Absolute folder to search in. */
  path: string;
  /** Paths returned at most. */
  maxResults: number;
  /**
   * "modified" (default): the most recently modified first (ties in path order), ranked among the
   * first `maxRanked` matches the search finds (ripgrep's walk runs on every core, so which ones is
   * not fixed when more match). "path": the first `maxResults` matches in path order.
   */
  order?: "modified" | "path";
  /** Matches ranked at most (order "modified"); at the next one the search stops. Default: no bound. */
  maxRanked?: number;
  /** Stop after this long (ms), keeping what was found; default: no limit. */
  timeLimitMs?: number;
  signal?: AbortSignal;
}

export interface GlobResult {
  /** Absolute paths, in the order asked for. */
  paths: string[];
  /** More files match than `paths` holds (or may: the search stopped early). */
  truncated: boolean;
  /** Matches the search saw (ranked or listed); both searchers set it. */
  found?: number;
  /** Why the search ended before it saw every match: the bound on matches ("limit") or the time limit ("time"). */
  stopped?: "limit" | "time";
}

/**
 * Fast search of the workspace that honours .gitignore (ripgrep in both hosts). Both calls
 * stream: memory stays bounded by the options whatever the tree's size, and the search stops
 * (the rg process is killed) once a bound is reached.
 */
export interface Searcher {
  grep(opts: GrepOptions): Promise<GrepResult>;
  /** Files matching the glob (see GlobOptions.order). */
  glob(opts: GlobOptions): Promise<GlobResult>;
  /**
   * Files git's index holds below `path` matching any of `globs` (git's `:(glob)` pathspecs), in
   * the index's (path) order, without walking the tree; undefined when `path` is not in a git work
   * tree, and then the caller searches with `glob`. Untracked files are not listed.
   */
  tracked?(opts: TrackedOptions): Promise<GlobResult | undefined>;
}

export interface TrackedOptions {
  /** Absolute folder; the globs are relative to it. */
  path: string;
  globs: readonly string[];
  maxResults: number;
  timeLimitMs?: number;
}

export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/**
 * Append-only storage of session event logs, one per session. Both hosts use the same Node
 * implementation and folder (src/node/session-store.ts: one store per workspace folder, on the
 * machine the folder is on), which refuses an append while another process writes the log.
 */
export interface SessionStore {
  /** Appends one serialised line (no trailing newline) to the session's log. */
  append(sessionId: string, line: string): void;
  /** Flushes the session's log to stable storage (fsync). Called at turn boundaries. */
  sync(sessionId: string): void;
  /** Every line of the session's log, in order; a torn last line is returned as it is. */
  read(sessionId: string): string[];
  /** Session ids, newest first. */
  list(): string[];
  exists(sessionId: string): boolean;
  /**
   * Optional side storage for large data of a session (a tool result over 50 k characters, kept
   * whole while the log holds a preview and a reference). `key` is [A-Za-z0-9_-]{1,120}. A blob
   * is written once and never changed; writing an existing key is refused.
   */
  writeBlob?(sessionId: string, key: string, data: string): void;
  /** The blob's text exactly as written, or undefined when there is none. */
  readBlob?(sessionId: string, key: string): string | undefined;
}

/** Which files the session's tools may touch: content tools (grep, glob, list_files) leave out what a deny rule covers. */
export interface FileAccessPolicy {
  /** The deny rule (rule syntax) that forbids `permission` (Read, Edit, Write…) on `absPath`, or null. */
  deniedBy(permission: string, absPath: string): Promise<string | null>;
}

/**
 * Everything a session uses from its host, in one typed object: the hosts build it (the CLI with
 * Node, the extension with VS Code), the loop hands it to tools and extensions. Members a host
 * does not have are absent, and the tools that need them say so to the model.
 */
export interface SessionServices {
  fs: WorkspaceFs;
  search: Searcher;
  log: Logger;
  /** Runs shell commands (run_command, command_output, kill_command). */
  commands?: CommandRunner;
  /** Why there is no command runner (e.g. the chosen sandbox is not installed, and what to install). */
  commandsUnavailable?: string;
  /** Reviews proposed file changes (the extension's diff review). Absent: tools write directly. */
  reviewer?: ChangeReviewer;
  /** Deny rules for content tools; absent: nothing is left out. */
  access?: FileAccessPolicy;
  /** The problems the host's language servers report (VS Code); absent: a lint command, if configured, stands in. */
  diagnostics?: DiagnosticsService;
  /** Parses files with tree-sitter, so an edit placed by tolerance never breaks a file that parsed (edit/syntax-check.ts); absent: no such check. */
  syntax?: SyntaxChecker;
}

/** Per-session services, made when the session is created or resumed. */
export type SessionServicesFactory = (session: { id: string }) => SessionServices;
