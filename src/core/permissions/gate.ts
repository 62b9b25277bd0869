/**
 * The permission gate every tool call passes. Rules come only from settings sources and from the
 * user's own "always allow" answers; nothing a tool returns or a model writes can add one.
 */
import type { Parser } from "web-tree-sitter";
import type { Logger } from "../ports";
import type { PermissionCheck, PermissionDecision, PermissionGate, PermissionMode } from "../loop/types";
import { checkPath, matchPathRule, protectedLinks, rulesFor, type EvalContext, type GitCheckoutTarget, type GitRunsFrom, type GitObjectPaths, type NpmConfigPort } from "./context";
import { expandPathTilde, pathInstalls } from "../protected-paths";
import { protectedReferencesAsync } from "../protected-references";
import { evaluate } from "./evaluate";
import { predictBash, type BashPrediction } from "./bash-prediction";
import { agentIgnoreRules, loadAgentIgnoreFiles } from "./ignore-files";
import { ignoreReads } from "./ignore-reads";
import { mergeSettings } from "./merge-settings";
import { originOf } from "../settings/origin";
import { isWithin, normalizeAbs, relativeTo, resolveFrom, resolveReal } from "./posix-path";
import { proposeRules } from "./propose-rule";
import { sandboxProtection, type ListDir, type SandboxProtection } from "./sandbox-view";
import { parseRule } from "./rule-syntax";
import { initShellParser, type ShellParserWasm } from "./shell/parser";
import type { SearchPathEntry } from "./context";
import type { LoadedSource, MergedSettings, PermissionRule, RuleList, SettingsProblem, SettingsSourceInfo } from "./types";

/** Persists an "always allow" rule (node implementation: src/node/settings-files.ts). */
export interface SettingsWriter {
  /** Adds `rule` to permissions.<list> of .yoke/settings.local.json; returns the file written. */
  addRule(rule: string, list: RuleList): Promise<{ path: string }>;
}

export interface PermissionGateOptions {
  /** Workspace root (absolute). */
  cwd: string;
  /** The user's home folder (absolute). */
  home: string;
  /**
   * Folders only Yoke itself writes: the session folder (its event logs, which `yoke resume` restores
   * modes and approvals from). Where one lies in a workspace folder it is protected as `.yoke` is
   * (session 24, bgprot24).
   */
  hostFolders?: readonly string[];
  /** Resolves symlinks; undefined when the path does not exist. Without it, paths are only normalised. */
  realPath?: (path: string) => Promise<string | undefined>;
  /** The text of a symlink, undefined when the path is not one (a dangling protected link's target is guarded too). */
  readLink?: (path: string) => Promise<string | undefined>;
  /** Reads the settings sources, lowest priority first; called on first use and on reload(). */
  loadSources: () => Promise<LoadedSource[]>;
  /** The tree-sitter wasm bytes (or a loader); see src/node/tree-sitter-wasm.ts. */
  shellWasm: ShellParserWasm | (() => Promise<ShellParserWasm>);
  writer?: SettingsWriter;
  /** false in an untrusted workspace: workspace settings may only restrict; edits, commands and MCP calls are denied. */
  trusted?: boolean;
  /** How the user trusts the workspace, added to the reason of a call Restricted Mode refuses (the CLI: `yoke trust DIR` or --trust). */
  restrictedHint?: string;
  log?: Logger;
  /**
   * Lists a folder (undefined when it is not a readable folder): the shell analysis expands globs
   * against the real workspace and looks for nested git repositories; sandboxProtection expands
   * deny globs. Without it, globs are only known when the command runs (they ask where a rule could apply).
   */
  listDir?: ListDir;
  /** The workspace's file system ignores case (or a probe that tells): path matching folds case. */
  caseInsensitive?: boolean | (() => Promise<boolean>);
  /** Lists the files git holds content for (git-objects.ts); without it, git commands that may show objects ask under Read rules. */
  gitObjectPaths?: GitObjectPaths;
  /** Tells a branch from a path for `git checkout X` (evaluate-bash.ts); without it, such a command is read as a discard. */
  gitCheckoutTarget?: GitCheckoutTarget;
  /** What git runs or reads as configuration for each workspace folder's repository (hooks folder, included files): those in the workspace are protected and read-only in the sandbox. */
  gitRunsFrom?: GitRunsFrom;
  /**
   * The folders below a workspace folder holding a package manager's configuration (`web/.npmrc`,
   * `packages/a/.yarnrc.yml`), as the last repository walk found them: what they name is protected as what the
   * workspace folder's own name (protected-references.ts; session 24, nested24). Without it, only the top's are read.
   */
  nestedConfigs?: (root: string) => Promise<string[]>;
  /**
   * Reads npm's configuration (`.npmrc` files, `npm_config_*`) for `npm edit`/`config edit`/`explore`, whose
   * program a setting names; without it, those commands ask where a deny rule exists.
   */
  npmConfig?: NpmConfigPort;
  /**
   * The command path (`PATH`) the session's commands get: in a workspace that holds the home, the
   * installs of its folders inside the home are protected as the sandbox keeps them (pathInstalls).
   */
  searchPath?: string;
  /**
   * Reads a file's text, at most `max` bytes (undefined: not a readable file): the configurations that
   * run code (`.envrc`, mise, `.tool-versions`, a home's shell startup files) are read for the files
   * they source, which are protected as they are (protected-references.ts). Without it, those stay writable for the gate.
   */
  readText?: (path: string, max: number) => Promise<string | undefined>;
  /** Is a file on the command path one bash would run (EvalContext.isExecutable)? */
  isExecutable?: (path: string) => Promise<boolean>;
  /** How long a reload's loosening read of an ignore file must stay the same before it counts (ignore-reads.ts; default 1,000 ms). */
  ignoreSettleMs?: number;
}

export interface YokePermissionGate extends PermissionGate {
  /**
   * The deny rule that forbids `permission` (Read, Edit, Write…) on `path` (absolute or relative to
   * the workspace), or null. For tools that touch many files at once (grep, glob) to leave out
   * files a deny rule covers, e.g. `.env` under `Read(./.env)`.
   */
  deniedBy(permission: string, path: string): Promise<string | null>;
  /** Rules that would allow this call ("Always allow"); empty when none is safe to offer. */
  proposeRules(req: PermissionCheck): Promise<string[]>;
  /** The first of proposeRules, or null. */
  proposeRule(req: PermissionCheck): Promise<string | null>;
  /** Writes an allow rule to .yoke/settings.local.json and applies it at once. */
  addLocalRule(rule: string): Promise<{ path: string }>;
  /** Adds a rule for the lifetime of this gate only. */
  addSessionRule(rule: string, list?: RuleList): void;
  /** Re-reads the settings sources (after the user edited them). */
  reload(): Promise<void>;
  settings(): Promise<MergedSettings>;
  /** Malformed files, skipped rules, ignored settings. */
  problems(): Promise<SettingsProblem[]>;
  /** permissions.defaultMode from the settings, else "default" (never bypassPermissions when it is disabled). */
  defaultMode(): Promise<PermissionMode>;
  /** May the session enter this mode? false for bypassPermissions when a settings file sets disableBypassPermissionsMode. */
  modeAllowed(mode: PermissionMode): Promise<boolean>;
  /** The file rules as sandbox mounts: paths to hide (denied reads) and to keep read-only (protected paths, denied writes). */
  sandboxProtection(): Promise<SandboxProtection>;
  /** What the Bash analysis predicts the command runs, writes and reads (for the differential checker, src/bench/diffcheck). */
  predictBash(command: string): Promise<BashPrediction>;
}

const SESSION_SOURCE: SettingsSourceInfo = { kind: "session", label: "allowed for this session", baseDir: "/" };
const SESSION_SOURCES: Record<RuleList, SettingsSourceInfo> = {
  allow: SESSION_SOURCE,
  ask: { kind: "session", label: "asked for this session", baseDir: "/" },
  deny: { kind: "session", label: "denied for this session", baseDir: "/" },
};
const GRANT_SOURCE: SettingsSourceInfo = { kind: "session", label: "allowed-tools of the slash command", baseDir: "/" };

/**
 * The settings files whose values count as the user's own (origin user, managed or cli: a
 * `--settings` file) that lie in a workspace folder, by the written and the real path. The agent
 * must not rewrite them unasked: the session reads them again while it runs, and the next run with
 * the same command line obeys them — allow rules, modes, hooks, MCP servers it starts on the host
 * (red team D, session 23: `yoke run --settings ci/yoke.json` in acceptEdits).
 */
async function ownSettingsFiles(sources: readonly LoadedSource[], roots: readonly string[], realPath: PermissionGateOptions["realPath"]): Promise<string[]> {
  const out = new Set<string>();
  for (const s of sources) {
    const path = s.info.path;
    if (!path || !OWN_ORIGINS.has(originOf(s.info))) continue;
    for (const p of [normalizeAbs(path), await resolveReal(path, realPath)]) if (roots.some((r) => p !== r && isWithin(p, r))) out.add(p);
  }
  return [...out];
}
const OWN_ORIGINS = new Set(["user", "managed", "cli"]);

/**
 * The host's own folders (PermissionGateOptions.hostFolders) that lie in a workspace folder, by the
 * written and the real path. A session folder there (`yoke run --session-dir DIR`, `yoke.sessionDir`)
 * was an ordinary folder: a command appended a `mode_change` to bypassPermissions to its own log and
 * `yoke resume` went on in that mode (session 24, bgprot24). A workspace folder itself is left out:
 * protecting it would make every write ask.
 */
async function hostFoldersIn(folders: readonly string[], roots: readonly string[], realPath: PermissionGateOptions["realPath"]): Promise<string[]> {
  const out = new Set<string>();
  for (const f of folders) for (const p of [normalizeAbs(f), await resolveReal(f, realPath)]) if (roots.some((r) => p !== r && isWithin(p, r))) out.add(p);
  return [...out];
}

/** The context with a check's own allow rules (PermissionCheck.grants) added; unparsable ones are left out. */
function withGrants(ctx: EvalContext, grants: readonly string[] | undefined): EvalContext {
  if (!grants?.length) return ctx;
  const rules: PermissionRule[] = [];
  for (const g of grants) {
    const parsed = parseRule(g);
    if (!("error" in parsed)) rules.push({ raw: g.trim(), tool: parsed.tool, specifier: parsed.specifier, list: "allow", source: GRANT_SOURCE });
  }
  return rules.length ? { ...ctx, sessionRules: [...ctx.sessionRules, ...rules] } : ctx;
}

export function createPermissionGate(opts: PermissionGateOptions): YokePermissionGate {
  const cwd = normalizeAbs(opts.cwd);
  const home = normalizeAbs(opts.home);
  const trusted = opts.trusted ?? true;
  const sessionRules: PermissionRule[] = [];
  // The last good text of each settings file: an emptied or broken file keeps its deny and ask rules.
  const lastGood = new Map<string, string>();
  let state: Promise<EvalContext> | undefined;
  // Other agents' ignore files, read tighten-only: a reload that finds one emptied, cut short or
  // unreadable keeps its last rules until the loosening read settles (ignore-reads.ts).
  const readText0 = opts.readText;
  const realPath0 = opts.realPath;
  const ignoreText = readText0
    ? ignoreReads({
        read: (p) => readText0(p, 1_000_000),
        ...(realPath0 ? { exists: async (p: string) => (await realPath0(p)) !== undefined } : {}),
        ...(opts.ignoreSettleMs !== undefined ? { settleMs: opts.ignoreSettleMs } : {}),
        recheck: () => void gate.reload().catch(() => undefined),
      })
    : undefined;

  // The shell parser (tree-sitter's wasm) loads on the first check that needs it (a command, a rule
  // proposal, a prediction), not when the session starts; a failure is kept until reload().
  let parserLoad: Promise<{ parser?: Parser; parserError?: string }> | undefined;
  const withParser = async (ctx: EvalContext): Promise<EvalContext> => {
    parserLoad ??= initShellParser(opts.shellWasm).then(
      (parser) => ({ parser }),
      (err: unknown) => {
        const parserError = err instanceof Error ? err.message : String(err);
        opts.log?.error(`[permissions] the shell parser could not be loaded: ${parserError}`);
        return { parserError };
      },
    );
    if (!ctx.parser && ctx.parserError === undefined) Object.assign(ctx, await parserLoad);
    return ctx;
  };

  // What git runs or reads as configuration for each workspace folder's repository, where it lies in a
  // workspace folder (as written and with links resolved): `.git/hooks` and `.git/config` are protected
  // already; a core.hooksPath or an include.path in the working tree is on no list (red team W, session
  // 21: a hook written there ran at the person's next commit, an included file's fsmonitor at git status).
  // Links are resolved again at each call (a link on the way to a hooks folder may have been re-pointed since).
  const workspaceGitRunsFrom = async (roots: string[]): Promise<string[]> => {
    const ask = opts.gitRunsFrom;
    if (!ask) return [];
    return gitRunsFromDirs(roots, await Promise.all(roots.map((r) => ask(r).catch(() => undefined))));
  };
  const gitRunsFromDirs = async (roots: string[], found: Array<string[] | undefined>): Promise<string[]> => {
    const dirs = found
      .flatMap((d) => d ?? [])
      .filter((d) => d.startsWith("/"))
      .map(normalizeAbs);
    const real = await Promise.all(dirs.map((d) => resolveReal(d, opts.realPath)));
    return [...new Set([...dirs, ...real])].filter((d) => roots.some((r) => d !== r && d.startsWith(`${r === "/" ? "" : r}/`)));
  };

  const build = async (): Promise<EvalContext> => {
    const sources = await opts.loadSources();
    const settings = mergeSettings(sources, { trusted, memory: lastGood });
    for (const p of settings.problems) opts.log?.warn(`[permissions] ${p.message}`);
    const dirs = [cwd, ...settings.additionalDirectories.map((d) => resolveFrom(cwd, d, home))];
    // Other agents' ignore files (.cursorignore, .clineignore, .rooignore): deny rules of the lowest
    // priority (a settings file's matching rule is the one named), from every workspace folder.
    if (ignoreText) {
      const files = await loadAgentIgnoreFiles([...new Set(dirs)], ignoreText.read);
      settings.rules.push(...agentIgnoreRules(files, cwd));
      for (const f of files) {
        for (const p of f.problems) {
          const at = `${relativeTo(p.path, cwd) || p.path}:${p.line}`;
          const problem = { source: { kind: "ignore-file" as const, label: at, path: p.path, baseDir: f.dir, checkedIn: true }, message: `${at}: ${p.message}` };
          settings.problems.push(problem);
          opts.log?.warn(`[permissions] ${problem.message}`);
        }
      }
    }
    const roots = await Promise.all(dirs.map((d) => resolveReal(d, opts.realPath)));
    const realHome = await resolveReal(home, opts.realPath);
    let caseInsensitive: boolean;
    try {
      caseInsensitive = typeof opts.caseInsensitive === "function" ? await opts.caseInsensitive() : !!opts.caseInsensitive;
    } catch (err) {
      opts.log?.warn(`[permissions] could not tell whether the file system ignores case (${err instanceof Error ? err.message : String(err)}); assuming it does`);
      caseInsensitive = true;
    }
    const listDir = opts.listDir;
    const names = listDir ? async (abs: string) => (await listDir(abs))?.map((e) => e.name) : undefined;
    const links = await protectedLinks([...new Set(roots)], opts.realPath, opts.readLink);
    // The home's installs on PATH, by the written and the real folder (a link on PATH to ~/x/bin).
    const pathDirs = expandPathTilde(opts.searchPath ?? "", home)
      .split(":")
      .filter((d) => d.startsWith("/"));
    const realDirs = await Promise.all(pathDirs.map((d) => resolveReal(d, opts.realPath)));
    const search = [...pathDirs, ...realDirs].join(":");
    const homeInstalls = [...new Set([...pathInstalls(search, home), ...pathInstalls(search, realHome)])];
    // What the protected configurations source (and, in a home that lies in a workspace folder, the shell's startup files).
    const references = await referencesOf(roots, realHome);
    const searchPath = await searchPathView(expandPathTilde(opts.searchPath ?? "", home), roots, homeInstalls, names, opts.realPath);
    const gitRunsFrom = await workspaceGitRunsFrom(roots);
    const settingsFiles = await ownSettingsFiles(sources, roots, opts.realPath);
    const hostFolders = await hostFoldersIn(opts.hostFolders ?? [], roots, opts.realPath);
    return {
      cwd,
      home,
      roots,
      realHome,
      settings,
      sessionRules,
      realPath: opts.realPath,
      trusted,
      listDir: names,
      caseInsensitive,
      protectedLinks: links,
      homeInstalls,
      references,
      ...(searchPath ? { searchPath } : {}),
      gitRunsFrom,
      settingsFiles,
      ...(hostFolders.length ? { hostFolders } : {}),
      gitObjectPaths: opts.gitObjectPaths,
      gitCheckoutTarget: opts.gitCheckoutTarget,
      npmConfig: opts.npmConfig,
      readText: opts.readText,
      isExecutable: opts.isExecutable,
    };
  };
  // What the protected configurations source (and, in a home that lies in a workspace folder, the
  // shell's startup files): read when the context is built and again before every check of a change,
  // so a configuration the person approved a change of counts from the next call on.
  const referencesOf = async (roots: readonly string[], realHome: string) => {
    const readText = opts.readText;
    if (!readText) return [];
    const listDir = opts.listDir;
    const names = listDir ? async (abs: string) => (await listDir(abs))?.map((e) => e.name) : undefined;
    const homesIn = [...new Set([realHome, home])].filter((h) => h !== "/" && roots.some((r) => isWithin(h, r)));
    const ask = opts.nestedConfigs;
    const nested = ask ? (await Promise.all(roots.map((r) => ask(r).catch(() => [] as string[])))).flat() : [];
    return protectedReferencesAsync([...new Set(roots)], homesIn, readText, async (p) => opts.realPath?.(p), names, [...new Set(nested)]);
  };
  const context = () => {
    state ??= build();
    state.catch(() => (state = undefined));
    return state;
  };

  const gate: YokePermissionGate = {
    async check(req, mode) {
      try {
        const base = await context();
        // Read again before every check of a change (each kept while its files are unchanged): a
        // configuration changed during the session counts from the next call on (gitcfg22).
        if (req.mutates !== false) {
          if (opts.readText) base.references = await referencesOf(base.roots, base.realHome);
          if (opts.gitRunsFrom) base.gitRunsFrom = await workspaceGitRunsFrom(base.roots);
        }
        const ctx = withGrants(base, req.grants);
        const d = await evaluate(req, mode, req.permission === "Bash" ? await withParser(ctx) : ctx);
        if (d.by !== "restricted" || !opts.restrictedHint) return d;
        return { ...d, reason: `${d.reason.replace("(VS Code Restricted Mode)", "(Restricted Mode)").replace(/\.$/, "")}: ${opts.restrictedHint}.` };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        opts.log?.error(`[permissions] check failed: ${message}`);
        return { decision: "ask", by: "mode", rule: null, reason: `Yoke's permission check failed (${message}), so it asks.` } satisfies PermissionDecision;
      }
    },
    async deniedBy(permission, path) {
      const ctx = await context();
      // No deny rule for this permission (most settings): none can match, so the path is not
      // resolved (guidance asks this for every memory file it reads: 1,000 at a million files).
      if (rulesFor(ctx, "deny", permission).length === 0) return null;
      const checked = await checkPath(ctx, ctx.cwd, path);
      return matchPathRule(ctx, "deny", permission, checked)?.raw ?? null;
    },
    async proposeRules(req) {
      return proposeRules(req, await withParser(await context()));
    },
    async proposeRule(req) {
      return (await gate.proposeRules(req))[0] ?? null;
    },
    async addLocalRule(rule) {
      const parsed = parseRule(rule);
      if ("error" in parsed) throw new Error(parsed.error);
      if (!opts.writer) throw new Error("this host cannot save permission rules");
      const written = await opts.writer.addRule(rule.trim(), "allow");
      await gate.reload();
      return written;
    },
    addSessionRule(rule, list = "allow") {
      const parsed = parseRule(rule);
      if ("error" in parsed) throw new Error(parsed.error);
      sessionRules.push({ raw: rule.trim(), tool: parsed.tool, specifier: parsed.specifier, list, source: SESSION_SOURCES[list] });
    },
    async reload() {
      state = undefined;
      parserLoad = undefined;
      await context();
    },
    async settings() {
      return (await context()).settings;
    },
    async problems() {
      return (await context()).settings.problems;
    },
    async defaultMode() {
      return (await context()).settings.defaultMode?.mode ?? "default";
    },
    async modeAllowed(mode) {
      return !(mode === "bypassPermissions" && (await context()).settings.bypassDisabled);
    },
    async sandboxProtection() {
      const base = await context();
      if (opts.gitRunsFrom) base.gitRunsFrom = await workspaceGitRunsFrom(base.roots);
      const { settings, cwd: root, home: h, roots, realHome, gitRunsFrom, settingsFiles, hostFolders } = base;
      return sandboxProtection(settings, { cwd: root, home: h, roots, realHome, gitRunsFrom, ...(settingsFiles ? { settingsFiles } : {}), ...(hostFolders ? { hostFolders } : {}) }, opts.listDir);
    },
    async predictBash(command) {
      return predictBash(command, await withParser(await context()));
    },
  };
  return gate;
}

/**
 * The command path as the gate needs it (EvalContext.searchPath): undefined when no entry is one the
 * command line can write. A relative or empty entry is looked up from wherever the command runs;
 * an absolute one inside a workspace folder (written or real) holds what the agent writes there,
 * unless it is one of a home workspace's PATH installs, which commands cannot write.
 */
async function searchPathView(
  searchPath: string,
  roots: readonly string[],
  protectedInstalls: readonly string[],
  listDir: ((abs: string) => Promise<string[] | undefined>) | undefined,
  realPath: ((p: string) => Promise<string | undefined>) | undefined,
): Promise<SearchPathEntry[] | undefined> {
  if (!searchPath) return undefined;
  const inside = (d: string) => roots.some((r) => isWithin(d, r));
  const entries = await Promise.all(
    searchPath.split(":").map(async (dir) => {
      if (!dir.startsWith("/")) return { dir, writable: true };
      const abs = normalizeAbs(dir);
      const real = await resolveReal(abs, realPath);
      // A home workspace's PATH installs are read-only for commands (pathInstalls): not writable.
      const install = protectedInstalls.some((i) => isWithin(abs, i) || isWithin(real, i));
      return { dir, writable: (inside(abs) || inside(real)) && !install, abs };
    }),
  );
  if (!entries.some((e) => e.writable)) return undefined;
  return Promise.all(
    entries.map(async (e): Promise<SearchPathEntry> => {
      if (e.writable || !("abs" in e) || !listDir) return { dir: e.dir, writable: e.writable };
      const names = await listDir(e.abs!).catch(() => undefined);
      return names ? { dir: e.dir, writable: false, names: new Set(names), abs: e.abs! } : { dir: e.dir, writable: false };
    }),
  );
}
