/**
 * The file rules as the command sandbox enforces them: which absolute paths a command must not
 * read (hidden inside the sandbox) and which it must not change (read-only), whatever the shell
 * analysis concluded about the command.
 *
 * - hide: every path a deny rule forbids reading (`Read(./.env)`, `Read(**\/.env*)`,
 *   `Read(secrets/**)`, `Read(~/.aws/**)`, `Read(//etc/shadow)`), expanded to the concrete files and
 *   folders that exist, by a bounded walk of the workspace folders through the `listDir` port.
 * - readOnly: the protected paths (src/core/protected-paths.ts) of every workspace folder, existing
 *   or not (the sandbox must also keep them from being created), protected paths found deeper in
 *   the workspace (a nested repository's `.git/hooks`, a sub-project's `.envrc`), and every path a
 *   deny rule forbids editing or writing.
 *
 * Patterns anchored above the workspace (`Read(//**\/.env)`, `Read(~/**\/id_*)`) are expanded inside
 * the workspace folders only; the rest of the disk is the sandbox's own business (home is hidden).
 * Bare rules (`Read` denied entirely) cannot become mounts: the gate still denies those calls.
 */
import { PROTECTED_WORKSPACE_PATHS, protectedEntry } from "../protected-paths";
import { anchorsOf, matcher } from "./path-spec";
import { basenameOf, dirnameOf, isWithin, normalizeAbs, relativeTo } from "./posix-path";
import { ruleAppliesTo } from "./rule-syntax";
import type { MergedSettings, PermissionRule } from "./types";

export interface DirEntry {
  name: string;
  kind: "file" | "dir" | "symlink" | "other";
}

/** Lists a folder without following symlinks in it; undefined when it is not a readable folder. */
export type ListDir = (dir: string) => Promise<DirEntry[] | undefined>;

export interface SandboxProtection {
  /** Absolute paths a command must not read; each exists (a file or a folder) when the view is made. */
  hide: string[];
  /** Absolute paths a command must not change; they may not exist yet, and must not be created either. */
  readOnly: string[];
  /**
   * Programs a deny or ask rule names as a whole (`Bash(rm:*)`, `Bash(curl *)`): the sandbox makes
   * them impossible to start (ask: in commands bypassPermissions mode alone allowed), so that a
   * command the analysis misread (`m4 <<< 'esyscmd(rm -rf src)'`) still cannot run them. The shells
   * commands run in are never on this list (see `programDenials`).
   */
  programs: ProgramDenial[];
  /** What the view could not cover, for the log (a walk that stopped at its bound, a bare deny rule). */
  notes: string[];
  /**
   * Of `readOnly`, the paths there only because a repository's git configuration names them (GitRunsFrom). The Linux
   * sandbox checks one inside a nested repository's working tree when it changes instead of mounting it (a mount point
   * there kept `git worktree remove` and `git submodule deinit` from deleting the folder: session 23, gitnew23).
   */
  gitNamed?: string[];
  /**
   * Of `readOnly`, the files there only because they bear a protected name below a workspace folder's top (a nested
   * worktree's `.gitmodules`, a sub-project's `.npmrc`). The Linux sandbox checks one inside a nested repository's
   * working tree instead of mounting it, as `gitNamed` (a mount point kept `git worktree remove` from deleting a
   * worktree of a branch with submodules: session 24, nested24).
   */
  nestedNames?: string[];
}

export interface ProgramDenial {
  /**
   * A program's name, as a command names it (`rm`, `curl`, `python3`), its absolute path
   * (`/usr/bin/rm`) when the rule gives one, or a pattern of names (`*rm`, `*rm*`) when the rule
   * begins with a wildcard (see `programNameMatches`).
   */
  name: string;
  /** The rule, as written, and where it is from. */
  rule: string;
  source: string;
  /**
   * deny: no command may start it. ask: no command bypassPermissions mode alone allowed may start
   * it (`confine.unreviewed`); one the user approved, or a rule allowed, may.
   */
  list: "deny" | "ask";
}

/** Shells the runner starts commands with: a deny rule on one is enforced by the gate alone. */
const RUNNER_SHELLS = new Set(["bash", "sh", "dash", "env"]);

/**
 * The programs deny and ask rules name with any arguments: `Bash(NAME:*)`, `Bash(NAME *)` and
 * `Bash(NAME*)` (which the gate also takes for NAME's longer names: the sandbox masks NAME), NAME a
 * plain program name or an absolute path (a deny rule wins over an ask rule of the same name). A rule on some arguments
 * only (`Bash(git push:*)`, `Bash(rm -rf:*)`) or on an exact command line (`Bash(rm)`) cannot be a
 * whole program's.
 */
export function programDenials(settings: MergedSettings): { programs: ProgramDenial[]; notes: string[] } {
  const programs = new Map<string, ProgramDenial>();
  const notes: string[] = [];
  for (const rule of settings.rules) {
    if ((rule.list !== "deny" && rule.list !== "ask") || rule.tool !== "Bash" || rule.specifier === undefined) continue;
    // `Bash(rm*)` and `Bash(rm **)` deny `rm` in the gate as well (red team round 7: the sandbox left
    // them to the gate alone, so `sh x.sh` running rm did); the sandbox takes the program they name.
    // A rule naming the program by its absolute path (`Bash(/usr/bin/rm:*)`) masks that file (red team round 7).
    const m = /^\s*([A-Za-z0-9_][A-Za-z0-9_.+-]*|(?:\/[A-Za-z0-9_.+-]+)+)(?::\*| \*+|\*+)\s*$/.exec(rule.specifier);
    // A leading wildcard (`Bash(*rm:*)`, `Bash(*rm *)`: any command whose program name ends in `rm`,
    // `/bin/rm` included; `Bash(*rm*)`: any whose name holds it) names every program file whose name
    // matches: the sandbox masks them all (red team round 7 ran rm from `sh x.sh` under `Bash(*rm:*)`).
    const g = m ? undefined : /^\s*\*+([A-Za-z0-9_.+-]+)(:\*| \*+|\*+)\s*$/.exec(rule.specifier);
    if (!m && !g) continue;
    const name = m ? m[1]! : `*${g![1]!}${g![2]!.startsWith("*") ? "*" : ""}`;
    if (g && [...RUNNER_SHELLS].some((sh) => programNameMatches(name, sh))) {
      notes.push(`the ${rule.list} rule ${rule.raw} (${rule.source.label}) also names a shell commands run in: the sandbox masks the other programs it names, the gate alone enforces it on the shell`);
    }
    if (RUNNER_SHELLS.has(name)) {
      notes.push(`the ${rule.list} rule ${rule.raw} (${rule.source.label}) names a shell commands run in: the gate enforces it, the sandbox cannot`);
      continue;
    }
    const have = programs.get(name);
    if (!have || (have.list === "ask" && rule.list === "deny")) programs.set(name, { name, rule: rule.raw, source: rule.source.label, list: rule.list });
  }
  return { programs: [...programs.values()], notes };
}

/**
 * Whether a program's file name matches a denial's name: the name itself, or for a name with
 * wildcards (`*rm`, `*rm*`, from a rule with a leading wildcard) the glob, `*` any run of characters.
 */
export function programNameMatches(denied: string, fileName: string): boolean {
  if (!denied.includes("*")) return denied === fileName;
  const re = new RegExp(
    `^${denied
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(fileName);
}

export interface SandboxViewContext {
  /** Workspace root as given (absolute, normalised). */
  cwd: string;
  home: string;
  /** Workspace root and additional directories, symlinks resolved. */
  roots: string[];
  realHome: string;
  /** What git runs or reads as configuration for the workspace repositories, in a workspace folder (core.hooksPath, include.path): read-only. */
  gitRunsFrom?: string[];
  /** Settings files that count as the user's own, in a workspace folder (EvalContext.settingsFiles): read-only. */
  settingsFiles?: string[];
  /** Folders only Yoke writes (the session folder), in a workspace folder (EvalContext.hostFolders): read-only. */
  hostFolders?: string[];
}

export interface SandboxViewLimits {
  /** Folder entries looked at in all, at most (default 50 000). */
  maxEntries?: number;
  /** How deep below a workspace folder the walk goes (default 32). */
  maxDepth?: number;
}

interface Target {
  purpose: "hide" | "readOnly";
  base: string;
  pattern: string;
  rule: PermissionRule;
  /** Matches an absolute path. */
  test: (abs: string) => boolean;
}

/** Turns the merged settings into the sandbox's hide and read-only lists. */
export async function sandboxProtection(settings: MergedSettings, ctx: SandboxViewContext, listDir?: ListDir, limits: SandboxViewLimits = {}): Promise<SandboxProtection> {
  const maxEntries = limits.maxEntries ?? 50_000;
  const maxDepth = limits.maxDepth ?? 32;
  const notes: string[] = [];
  const hide = new Set<string>();
  const readOnly = new Set<string>();
  /** What is read-only for another reason than git's configuration naming it. */
  const readOnlyOther = new Set<string>();
  /** Files read-only for their protected name alone, below a workspace folder's top. */
  const nestedFiles = new Set<string>();
  const addRo = (p: string) => {
    readOnly.add(p);
    readOnlyOther.add(p);
  };
  const roots = [...new Set([...ctx.roots, ctx.cwd].map(normalizeAbs))];
  const cache = new Map<string, Promise<DirEntry[] | undefined>>();
  const list = (dir: string) => {
    if (!listDir) return Promise.resolve(undefined);
    let p = cache.get(dir);
    if (!p) {
      p = listDir(dir).catch(() => undefined);
      cache.set(dir, p);
    }
    return p;
  };
  const exists = async (abs: string) => abs === "/" || !!(await list(dirnameOf(abs)))?.some((e) => e.name === basenameOf(abs));

  for (const root of roots) {
    // In a linked worktree or a submodule `.git` is a file naming the real git folder: that file is what to protect here.
    const gitFile = (await list(root))?.some((e) => e.name === ".git" && e.kind !== "dir");
    if (gitFile) notes.push(`${root}/.git is a file (a linked worktree or submodule): the git folder it names, with its hooks and config, is outside this view`);
    // .git/worktrees and .git/modules of the folder's own repository: git worktree and git submodule
    // write them; the Linux sandbox checks what they hold when the command ends (checkedAfter).
    for (const e of PROTECTED_WORKSPACE_PATHS) if (!(e.checkedAfter && !gitFile)) addRo(gitFile && e.path.startsWith(".git/") ? `${root}/.git` : `${root}/${e.path}`);
  }

  for (const p of ctx.gitRunsFrom ?? []) readOnly.add(normalizeAbs(p));
  for (const p of ctx.settingsFiles ?? []) readOnly.add(normalizeAbs(p));
  for (const p of ctx.hostFolders ?? []) addRo(normalizeAbs(p));

  // Deny rules with a path become targets; concrete paths are added at once, globs wait for the walk.
  const targets: Target[] = [];
  const seen = new Set<string>();
  for (const rule of settings.rules) {
    if (rule.list !== "deny") continue;
    // Other agents' ignore files: as in those tools, a program a command starts may read what they
    // list (the gate refuses the commands naming those paths); hiding them would hide node_modules/ or dist/.
    if (rule.ignoreFile) continue;
    const purpose = ruleAppliesTo(rule.tool, "Read") ? "hide" : ruleAppliesTo(rule.tool, "Edit") || ruleAppliesTo(rule.tool, "Write") ? "readOnly" : undefined;
    if (!purpose) continue;
    if (rule.specifier === undefined) {
      notes.push(`the deny rule ${rule.raw} (${rule.source.label}) covers every path; the gate denies those calls, the sandbox cannot hide everything`);
      continue;
    }
    const key = `${purpose} ${rule.specifier} ${rule.source.baseDir}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const pathCtx = { cwd: rule.source.cwd ?? ctx.cwd, home: ctx.home, baseDir: rule.source.baseDir, list: "deny" as const };
    const anchors = anchorsOf(rule.specifier, pathCtx);
    if (!rule.source.cwd && roots[0] && roots[0] !== ctx.cwd)
      anchors.push(...anchorsOf(rule.specifier, { ...pathCtx, cwd: roots[0], baseDir: rule.source.baseDir === ctx.cwd ? roots[0] : rule.source.baseDir }));
    if (ctx.realHome !== ctx.home) anchors.push(...anchorsOf(rule.specifier, { ...pathCtx, home: ctx.realHome, baseDir: rule.source.baseDir === ctx.home ? ctx.realHome : rule.source.baseDir }));
    for (const { base: rawBase, pattern } of anchors) {
      const base = normalizeAbs(rawBase);
      const fixed = concretePath(pattern);
      if (fixed !== undefined) {
        const abs = normalizeAbs(`${base}/${fixed}`);
        if (purpose === "readOnly") addRo(abs);
        else if (await exists(abs)) hide.add(abs);
        continue;
      }
      const m = matcher(pattern, true);
      targets.push({
        purpose,
        base,
        pattern,
        rule,
        test: (abs) => {
          const rel = relativeTo(abs, base);
          return rel !== undefined && rel !== "" && m(rel);
        },
      });
    }
  }

  // One bounded walk per workspace folder, a level at a time (folders of a level listed in parallel):
  // glob targets, and protected paths below the top level. Dependency folders (node_modules) and git
  // folders are not walked: they hold no secrets of the user's and no settings of the project.
  let visited = 0;
  let stopped = false;
  const walkRoots = roots.filter((root) => !roots.some((r) => r !== root && isWithin(root, r)));
  let level: Array<{ dir: string; root: string }> = walkRoots.map((root) => ({ dir: root, root }));
  for (let depth = 0; level.length && !stopped; depth++) {
    const next: typeof level = [];
    for (let i = 0; i < level.length && !stopped; i += 64) {
      const batch = level.slice(i, i + 64);
      const listed = await Promise.all(batch.map((b) => list(b.dir)));
      batch.forEach(({ dir, root }, k) => {
        for (const e of listed[k] ?? []) {
          if (stopped) return;
          if (++visited > maxEntries) {
            stopped = true;
            return;
          }
          const abs = dir === "/" ? `/${e.name}` : `${dir}/${e.name}`;
          let hidden = false;
          for (const t of targets) {
            if (t.test(abs)) {
              if (t.purpose === "hide") hide.add(abs);
              else addRo(abs);
              hidden = hidden || t.purpose === "hide";
            }
          }
          if (depth > 0 && nestedProtected(relativeTo(abs, root)!)) {
            readOnly.add(abs);
            if (e.kind === "file") nestedFiles.add(abs);
            else readOnlyOther.add(abs);
          }
          if (e.name === ".git" && depth > 0) {
            // A nested repository or submodule: a `.git` file is read-only (it names the git folder); of a `.git`
            // folder, its protected parts (config, hooks, modules, info).
            if (e.kind !== "dir") addRo(abs);
            else for (const p of PROTECTED_WORKSPACE_PATHS) if (p.path.startsWith(".git/")) addRo(`${dir}/${p.path}`);
            continue;
          }
          if (hidden || e.kind !== "dir" || SKIP_DIRS.has(e.name)) continue;
          if (depth + 1 >= maxDepth) {
            stopped = true;
            return;
          }
          next.push({ dir: abs, root });
        }
      });
    }
    level = next;
  }
  if (stopped) {
    const globs = [...new Set(targets.map((t) => t.rule.raw))];
    notes.push(
      `the walk of the workspace stopped after ${Math.min(visited, maxEntries)} entries or at depth ${maxDepth}${globs.length ? `; files matching ${globs.slice(0, 3).join(", ")} deeper down may not be hidden or read-only in the sandbox (the gate still checks them)` : ""}`,
    );
  }

  const hidden = collapse([...hide]);
  const ro = collapse([...readOnly]).filter((p) => !hidden.some((h) => isWithin(p, h)));
  const denied = programDenials(settings);
  const fromGit = new Set((ctx.gitRunsFrom ?? []).map(normalizeAbs));
  const gitNamed = ro.filter((p) => fromGit.has(p) && !readOnlyOther.has(p));
  const nestedNames = ro.filter((p) => nestedFiles.has(p) && !readOnlyOther.has(p));
  return {
    hide: hidden,
    readOnly: ro,
    programs: denied.programs,
    notes: [...new Set([...notes, ...denied.notes])],
    ...(gitNamed.length ? { gitNamed } : {}),
    ...(nestedNames.length ? { nestedNames } : {}),
  };
}

const SKIP_DIRS = new Set([".git", "node_modules"]);

/** The path a pattern names when it has no wildcard (a trailing `/**` names the folder itself). */
function concretePath(pattern: string): string | undefined {
  let p = pattern.replace(/\/+$/, "");
  while (p.endsWith("/**")) p = p.slice(0, -3);
  if (p === "**" || p === "") return p === "" ? "" : undefined;
  return /[*?[\]{}!]/.test(p) ? undefined : p;
}

/** A protected entry for a path below the top of a workspace folder (nested sub-projects), or undefined. */
function nestedProtected(rel: string): boolean {
  const segs = rel.split("/");
  for (let i = 1; i < segs.length; i++) {
    const e = protectedEntry(segs.slice(i).join("/"));
    // Only the protected path itself, not everything below a protected folder (that folder is listed already).
    if (e && segs.slice(i).join("/") === e.path) return true;
  }
  return false;
}

/** Sorted, without paths inside another one of the list. */
function collapse(paths: string[]): string[] {
  const sorted = [...new Set(paths.map(normalizeAbs))].sort();
  const out: string[] = [];
  for (const p of sorted) if (!out.some((q) => isWithin(p, q))) out.push(p);
  return out;
}
