/** What one permission check needs: settings, folders, symlink resolution, the shell parser. */
import type { Parser } from "web-tree-sitter";
import type { PermissionDecision, PermissionMode } from "../loop/types";
import { pathSpecMatches } from "./path-spec";
import type { ProtectedReference } from "../protected-references";
import { HOME_WHY, homeEntryWritable, GIT_RUNS_FROM_WHY, PATH_INSTALL_WHY, PROTECTED_WORKSPACE_PATHS, protectedEntry, type ProtectedPath } from "../protected-paths";
import { isWithin, normalizeAbs, relativeTo, resolveFrom, resolvePhysical, resolveReal } from "./posix-path";
import { ruleAppliesTo } from "./rule-syntax";
import { sensitivity, type Sensitivity } from "./sensitive";
import type { MergedSettings, PermissionRule, RuleList } from "./types";
import type { NpmConfigSources } from "./npm-config";

export interface EvalContext {
  /** Workspace root: absolute, normalised. */
  cwd: string;
  home: string;
  /** Workspace root and additional directories, symlinks resolved (roots[0] is the workspace root). */
  roots: string[];
  /** The home folder with symlinks resolved. */
  realHome: string;
  settings: MergedSettings;
  /** Rules added by "always allow" answers for this session only. */
  sessionRules: PermissionRule[];
  realPath?: (p: string) => Promise<string | undefined>;
  /** Undefined when the shell parser could not be loaded (then every command asks). */
  parser?: Parser;
  /** Why the parser is missing. */
  parserError?: string;
  trusted: boolean;
  /** Entry names of a folder (undefined: not a readable folder). For glob expansion and git checks. */
  listDir?: (absPath: string) => Promise<string[] | undefined>;
  /** The workspace's file system ignores case (macOS, Windows): path matching folds case. */
  caseInsensitive?: boolean;
  /**
   * Protected names of a workspace folder that are symlinks (`.vscode -> cfg`), with where they
   * lead: a path under the target is written through its other name too (protectedLinks()).
   */
  protectedLinks?: ProtectedLink[];
  /** The installs in the home of the command path's folders (pathInstalls): protected as the home's read-only entries. */
  homeInstalls?: string[];
  /** Files and folders the protected configurations source or run (protected-references.ts), absolute: protected as those are. */
  references?: ProtectedReference[];
  /**
   * Settings files whose values count as the user's own (a `--settings` file, a managed or user
   * file) that lie in a workspace folder, absolute (written and real path): protected as `.yoke` is
   * (red team D, session 23).
   */
  settingsFiles?: string[];
  /** Folders only Yoke writes (the session folder) that lie in a workspace folder, absolute (written and real path): protected whole (session 24, bgprot24). */
  hostFolders?: string[];

  /**
   * The session's command path, where it has an entry the command line can write (relative, empty,
   * or inside the workspace): each entry in order, with the programs an entry outside holds
   * (undefined: not listed). Absent when every entry is an absolute folder outside the workspace.
   */
  searchPath?: SearchPathEntry[];
  /** What git runs or reads as configuration for the workspace repositories, where it lies in a workspace folder (GitRunsFrom): protected as `.git/hooks` and `.git/config` are. */
  gitRunsFrom?: string[];
  /** Every file git holds content for in a folder's repository (git-objects.ts); undefined: Yoke assumes a Read rule covers one. */
  gitObjectPaths?: GitObjectPaths;
  /** What `git checkout X` would take X for in a folder's repository (evaluate-bash.ts); undefined: Yoke reads it as a discard. */
  gitCheckoutTarget?: GitCheckoutTarget;
  /** Where npm's configuration is read from (npm-config.ts); undefined: npm's settings are code Yoke cannot see. */
  npmConfig?: NpmConfigPort;
  /** Reads a file's text, at most `max` bytes (undefined: not a readable regular file): script files a command runs (m4's, psql's `-f`). */
  readText?: (absPath: string, max: number) => Promise<string | undefined>;
  /**
   * Would bash run this file when it finds it on the command path: it exists (links followed), is not a folder,
   * and the user may execute it (bash's findcmd.c). Without it, a name a folder lists counts as found.
   */
  isExecutable?: (absPath: string) => Promise<boolean>;
}

/** One entry of the command path (EvalContext.searchPath). */
export interface SearchPathEntry {
  /** As written in PATH. */
  dir: string;
  /** Relative, empty (the current folder), or inside a workspace folder: a program there can be workspace code. */
  writable: boolean;
  /** The names the folder holds, for entries that are not writable (undefined: it could not be listed). */
  names?: ReadonlySet<string>;
  /** The folder, absolute (entries that are not writable). */
  abs?: string;
}

/** npm's configuration files and variables, for the settings that name programs (npm-config.ts). */
export type NpmConfigPort = Omit<NpmConfigSources, "home">;

/**
 * For `git checkout X` run in `dir`: does X name a commit (`git rev-parse --verify X^{commit}`), and
 * does X match a path git tracks there (`git ls-files -- X`)? Read-only, on the host. Undefined when
 * that cannot be told (no repository, git failed).
 */
export type GitCheckoutTarget = (dir: string, operand: string) => Promise<{ commit: boolean; tracked: boolean } | undefined>;

/**
 * Absolute paths of every file git holds content for in the repository that contains a folder (its
 * index, every commit reachable from a ref, a reflog or the stash): [] when the folder is in no
 * repository; undefined when that is not known (git failed, too many paths, too slow). See git-objects.ts.
 */
export type GitObjectPaths = (dir: string) => Promise<string[] | undefined>;

/**
 * What git runs or reads as configuration for the repository that contains `dir`, absolute: the folder
 * it runs hooks from (`git rev-parse --git-path hooks`: core.hooksPath when set) and the files
 * `include.path`/`includeIf.*.path` name. Undefined when there is no repository or that cannot be told.
 */
export type GitRunsFrom = (dir: string) => Promise<string[] | undefined>;

export interface ProtectedLink {
  /** The link's own path relative to its workspace folder (`.vscode`). */
  name: string;
  /** Where it leads, symlinks resolved. */
  target: string;
}

/** Top-level names the protected list starts with (`.git` for `.git/config`, `.vscode`, `.envrc`…). */
const PROTECTED_TOP = [...new Set(PROTECTED_WORKSPACE_PATHS.map((e) => e.path.split("/")[0]!))];

/** The protected names of the folders that are symlinks, and their targets (once per context). */
export async function protectedLinks(roots: readonly string[], realPath: EvalContext["realPath"], readLink?: (p: string) => Promise<string | undefined>): Promise<ProtectedLink[]> {
  if (!realPath) return [];
  const out: ProtectedLink[] = [];
  for (const root of roots) {
    const dir = root === "/" ? "" : root;
    const found = await Promise.all(
      PROTECTED_TOP.map(async (name) => {
        const at = `${dir}/${name}`;
        let target = await realPath(at).catch(() => undefined);
        // A dangling link (`.vscode -> cfg`, no cfg yet): what creating its target would write.
        const text = target === undefined && readLink ? await readLink(at).catch(() => undefined) : undefined;
        if (text) target = await resolveReal(normalizeAbs(text.startsWith("/") ? text : `${dir}/${text}`), realPath);
        return target && target !== at ? { name, target } : undefined;
      }),
    );
    for (const f of found) if (f) out.push(f);
  }
  return out;
}

/** A path as written and as it resolves (symlinks followed). */
export interface CheckedPath {
  written: string;
  lexical: string;
  real: string;
  inside: boolean;
  sensitive?: Sensitivity;
  /** A workspace path that runs code later (src/core/protected-paths.ts), as written or as resolved. */
  protected?: ProtectedPath;
}

export async function checkPath(ctx: EvalContext, base: string, written: string): Promise<CheckedPath> {
  const lexical = resolveFrom(base, written, ctx.home);
  const real = await resolveReal(lexical, ctx.realPath);
  return describe(ctx, written, lexical, real);
}

/**
 * A path a command names, resolved as the kernel will: `..` after a symlink goes up from the
 * symlink's target (`link/../x`), not from the folder holding the link.
 */
export async function checkCommandPath(ctx: EvalContext, base: string, written: string): Promise<CheckedPath> {
  const lexical = resolveFrom(base, written, ctx.home);
  const real = written.split("/").includes("..") ? await resolvePhysical(await resolveReal(base, ctx.realPath), written, ctx.realPath) : await resolveReal(lexical, ctx.realPath);
  return describe(ctx, written, lexical, real);
}

function describe(ctx: EvalContext, written: string, lexical: string, real: string): CheckedPath {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  const inside = ctx.roots.some((r) => isWithin(fold(real), fold(r)));
  const sensitive = sensitivity(fold(real), fold(ctx.realHome)) ?? sensitivity(fold(real), fold(ctx.home)) ?? sensitivity(fold(lexical), fold(ctx.home));
  return {
    written,
    lexical,
    real,
    inside,
    sensitive,
    protected:
      protectedAt(ctx, lexical) ??
      protectedAt(ctx, real) ??
      protectedThroughLink(ctx, real) ??
      protectedInHome(ctx, real) ??
      protectedInHome(ctx, lexical) ??
      referencedBy(ctx, real) ??
      referencedBy(ctx, lexical) ??
      ownSettingsFile(ctx, real) ??
      ownSettingsFile(ctx, lexical) ??
      hostFolder(ctx, real) ??
      hostFolder(ctx, lexical) ??
      protectedHooks(ctx, lexical) ??
      protectedHooks(ctx, real),
  };
}

export const OWN_SETTINGS_WHY =
  "a settings file Yoke reads as your own (a --settings file, a managed or user settings file): its allow rules, modes, hooks and MCP servers count, so a change would loosen what Yoke lets run";

/** A settings file whose values count as the user's own, in a workspace folder (EvalContext.settingsFiles). */
function ownSettingsFile(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  const hit = ctx.settingsFiles?.find((f) => fold(f) === fold(abs));
  if (!hit) return undefined;
  const root = ctx.roots.find((r) => isWithin(hit, r) && hit !== r);
  return { path: root ? hit.slice(root.length + 1) : hit, kind: "file", why: OWN_SETTINGS_WHY };
}

export const HOST_FOLDER_WHY =
  "the session folder, which only Yoke writes: `yoke resume` restores the session's permission mode and approvals from the logs in it, so a change could raise what the agent may do";

/** A path in a folder only Yoke writes (EvalContext.hostFolders), or one of those folders. */
function hostFolder(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  const hit = ctx.hostFolders?.find((f) => isWithin(fold(abs), fold(f)));
  if (!hit) return undefined;
  const root = ctx.roots.find((r) => isWithin(hit, r) && hit !== r);
  return { path: root ? hit.slice(root.length + 1) : hit, kind: "dir", why: HOST_FOLDER_WHY };
}

/** A file a protected configuration sources or runs (`source_env env.sh` in .envrc, `. ~/dotfiles/aliases.sh` in a home's .bashrc), or in a folder it names. */
function referencedBy(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  if (!ctx.references?.length) return undefined;
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  const hit = ctx.references.find((r) => (r.kind === "dir" ? isWithin(fold(abs), fold(r.path)) : fold(abs) === fold(r.path)));
  if (!hit) return undefined;
  const root = ctx.roots.find((r) => isWithin(hit.path, r) && hit.path !== r);
  return { path: root ? hit.path.slice(root.length + 1) : hit.path, kind: hit.kind, why: hit.why };
}

/**
 * In a workspace that is the home folder or holds it, the home's entries the command sandbox keeps
 * read-only (its dot entries but histories, and `bin` and `go`: homeEntryWritable) are protected
 * for the gate too — the same rule, so a file tool cannot write what a command may not (red team K:
 * `~/.claude.json`'s MCP servers and `~/.bash_aliases` written by write_file in acceptEdits ran on the
 * host). A workspace inside one of those entries (`~/.config/nvim`) is the person's choice: its files
 * are ordinary there, as the sandbox leaves them writable.
 */
function protectedInHome(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  for (const home of new Set([ctx.home, ctx.realHome])) {
    if (!home || home === "/") continue;
    const rel = relativeTo(fold(abs), fold(home));
    if (!rel) continue;
    const top = rel.split("/")[0]!;
    // A read-only entry, or an install of a program on PATH (`~/miniconda3` for `~/miniconda3/bin`).
    const install = homeEntryWritable(top) ? ctx.homeInstalls?.find((i) => isWithin(fold(abs), fold(i)) && isWithin(fold(i), fold(home))) : undefined;
    if (homeEntryWritable(top) && !install) continue;
    const entry = install ?? `${home}/${top}`;
    // Only where the home lies in a workspace folder, and that folder is not inside the entry itself.
    if (!ctx.roots.some((r) => isWithin(fold(home), fold(r)) && !isWithin(fold(r), fold(entry)))) continue;
    return install ? { path: `~/${install.slice(home.length + 1)}`, kind: "dir", why: PATH_INSTALL_WHY } : { path: `~/${top}`, kind: "dir", why: HOME_WHY };
  }
  return undefined;
}

/** A path in (or the folder itself) a repository's configured hooks folder or an included configuration file, in the working tree. */
function protectedHooks(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  const dir = ctx.gitRunsFrom?.find((d) => isWithin(fold(abs), fold(d)));
  if (!dir) return undefined;
  const root = ctx.roots.find((r) => isWithin(fold(dir), fold(r)));
  return { path: root ? relativeTo(dir, root) || dir : dir, kind: "dir", why: GIT_RUNS_FROM_WHY };
}

/** A path under the target of a protected name that is a symlink is that protected path too. */
function protectedThroughLink(ctx: EvalContext, real: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  for (const link of ctx.protectedLinks ?? []) {
    const rel = relativeTo(fold(real), fold(link.target));
    if (rel === undefined) continue;
    const entry = protectedEntry(rel === "" ? link.name : `${link.name}/${rel}`);
    if (entry) return entry;
  }
  return undefined;
}

/** The protected workspace path covering `abs` (absolute), in any workspace folder. */
export function protectedAt(ctx: EvalContext, abs: string): ProtectedPath | undefined {
  const fold = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  for (const root of [ctx.cwd, ...ctx.roots]) {
    const rel = relativeTo(fold(abs), fold(root));
    if (rel === undefined || rel === "") continue;
    const entry = protectedEntry(rel);
    if (entry) return entry;
  }
  return undefined;
}

/** rulesFor's answers per context, valid while the session rules keep their number (they are only ever added). */
const rulesCache = new WeakMap<EvalContext, { sessionRules: number; byKey: Map<string, PermissionRule[]> }>();

export function rulesFor(ctx: EvalContext, list: RuleList, permission: string): PermissionRule[] {
  let cache = rulesCache.get(ctx);
  if (!cache || cache.sessionRules !== ctx.sessionRules.length) rulesCache.set(ctx, (cache = { sessionRules: ctx.sessionRules.length, byKey: new Map() }));
  const key = `${list}\0${permission}`;
  const hit = cache.byKey.get(key);
  // A copy: callers may extend what they get.
  if (hit) return [...hit];
  const all = [...ctx.sessionRules, ...ctx.settings.rules];
  const found = all.filter((r) => r.list === list && ruleAppliesTo(r.tool, permission, { foldMcp: list !== "allow" }));
  cache.byKey.set(key, found);
  return [...found];
}

/** matchPathRule's answers per context and path object (a command naming one path many times checks it once). */
const pathRuleCache = new WeakMap<EvalContext, WeakMap<CheckedPath, Map<string, PermissionRule | undefined>>>();

/** First rule of `list` for `permission` whose path specifier matches (deny/ask: lexical or real path; allow: real path). */
export function matchPathRule(ctx: EvalContext, list: RuleList, permission: string, path: CheckedPath): PermissionRule | undefined {
  let byPath = pathRuleCache.get(ctx);
  if (!byPath) pathRuleCache.set(ctx, (byPath = new WeakMap()));
  let answers = byPath.get(path);
  if (!answers) byPath.set(path, (answers = new Map()));
  const key = `${list}\0${permission}\0${ctx.sessionRules.length}`;
  if (answers.has(key)) return answers.get(key);
  const found = matchPathRuleUncached(ctx, list, permission, path);
  answers.set(key, found);
  return found;
}

function matchPathRuleUncached(ctx: EvalContext, list: RuleList, permission: string, path: CheckedPath): PermissionRule | undefined {
  const candidates = list === "allow" ? [path.real] : [path.lexical, path.real];
  const f = (p: string) => (ctx.caseInsensitive ? p.toLowerCase() : p);
  return rulesFor(ctx, list, permission).find((r) => {
    // Another agent's ignore file: gitignore's own matching (ignore-files.ts).
    if (r.ignoreFile) return candidates.some((c) => r.ignoreFile!(c));
    return (
      r.specifier === undefined ||
      pathSpecMatches(f(r.specifier), candidates.map(f), {
        // A rule from another folder of a multi-root workspace is relative to that folder.
        cwd: f(r.source.cwd ?? ctx.cwd),
        home: f(ctx.home),
        realCwd: f(r.source.cwd ?? ctx.roots[0] ?? ctx.cwd),
        realHome: f(ctx.realHome),
        baseDir: f(r.source.baseDir),
        list,
      })
    );
  });
}

export function decide(decision: PermissionDecision["decision"], by: PermissionDecision["by"], reason: string, rule?: PermissionRule): PermissionDecision {
  return { decision, by, reason, rule: rule?.raw ?? null };
}

export function ruleLabel(rule: PermissionRule): string {
  return `${rule.raw} (${rule.source.label})`;
}

/** For a rule from another agent's ignore file: what the model may do instead (as Roo Code tells its model). */
export function ignoreFileHint(rule: PermissionRule): string {
  if (rule.source.kind !== "ignore-file") return "";
  return " Continue without this file, or ask the user to change that ignore file.";
}

export function planModeReason(what: string): string {
  return `Yoke is in plan mode, which is read-only: ${what} is not allowed. Investigate with read-only tools, then present your plan; the user leaves plan mode to carry it out.`;
}

export function restrictedReason(what: string): string {
  return `The workspace is not trusted (VS Code Restricted Mode): ${what} is not allowed. Ask the user to trust the workspace first.`;
}

export const MODE_NAMES: Record<PermissionMode, string> = { default: "default", acceptEdits: "acceptEdits", plan: "plan", bypassPermissions: "bypassPermissions" };

/** A path for messages: relative to the workspace when inside it. */
export function showPath(ctx: EvalContext, p: CheckedPath): string {
  if (isWithin(p.lexical, ctx.cwd) && p.lexical !== ctx.cwd) return p.lexical.slice(ctx.cwd.length + 1);
  const root = ctx.roots[0];
  if (root && isWithin(p.lexical, root) && p.lexical !== root) return p.lexical.slice(root.length + 1);
  return p.lexical;
}
