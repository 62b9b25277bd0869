/**
 * Git repositories a command created below a writable folder, or whose git files it changed.
 * git takes a folder holding `.git` (a folder, a `gitdir:` file or a link) or a bare layout
 * (`HEAD` beside `objects` and `refs` — folders, links or files: git asks only access(X_OK) — or a `commondir`) for a repository, and runs what its
 * configuration and hooks name at the next git command there — the user's own `git status`, VS
 * Code's git extension. The workspace's own `.git` is read-only but for what git's ordinary work
 * writes (plan.ts); one below it is checked here when the command ends, against an ALLOW-list of
 * what `git init` and `git clone` write (src/core/commands/new-repository.ts):
 *
 * - a repository born during the command (its marker is new, or was not there when the session
 *   first looked) must hold only allowed configuration keys, git's sample hooks and git's own
 *   entries — else its marker (`.git`, or the bare folder or its `HEAD`) goes to quarantine;
 * - of a repository that was there before, each git file the command wrote (change time after the
 *   command started: no process can set it back) must pass the same list — else that file goes.
 *
 * The configuration is read by git itself (`git config --file … --no-includes --list --null`), so
 * what is checked is what the user's git will read. What is unknown (a file git cannot parse, a
 * `gitdir:` naming nothing) counts as unsafe: a wrong guess moves a folder, it never runs a program.
 */
import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, statSync, type Stats } from "node:fs";
import { folderStates, subfolderNames, type FolderStates } from "./folder-states";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { newRepositoryEntryAllowed, newRepositoryHookAllowed, newRepositoryKeyAllowed } from "../../core/commands/new-repository";
import { hostProgram, hostSearchDirs } from "../host-programs";
import { parseGitfile } from "../../core/gitfile";

const CONFIG_MAX_BYTES = 1024 * 1024;

const NESTED_CONFIG_WHY =
  "a package manager configuration of a sub-project (.npmrc, .yarnrc, .yarnrc.yml, pnpm-workspace.yaml, .pnpmfile.cjs, .corepack.env…) written by the command: it can name the shell, Node options and programs npm, yarn or pnpm run at the person's next command in that folder";

export interface RepositoryFinding {
  /** What goes to quarantine. */
  path: string;
  why: string;
}

export interface RepositoryScan {
  /** The markers of the repositories found (`…/.git`, or a bare repository's folder), with their inode numbers. */
  markers: Map<string, number>;
  findings: RepositoryFinding[];
}

const lst = (p: string): Stats | undefined => {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
};

/** Written (or renamed, linked, chmodded) at or after `since`: change time, which no process can set back. */
const changedSince = (st: Stats | undefined, since: number) => st !== undefined && st.ctimeMs >= since;
/** Created at or after `since` (birth time where the file system keeps one, else change time: stricter). */
const bornSince = (st: Stats | undefined, since: number) => st !== undefined && (st.birthtimeMs > 0 ? st.birthtimeMs >= since : st.ctimeMs >= since);

/** The repositories below `root` (not its own `.git`): markers only, for the baseline of a session. */
export function repositoryMarkers(root: string): Map<string, number> {
  return walk(root, undefined).markers;
}

/**
 * The folders below `root` holding a package manager's configuration (folder-states.ts), as the last walk of `root`
 * found them — the command sandbox's after the last command, or this one's when none has run (it fills the cache the
 * first command's walk reuses). No bound on folders, as the repository walk (sweep23).
 */
export function packageManagerFolders(root: string): string[] {
  // The whole disk is not walked for this (as git-runs-from.ts's nestedTops).
  if (root === "/") return [];
  const states = folderStates(root);
  if (!states.walked) gateMarkers(root);
  return states.configFolders(root);
}

/** The permission gate's own walk of `root`, once, while no command has run (shared by git-runs-from.ts and packageManagerFolders). */
const gateWalks = new Map<string, ReadonlyMap<string, number>>();

/**
 * The markers of the repositories below `root` for the permission gate: the last command's walk, else a walk of the
 * gate's own (once per folder: a walk of a large tree is not per check; it fills the folder cache the first
 * command's walk then reuses).
 */
export function gateMarkers(root: string): ReadonlyMap<string, number> {
  const latest = latestRepositories(root);
  if (latest) return latest;
  let markers = gateWalks.get(root);
  if (!markers) gateWalks.set(root, (markers = repositoryMarkers(root)));
  return markers;
}

/**
 * What this process saw of each writable folder's repositories when its last command ended (or
 * when the first command started): a marker at a path it did not know, or with another inode (a
 * folder renamed to `.git`), is a repository born during the command.
 */
const baselines = new Map<string, ReadonlyMap<string, number>>();

/** The baseline of `root` (walked now the first time). */
export function knownRepositories(root: string): ReadonlyMap<string, number> {
  let known = baselines.get(root);
  if (!known) {
    known = repositoryMarkers(root);
    baselines.set(root, known);
  }
  return known;
}

/** The markers the last command's walk (or the session's first look) found below `root`, if any has run in this process; nothing is walked. */
export function latestRepositories(root: string): ReadonlyMap<string, number> | undefined {
  return baselines.get(root);
}

/** After a command: what is there now (quarantined markers are gone from it). */
export function rememberRepositories(root: string, markers: ReadonlyMap<string, number>): void {
  baselines.set(root, markers);
}

/**
 * Walks `root` and checks every repository below it (not `root/.git`, which the mount plan
 * protects) against the allow-list. `known`: the markers there were before the command (the
 * session's baseline); `since`: when the command started (ms since the epoch, with a margin).
 */
export function scanNewRepositories(root: string, since: number, known: ReadonlyMap<string, number>, approved: readonly string[] = [], running?: WhileRunning): RepositoryScan {
  return walk(root, { since, known, approved, ...(running ? { running } : {}) });
}

/**
 * A check made while the command still runs (the watch between the walks, the walks themselves),
 * not when it has ended. git's own work passes through states that run nothing but are not what
 * it leaves: `git clone --separate-git-dir` — which git submodule add and update run — writes the
 * new `.git` file ("gitdir: …/.git/modules/<name>") before it makes the folder that file names
 * (git's init_db: separate_git_dir, then safe_create_dir), and a `.git` file is empty between its
 * creation and its write. Judged then, such a `.git` names nothing, and moving it to quarantine
 * broke the very `git submodule add` that was writing it (door18b: "fatal: could not get submodule
 * directory", once in five runs at load, every time with git slowed between the two steps). A `.git`
 * naming nothing runs nothing (git stops there: "not a git repository"), so while the command runs
 * it is not judged: `follow` is told the folder it names, and the caller re-checks the repository
 * as soon as that folder (or what is nearest to it) changes; the check when the command ends
 * judges it as before. Of a `.git` file naming a folder that exists, `follow` is told that folder
 * too (a configuration written there later is checked as it lands, not at the next walk).
 */
export interface WhileRunning {
  follow(gitDir: string): void;
}

/**
 * The repository at `holder` only (its `.git`, or `holder` itself as a bare layout), with the same
 * checks as a walk: for the watch that looks at a folder as soon as a `.git` appears there or a
 * file in it changes (repository-watch.ts), between the walks.
 */
export function checkRepositoryAt(root: string, holder: string, since: number, known: ReadonlyMap<string, number>, approved: readonly string[] = [], running?: WhileRunning): RepositoryFinding[] {
  if (holder === root || !holder.startsWith(root + "/")) return [];
  const c: Check = { since, known, approved, ...(running ? { running } : {}) };
  const knows = (p: string) => known.get(p) !== undefined && known.get(p) === lst(p)?.ino;
  const marker = join(holder, ".git");
  if (lst(marker)) return checkDotGit(holder, marker, c, knows(marker));
  const has = (n: string) => lst(join(holder, n));
  if (has("HEAD") && ((has("objects") && has("refs")) || has("commondir"))) return checkBare(holder, c, knows(holder));
  return [];
}

interface Check {
  since: number;
  known: ReadonlyMap<string, number>;
  /** Paths the user approved writing for this command (confine.writable): what is below them is the user's choice. */
  approved: readonly string[];
  /** Set while the command runs (WhileRunning); unset when it has ended. */
  running?: WhileRunning;
}

const isApproved = (c: Check, p: string) => c.approved.some((a) => p === a || p.startsWith(a + "/"));

function walk(root: string, check: Check | undefined): RepositoryScan {
  const states = folderStates(root);
  states.begin();
  try {
    return walkWith(root, states, check);
  } finally {
    states.end();
  }
}

function walkWith(root: string, states: FolderStates, check: Check | undefined): RepositoryScan {
  const markers = new Map<string, number>();
  const knows = (p: string) => check?.known.get(p) !== undefined && check.known.get(p) === lst(p)?.ino;
  const findings: RepositoryFinding[] = [];
  const stack: string[] = [root];
  // node_modules folders are walked last (red team C, session 22: when the walk had a bound, 20,000
  // folders of packages hid a nested clone's core.fsmonitor from the gate's own walk). It has none
  // now (R45-05: past it a planted repository was left in place); the order stays, harmless.
  const later: string[] = [];
  while (stack.length || later.length) {
    const dir = stack.pop() ?? later.pop()!;
    // Read, or known unchanged from the last walk (folder-states.ts: a folder's entries change only with its ctime).
    const entries = states.entries(dir);
    if (!entries) {
      // Unreadable. One the command made so (or made) hides what it holds from this check until a
      // later command makes it readable again, which changes no time of the files below it (red team
      // 11: a repository with a planted fsmonitor under a chmod 000 folder passed as the user's). It
      // goes to quarantine; a folder that cannot even be looked at goes with its parent.
      if (check && dir !== root) {
        const st = lst(dir);
        if (st && !st.isDirectory()) continue; // replaced by a file or link since its parent was read: nothing to walk
        const where = st ? dir : dirname(dir);
        if (where !== root && changedSince(st ?? lst(where), check.since) && !isApproved(check, where))
          findings.push({
            path: where,
            why: "a folder the command made unreadable: what it holds (a git repository would run its configuration at the user's next git command there) cannot be checked",
          });
      }
      continue;
    }
    if (entries.git) {
      const p = join(dir, ".git");
      const isDir = entries.git === "dir";
      // The workspace's own .git is read-only but for git's ordinary work (plan.ts), and its
      // worktrees/ and modules/, which git worktree and git submodule write: checked here.
      if (dir === root) {
        if (check && isDir) findings.push(...checkOwnLinked(p, check));
        // Its other folders (refs, logs, objects, a rebase's state) are writable for git's own work
        // and git never makes a repository in them; one planted there and reached through a link
        // in the working tree ran its configuration at the user's git status in the link (red team
        // A, session 22). Walked as any folder: a layout found there is checked like one elsewhere.
        // worktrees/ and modules/ too, below the linked git folders checkOwnLinked judges (their logs/,
        // refs/, objects/ hid a layout as well).
      } else {
        markers.set(p, lst(p)?.ino ?? 0);
        if (check) findings.push(...checkDotGit(dir, p, check, knows(p)));
        // Its folders too, as the workspace's own (R45-06: a layout in sub/.git/refs reached through a link).
      }
      if (isDir) for (const sub of subfolderNames(states, p)) stack.push(join(p, sub));
    }
    // A sub-project's package manager configuration the command wrote or made (`web/.npmrc` with a script-shell: the
    // person's next `npm test` in web/ runs it). One that was there is a read-only mount (sandbox-view.ts) within the view's
    // walk; the top's are guarded by name (plan.ts). Not inside a git folder or node_modules (folder-states.ts).
    if (check && dir !== root && entries.pm.length && !/\/(\.git|node_modules)\//.test(`${dir}/`))
      for (const name of entries.pm) {
        const f = join(dir, name);
        if (changedSince(lst(f), check.since) && !isApproved(check, f)) findings.push({ path: f, why: NESTED_CONFIG_WHY });
      }
    // No depth limit (red team 11: a repository 260 folders down was not looked at, and the user's
    // git status there ran its fsmonitor). Entry types do not follow links, so the walk cannot loop;
    // the path length bounds where the user's git can run. No folder-count limit either (R45-05).
    for (const name of entries.dirs) (name === "node_modules" ? later : stack).push(join(dir, name));
    // `objects` and `refs` in any form: git takes them when access(X_OK) passes (setup.c
    // is_git_directory) — a link to any folder or an executable file as well as a folder, and a
    // link or file can become one later without touching this folder (red team A, session 22:
    // a layout with linked objects/refs and a core.fsmonitor passed as no repository).
    if (dir !== root && entries.head && ((entries.objects && entries.refs) || entries.commondir) && !ownLinkedGitDir(root, dir)) {
      markers.set(dir, lst(dir)?.ino ?? 0);
      if (check) findings.push(...checkBare(dir, check, knows(dir)));
    }
  }
  return { markers, findings };
}

/**
 * Is `dir` one of the linked git folders of a repository's `.git` — `.git/worktrees/<id>`, or a
 * submodule's `.git/modules/<name>` (names may hold slashes; nested submodules under its own
 * `modules/`)? The workspace's own are checkOwnLinked's, a nested repository's are checked with it
 * (checkGitDir, checkModules). A layout anywhere else inside a `.git` is judged as any.
 */
function ownLinkedGitDir(root: string, dir: string): boolean {
  // The git folder `dir` lies in: the workspace's own or a nested repository's (the nearest `.git` above it).
  const cut = dir.lastIndexOf("/.git/");
  if (cut < root.length) return false;
  const git = dir.slice(0, cut + 5);
  const parts = dir.slice(git.length + 1).split("/");
  if (parts[0] === "worktrees") return parts.length === 2;
  let at = git;
  let i = 0;
  while (i < parts.length) {
    if (parts[i] !== "modules") return false;
    at = join(at, "modules");
    i++;
    // the name: folders without HEAD, up to the one with it (checkModules' reading)
    while (i < parts.length) {
      at = join(at, parts[i]!);
      i++;
      if (lst(join(at, "HEAD"))) break;
    }
    if (at === dir) return lst(join(at, "HEAD")) !== undefined;
  }
  return false;
}

/** `holder/.git`: a folder, a `gitdir:` file, or a link. */
function checkDotGit(holder: string, marker: string, c: Check, known: boolean): RepositoryFinding[] {
  const since = c.since;
  const st = lst(marker);
  if (!st) return [];
  const pointer = st.isSymbolicLink() || st.isFile();
  // Born: a new folder (birth time), a pointer written or re-pointed, or a marker the session did
  // not know whose folder or git files changed (a folder renamed to .git keeps its birth time).
  let born = pointer ? changedSince(st, since) : bornSince(st, since);
  if (!born && !known) born = changedSince(st, since) || ["HEAD", "config", "commondir"].some((n) => changedSince(lst(join(marker, n)), since));
  let gitDir: string | undefined;
  let target: Stats | undefined;
  try {
    target = statSync(marker);
  } catch {
    target = undefined;
  }
  if (target?.isDirectory()) gitDir = marker;
  else if (target?.isFile()) gitDir = gitfileTarget(holder, marker);
  if (!gitDir || !lst(gitDir)) {
    // Names nothing git can use: nothing runs now, but what it names could appear later. While the
    // command runs that may be git's own work half done (WhileRunning): looked at again when the
    // folder it names appears (an unreadable or empty `.git` file is watched itself) and when it ends.
    if (c.running) {
      if (gitDir) c.running.follow(gitDir);
      return [];
    }
    return born ? [{ path: marker, why: whyBorn(marker, ["a .git that names no git folder"]) }] : [];
  }
  if (gitDir !== marker) c.running?.follow(gitDir);
  // A git folder without HEAD is none to git (is_git_directory validates HEAD first) and runs nothing: while the
  // command runs it is git's own work half done — git worktree add writes `locked` and `gitdir`, and the
  // worktree's `.git` file, before `commondir` and `HEAD` (judged then as a plain git folder, the `.git` went to
  // quarantine and git failed: red11-values-linked under load). Followed; judged as soon as it changes and at the end.
  if (c.running && !lst(join(gitDir, "HEAD"))) {
    c.running.follow(gitDir);
    return [];
  }
  if (isApproved(c, marker)) return [];
  const problems = checkGitDir(gitDir, born, c, isModuleDir(gitDir));
  if (problems.length === 0) return [];
  if (born)
    return [
      {
        path: marker,
        why: whyBorn(
          marker,
          problems.map((p) => p.why),
        ),
      },
    ];
  return problems;
}

/** A folder git takes for a bare repository. */
function checkBare(dir: string, c: Check, known: boolean): RepositoryFinding[] {
  const since = c.since;
  const parts = ["HEAD", "objects", "refs", "commondir"].map((n) => lst(join(dir, n)));
  const folder = lst(dir);
  const born = bornSince(folder, since) || parts.some((s) => bornSince(s, since)) || (!known && (changedSince(folder, since) || parts.some((s) => changedSince(s, since))));
  const problems = checkGitDir(dir, born, c, false);
  if (problems.length === 0) return [];
  if (!born) return problems;
  const why = whyBorn(
    dir,
    problems.map((p) => p.why),
  );
  // A folder the command made goes whole; in a folder that was there, the markers without which git sees no repository.
  if (bornSince(folder, since)) return [{ path: dir, why }];
  return ["HEAD", "commondir"].filter((n) => lst(join(dir, n))).map((n) => ({ path: join(dir, n), why }));
}

function whyBorn(marker: string, problems: string[]): string {
  return `a git repository the command created or changed (${marker.endsWith("/.git") ? ".git" : "a bare repository"}) holds what git init and git clone never write — ${[...new Set(problems)].join("; ")} — which the user's next git command there (or VS Code's git extension) would run`;
}

function gitfileTarget(holder: string, marker: string): string | undefined {
  let path: string | undefined;
  try {
    const buf = readFileSync(marker);
    if (buf.length > 4096) return undefined;
    path = parseGitfile(buf);
  } catch {
    return undefined;
  }
  if (path === undefined) return undefined;
  return isAbsolute(path) ? path : resolve(holder, path);
}

/**
 * The problems of a git folder: with `strict`, everything in it (a born repository); else what the
 * command wrote (change time at or after `since`). Each names the path to quarantine.
 */
function checkGitDir(gitDir: string, strict: boolean, c: Check, submodule: boolean, depth = 0): RepositoryFinding[] {
  const since = c.since;
  const worktree = isWorktreeDir(gitDir);
  const out: RepositoryFinding[] = [];
  let names: string[];
  try {
    names = readdirSync(gitDir);
  } catch {
    return strict ? [{ path: gitDir, why: "a git folder that cannot be read" }] : [];
  }
  for (const name of names) {
    const p = join(gitDir, name);
    const st = lst(p);
    if (!st || isApproved(c, p)) continue;
    const written = strict || changedSince(st, since);
    if (worktree && WORKTREE_ENTRIES.has(name)) {
      if (written) out.push(...checkWorktreeEntry(gitDir, name, p, st));
      continue;
    }
    if (name === "config") {
      if (!written) continue;
      if (!st.isFile()) out.push({ path: p, why: "config is not a regular file" });
      else {
        const bad = disallowedKeys(p, submodule);
        if (bad.length) out.push({ path: p, why: `its configuration sets ${bad.slice(0, 5).join(", ")}${bad.length > 5 ? ` and ${bad.length - 5} more` : ""}` });
      }
    } else if (name === "hooks") {
      if (!st.isDirectory()) {
        if (written) out.push({ path: p, why: "hooks is not a folder" });
        continue;
      }
      let hooks: string[] = [];
      try {
        hooks = readdirSync(p);
      } catch {
        if (written) out.push({ path: p, why: "a hooks folder that cannot be read" });
      }
      for (const h of hooks) {
        const hp = join(p, h);
        const hst = lst(hp);
        if (isApproved(c, hp)) continue;
        if ((strict || changedSince(hst, since)) && !(newRepositoryHookAllowed(h) && hst?.isFile())) out.push({ path: hp, why: `a hook (hooks/${h})` });
      }
    } else if (name === "modules" && st.isDirectory() && depth < 8) {
      // Submodules' git folders (git clone --recurse-submodules, git submodule update): each is a repository of its own.
      out.push(...checkModules(p, strict, c, depth + 1));
    } else if (!newRepositoryEntryAllowed(name)) {
      if (written)
        out.push({
          path: p,
          why: `${name}, an entry git's own work does not write (git reads configuration and commands from such entries: commondir, config.worktree, worktrees, a rebase's todo list)`,
        });
    }
  }
  return out;
}

/**
 * A linked worktree's git folder (`<git>/worktrees/<name>`, git-worktree(1)) holds, besides what
 * any git folder holds: `commondir` (where the shared repository is — git writes `../..`, the git
 * folder it was made from; anywhere else and git reads that folder's configuration and hooks),
 * `gitdir` (where the worktree is: git reads no configuration from it), `locked`, and
 * `config.worktree` (configuration: the same allow-list as `config`).
 */
const WORKTREE_ENTRIES: ReadonlySet<string> = new Set(["commondir", "gitdir", "locked", "config.worktree"]);

function isWorktreeDir(gitDir: string): boolean {
  return /\/worktrees\/[^/]+$/.test(gitDir) && lst(join(gitDir, "commondir")) !== undefined;
}
function isModuleDir(gitDir: string): boolean {
  return /\/modules\/.+/.test(gitDir);
}

function checkWorktreeEntry(gitDir: string, name: string, p: string, st: Stats): RepositoryFinding[] {
  if (name === "gitdir" || name === "locked") return st.isFile() ? [] : [{ path: p, why: `worktrees/…/${name} is not a regular file` }];
  if (name === "config.worktree") {
    if (!st.isFile()) return [{ path: p, why: "config.worktree is not a regular file" }];
    const bad = disallowedKeys(p, false);
    return bad.length ? [{ path: p, why: `its worktree configuration sets ${bad.slice(0, 5).join(", ")}${bad.length > 5 ? ` and ${bad.length - 5} more` : ""}` }] : [];
  }
  // commondir: exactly the git folder that holds this worktrees/ folder.
  let target = "";
  try {
    if (st.isFile() && st.size < 4096) target = readFileSync(p, "utf8").trim();
  } catch {
    // Unreadable: names nothing git can use here, so it goes.
  }
  const home = dirname(dirname(gitDir));
  if (target && resolve(gitDir, target) === home) return [];
  return [{ path: p, why: "a commondir that names another git folder than the one the worktree was made from (git would read that folder's configuration and hooks)" }];
}

/**
 * The workspace's own `.git/worktrees` and `.git/modules`: git worktree add/remove/prune and git
 * submodule add/update write them. Each linked worktree's and submodule's git folder must hold only
 * what those commands write (the new-repository allow-list, with core.worktree for a submodule and
 * the worktree entries above); a folder born during the command is checked whole, one that was
 * there for what the command changed.
 */
function checkOwnLinked(git: string, c: Check): RepositoryFinding[] {
  const out: RepositoryFinding[] = [];
  const worktrees = join(git, "worktrees");
  const wst = lst(worktrees);
  if (wst && !isApproved(c, worktrees)) {
    if (!wst.isDirectory()) {
      if (changedSince(wst, c.since)) out.push({ path: worktrees, why: "worktrees is not a folder" });
    } else {
      let names: string[] = [];
      try {
        names = readdirSync(worktrees);
      } catch {
        if (changedSince(wst, c.since)) out.push({ path: worktrees, why: "a worktrees folder that cannot be read" });
      }
      for (const n of names) {
        const p = join(worktrees, n);
        const st = lst(p);
        if (!st?.isDirectory()) {
          if (changedSince(st, c.since)) out.push({ path: p, why: `worktrees/${n} is not a git folder` });
          continue;
        }
        // Without HEAD it is no git folder yet (git worktree add writes HEAD last): while the command runs, not judged.
        if (c.running && !lst(join(p, "HEAD"))) continue;
        const born = bornSince(st, c.since);
        // A worktree's git folder without commondir is not one git makes: checked as any git folder.
        out.push(...checkGitDir(p, born, c, false));
      }
    }
  }
  const modules = join(git, "modules");
  const mst = lst(modules);
  if (mst && !isApproved(c, modules)) {
    if (mst.isDirectory()) out.push(...checkModules(modules, bornSince(mst, c.since), c, 1));
    else if (changedSince(mst, c.since)) out.push({ path: modules, why: "modules is not a folder" });
  }
  return out;
}

/** `modules/<name>` (names may hold slashes): a folder with HEAD is a submodule's git folder. */
function checkModules(dir: string, strict: boolean, c: Check, depth: number): RepositoryFinding[] {
  const since = c.since;
  const out: RepositoryFinding[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = lst(p);
    if (!st?.isDirectory()) {
      // While the command runs this may be git's own work half done: git clone --separate-git-dir (run by
      // git clone --recurse-submodules) writes `description` and `hooks/*.sample` before `HEAD`, and the
      // folder is no git folder (runs nothing) until HEAD is there. Judged when the command ends (red team A,
      // session 22: the clone's .git went to quarantine mid-clone and the submodule clone failed).
      if (!c.running && (strict || changedSince(st, since))) out.push({ path: p, why: `modules/${n} is not a git folder` });
      continue;
    }
    const born = strict || bornSince(st, since);
    if (lst(join(p, "HEAD"))) out.push(...checkGitDir(p, born, c, true, depth));
    else if (depth < 8) out.push(...checkModules(p, born, c, depth + 1));
  }
  return out;
}

/** The keys of a configuration file that are not allowed, read by git (no includes followed). */
function disallowedKeys(file: string, submodule: boolean): string[] {
  const st = lst(file);
  if (!st || st.size > CONFIG_MAX_BYTES) return ["(a configuration file over 1 MB)"];
  let out: string;
  try {
    out = execFileSync(hostProgram("git"), ["config", "--file", file, "--no-includes", "--list", "--null"], {
      cwd: "/",
      encoding: "utf8",
      timeout: 10_000,
      maxBuffer: 4 * CONFIG_MAX_BYTES,
      stdio: ["ignore", "pipe", "ignore"],
      env: { PATH: hostSearchDirs().join(":") || "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: "/nonexistent", LC_ALL: "C" },
    });
  } catch {
    return ["(a configuration git cannot read)"];
  }
  const bad: string[] = [];
  for (const item of out.split("\0")) {
    if (!item) continue;
    const nl = item.indexOf("\n");
    const key = nl < 0 ? item : item.slice(0, nl);
    const value = nl < 0 ? "true" : item.slice(nl + 1);
    // A submodule's git folder names its working tree (git writes core.worktree there).
    if (submodule && key.toLowerCase() === "core.worktree") continue;
    if (!newRepositoryKeyAllowed(key, value) && !bad.includes(key)) bad.push(key);
  }
  return bad;
}
