/**
 * Reads the settings sources from disk, in the order the permission engine merges them (lowest
 * priority first), asks git which workspace files are shared with the repository, and writes
 * "always allow" rules to .yoke/settings.local.json.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  access,
  constants as fsConstants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdir,
  readdirSync,
  stat,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  writeFileSync,
  type Dirent,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import type { SettingsWriter } from "../../core/permissions/gate";
import { parseJsonc } from "../../core/settings/jsonc";
import type { DirEntry } from "../../core/permissions/sandbox-view";
import type { LoadedSource, RuleList, SettingsSourceInfo } from "../../core/permissions/types";
import { hostProgram } from "../host-programs";
import { nodeReadTextCachedSync } from "../read-text";
import { agentWorkspaceOf } from "../background/registry";

export interface SettingsFileOptions {
  /** Workspace root. */
  cwd: string;
  home?: string;
  /** The VS Code user setting `yoke.permissions` ({allow, ask, deny, defaultMode, additionalDirectories}). */
  vscodePermissions?: unknown;
  /** The VS Code user setting `yoke.hooks`, if the host offers one. */
  vscodeHooks?: unknown;
  /** `yoke.permissions` / `yoke.hooks` from the workspace's VS Code settings: shared with the repository, so they may only restrict. */
  vscodeWorkspacePermissions?: unknown;
  vscodeWorkspaceHooks?: unknown;
  /** Extra files (`--settings`), highest priority after managed settings, in the order given. */
  extraFiles?: string[];
  /**
   * The folder of Claude Code's managed settings (`managed-settings.json` and `managed-settings.d/*.json`):
   * default /etc/claude-code (Linux), /Library/Application Support/ClaudeCode (macOS); null reads none.
   */
  managedDir?: string | null;
  /** The git program (default `git` on PATH). */
  git?: string;
  /**
   * Another checkout's root whose local files (`.yoke/settings.local.json`, `.claude/settings.local.json`)
   * also apply here, their relative rules relative to `cwd`: an isolated agent's worktree has none of the
   * workspace's untracked files, yet the person's local settings (their "Always allow" answers, their
   * own deny rules, their verification command…) must govern the agent working there. Default
   * (undefined): the person's workspace when `cwd` is one of Yoke's agent worktrees (agentWorkspaceOf),
   * else none — so every reader of the settings files reads the same local files (localSettingsFiles).
   */
  localFrom?: string;
}

export function defaultManagedDir(): string | null {
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (process.platform === "win32") return null;
  return "/etc/claude-code";
}

/** The files read, lowest priority first, with the labels used in reasons. */
export function settingsFileList(opts: SettingsFileOptions): SettingsSourceInfo[] {
  const home = opts.home ?? homedir();
  const cwd = resolve(opts.cwd);
  const file = (kind: SettingsSourceInfo["kind"], label: string, path: string, baseDir: string): SettingsSourceInfo => ({ kind, label, path, baseDir });
  const managedDir = opts.managedDir === undefined ? defaultManagedDir() : opts.managedDir;
  const managed: SettingsSourceInfo[] = [];
  if (managedDir) {
    const main = join(managedDir, "managed-settings.json");
    managed.push(file("managed", `${main} (managed settings)`, main, dirname(main)));
    const dropIns = join(managedDir, "managed-settings.d");
    let names: string[] = [];
    try {
      names = readdirSync(dropIns)
        .filter((n) => n.endsWith(".json") && !n.startsWith("."))
        .sort();
    } catch {
      // no drop-in folder
    }
    for (const n of names) managed.push(file("managed", `${join(dropIns, n)} (managed settings)`, join(dropIns, n), dropIns));
  }
  const user = [join(home, ".claude", "settings.json"), join(home, ".yoke", "settings.json"), join(home, ".cursor", "hooks.json")];
  // Cursor's hooks files (hooks/cursor.ts): the user's and the project's, read as settings sources of their own.
  const cursorHooks = (f: SettingsSourceInfo): SettingsSourceInfo => ({ ...f, format: "cursor-hooks" });
  // In the home folder the project files are the user's own files: read them once, as the user's.
  const project = (f: SettingsSourceInfo) => (user.includes(f.path!) ? [] : [f]);
  // Kiro's IDE hooks: one file per hook in the workspace's .kiro/hooks (hooks/kiro.ts).
  let kiroHooks: SettingsSourceInfo[] = [];
  try {
    kiroHooks = readdirSync(join(cwd, ".kiro", "hooks"))
      .filter((n) => n.endsWith(".kiro.hook") && !n.startsWith("."))
      .sort()
      .map((n) => ({ ...file("project", `.kiro/hooks/${n}`, join(cwd, ".kiro", "hooks", n), cwd), format: "kiro-hook" as const }));
  } catch {
    // no .kiro/hooks folder
  }
  return [
    file("claude-user", "~/.claude/settings.json", join(home, ".claude", "settings.json"), join(home, ".claude")),
    cursorHooks(file("user", "~/.cursor/hooks.json", join(home, ".cursor", "hooks.json"), home)),
    file("user", "~/.yoke/settings.json", join(home, ".yoke", "settings.json"), home),
    ...project(cursorHooks(file("project", ".cursor/hooks.json", join(cwd, ".cursor", "hooks.json"), cwd))),
    ...kiroHooks.flatMap(project),
    ...project(file("project", ".yoke/settings.json", join(cwd, ".yoke", "settings.json"), cwd)),
    file("project-local", ".yoke/settings.local.json", join(cwd, ".yoke", "settings.local.json"), cwd),
    ...project(file("claude", ".claude/settings.json", join(cwd, ".claude", "settings.json"), cwd)),
    file("claude-local", ".claude/settings.local.json", join(cwd, ".claude", "settings.local.json"), cwd),
    ...(opts.extraFiles ?? []).map((f) => {
      const abs = resolve(cwd, f);
      return file("extra", `--settings ${f}`, abs, dirname(abs));
    }),
    ...managed,
  ];
}

/**
 * How every settings file is read (the Yoke and Claude files here, the user's file of
 * reader.ts readUserSettings, MCP's own .mcp.json and .vscode/mcp.json): the text without a byte
 * order mark; a missing file (or a missing folder on the way) is `missing`, any other failure an
 * `error` (its code), never an exception. Who wrote the file — the repository, through a link
 * leaving the workspace — is decided from git and the path (markTracked), not here.
 */
export function readSettingsText(path: string): { text?: string; error?: string; missing?: true } {
  try {
    const text = readFileSync(path, "utf8");
    return { text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { missing: true } : { error: code ?? String(err) };
  }
}

const WORKSPACE_FILE_KINDS = new Set<SettingsSourceInfo["kind"]>(["project", "project-local", "claude", "claude-local"]);

/**
 * Reads every source; a missing file is absent (except a --settings file), an unreadable one
 * carries `error`. Workspace files get `checkedIn` from git (one `git ls-files` for all of them),
 * and a tracked file that is empty, unreadable or not valid JSON gets its committed version as
 * `fallback` (one `git cat-file`, only then).
 */
export async function loadSettingsSources(opts: SettingsFileOptions): Promise<LoadedSource[]> {
  const cwd = resolve(opts.cwd);
  const sources: LoadedSource[] = [];
  if (opts.vscodePermissions !== undefined || opts.vscodeHooks !== undefined) {
    sources.push({
      info: { kind: "vscode", label: "VS Code setting yoke.permissions", baseDir: cwd },
      value: { permissions: opts.vscodePermissions ?? undefined, hooks: opts.vscodeHooks ?? undefined },
    });
  }
  const files = settingsFileList(opts);
  const fileSources: LoadedSource[] = files.map((info) => {
    const read = readSettingsText(info.path!);
    const error = read.missing && info.kind === "extra" ? "no such file" : read.error;
    return { info, text: read.text, error };
  });
  const workspace = fileSources.filter((s) => WORKSPACE_FILE_KINDS.has(s.info.kind) && (s.text !== undefined || s.error !== undefined));
  if (workspace.length) await markTracked(cwd, workspace, opts.git ?? hostProgram("git"), opts.home);
  const vscodeWorkspace: LoadedSource[] =
    opts.vscodeWorkspacePermissions !== undefined || opts.vscodeWorkspaceHooks !== undefined
      ? [
          {
            info: {
              kind: "vscode-workspace",
              label: "VS Code workspace setting yoke.permissions",
              baseDir: cwd,
              checkedIn: true,
              checkedInWhy: "VS Code workspace settings are shared with the repository",
            },
            value: { permissions: opts.vscodeWorkspacePermissions ?? undefined, hooks: opts.vscodeWorkspaceHooks ?? undefined },
          },
        ]
      : [];
  const at = fileSources.findIndex((s) => s.info.kind === "extra" || s.info.kind === "managed");
  const split = at < 0 ? fileSources.length : at;
  sources.push(...fileSources.slice(0, split), ...(await localFilesOf(opts)), ...vscodeWorkspace, ...fileSources.slice(split));
  return sources;
}

/**
 * The checkout whose local settings files apply in `cwd` besides its own: `localFrom` when given,
 * else — `cwd` being one of Yoke's agent worktrees — the person's workspace the agent's record names
 * (registry.ts agentWorkspaceOf; never the worktree's `.git`, which its commands may rewrite).
 */
export function localSettingsFolder(opts: Pick<SettingsFileOptions, "cwd" | "home" | "localFrom">): string | undefined {
  const cwd = resolve(opts.cwd);
  const from = opts.localFrom ?? agentWorkspaceOf(cwd, opts.home);
  return from === undefined || resolve(from) === cwd ? undefined : resolve(from);
}

/**
 * The one list of the other checkout's local settings files that apply in `cwd` (localSettingsFolder),
 * their relative rules relative to `cwd`; none when there is no such checkout. Every reader of the
 * settings files — the gate and hooks (loadSettingsSources), the settings reader (verification,
 * compaction, budgets…, reader.ts) — reads these.
 */
export function localSettingsFiles(opts: Pick<SettingsFileOptions, "cwd" | "home" | "localFrom">): { from: string; files: SettingsSourceInfo[] } | undefined {
  const from = localSettingsFolder(opts);
  if (from === undefined) return undefined;
  const cwd = resolve(opts.cwd);
  return {
    from,
    files: [
      { kind: "project-local", label: `${join(from, ".yoke", "settings.local.json")} (the workspace's)`, path: join(from, ".yoke", "settings.local.json"), baseDir: cwd },
      { kind: "claude-local", label: `${join(from, ".claude", "settings.local.json")} (the workspace's)`, path: join(from, ".claude", "settings.local.json"), baseDir: cwd },
    ],
  };
}

/** The local settings files of localSettingsFiles, read with their own checkout's git. */
async function localFilesOf(opts: SettingsFileOptions): Promise<LoadedSource[]> {
  const local = localSettingsFiles(opts);
  if (local === undefined) return [];
  const loaded: LoadedSource[] = local.files.map((info) => {
    const read = readSettingsText(info.path!);
    return { info, text: read.text, error: read.error };
  });
  const present = loaded.filter((s) => s.text !== undefined || s.error !== undefined);
  if (present.length) await markTracked(local.from, present, opts.git ?? hostProgram("git"), opts.home);
  return present;
}

/**
 * The settings files of another folder of a multi-root workspace (its .yoke/ and .claude/ files,
 * with the same trust rules), labelled with the folder's name; their relative rules are relative
 * to that folder. The user's and managed files are read once, with the first folder's.
 */
export async function loadFolderSettingsSources(folder: string, opts: Pick<SettingsFileOptions, "home" | "git"> = {}): Promise<LoadedSource[]> {
  const name = basename(resolve(folder));
  const all = await loadSettingsSources({ cwd: folder, home: opts.home, managedDir: null, ...(opts.git ? { git: opts.git } : {}) });
  const cwd = resolve(folder);
  return all.filter((s) => WORKSPACE_FILE_KINDS.has(s.info.kind)).map((s) => ({ ...s, info: { ...s.info, label: `${name}/${s.info.label}`, cwd } }));
}

/** Sets `checkedIn` on workspace settings files and attaches the committed version of a broken tracked one. */
async function markTracked(cwd: string, sources: LoadedSource[], gitProgram: string, home?: string): Promise<void> {
  await markTrackedByGit(cwd, sources, gitProgram);
  rememberRepositoryContent(sources, home ?? homedir());
}

const LOCAL_KINDS = new Set<SettingsSourceInfo["kind"]>(["project-local", "claude-local"]);
const REMEMBERED_MAX = 1000;

/** The file Yoke keeps the hashes of local settings files it has seen git track (the user's own storage, out of every sandbox's reach). */
export function repositorySettingsMemory(home = homedir()): string {
  return join(home, ".yoke", "repository-settings.json");
}

/**
 * Whether a `settings.local.json` is the user's is decided by git's index, which ordinary git work
 * changes (`git rm --cached`, a deleted or rewritten `.git/index`, a commit that drops the file) —
 * work a command may do without writing the protected file itself. So the origin is bound to the
 * content too: the content of every local settings file seen tracked is remembered (its hash, in
 * ~/.yoke), and an untracked file with a remembered content still came with the repository. Its
 * content can only change by a write to the protected path (the user's own edit, or one the user
 * approved), which makes it the user's.
 */
function rememberRepositoryContent(sources: LoadedSource[], home: string): void {
  const local = sources.filter((s) => LOCAL_KINDS.has(s.info.kind) && s.info.path);
  if (!local.length) return;
  const hashOf = (path: string): string | undefined => {
    try {
      return createHash("sha256").update(readFileSync(path)).digest("hex");
    } catch {
      return undefined;
    }
  };
  const file = repositorySettingsMemory(home);
  let known: string[] = [];
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { hashes?: unknown };
    if (Array.isArray(parsed.hashes)) known = parsed.hashes.filter((h): h is string => typeof h === "string");
  } catch {
    known = [];
  }
  const added: string[] = [];
  for (const s of local) {
    const hash = hashOf(s.info.path!);
    if (!hash) continue;
    const key = `${createHash("sha256").update(resolve(s.info.path!)).digest("hex").slice(0, 32)}:${hash}`;
    if (s.info.checkedIn === true) {
      if (!known.includes(key) && !added.includes(key)) added.push(key);
    } else if (known.includes(key)) {
      s.info.checkedIn = true;
      s.info.checkedInWhy = "git tracked this same content before (the repository wrote it), and it is no longer tracked";
    }
  }
  if (!added.length) return;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify({ hashes: [...known, ...added].slice(-REMEMBERED_MAX) }) + "\n", { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // Not remembered: the file still counts as the repository's while git tracks it.
  }
}

async function markTrackedByGit(cwd: string, sources: LoadedSource[], gitProgram: string): Promise<void> {
  const rel = new Map<LoadedSource, string[]>();
  for (const s of sources) {
    const lexical = relative(cwd, s.info.path!);
    const paths = [lexical];
    const link = symlinkIn(cwd, lexical);
    if (link) {
      let real: string | undefined;
      try {
        real = realpathSync.native(s.info.path!);
      } catch {
        real = undefined;
      }
      const realCwd = realpathSync.native(cwd);
      const inside = real !== undefined && (real === realCwd || real.startsWith(realCwd + sep));
      if (!inside) {
        s.info.checkedIn = true;
        s.info.checkedInWhy = `it is reached through the symbolic link ${link}, which leads out of the workspace, so Yoke cannot tell who wrote it`;
        continue;
      }
      paths.push(relative(realCwd, real!));
      s.info.checkedInWhy = `it is reached through the symbolic link ${link}`;
    }
    rel.set(s, paths);
  }
  if (rel.size === 0) return;
  // A file inside a submodule or another nested repository is the repository's: `git ls-files` of
  // the outer repository lists the submodule's gitlink, never its files, so they would look untracked.
  for (const [s, paths] of [...rel]) {
    const nested = paths.map((p) => nestedRepository(cwd, p)).find((n) => n !== undefined);
    if (nested === undefined) continue;
    s.info.checkedIn = true;
    s.info.checkedInWhy = `it is inside ${nested}, a git submodule or nested repository, whose files come with the repository`;
    rel.delete(s);
  }
  if (rel.size === 0) return;
  if (!insideGitRepository(cwd)) {
    for (const s of rel.keys()) s.info.checkedIn ??= s.info.kind === "project" || s.info.kind === "claude";
    return;
  }
  const all = [...new Set([...rel.values()].flat())];
  const listed = await runGit(gitProgram, cwd, ["ls-files", "-z", "--", ...all]);
  if (listed.code !== 0) {
    const notRepo = /not a git repository/i.test(listed.stderr);
    for (const s of rel.keys()) {
      if (notRepo) s.info.checkedIn ??= s.info.kind === "project" || s.info.kind === "claude";
      else {
        s.info.checkedIn = true;
        s.info.checkedInWhy = `Yoke could not ask git whether it is tracked: ${firstLine(listed.stderr) || listed.error || `git exited with ${listed.code}`}`;
      }
    }
    return;
  }
  const tracked = new Set(listed.stdout.split("\0").filter(Boolean));
  const broken: Array<{ source: LoadedSource; path: string }> = [];
  for (const [s, paths] of rel) {
    const hit = paths.find((p) => tracked.has(p));
    if (hit) {
      s.info.checkedIn = true;
      s.info.checkedInWhy = hit === paths[0] ? "git tracks it" : `git tracks ${hit}, which it links to`;
      if (s.error !== undefined || (s.text !== undefined && (s.text.trim() === "" || !parseJsonc(s.text).ok))) broken.push({ source: s, path: hit });
    } else if (s.info.kind === "project" || s.info.kind === "claude") s.info.checkedIn = true;
    else if (s.info.checkedIn === undefined) {
      s.info.checkedIn = false;
      s.info.checkedInWhy = undefined;
    }
  }
  if (broken.length === 0) return;
  const input = broken.map((b) => `HEAD:./${b.path}\n`).join("");
  const shown = await runGit(gitProgram, cwd, ["cat-file", "--batch"], input);
  if (shown.code !== 0) return;
  const blobs = parseBatch(shown.stdout, broken.length);
  broken.forEach((b, i) => {
    const text = blobs[i];
    if (text !== undefined && text.trim() !== "") b.source.fallback = { text, from: "the committed version (git HEAD)" };
  });
}

/** The first symbolic link on the way from `cwd` to `rel` (relative), or undefined. */
function symlinkIn(cwd: string, rel: string): string | undefined {
  const parts = rel.split(sep);
  let at = cwd;
  for (const p of parts) {
    at = join(at, p);
    try {
      if (lstatSync(at).isSymbolicLink()) return relative(cwd, at);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The folder (relative to `cwd`) between `cwd` and the file `rel` that is its own git repository
 * (a `.git` folder or file: a submodule, a nested clone, a worktree), or undefined.
 */
function nestedRepository(cwd: string, rel: string): string | undefined {
  const parts = rel.split(sep).slice(0, -1);
  for (let n = parts.length; n >= 1; n--) {
    const dir = parts.slice(0, n).join(sep);
    if (dir === "" || dir === "." || dir.startsWith("..")) continue;
    if (existsSync(join(cwd, dir, ".git"))) return dir;
  }
  return undefined;
}

function insideGitRepository(cwd: string): boolean {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

function firstLine(s: string): string {
  return s.trim().split("\n")[0] ?? "";
}

/** `git cat-file --batch` output: the contents of each requested object, undefined when missing. */
function parseBatch(out: string, count: number): Array<string | undefined> {
  const buf = Buffer.from(out, "utf8");
  const result: Array<string | undefined> = [];
  let at = 0;
  for (let i = 0; i < count && at < buf.length; i++) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) break;
    const header = buf.subarray(at, nl).toString("utf8");
    at = nl + 1;
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m) {
      result.push(undefined);
      continue;
    }
    const size = Number(m[1]);
    result.push(buf.subarray(at, at + size).toString("utf8"));
    at += size + 1;
  }
  return result;
}

interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
  error?: string;
}

/**
 * Runs git so that the repository's configuration cannot run anything: no fsmonitor, no hooks,
 * no pager, no system or global configuration, none of the caller's GIT_* variables; any owner
 * of the repository is accepted (nothing in it is executed).
 */
export function runGit(git: string, cwd: string, args: string[], input?: string): Promise<GitResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
    LC_ALL: "C",
  });
  const safe = ["--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "safe.directory=*", "-c", "core.untrackedCache=false", "-C", cwd];
  return new Promise((done) => {
    const child = execFile(git, [...safe, ...args], { env, encoding: "utf8", timeout: 15_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr), ...(err && code === -1 ? { error: err.message } : {}) });
    });
    // git may exit before it reads its input (not a repository): a closed pipe is not an error here.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(input ?? "");
  });
}

/** The Node realPath port: symlinks resolved, undefined when the path does not exist. */
export async function nodeRealPath(path: string): Promise<string | undefined> {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** The text of a symlink; undefined when the path is not one. */
export async function nodeReadLink(path: string): Promise<string | undefined> {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** nodeReadTextSync as the gate's asynchronous readText port (kept while the file is unchanged). */
export async function nodeReadText(path: string, max: number): Promise<string | undefined> {
  return nodeReadTextCachedSync(path, max);
}

/**
 * Would bash run this file when it finds it on the command path (the gate's isExecutable port): it exists, links
 * followed, is not a folder, and this process may execute it (bash's findcmd.c file_status; root: any execute bit).
 */
export function nodeIsExecutable(path: string): Promise<boolean> {
  return new Promise((done) =>
    stat(path, (err, st) => {
      if (err || st.isDirectory()) return done(false);
      access(path, fsConstants.X_OK, (denied) => done(!denied));
    }),
  );
}

/** The Node listDir port of the sandbox view: a folder's entries, symlinks not followed. */
export async function nodeListDir(dir: string): Promise<DirEntry[] | undefined> {
  try {
    // node:fs's callback (not node:fs/promises, which loads on first use: esbuild.mjs): the gate
    // lists folders before a session's first request (protected-references.ts).
    const entries = await new Promise<Dirent[]>((done, fail) => readdir(dir, { withFileTypes: true }, (err, list) => (err ? fail(err) : done(list))));
    return entries.map((e) => ({ name: e.name, kind: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "dir" : e.isFile() ? "file" : "other" }));
  } catch {
    return undefined;
  }
}

/** Writes rules to `<cwd>/.yoke/settings.local.json`, keeping everything else in the file. */
export function createSettingsWriter(cwd: string, opts: { git?: string } = {}): SettingsWriter {
  const root = resolve(cwd);
  const path = join(root, ".yoke", "settings.local.json");
  return {
    async addRule(rule: string, list: RuleList) {
      // An allow rule in a file git tracks would be ignored (a repository may only restrict): say so instead of writing it.
      const [probe] = await loadTracking(root, opts.git);
      if (list === "allow" && probe?.info.checkedIn) {
        throw new Error(
          `${path} is shared with the repository (${probe.info.checkedInWhy ?? "git tracks it"}), so Yoke ignores allow rules in it; untrack it (git rm --cached .yoke/settings.local.json) or add the rule to ~/.yoke/settings.json`,
        );
      }
      let data: Record<string, unknown> = {};
      let existing: string | undefined;
      try {
        existing = readFileSync(path, "utf8");
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
      if (existing !== undefined && existing.trim() !== "") {
        const parsed = parseJsonc(existing);
        if (!parsed.ok) throw new Error(`${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message}); fix it before adding rules`);
        if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) throw new Error(`${path}: the settings must be a JSON object`);
        data = parsed.value as Record<string, unknown>;
      }
      const perms = (data.permissions ??= {}) as Record<string, unknown>;
      if (typeof perms !== "object" || Array.isArray(perms)) throw new Error(`${path}: "permissions" must be an object`);
      const current = perms[list] ?? [];
      if (!Array.isArray(current)) throw new Error(`${path}: "permissions.${list}" must be an array`);
      if (!current.includes(rule)) current.push(rule);
      perms[list] = current;
      mkdirSync(dirname(path), { recursive: true });
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(data, null, 2) + "\n");
      renameSync(tmp, path);
      return { path };
    },
  };
}

/**
 * The origin of one workspace settings file that is meant to stay local (a `settings.local.json`):
 * `project-local` only when git does not track it and it is not inside a submodule, a nested
 * repository or behind a link leaving the workspace; otherwise `project`, with why.
 */
export async function localFileOrigin(cwd: string, path: string, git?: string): Promise<{ origin: "project" | "project-local"; why?: string }> {
  const root = resolve(cwd);
  const info: SettingsSourceInfo = { kind: "claude-local", label: relative(root, path), path, baseDir: root };
  await markTracked(root, [{ info, text: "{}" }], git ?? hostProgram("git"));
  return info.checkedIn === false ? { origin: "project-local" } : { origin: "project", why: info.checkedInWhy ?? "Yoke could not confirm that git does not track it" };
}

/** The .yoke/settings.local.json source with its `checkedIn` flag (also when the file does not exist yet). */
async function loadTracking(cwd: string, git?: string): Promise<LoadedSource[]> {
  const info: SettingsSourceInfo = { kind: "project-local", label: ".yoke/settings.local.json", path: join(cwd, ".yoke", "settings.local.json"), baseDir: cwd };
  const source: LoadedSource = { info, text: "{}" };
  await markTracked(cwd, [source], git ?? hostProgram("git"));
  return [source];
}
