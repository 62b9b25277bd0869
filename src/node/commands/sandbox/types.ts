/** Sandbox backends: each wraps a command's argv so that it runs confined. */
import type { CommandConfinement, NetworkMode, SandboxName } from "../../../core/commands/types";

export interface SandboxPath {
  /** Absolute path (a leading "~/" means the home folder). */
  path: string;
  mode: "ro" | "rw";
}

/**
 * What the permission rules require of the sandbox, asked for every command (the settings may
 * change during a session). Paths are absolute real paths, files or folders, and may not exist.
 */
export interface SandboxProtection {
  /** Paths the rules deny reading: hidden (an empty read-only folder, or an unreadable file). */
  hide: string[];
  /**
   * Paths kept read-only (beyond the protected workspace paths, which always are). One that does
   * not exist cannot be created either: what a command creates there is moved to quarantine.
   */
  readOnly: string[];
  /**
   * Programs deny rules forbid as a whole (`Bash(rm:*)`): every file of that name on the command
   * path is made impossible to start, whatever the shell analysis concluded about the command. Of
   * an ask rule's (`list: "ask"`), only in a command bypassPermissions mode alone allowed
   * (`confine.unreviewed`).
   */
  programs?: ReadonlyArray<{ name: string; rule: string; list?: "deny" | "ask" }>;
  /** Of `readOnly`, what only a repository's git configuration names (core/permissions/sandbox-view.ts): a nested working tree's are stamp guards. */
  gitNamed?: string[];
  /** Of `readOnly`, files protected by their name alone below a workspace folder's top (sandbox-view.ts): a nested working tree's are stamp guards too. */
  nestedNames?: string[];
}

/** Resource limits of each command (0 or undefined: that limit is off). */
export interface SandboxLimits {
  /** CPU seconds of each process. */
  cpuSeconds?: number;
  /** Largest file a process may write, MB. */
  fileSizeMb?: number;
  /** Data memory (heap) of each process, MB. */
  memoryMb?: number;
  /** Processes and threads of one command. */
  processes?: number;
  /** Size of each private temporary folder (/tmp, /var/tmp, /dev/shm, the hidden home), MB. */
  tmpMb?: number;
}

/** What the sandbox lets commands see: the same for every command of a session. */
export interface SandboxPolicy {
  /** Absolute workspace folder: read-write. */
  workspace: string;
  /** The home folder to hide (default: os.homedir()). All other home folders are hidden too. */
  home?: string;
  /** Exceptions: paths (usually under home) made visible read-only or read-write. */
  paths?: SandboxPath[];
  /** What the permission rules hide and keep read-only; called for every command. */
  protection?: () => SandboxProtection;
  /** Sizes of the private temporary folders (only `tmpMb` is used by the mounts). */
  limits?: SandboxLimits;
}

export interface WrapRequest {
  /** The command to run, e.g. ["bash", "-c", "npm test"]. */
  argv: string[];
  /** Absolute working folder. */
  cwd: string;
  network: NetworkMode;
  /** The runner's id of the command (unique per session). */
  id: string;
  /** What the permission decision requires (default: workspace writable, protected paths read-only). */
  confine?: CommandConfinement;
  /**
   * The command's PATH (default: this process's). The git door (confine.gitLinked) stays shut when
   * a folder on it is writable by the command or relative: a `git` planted there runs instead of
   * git while `.git/config` is writable (red team 22-gate).
   */
  searchPath?: string;
}

/**
 * A path the sandbox could not mount read-only because it did not exist (or was a symbolic
 * link, which a mount would follow): the runner checks it while and after the command runs,
 * and moves what appeared there to quarantine.
 */ import type { ObjectFileStat } from "../git-objects";
import type { GitConfigCopy, GitConfigFile, GitConfigSnapshot } from "../git-config-guard";
import type { NamedLaterState } from "../named-later";

export interface GuardedPath {
  /** Absolute path of the protected entry. */
  path: string;
  /** The writable folder (workspace or listed path) it belongs to. */
  root: string;
  /** Why it is protected (for the model). */
  why: string;
  /**
   * What was there before: nothing, or a symbolic link and its target (restored after a
   * quarantine), or (`entries`: `path` is a folder) the names the folder held. Of a folder, what
   * appears that `accept` does not accept is quarantined, and a symbolic link of `links` that was
   * changed or removed is put back.
   */
  before:
    | { kind: "none" }
    | { kind: "symlink"; target: string }
    | FolderGuard
    | ObjectsGuard
    | PackedRefsGuard
    | ShallowGuard
    | RepositoriesGuard
    | GitConfigGuard
    | GitConfigCopyGuard
    | StampGuard
    | NamedLaterState;
}

/**
 * A file (or folder) a nested repository's git configuration names, inside that repository's working tree
 * (`path`): writable, and not a mount point (git worktree remove and git submodule deinit delete the whole
 * folder). What it was (`stamp`: device, inode, size, change and modification times; "-" when absent): when that
 * changes and something is there, it is moved to the quarantine (session 23, gitnew23). Removed is fine.
 */
export interface StampGuard {
  kind: "stamp";
  stamp: string;
}

/**
 * `.git/config` or `.gitmodules` (`path`) under a git submodule command (confine.gitLinked):
 * writable for it; what it held before. Any change but the `submodule.<name>.*` entries git writes
 * puts the file back (git-config-guard.ts), while the command runs and when it ends.
 */
export interface GitConfigGuard {
  kind: "git-config";
  file: GitConfigFile;
  snapshot: GitConfigSnapshot | null;
}

/**
 * `.git/config` (`path`) under a git submodule command (confine.gitSubmodule): read-only to the
 * command, which works on a private copy (`copy`, its GIT_COMMON_DIR); when it has ended, the copy
 * is checked and renamed into place, or kept out (git-config-guard.ts, publishGitConfigCopy).
 */
export interface GitConfigCopyGuard {
  kind: "git-config-copy";
  snapshot: GitConfigSnapshot;
  copy: GitConfigCopy;
}

/**
 * A writable folder (`path`) whose git repositories below it are checked when the command ends
 * (new-repositories.ts): one born during the command, or a git file the command wrote, must hold
 * only what git init and git clone write, else it is quarantined.
 */
export interface RepositoriesGuard {
  kind: "repositories";
  /** When the command started (ms since the epoch, less a margin for the clock's granularity). */
  since: number;
  /** The repositories' markers there were before (path -> inode). */
  known: ReadonlyMap<string, number>;
  /** Paths the user approved writing for this command: their content is the user's choice. */
  approved?: readonly string[];
}

/**
 * `.git/packed-refs` (`path`), which git's ordinary work rewrites: the `refs/replace/` lines it held
 * before. A new one is taken out of the file when the command ends (packed-refs.ts).
 */
export interface PackedRefsGuard {
  kind: "packed-refs";
  replaceLines: readonly string[];
}

/**
 * `.git/shallow` (`path`), which git's shallow fetches write: the commits it listed before. A line
 * added for a commit whose parents are in the store is taken out when the command ends (shallow.ts).
 */
export interface ShallowGuard {
  kind: "shallow";
  lines: readonly string[];
}

/**
 * A repository's `objects` folder (`path`): its object files as they were (relative name -> stat);
 * when the command ends, each new or changed one must verify (git-objects.ts), else it is quarantined.
 */
export interface ObjectsGuard {
  kind: "objects";
  files: ReadonlyMap<string, ObjectFileStat>;
  /** Verify every object file whose inode changed at or after this time (ms since the epoch) instead of comparing with `files`. */
  since?: number;
}

/** A folder whose new entries are checked (an allow-list: `.git`, a visible home, a folder holding a listed write). */
export interface FolderGuard {
  kind: "entries";
  names: readonly string[];
  accept: (name: string) => boolean;
  /** Symbolic links of the folder to keep as they are (name -> target). */
  links?: ReadonlyMap<string, string>;
  /**
   * Names under which anything but a regular file or a folder is a change even where the name is
   * accepted, unless it was that link before (a home's histories: host programs append to them, through
   * a link to `.bashrc` too, and an interactive bash waits forever reading one that is a FIFO).
   */
  plainOnly?: (name: string) => boolean;
  /** Checked only when the command has ended (programs write temporary files there and rename them into place). */
  endOnly?: boolean;
}

export interface WrappedCommand {
  file: string;
  args: string[];
  /** Protected paths to watch for this command. */
  guards?: GuardedPath[];
  /** Environment the backend needs (e.g. TMPDIR=/tmp with a private /tmp). */
  env?: Record<string, string>;
}

export interface SandboxBackend {
  readonly name: SandboxName;
  /** Can the network be turned on per command? */
  readonly networkToggle: boolean;
  /** A warning the UI shows persistently while this backend is in use. */
  readonly warning?: string;
  /**
   * Names of helper processes between us and the command (bwrap). They must not get soft
   * signals (they would die at once and SIGKILL the command); the root process is one of them.
   */
  readonly helpers: readonly string[];
  /** Does each command get its own PID namespace (so nothing it starts can outlive it)? */
  readonly pidNamespace?: boolean;
  /**
   * Does each command run in a user namespace of its own? The kernel then counts RLIMIT_NPROC per
   * command (in that namespace) rather than over all of the user's processes.
   */
  readonly ownUserNamespace?: boolean;
  /** Notes on what this backend cannot enforce here (shown by `yoke sandbox exec --json` and in logs). */
  readonly degraded?: readonly string[];
  wrap(req: WrapRequest): WrappedCommand;
  /** Extra step to stop a command (docker: remove its container). */
  stop?(req: WrapRequest): Promise<void>;
}

/** The requested sandbox cannot be used here; the message says what to install or choose. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}
