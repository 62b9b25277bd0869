/**
 * The mounts of one command, computed from the policy, the permission rules (protection), the
 * permission decision (confinement) and the facts of this machine. Backends translate the plan
 * into their own options (bwrap binds, firejail whitelists/blacklists, Seatbelt rules).
 *
 * Later (deeper) mounts win over earlier ones. What the plan guarantees, per mount:
 * - `tmpfs`: a private, size-limited, writable folder (temporary folders, the hidden homes);
 * - `hide`: an empty read-only folder, or a file that cannot be opened;
 * - `ro` / `rw`: the host path itself, read-only or writable.
 * A protected path is made a read-only mount point, and each folder between it and its writable
 * root a mount point too, so that it can be neither written, nor deleted, nor renamed away (a
 * mount point cannot be renamed, and neither can the folders holding it once they are mounts).
 * A protected path that does not exist cannot be mounted without creating it in the user's
 * folder, so it is guarded instead: the runner moves whatever appears there to quarantine.
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import {
  GIT_COMMAND_STATE,
  GIT_TRUSTED_READS,
  gitEntryWritable,
  HOME_WHY,
  homeEntryWritable,
  PATH_INSTALL_WHY,
  expandPathTilde,
  pathInstalls,
  PRIVATE_CACHE_ENV,
  PROTECTED_WORKSPACE_PATHS,
  protectedName,
} from "../../../core/protected-paths";
import type { CommandConfinement } from "../../../core/commands/types";
import { homeFolders, hostSockets, neededFiles, runtimeFolders, systemSecrets, type SecretPath } from "./host";
import { isWithin, type ResolvedPolicy } from "./paths";
import { readRegular, replaceLines } from "../packed-refs";
import { protectedReferences } from "../../../core/protected-references";
import { nodeReadTextSync } from "../../read-text";
import { copiesOf } from "./program-copies";
import { programNameMatches } from "../../../core/permissions/sandbox-view";
import { shallowLines } from "../shallow";
import type { GuardedPath, SandboxProtection } from "./types";
import { knownRepositories, packageManagerFolders } from "../new-repositories";
import { PLUGIN_STORES, pluginStoreSecrets } from "./clone-secrets";
import { makeGitConfigCopy, snapshotGitConfig, type GitConfigCopy } from "../git-config-guard";
import { parseGitfile } from "../../../core/gitfile";
import { pathStamp } from "../path-stamp";
import { knownReferences } from "../named-later";

export type MountTag =
  | "tmp" // the private /tmp, /var/tmp, /dev/shm
  | "home" // a hidden home folder
  | "runtime" // /run and friends
  | "secret" // a system secret
  | "socket" // a host socket
  | "rule" // hidden by a permission rule
  | "needed" // a file exposed again inside a hidden folder
  | "path" // a path the user listed (or a toolchain)
  | "plugin" // the installed folder of the plugin whose command this is (confine.pluginRoot), read-only
  | "workspace"
  | "protected" // a protected path, read-only
  | "approved" // a protected path the decision made writable
  | "write" // a folder holding a path the decision listed (confine.writes), or that path
  | "sibling" // another entry of such a folder, read-only
  | "ancestor" // a folder made a mount point so that what it holds cannot be renamed away
  | "program"; // a program a deny rule forbids (`Bash(rm:*)`): it cannot be started

export interface Mount {
  op: "tmpfs" | "hide" | "ro" | "rw";
  path: string;
  tag: MountTag;
  /** hide: is it a folder? */
  dir?: boolean;
  /** tmpfs: size in MB (undefined: no limit). */
  sizeMb?: number;
  /** A program's file made impossible to start: its name and the rule (for the message a backend prints in its place). */
  denied?: { name: string; rule: string; list: "deny" | "ask" };
}

/** The private caches of a command that can write a home folder (PRIVATE_CACHE_ENV), in its private /tmp. */
const PRIVATE_CACHES: Record<string, string> = Object.fromEntries(Object.entries(PRIVATE_CACHE_ENV).map(([k, v]) => [k, `/tmp/yoke-caches/${v}`]));

export interface MountPlan {
  mounts: Mount[];
  guards: GuardedPath[];
  /** Folders the command may write (empty when the decision made it read-only). */
  writable: string[];
  readOnly: boolean;
  /** Environment the command needs for the plan (the git door's GIT_COMMON_DIR). */
  env?: Record<string, string>;
}

/** The facts of the machine the plan depends on (injected by tests). */
export interface HostFacts {
  homes: string[];
  runtime: string[];
  secrets: SecretPath[];
  needed: string[];
  sockets(skip: readonly string[]): string[];
  /** The files (real paths) a command naming `name` could start: that name in each folder of the command path. */
  programFiles?(name: string): string[];
}

export function hostFacts(home: string): HostFacts {
  return { homes: homeFolders(home), runtime: runtimeFolders(), secrets: systemSecrets(), needed: neededFiles(), sockets: hostSockets, programFiles };
}

/** The folders commands find programs in: the host's PATH and the usual system folders. */
const SYSTEM_BIN = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/games", "/usr/local/games", "/snap/bin"];

/**
 * Real paths of the regular files named `name` in the folders of the command path (links followed,
 * each once), and of every hard link of one of them in those folders under another name (Debian's
 * `perl5.36.0` is `perl`: red team round 7 ran it under `Bash(perl:*)`), and of every copy of
 * one of them (the same bytes) in the system's program folders (program-copies.ts). A copy that is
 * not executable, or one outside those folders, is not found (docs/security.md, invariant 9).
 * `name` may be an absolute path (a rule that names the program by it).
 */
export function programFiles(name: string, path: string = process.env.PATH ?? ""): string[] {
  const out = new Set<string>();
  const dirs = [...new Set([...path.split(":").filter((d) => d.startsWith("/")), ...SYSTEM_BIN])];
  const linked = new Set<string>();
  // A rule that gives the program's absolute path (`Bash(/usr/bin/rm:*)`): that file, wherever it is.
  // A pattern (`*rm`, from `Bash(*rm:*)`): every file of a matching name in those folders.
  const named = name.startsWith("/")
    ? [name]
    : name.includes("*")
      ? dirs.flatMap((dir) =>
          list(dir)
            .filter((n) => programNameMatches(name, n))
            .map((n) => join(dir, n)),
        )
      : dirs.map((dir) => join(dir, name));
  for (const p of named) {
    try {
      const st = statSync(p);
      if (!st.isFile()) continue;
      out.add(realpathSync(p));
      if (st.nlink > 1) linked.add(`${st.dev}:${st.ino}`);
    } catch {
      // not there
    }
  }
  if (linked.size) {
    for (const dir of dirs) {
      for (const [entry, id] of inodesOf(dir)) {
        if (!linked.has(id)) continue;
        try {
          out.add(realpathSync(join(dir, entry)));
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  // The same bytes elsewhere in the system's program folders (`/usr/lib/git-core/git` is a second
  // git, not a link: red team round 7 started it under `Bash(git:*)`).
  for (const file of [...out]) for (const copy of copiesOf(file)) out.add(copy);
  // Never a file other programs are too: the shells commands run in (`Bash(rbash:*)` names bash's
  // file) or a multi-call binary (busybox, toybox: `rm` is every core program on Alpine). Masking one
  // would stop every command; such a rule stays the gate's alone (red team round 7).
  const shared = new Set<string>();
  for (const shell of ["bash", "sh", "dash", "env"]) {
    for (const dir of dirs) {
      try {
        shared.add(realpathSync(join(dir, shell)));
      } catch {
        // not there
      }
    }
  }
  return [...out].filter((f) => !shared.has(f) && !/^(busybox|toybox)$/.test(basename(f)));
}

/** The files of a folder with more than one link, as `dev:ino`, cached while the folder is unchanged. */
const inodeCache = new Map<string, { mtimeMs: number; ids: Array<[string, string]> }>();
function inodesOf(dir: string): Array<[string, string]> {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(dir).mtimeMs;
  } catch {
    return [];
  }
  const have = inodeCache.get(dir);
  if (have && have.mtimeMs === mtimeMs) return have.ids;
  const ids: Array<[string, string]> = [];
  for (const entry of list(dir)) {
    try {
      const st = lstatSync(join(dir, entry));
      if (st.isFile() && st.nlink > 1) ids.push([entry, `${st.dev}:${st.ino}`]);
    } catch {
      // gone meanwhile
    }
  }
  inodeCache.set(dir, { mtimeMs, ids });
  return ids;
}

/**
 * In a home folder that stays visible (the workspace is the home, or holds it): credentials are
 * hidden, and the files a login shell or the desktop runs later are protected like the workspace's.
 */
export const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".docker",
  ".kube",
  ".azure",
  ".password-store",
  ".config/gh",
  ".config/gcloud",
  ".config/hub",
  ".local/share/keyrings",
  ".terraform.d/credentials.tfrc.json",
  ".cargo/credentials.toml",
  ".cargo/credentials",
  ".gem/credentials",
  ".claude/.credentials.json",
];
const GIT_STATE_WHY = "a rebase or cherry-pick left in progress: git runs the exec lines of its todo list when the user continues it, outside any sandbox";
const SHALLOW_WHY =
  "a line of .git/shallow naming a commit whose parents are in the repository: git takes it as having no parents, so the user's next git revert or show of it would undo or show the whole tree";
const OBJECTS_WHY = "a git object file whose content is not what its name says: git never checks when it reads one, so the user's next checkout (and a checkpoint restore) would write it";
const GIT_WHY = "git reads its configuration and the repository's location from .git (config, config.worktree, commondir, worktrees, hooks); only what git's ordinary work writes is writable";
/** A regular file with more than one name. */
function hardLinked(p: string): boolean {
  try {
    const st = lstatSync(p);
    return st.isFile() && st.nlink > 1;
  } catch {
    return false;
  }
}

const NAMED_LATER_WHY = "a file a protected configuration names";
const NEW_REPOSITORY_WHY = "a git repository the command created holds what git init and git clone never write";
/** Change and birth times are the kernel's coarse clock, which may lag Date.now() by a tick: what is that close before the command counts as the command's (checked, at no risk). */
const NEW_REPOSITORY_MARGIN_MS = 50;
const PROTECTED_NAME_WHY =
  "a file whose name makes a program run it later, outside any sandbox: a VS Code workspace file (*.code-workspace), a mise configuration, an editor's ESLint, Prettier, stylelint, Tailwind or test runner configuration, or a HEAD/commondir file that makes its folder a git repository";
const WRITES_WHY = "the command was allowed for the writes Yoke analysed; it may write nothing else in the workspace";
/** A folder holding a listed write with more entries than this is not split into per-entry mounts (bwrap's cost grows with the square of its mounts: ~0.15 s for 300, 2.3 s for 1000). */
export const MAX_SIBLING_MOUNTS = 256;

const HOME_STARTUP: ReadonlyArray<readonly [string, string]> = [
  [".bashrc", "the shell runs it"],
  [".bash_aliases", "the shell runs it"],
  [".bash_logout", "the shell runs it"],
  [".bash_profile", "the shell runs it"],
  [".bash_login", "the shell runs it"],
  [".profile", "the shell runs it"],
  [".zshrc", "the shell runs it"],
  [".zprofile", "the shell runs it"],
  [".zshenv", "the shell runs it"],
  [".config/fish", "the shell runs it"],
  [".config/autostart", "the desktop starts what is in it"],
  [".config/systemd", "systemd runs the user units in it"],
  [".gitconfig", "git configuration can run programs"],
  [".config/git", "git configuration can run programs"],
];

/** Object files changed this long before a command starts are verified too when it ends. */
const OBJECTS_SINCE_MARGIN_MS = 2_000;

/** Default size of the private temporary folders, MB. */
export const DEFAULT_TMP_MB = 1024;
/** Size of the private /run, MB (pid files and the like). */
const RUN_MB = 64;

const PRECEDENCE: Record<Mount["op"], number> = { tmpfs: 0, rw: 1, ro: 2, hide: 3 };

function depth(p: string): number {
  return p === "/" ? 0 : p.split("/").length - 1;
}

interface Lstat {
  kind: "none" | "dir" | "file" | "symlink";
  target?: string;
}

function look(p: string): Lstat {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return { kind: "symlink", target: readlinkSync(p) };
    return { kind: st.isDirectory() ? "dir" : "file" };
  } catch {
    return { kind: "none" };
  }
}

/** `p` exists with its links followed (a dangling link does not). */
function resolves(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The first component of `p` that does not exist (its folders resolved), or undefined when all of it does. */
function firstMissing(p: string): string | undefined {
  let dir = p;
  const rest: string[] = [];
  while (look(dir).kind === "none") {
    if (dirname(dir) === dir) return undefined;
    rest.unshift(dir.slice(dirname(dir).length).replace(/^\//, ""));
    dir = dirname(dir);
  }
  if (rest.length === 0) return undefined;
  return join(realOrSelf(dir), rest[0]!);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

class PlanBuilder {
  readonly byPath = new Map<string, Mount>();

  add(m: Mount): void {
    const prev = this.byPath.get(m.path);
    // A listed write wins over the read-only workspace and the read-only sibling mount of another write's folder.
    if ((prev?.tag === "sibling" || prev?.tag === "workspace") && m.tag === "write") return void this.byPath.set(m.path, m);
    if (prev?.tag === "write" && m.tag === "sibling") return;
    if (!prev || PRECEDENCE[m.op] >= PRECEDENCE[prev.op]) this.byPath.set(m.path, m);
  }

  /** The mount deciding what `p` is: the deepest one at or above it (undefined: the read-only root). */
  cover(p: string): Mount | undefined {
    let best: Mount | undefined;
    for (const m of this.byPath.values()) {
      if (isWithin(p, m.path) && (!best || depth(m.path) > depth(best.path) || (m.path === best.path && PRECEDENCE[m.op] > PRECEDENCE[best.op]))) {
        best = m;
      }
    }
    return best;
  }

  /** Is `p` the host's own path, visible and writable? */
  writableHost(p: string): boolean {
    return this.cover(p)?.op === "rw";
  }

  /** Is `p` the host's own path, visible? */
  visibleHost(p: string): boolean {
    const c = this.cover(p);
    return !c || c.op === "rw" || c.op === "ro";
  }

  ordered(): Mount[] {
    return [...this.byPath.values()].sort((a, b) => depth(a.path) - depth(b.path) || PRECEDENCE[a.op] - PRECEDENCE[b.op] || (a.path < b.path ? -1 : 1));
  }
}

export interface PlanInput {
  policy: ResolvedPolicy;
  confine?: CommandConfinement;
  protection?: SandboxProtection;
  tmpMb?: number;
  /** The command's PATH (WrapRequest.searchPath; default: this process's). */
  searchPath?: string;
  /** The command's working folder (the git door opens on the repository git finds from there). */
  cwd?: string;
}

/**
 * confine.pluginRoot as a folder the sandbox may show: its real path when that is a folder strictly
 * inside a plugin store of one of the homes (`~/.yoke/plugins/…`, `~/.claude/plugins/…`) holding no
 * store list; otherwise nothing.
 */
function pluginFolder(root: string | undefined, homes: readonly string[]): string | undefined {
  if (!root || !isAbsolute(root)) return undefined;
  const abs = realOrSelf(resolve(root));
  if (look(abs).kind !== "dir") return undefined;
  const inStore = homes.some((h) => PLUGIN_STORES.some((st) => [join(h, st), realOrSelf(join(h, st))].some((store) => isWithin(abs, store) && abs !== store)));
  return inStore ? abs : undefined;
}

/** A command path with its absolute folders' links resolved (what pathInstalls compares with a real home). */
function realSearchPath(searchPath: string): string {
  return searchPath
    .split(":")
    .map((d) => (d.startsWith("/") ? realOrSelf(d) : d))
    .join(":");
}

/** The mounts and guards of one command. */
export function buildMountPlan(input: PlanInput, facts: HostFacts): MountPlan {
  const { policy: p } = input;
  const readOnly = input.confine?.readOnly === true;
  // Allowed for the writes the gate listed: the workspace is read-only but for those (below).
  const writes = readOnly ? undefined : input.confine?.writes;
  const tmpMb = input.tmpMb === undefined ? DEFAULT_TMP_MB : input.tmpMb > 0 ? input.tmpMb : undefined;
  const b = new PlanBuilder();

  // Private temporary and runtime folders, hidden homes.
  for (const t of ["/tmp", "/var/tmp", "/dev/shm"]) b.add({ op: "tmpfs", path: t, tag: "tmp", ...(tmpMb ? { sizeMb: tmpMb } : {}) });
  for (const r of facts.runtime) b.add({ op: "tmpfs", path: r, tag: "runtime", sizeMb: Math.min(RUN_MB, tmpMb ?? RUN_MB) });
  const hiddenHomes: string[] = [];
  for (const h of [...facts.homes].sort((x, y) => x.length - y.length)) {
    // A home inside the workspace (or the workspace itself) stays visible: it is the workspace.
    // One inside a home already hidden is covered by it.
    if (isWithin(h, p.workspace) || hiddenHomes.some((o) => isWithin(h, o))) continue;
    hiddenHomes.push(h);
    b.add({ op: "tmpfs", path: h, tag: "home", ...(tmpMb ? { sizeMb: tmpMb } : {}) });
  }
  for (const s of facts.secrets) b.add({ op: "hide", path: s.path, tag: "secret", dir: s.dir });

  // What stays visible: listed paths and toolchains, then the workspace.
  const writable: string[] = [];
  for (const v of p.paths) {
    const rw = v.mode === "rw" && !readOnly;
    b.add({ op: rw ? "rw" : "ro", path: v.path, tag: "path" });
    if (rw) writable.push(v.path);
  }
  // A plugin's own command (its `!` lines, run for the user before the text is sent): the plugin's
  // installed folder, read-only, so `${CLAUDE_PLUGIN_ROOT}/scripts/x.sh` is found. Only a folder
  // inside a home's plugin store (never the store itself, the home, or another folder); its clones'
  // credentials stay hidden (below).
  const pluginRoot = pluginFolder(input.confine?.pluginRoot, facts.homes);
  if (pluginRoot) b.add({ op: "ro", path: pluginRoot, tag: "plugin" });
  b.add({ op: readOnly || writes ? "ro" : "rw", path: p.workspace, tag: "workspace" });
  // (In writes mode the workspace stays a root whose protected paths are protected wherever a write makes it writable.)
  if (!readOnly) writable.unshift(p.workspace);
  for (const f of facts.needed) if (!b.visibleHost(f)) b.add({ op: "ro", path: f, tag: "needed" });

  // Host sockets left visible (outside the hidden folders, the workspace and listed paths).
  const skip = [
    ...b
      .ordered()
      .filter((m) => m.op !== "ro" || m.tag !== "needed")
      .map((m) => m.path),
  ];
  for (const s of facts.sockets(skip)) if (b.visibleHost(s)) b.add({ op: "hide", path: s, tag: "socket", dir: false });

  // Protected paths of every writable folder, and what the rules keep read-only.
  const guards: GuardedPath[] = [];
  if (writes) listedWrites(b, guards, p.workspace, writes);
  // Approvals name protected paths: a whole writable folder, or a path outside them, approves nothing.
  const approved = (input.confine?.writable ?? []).map(realOrSelf).filter((a) => writable.some((w) => isWithin(a, w) && a !== w));
  const ancestors = new Set<string>();
  const protect = (root: string, rel: string, why: string) => protectPath(b, guards, ancestors, approved, root, rel, why);
  const doors = new Set<string>();
  // A folder on PATH the command can write (or a relative one): a git planted there would run
  // instead of git while the door is open, and rewrite .git/config faster than the check puts it
  // back — the user's own git status on the host ran its core.fsmonitor (red team 22-gate). The
  // door stays shut (git submodule then fails on the read-only .git/config, as without the door).
  const doorOpen = input.confine?.gitLinked === true && !searchPathWritable(input.searchPath ?? process.env.PATH ?? "", writable);
  let env: Record<string, string> | undefined;
  for (const root of writable) {
    // git submodule add/update…: a private copy of .git/config (checked and renamed into place when
    // it ends), .gitmodules writable and checked while and after it runs.
    const door = doorOpen && input.confine?.gitSubmodule === true && input.cwd ? submoduleDoor(b, root, input.cwd) : undefined;
    if (door) {
      guards.push(...door.guards);
      doors.add(join(root, ".gitmodules"));
      env = { GIT_COMMON_DIR: door.copy.dir };
      ancestors.add(door.copy.dir);
    }
    // .git/worktrees and .git/modules: written by git worktree / git submodule, checked when the command ends (gitAllowList).
    for (const e of PROTECTED_WORKSPACE_PATHS) if (!e.checkedAfter && !(door && e.path === ".gitmodules")) protect(root, e.path, e.why);
    gitAllowList(b, guards, ancestors, approved, root, protect, door ? basename(door.copy.dir) : undefined, doorOpen);
  }
  // A home that stays visible inside a writable folder: its startup files protected, its credentials hidden.
  // The workspace, or a folder the sandbox settings make writable (`{"path": "~", "mode": "rw"}` put
  // the whole home back, dot entries and caches writable: home20).
  const visibleHomes = facts.homes.filter((h) => isWithin(h, p.workspace) || writable.some((w) => isWithin(h, w)));
  for (const h of visibleHomes) {
    const root = writable.filter((w) => isWithin(h, w)).sort((x, y) => y.length - x.length)[0];
    if (!root) continue;
    const prefix = h === root ? "" : h.slice(root.length + 1) + "/";
    for (const [rel, why] of HOME_STARTUP) protect(root, prefix + rel, why);
    // An allow-list of the home's top-level entries: the rest read-only, new ones quarantined.
    if (!b.writableHost(h)) continue;
    // Its caches among them (the person's next `npx` ran a plant from ~/.npm/_npx): the package
    // managers get private ones in the command's own /tmp.
    env = { ...PRIVATE_CACHES, ...env };
    const names = list(h);
    for (const name of names) {
      const abs = join(h, name);
      // A path the user listed (sandbox.paths) keeps the mode the user gave it.
      if (homeEntryWritable(name) || p.paths.some((v) => v.path === abs)) continue;
      protect(root, prefix + name, HOME_WHY);
    }
    // The installs of the person's PATH inside it (red team T): `~/miniconda3/bin` on PATH was
    // read-only (toolchainPaths), its `lib/python3.X/site-packages/*.pth` (run by every python start)
    // and `etc/profile.d/conda.sh` (sourced by .bashrc) were not — the person's next python3 ran a plant.
    for (const install of pathInstalls(realSearchPath(expandPathTilde(input.searchPath ?? process.env.PATH ?? "", h)), h))
      if (!p.paths.some((v) => v.path === install)) protect(root, prefix + install.slice(h.length + 1), PATH_INSTALL_WHY);
    pinAncestors(ancestors, root, join(h, "x"));
    if (h !== root) ancestors.add(h);
    guards.push({
      path: h,
      root,
      why: HOME_WHY,
      before: { kind: "entries", names, accept: (n) => homeEntryWritable(n) || approved.some((a) => isWithin(a, join(h, n))), links: links(h, names), plainOnly: (n) => n.startsWith(".") },
    });
  }
  // What the protected configurations source or run (.envrc's source_env, mise's _.source, a
  // .tool-versions path: version, a home .bashrc's `. ~/dotfiles/aliases.sh`): protected as they are
  // (protect21). The same rule as the gate's (protected-references.ts), read here when the command starts.
  const homesIn = visibleHomes.filter((h) => writable.some((w) => isWithin(h, w)));
  const referencesSince = BigInt(Date.now() - NEW_REPOSITORY_MARGIN_MS) * 1_000_000n;
  // And what a sub-project's package manager configuration names (`web/.npmrc`'s script-shell), from the folders the
  // last repository walk found holding one (nested24).
  const nested = writable.flatMap((w) => packageManagerFolders(w));
  const references = protectedReferences(
    writable,
    homesIn,
    {
      read: nodeReadTextSync,
      real: (x) => (look(x).kind === "none" ? undefined : realOrSelf(x)),
      list: (x) => (look(x).kind === "dir" ? list(x) : undefined),
    },
    nested,
  );
  // What a configuration comes to name while the command runs is checked by its change time (named-later.ts, session 24).
  const knownRefs = knownReferences(references);
  for (const root of writable)
    guards.push({
      path: root,
      root,
      why: NAMED_LATER_WHY,
      before: { kind: "references", roots: writable, homes: homesIn, nested, known: knownRefs, sinceNs: referencesSince, named: new Map(), ways: new Map() },
    });
  for (const ref of references) {
    const root = writable.filter((w) => isWithin(ref.path, w) && ref.path !== w).sort((x, y) => y.length - x.length)[0];
    // A file inside a nested working tree (a worktree's own `web/.npmrc` names `web/sh.sh`): a stamp guard, not a mount
    // point, which would keep `git worktree remove` from deleting the worktree (nested24, as GIT_NAMED_WHY's below).
    if (root && ref.kind === "file" && look(ref.path).kind !== "dir" && !p.paths.some((v) => v.path === ref.path) && insideNestedWorkTree(ref.path, root))
      guards.push({ path: ref.path, root, why: ref.why, before: { kind: "stamp", stamp: pathStamp(ref.path) } });
    else if (root && !p.paths.some((v) => v.path === ref.path)) {
      protect(root, ref.path.slice(root.length + 1), ref.why);
      // A file with another name (a hard link a command made while nothing named it): the read-only mount covers this
      // name only, and a write through the other rewrote what the person's npm then ran (red team K, session 24).
      // Its stamp is checked as it runs and when it ends, and it is moved out if it changed.
      if (ref.kind === "file" && hardLinked(ref.path))
        guards.push({ path: ref.path, root, why: `${ref.why}; it has another name (a hard link) a command can write`, before: { kind: "stamp", stamp: pathStamp(ref.path) } });
    }
    // A configuration at a writable folder's top not read to its end (CUT_WHY): the whole folder is read-only.
    else if (!root && writable.includes(ref.path) && !approved.some((a) => isWithin(a, ref.path))) b.add({ op: "ro", path: ref.path, tag: "protected" });
  }
  for (const root of writable) protectedNames(guards, approved, root, protect);
  // Repositories below the writable folders: one born during the command, or a git file it wrote,
  // holds only what git init and git clone write when it ends (new-repositories.ts).
  const since = Date.now() - NEW_REPOSITORY_MARGIN_MS;
  for (const root of writable) guards.push({ path: root, root, why: NEW_REPOSITORY_WHY, before: { kind: "repositories", since, known: knownRepositories(root), approved } });
  const gitNamed = new Set((input.protection?.gitNamed ?? []).map((x) => resolve(x)));
  const nestedNames = new Set((input.protection?.nestedNames ?? []).map((x) => resolve(x)));
  for (const ro of input.protection?.readOnly ?? []) {
    const abs = resolve(ro);
    // The protected-path list, which the rules' view repeats; a deny rule on these files shuts the door at the gate.
    if (doors.has(abs)) continue;
    // A submodule's or linked worktree's `.git` file naming this repository's own git folder: git
    // submodule deinit and git worktree remove/move delete or rewrite it (a `.git` file left naming
    // anything else is checked as a new repository when the command ends: new-repositories.ts).
    if (doorOpen && ownLinkFile(abs, writable)) continue;
    const root = writable.filter((w) => isWithin(abs, w)).sort((x, y) => y.length - x.length)[0];
    // A file a nested repository's configuration names, inside a nested working tree: not a mount point (nor its
    // folders), which kept `git worktree remove` and `git submodule deinit` from deleting the folder ("Device or
    // resource busy"); checked as it changes and when the command ends, and moved out if it was written (session 23).
    if (root && abs !== root && gitNamed.has(abs) && insideNestedWorkTree(abs, root)) {
      guards.push({ path: abs, root, why: GIT_NAMED_WHY, before: { kind: "stamp", stamp: pathStamp(abs) } });
      continue;
    }
    // Likewise a file bearing a protected name there (a worktree of a branch with submodules holds `.gitmodules`; `git
    // worktree remove` failed with "Device or resource busy" on its mount: session 24, nested24). A folder (`.vscode`)
    // stays mounted: a stamp of it would not see a file below it rewritten in place.
    if (root && abs !== root && nestedNames.has(abs) && look(abs).kind === "file" && insideNestedWorkTree(abs, root)) {
      guards.push({ path: abs, root, why: NESTED_NAME_WHY, before: { kind: "stamp", stamp: pathStamp(abs) } });
      continue;
    }
    if (!root || abs === root) {
      // Outside the writable folders it is read-only already; a whole writable folder made read-only:
      if (root && abs === root && !approved.some((a) => isWithin(a, abs))) b.add({ op: "ro", path: abs, tag: "protected" });
      continue;
    }
    protect(root, abs.slice(root.length + 1), "the permission rules keep it read-only");
  }

  // Paths the rules hide, and the credentials of every home where something makes them visible: a home
  // the workspace holds, or a folder of a hidden home shown again (a toolchain's ~/.cargo holds credentials.toml).
  // and the credentials plugin marketplace clones keep (clone-secrets.ts).
  const hides = [...(input.protection?.hide ?? []), ...facts.homes.flatMap((h) => [...HOME_SECRETS.map((s) => join(h, s)), ...pluginStoreSecrets(h)])];
  for (const h of hides) {
    const abs = resolve(h);
    const st = look(abs);
    if (st.kind === "none") continue;
    const real = st.kind === "symlink" ? realOrSelf(abs) : abs;
    const kind = look(real).kind;
    if (kind === "none" || !b.visibleHost(real)) continue;
    b.add({ op: "hide", path: real, tag: "rule", dir: kind === "dir" });
    const root = writable.filter((w) => isWithin(real, w) && real !== w).sort((x, y) => y.length - x.length)[0];
    if (root) pinAncestors(ancestors, root, real);
  }

  // Programs the deny rules forbid: whatever the analysis read in a command, none of them can start
  // (`m4 <<< 'esyscmd(rm -rf src)'` under `Bash(rm:*)` finds `rm` unusable). Those ask rules name: not
  // in a command nobody reviewed (bypassPermissions mode allowed it), which would otherwise run one unasked.
  for (const d of input.protection?.programs ?? []) {
    const list = d.list ?? "deny";
    if (list === "ask" && !input.confine?.unreviewed) continue;
    for (const file of facts.programFiles?.(d.name) ?? []) {
      if (b.visibleHost(file)) b.add({ op: "hide", path: file, tag: "program", dir: false, denied: { name: d.name.includes("*") ? basename(file) : d.name, rule: d.rule, list } });
    }
  }

  for (const a of ancestors) if (b.writableHost(a)) b.add({ op: "rw", path: a, tag: "ancestor" });
  return { mounts: b.ordered(), guards: dedupeGuards(guards), writable, readOnly, ...(env ? { env } : {}) };
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The symbolic links among `names` in `dir`, with their targets. */
function links(dir: string, names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of names) {
    const st = look(join(dir, n));
    if (st.kind === "symlink") out.set(n, st.target!);
  }
  return out;
}

/** `.git` entries git worktree and git submodule write, checked by the repositories guard when the command ends. */
const GIT_LINKED_ENTRIES: readonly string[] = ["worktrees", "modules"];

/**
 * `.git` as an allow-list: of a repository's `.git` folder in a writable folder, only what git's
 * ordinary work writes stays writable (protected-paths.ts, GIT_WRITABLE_ENTRIES); every other entry
 * that exists is a read-only mount point, and what appears besides is quarantined (a `commondir`,
 * a `config.worktree`, a `worktrees/`). `.git` itself becomes a mount point (it cannot be renamed).
 */
/**
 * The git door of a git submodule command (confine.gitSubmodule) on `root`'s repository: the
 * private copy of `.git/config` the command works on (its GIT_COMMON_DIR; the repository's own file
 * stays a read-only mount point, and the copy is checked and renamed into place when the command
 * has ended: git-config-guard.ts) and the guard that lets it write `.gitmodules` (checked while and
 * when it ends). Undefined when the door stays shut: `cwd` is not in this repository (git would
 * find another one there: a nested repository, a submodule's folder, a listed path), there is no
 * `.git` folder, or either file is not a regular file git can read (a link, say).
 */
function submoduleDoor(b: PlanBuilder, root: string, cwd: string): { guards: GuardedPath[]; copy: GitConfigCopy } | undefined {
  const git = join(root, ".git");
  if (look(git).kind !== "dir" || !b.writableHost(git) || !gitFindsRoot(realOrSelf(cwd), root)) return undefined;
  const config = snapshotGitConfig(join(git, "config"));
  const modules = snapshotGitConfig(join(root, ".gitmodules"));
  if (!config || modules === undefined) return undefined;
  const copy = makeGitConfigCopy(git, config);
  return {
    copy,
    guards: [
      { path: join(git, "config"), root, why: SUBMODULE_CONFIG_WHY, before: { kind: "git-config-copy", snapshot: config, copy } },
      { path: join(root, ".gitmodules"), root, why: SUBMODULE_CONFIG_WHY, before: { kind: "git-config", file: "gitmodules", snapshot: modules } },
    ],
  };
}

/** Does git, started in `cwd`, find `root`'s `.git` (no `.git` entry in a folder between them)? */
function gitFindsRoot(cwd: string, root: string): boolean {
  if (!isWithin(cwd, root)) return false;
  for (let d = cwd; d !== root; d = dirname(d)) {
    if (look(join(d, ".git")).kind !== "none") return false;
    if (dirname(d) === d) return false;
  }
  return true;
}

/** Does PATH name a folder inside a writable folder, or a relative one (the command's folder, in the workspace)? */
function searchPathWritable(searchPath: string, writable: readonly string[]): boolean {
  return searchPath.split(":").some((dir) => !isAbsolute(dir) || writable.some((w) => isWithin(realOrSelf(dir), w) || isWithin(resolve(dir), w)));
}

/** Is `abs` a `.git` file (`gitdir: …`) naming `<root>/.git/worktrees/…` or `<root>/.git/modules/…` of a writable root? */
function ownLinkFile(abs: string, roots: readonly string[]): boolean {
  if (basename(abs) !== ".git" || look(abs).kind !== "file") return false;
  const text = readRegular(abs, 4096);
  const path = text === undefined ? undefined : parseGitfile(new TextEncoder().encode(text));
  if (path === undefined) return false;
  const target = resolve(dirname(abs), path);
  return roots.some((r) => isWithin(target, join(r, ".git", "worktrees")) || isWithin(target, join(r, ".git", "modules")));
}

const SUBMODULE_CONFIG_WHY =
  "a git submodule command may change only the submodule entries of .git/config and .gitmodules (git configuration can run programs: core.fsmonitor, core.hooksPath, aliases)";

function gitAllowList(
  b: PlanBuilder,
  guards: GuardedPath[],
  ancestors: Set<string>,
  approved: string[],
  root: string,
  protect: (root: string, rel: string, why: string) => void,
  doorDir?: string,
  linkedDoor = false,
): void {
  const git = join(root, ".git");
  if (look(git).kind !== "dir" || !b.writableHost(git) || approved.some((a) => isWithin(git, a))) return;
  const names = list(git);
  const isApproved = (n: string) => approved.some((a) => isWithin(a, join(git, n)));
  // worktrees/ and modules/ (git worktree, git submodule) are written, and checked when the command
  // ends against what those commands write (new-repositories.ts, checkOwnLinked: a planted
  // commondir, config.worktree or submodule config goes to quarantine).
  const writable = (n: string) => gitEntryWritable(n) || GIT_LINKED_ENTRIES.includes(n) || n === doorDir;
  for (const name of names) if (!writable(name) || (GIT_COMMAND_STATE.includes(name) && !isApproved(name))) protect(root, `.git/${name}`, GIT_WHY);
  // The git folders of existing submodules and linked worktrees: the user's git reads their
  // configuration too (git status runs one in each submodule, with that submodule's core.fsmonitor),
  // so it is read-only like `.git/config` — checked only when the command ended, a command rewriting
  // `.git/modules/lib/config` in a loop made the user's polling git status run its fsmonitor 138
  // times in 4 s (door18). A git submodule or worktree line (the door) may still write them: git
  // sets a submodule's core.worktree and remote there, and removes a worktree's folder.
  if (!linkedDoor) for (const rel of linkedGitConfigs(git)) protect(root, `.git/${rel}`, LINKED_CONFIG_WHY);
  ancestors.add(git);
  pinAncestors(ancestors, root, git);
  guards.push({
    path: git,
    root,
    why: GIT_WHY,
    before: { kind: "entries", names, accept: (n) => writable(n) || isApproved(n), links: links(git, names) },
  });
  // Objects: git adds them, never rewrites one, and never checks a hash when it reads one; each new
  // or changed object file must verify when the command ends (git-objects.ts).
  const objects = join(git, "objects");
  const objectsDir = look(objects).kind === "dir";
  // Checked by change time (ctime, which no process can set back): whatever a command added or changed
  // is verified when it ends, however many object files there are. (A margin for the clock's granularity
  // and what git wrote just before: verified again, at no risk.)
  if (objectsDir) guards.push({ path: objects, root, why: OBJECTS_WHY, before: { kind: "objects", files: new Map(), since: Date.now() - OBJECTS_SINCE_MARGIN_MS } });
  // What git reads as trusted without checking it (replace refs, alternates, the commit-graph): read-only
  // or guarded. packed-refs is git's to rewrite, so the replace lines a command adds are taken out when it ends.
  // .git/shallow: git takes the commits it lists as having no parents; a line a command adds for a commit whose parents are there is taken out (shallow.ts).
  guards.push({ path: join(git, "shallow"), root, why: SHALLOW_WHY, before: { kind: "shallow", lines: shallowLines(join(git, "shallow")) } });
  for (const e of GIT_TRUSTED_READS) {
    if (e.path === ".git/packed-refs") guards.push({ path: join(root, e.path), root, why: e.why, before: { kind: "packed-refs", replaceLines: replaceLines(join(root, e.path)) } });
    else if (!e.path.startsWith(".git/objects/") || objectsDir) protect(root, e.path, e.why);
  }
  // A rebase's or cherry-pick's todo list left behind runs its exec lines when the user continues:
  // git writes it while the command runs, but what is still there when it ends is quarantined.
  guards.push({
    path: git,
    root,
    why: GIT_STATE_WHY,
    before: { kind: "entries", names, accept: (n) => !GIT_COMMAND_STATE.includes(n) || isApproved(n), links: links(git, names), endOnly: true },
  });
}

const LINKED_CONFIG_WHY =
  "the configuration of a submodule's or linked worktree's git folder: the user's git reads it (git status runs git in each submodule), and it can run programs (core.fsmonitor, core.hooksPath)";

/** At most this many git folders below `.git/modules` are looked at (nested submodules), this deep. */
const MAX_LINKED_DIRS = 256;
const MAX_LINKED_DEPTH = 8;

/**
 * Of `git` (a repository's `.git` folder): the files that hold configuration of its submodules' git
 * folders (`modules/<name>/config`, nested submodules' too) and linked worktrees (`worktrees/<id>/
 * commondir` and `config.worktree`), relative to `git`, those that exist.
 */
function linkedGitConfigs(git: string): string[] {
  const out: string[] = [];
  let seen = 0;
  const walk = (rel: string, depth: number): void => {
    if (depth > MAX_LINKED_DEPTH || seen >= MAX_LINKED_DIRS) return;
    for (const name of list(join(git, rel))) {
      const sub = `${rel}/${name}`;
      if (look(join(git, sub)).kind !== "dir" || ++seen > MAX_LINKED_DIRS) continue;
      // A git folder (HEAD beside objects): its config, and the submodules below its own modules/.
      if (look(join(git, sub, "HEAD")).kind === "file" && look(join(git, sub, "objects")).kind === "dir") {
        if (look(join(git, sub, "config")).kind === "file") out.push(`${sub}/config`);
        if (look(join(git, sub, "modules")).kind === "dir") walk(`${sub}/modules`, depth + 1);
      } else walk(sub, depth + 1); // a name with a slash (modules/libs/lib)
    }
  };
  if (look(join(git, "modules")).kind === "dir") walk("modules", 0);
  for (const id of list(join(git, "worktrees"))) {
    for (const f of ["commondir", "config.worktree"]) if (look(join(git, "worktrees", id, f)).kind === "file") out.push(`worktrees/${id}/${f}`);
  }
  return out;
}

/**
 * Top-level names protected by pattern (`*.code-workspace`): those that exist are protected like
 * any listed path; a new one appearing in the folder is quarantined (an entries guard on the root
 * that accepts every other name).
 */
function protectedNames(guards: GuardedPath[], approved: string[], root: string, protect: (root: string, rel: string, why: string) => void): void {
  const names = list(root);
  for (const n of names) {
    const e = protectedName(n);
    if (e) protect(root, n, e.why);
  }
  const isApproved = (n: string) => approved.some((a) => isWithin(join(root, n), a));
  guards.push({
    path: root,
    root,
    why: PROTECTED_NAME_WHY,
    before: { kind: "entries", names, accept: (n) => !protectedName(n) || isApproved(n), links: new Map() },
  });
}

/** The real path of `p`: its longest existing ancestor resolved, the rest appended. */
function realLexical(p: string): string {
  const abs = resolve(p);
  let head = abs;
  const tail: string[] = [];
  while (look(head).kind === "none" && head !== "/") {
    tail.unshift(head.slice(dirname(head).length + (dirname(head) === "/" ? 0 : 1)));
    head = dirname(head);
  }
  return join(realOrSelf(head), ...tail);
}

/**
 * The writes the gate listed (confine.writes): the workspace is mounted read-only, and for each
 * listed path the existing folder that holds it is made writable, with that folder's other entries
 * read-only mount points (they can be neither written nor renamed nor removed). New files and
 * rename-into-place (`sed -i`, editors' atomic saves) therefore work for the listed path; anything
 * else the command creates in that folder is quarantined when it ends. A listed folder is writable
 * as a whole (and can be removed or renamed: it is not a mount point). A holding folder with more than MAX_SIBLING_MOUNTS entries is not split:
 * there only listed files that exist are writable, in place.
 */
function listedWrites(b: PlanBuilder, guards: GuardedPath[], ws: string, writes: readonly string[]): void {
  const holders = new Map<string, Set<string>>();
  for (const raw of writes) {
    const w = realLexical(raw);
    if (!isWithin(w, ws)) continue;
    if (w === ws) {
      b.add({ op: "rw", path: w, tag: "write" });
      continue;
    }
    let holder = dirname(w);
    while (holder !== ws && look(holder).kind !== "dir") holder = dirname(holder);
    const name = w.slice(holder.length + 1).split("/")[0]!;
    let names = holders.get(holder);
    if (!names) holders.set(holder, (names = new Set()));
    names.add(name);
  }
  for (const [holder, names] of holders) {
    const entries = list(holder);
    if (entries.length > MAX_SIBLING_MOUNTS) {
      for (const n of names) if (look(join(holder, n)).kind === "file") b.add({ op: "rw", path: join(holder, n), tag: "write" });
      continue;
    }
    b.add({ op: "rw", path: holder, tag: "write" });
    for (const e of entries) {
      if (names.has(e)) continue;
      const abs = join(holder, e);
      // A link cannot be a mount point (the mount would land on its target): it is checked when the command ends.
      if (look(abs).kind !== "symlink") b.add({ op: "ro", path: abs, tag: "sibling" });
    }
    guards.push({ path: holder, root: ws, why: WRITES_WHY, before: { kind: "entries", names: entries, accept: (n) => names.has(n), links: links(holder, entries), endOnly: true } });
  }
}

/** Makes every existing folder strictly between `root` and `path` a mount point (when writable). */
function pinAncestors(ancestors: Set<string>, root: string, path: string): void {
  let dir = dirname(path);
  while (dir !== root && isWithin(dir, root)) {
    if (look(dir).kind === "dir") ancestors.add(dir);
    dir = dirname(dir);
  }
}

function protectPath(b: PlanBuilder, guards: GuardedPath[], ancestors: Set<string>, approved: string[], root: string, rel: string, why: string): void {
  const target = join(root, rel);
  // Approved: the path itself, or a folder holding it, is writable for this command.
  if (approved.some((a) => isWithin(target, a))) return;
  const inside = approved.filter((a) => isWithin(a, target) && a !== target);
  const parts = rel.split("/").filter(Boolean);
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]!);
    const last = i === parts.length - 1;
    const st = look(cur);
    if (st.kind === "none") {
      if (inside.length === 0) guards.push({ path: cur, root, why, before: { kind: "none" } });
      pinAncestors(ancestors, root, cur);
      return;
    }
    if (st.kind === "symlink") {
      // A mount would follow the link; the link itself is guarded, and its target protected where it is writable.
      guards.push({ path: cur, root, why, before: { kind: "symlink", target: st.target! } });
      pinAncestors(ancestors, root, cur);
      const real = realOrSelf(join(cur, ...parts.slice(i + 1)));
      if (resolves(real)) {
        if (b.writableHost(real)) b.add({ op: "ro", path: real, tag: "protected" });
        return;
      }
      // A dangling link (`.vscode -> cfg`, no cfg): creating its target writes the protected path,
      // so what appears where the target would be is guarded like a protected path that is absent.
      const missing = firstMissing(resolve(dirname(cur), st.target!, ...parts.slice(i + 1)));
      if (missing && b.writableHost(missing)) {
        // Outside this root (a link to another writable folder): that folder holds the guard.
        const holder = isWithin(missing, root) ? root : dirname(missing);
        guards.push({ path: missing, root: holder, why, before: { kind: "none" } });
        pinAncestors(ancestors, holder, missing);
      }
      return;
    }
    if (!last && st.kind === "file") {
      // e.g. `.git` is a file pointing to the repository (worktrees, submodules): keep that file.
      if (b.writableHost(cur)) {
        b.add({ op: "ro", path: cur, tag: "protected" });
        pinAncestors(ancestors, root, cur);
      }
      return;
    }
    if (last) {
      if (!b.writableHost(cur)) return;
      b.add({ op: "ro", path: cur, tag: "protected" });
      pinAncestors(ancestors, root, cur);
      // Approved paths inside a protected folder: the folder holding each is writable.
      for (const a of inside) {
        let holder = isDir(a) ? a : dirname(a);
        while (!isDir(holder) && isWithin(holder, cur)) holder = dirname(holder);
        if (!isWithin(holder, cur)) continue;
        if (holder === cur) {
          b.byPath.delete(cur);
          return;
        }
        b.add({ op: "rw", path: holder, tag: "approved" });
      }
    }
  }
}

const NESTED_NAME_WHY =
  "a protected name inside a nested repository's working tree (its .gitmodules, a sub-project's .npmrc, hook manager or editor configuration): git, a package manager or an editor reads it as configuration at the person's next command there";
const GIT_NAMED_WHY = "a nested repository's git configuration names it (git runs it, or reads it as configuration, at the person's next git command there)";

/** Does a folder strictly between `root` and `abs` hold a `.git` (a nested clone, a linked worktree, a submodule)? */
function insideNestedWorkTree(abs: string, root: string): boolean {
  for (let dir = dirname(abs); dir !== root && isWithin(dir, root); dir = dirname(dir)) if (look(join(dir, ".git")).kind !== "none") return true;
  return false;
}

function dedupeGuards(guards: GuardedPath[]): GuardedPath[] {
  const seen = new Map<string, GuardedPath>();
  // A folder may have a guard checked while the command runs and one checked when it ends (.git).
  for (const g of guards) {
    // Folder guards of one folder with different allow-lists (a home workspace's root, the names protected by pattern) are all kept.
    const key = g.before.kind === "entries" ? `${g.path}\0${g.before.endOnly ? "end" : ""}\0${g.why}` : g.before.kind === "repositories" ? `${g.path}\0repositories` : g.path;
    if (!seen.has(key)) seen.set(key, g);
  }
  return [...seen.values()];
}

/** For messages: the path relative to its root. */
export function relativeTo(root: string, p: string): string {
  return p === root ? "." : p.startsWith(root + sep) ? p.slice(root.length + 1) : p;
}
