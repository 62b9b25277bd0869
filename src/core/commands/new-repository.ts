/**
 * What a git repository a command created (or whose git files it changed) may hold: an ALLOW-list
 * of what `git init` and `git clone` write and of settings that name no program, no file and no
 * transport. git runs programs named by its configuration (core.fsmonitor, core.hooksPath,
 * core.sshCommand, core.pager, diff.external, filters, aliases, include.path…) and by the hooks
 * folder at the next git command in that folder — the user's own, or VS Code's git extension.
 * A list of bad keys is beaten by the next key nobody listed; this list can only be too short,
 * and a key missing here makes the repository's git folder go to quarantine (the model and the
 * user are told), never run anything. See docs/security.md, "Repositories a command creates".
 */

/** Configuration keys (git's spelling: section and name lowercase, subsection as written) a new repository may hold. */
const EXACT_KEYS: ReadonlySet<string> = new Set([
  // git init
  "core.repositoryformatversion",
  "core.filemode",
  "core.bare",
  "core.logallrefupdates",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.symlinks",
  "init.defaultbranch",
  "extensions.objectformat",
  "extensions.refstorage",
  // git init --shared; git clone --filter (a partial clone fetches from its remote, whose URL is checked)
  "core.sharedrepository",
  "receive.denynonfastforwards",
  "extensions.partialclone",
  // settings without a program, a file or a transport
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.quotepath",
  "core.abbrev",
  "core.compression",
  "core.checkstat",
  "core.trustctime",
  "core.sparsecheckout",
  "core.sparsecheckoutcone",
  "user.name",
  "user.email",
  "pull.rebase",
  "pull.ff",
  "push.default",
  "push.autosetupremote",
  "fetch.prune",
  "fetch.prunetags",
  "merge.ff",
  "rebase.autostash",
  "rebase.autosquash",
  "commit.gpgsign",
  "tag.gpgsign",
  "gc.auto",
  "color.ui",
  "index.version",
  "lfs.repositoryformatversion",
  // git clone --recurse-submodules: which submodules are active (a pathspec, `.`), no program
  "submodule.active",
]);

/** Keys with a subsection (`remote.<name>.url`): git clone, git remote, git branch -u, git submodule init. */
const SUBSECTION_KEYS: ReadonlyArray<readonly [section: string, names: readonly string[]]> = [
  ["remote", ["url", "pushurl", "fetch", "push", "tagopt", "prune", "mirror", "promisor", "partialclonefilter"]],
  ["branch", ["remote", "merge", "rebase", "pushremote", "description"]],
  ["submodule", ["url", "active", "branch"]],
];

/** Keys whose value is a URL: a transport git runs a program for (`ext::sh -c …`, `foo::url` starts git-remote-foo) or an option-like host is refused. */
const URL_NAMES = new Set(["url", "pushurl"]);

/**
 * Is `key = value` (as `git config --list --null` prints it) a setting a new repository may hold?
 * `advice.*` (messages only) is allowed; everything else not listed is not.
 */
export function newRepositoryKeyAllowed(key: string, value: string): boolean {
  const k = key.toLowerCase();
  if (EXACT_KEYS.has(k)) return true;
  if (/^advice\.[a-z0-9-]+$/.test(k)) return true;
  const first = k.indexOf(".");
  const last = k.lastIndexOf(".");
  if (first <= 0 || last === first) return false;
  const section = k.slice(0, first);
  const name = k.slice(last + 1);
  const names = SUBSECTION_KEYS.find(([s]) => s === section)?.[1];
  if (!names?.includes(name)) return false;
  if (URL_NAMES.has(name)) return urlAllowed(value);
  return true;
}

function urlAllowed(value: string): boolean {
  const v = value.trim();
  // `<transport>::<address>` runs a remote helper (ext:: runs any command); a leading dash reads as an option to ssh.
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(v)) return false;
  if (v.startsWith("-")) return false;
  return true;
}

/**
 * Top-level entries of a new repository's git folder, besides `config` and `hooks` (checked for
 * their content): what git init, clone, fetch, commit, checkout and gc write. `commondir`,
 * `config.worktree` and `worktrees` (git reads configuration from them), `modules` (submodules'
 * git folders, with their own configuration) and a rebase's or cherry-pick's todo list (its exec
 * lines run when the user continues it) are not on it.
 */
const NEW_REPOSITORY_ENTRIES: ReadonlySet<string> = new Set([
  "HEAD",
  "description",
  "info",
  "objects",
  "refs",
  "logs",
  "index",
  "packed-refs",
  // the temporary file git writes a new packed-refs into before renaming it over packed-refs
  // (refs/packed-backend.c); git never reads it, and a command that ends while git renames it leaves it
  "packed-refs.new",
  "shallow",
  "branches",
  "FETCH_HEAD",
  "ORIG_HEAD",
  "COMMIT_EDITMSG",
  "AUTO_MERGE",
  "MERGE_MODE",
  "MERGE_MSG",
  "MERGE_RR",
  "MERGE_AUTOSTASH",
  "rr-cache",
  "lfs",
  "lost-found",
  "gc.pid",
  "gc.log",
  "reftable",
  // git's own file-system watcher (core.fsmonitor=true): its cookies and socket
  "fsmonitor--daemon",
  "fsmonitor--daemon.ipc",
]);
const NEW_REPOSITORY_PATTERNS = [/\.lock$/, /^[A-Z_]+_HEAD$/, /^[A-Z_]+_(MSG|EDITMSG)$/, /^BISECT_[A-Z_]+$/, /^index\.[A-Za-z0-9._-]+$/, /^sharedindex\.[0-9a-f]+$/, /^shallow_[A-Za-z0-9]{6}$/];
// shallow_XXXXXX: the temporary shallow file a shallow fetch hands its subprocesses (shallow.c); the user's git never reads it

/** May a new repository's git folder hold the top-level entry `name` (other than `config` and `hooks`)? */
export function newRepositoryEntryAllowed(name: string): boolean {
  return NEW_REPOSITORY_ENTRIES.has(name) || NEW_REPOSITORY_PATTERNS.some((r) => r.test(name));
}

/** May a new repository's `hooks` folder hold `name`? Only git's samples, which git never runs. */
export function newRepositoryHookAllowed(name: string): boolean {
  return name.endsWith(".sample");
}
