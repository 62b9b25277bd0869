/**
 * Workspace paths that are code or configuration something runs later, outside any sandbox
 * (git hooks and config, editor tasks, agent settings and hooks, direnv...). Writing them asks
 * in every mode, whoever writes (a file tool or a command), and the command sandbox keeps them
 * read-only unless the user approved that write. One list for the permission gate and the sandbox.
 */

export interface ProtectedPath {
  /** Relative to a workspace folder, POSIX separators. */
  path: string;
  /** A folder protects everything under it. */
  kind: "dir" | "file";
  why: string;
  /**
   * The Linux sandbox lets commands write it (git's own work does: git worktree, git submodule) and
   * checks what was written when the command ends, against an allow-list of what git writes there
   * (src/node/commands/new-repositories.ts); file tools and redirections still ask.
   */
  checkedAfter?: true;
}

const MISE =
  "mise runs the hooks, sourced scripts and exec() templates of its configuration when a shell enters the folder and at every prompt, and trusts a file by its path (a change is not asked about again)";
const HOOK_MANAGER = "a git hook manager (pre-commit, lefthook, lint-staged, commitlint, overcommit, simple-git-hooks) runs the commands it names at the next git commit";

const IGNORE_FILE = "an agent's ignore file: Yoke denies reading and changing the paths it lists, and a change could lift that";

export const PROTECTED_WORKSPACE_PATHS: readonly ProtectedPath[] = [
  { path: ".git/config", kind: "file", why: "git configuration can run programs (core.fsmonitor, core.hooksPath, diff.external, aliases)" },
  { path: ".git/hooks", kind: "dir", why: "git hooks run on later git commands" },
  { path: ".git/modules", kind: "dir", why: "submodule repositories carry their own git configuration and hooks", checkedAfter: true },
  { path: ".git/info", kind: "dir", why: "git attributes and excludes of the repository" },
  { path: ".git/commondir", kind: "file", why: "git reads the repository, and its configuration, from the folder commondir names" },
  { path: ".git/config.worktree", kind: "file", why: "git configuration can run programs (core.fsmonitor, core.hooksPath)" },
  { path: ".git/worktrees", kind: "dir", why: "linked worktrees' git folders, with their own configuration", checkedAfter: true },
  { path: ".gitattributes", kind: "file", why: "git attributes select filter and diff drivers" },
  { path: ".gitmodules", kind: "file", why: "submodule definitions" },
  { path: ".husky", kind: "dir", why: "git hooks managed by husky" },
  { path: ".githooks", kind: "dir", why: "git hooks (a common core.hooksPath)" },
  { path: ".yoke", kind: "dir", why: "Yoke settings, hooks, lessons and skills" },
  { path: ".claude", kind: "dir", why: "Claude Code settings, hooks and skills" },
  { path: ".vscode", kind: "dir", why: "VS Code settings, tasks and launch configurations run programs" },
  { path: ".devcontainer", kind: "dir", why: "dev container definitions run commands when the container is built" },
  { path: ".devcontainer.json", kind: "file", why: "a dev container definition: its initializeCommand runs on the host when the folder is opened in a container" },
  { path: ".mcp.json", kind: "file", why: "MCP server definitions start programs" },
  { path: ".cursor", kind: "dir", why: "Cursor settings and MCP server definitions" },
  // Other agents' ignore files are deny rules (permissions/ignore-files.ts): changing one would lift them.
  { path: ".kiro/hooks", kind: "dir", why: "Kiro's hooks run commands (Yoke runs them too)" },
  { path: ".cursorignore", kind: "file", why: IGNORE_FILE },
  { path: ".clineignore", kind: "file", why: IGNORE_FILE },
  { path: ".rooignore", kind: "file", why: IGNORE_FILE },
  { path: ".geminiignore", kind: "file", why: IGNORE_FILE },
  { path: ".envrc", kind: "file", why: "direnv runs it when a shell enters the folder" },
  // direnv's own folder: `layout python` puts its virtual environment's bin on the person's PATH (and python runs its `.pth` files at start).
  { path: ".direnv", kind: "dir", why: "direnv keeps the environments its layouts put on the person's PATH there (layout python's virtual environment)" },
  // `nodejs path:./tools/node` makes mise and asdf run the programs of that folder for the person's `node` (no trust asked for this file).
  { path: ".tool-versions", kind: "file", why: "mise and asdf take tools from the folders its path: versions name, and run them for the person's next command" },
  // mise (and rtx, its old name) reads these when a shell with `mise activate` enters the folder and at
  // every prompt: `[hooks] enter`, `[env] _.source` and `exec()` templates run programs. mise trusts a
  // config file by its PATH, not its content: after the person's one `mise trust`, a changed file runs
  // without a question (red team Q, session 20: real mise 2026.9.15 ran an edited file's hook and
  // sourced script at the next `mise hook-env`). `mise.<env>.toml` and `.mise.toml` by pattern below.
  { path: ".mise", kind: "dir", why: MISE },
  { path: ".config/mise", kind: "dir", why: MISE },
  { path: ".config/mise.toml", kind: "file", why: MISE },
  { path: "mise/config.toml", kind: "file", why: MISE },
  { path: ".npmrc", kind: "file", why: "npm configuration can choose the shell and Node options later npm commands run with" },
  { path: ".yarnrc", kind: "file", why: "yarn configuration can run programs" },
  { path: ".yarnrc.yml", kind: "file", why: "yarn configuration can name the program yarn runs (yarnPath) and its plugins" },
  { path: ".pnpmfile.cjs", kind: "file", why: "pnpm runs its hooks on install" },
  // Session 23, red team A: pnpm (10 and later) loads `.pnpmfile.mjs` by default and reads its settings
  // (pnpmfile, scriptShell, nodeOptions, which dependencies may run install scripts) from
  // pnpm-workspace.yaml; corepack reads `COREPACK_*` variables from `.corepack.env` (COREPACK_HOME in
  // the workspace made the person's `yarn` run a planted "installed" yarn).
  { path: ".pnpmfile.mjs", kind: "file", why: "pnpm runs its hooks on install" },
  { path: "pnpm-workspace.yaml", kind: "file", why: "pnpm settings can name the shell, Node options and hook file later pnpm commands run with" },
  { path: ".corepack.env", kind: "file", why: "corepack takes its settings from it (COREPACK_HOME, registries, custom URLs) and runs the package manager they name at the person's next yarn or pnpm" },
  // Hook managers keep the hook itself in .git/hooks (installed once by the user) and read what to
  // run from these files in the working tree: writing one runs a program at the user's next commit.
  { path: ".pre-commit-config.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".pre-commit-config.yml", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook.yml", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook.yaml", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook.json", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook.toml", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook.yml", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook.json", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook.toml", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook-local.yml", kind: "file", why: HOOK_MANAGER },
  { path: "lefthook-local.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook-local.yml", kind: "file", why: HOOK_MANAGER },
  { path: ".lefthook-local.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.json", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.yml", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.js", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.cjs", kind: "file", why: HOOK_MANAGER },
  { path: ".lintstagedrc.mjs", kind: "file", why: HOOK_MANAGER },
  { path: "lint-staged.config.js", kind: "file", why: HOOK_MANAGER },
  { path: "lint-staged.config.cjs", kind: "file", why: HOOK_MANAGER },
  { path: "lint-staged.config.mjs", kind: "file", why: HOOK_MANAGER },
  { path: "lint-staged.config.ts", kind: "file", why: HOOK_MANAGER },
  { path: "commitlint.config.js", kind: "file", why: HOOK_MANAGER },
  { path: "commitlint.config.cjs", kind: "file", why: HOOK_MANAGER },
  { path: "commitlint.config.mjs", kind: "file", why: HOOK_MANAGER },
  { path: "commitlint.config.ts", kind: "file", why: HOOK_MANAGER },
  { path: "commitlint.config.cts", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.json", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.yaml", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.yml", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.js", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.cjs", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.mjs", kind: "file", why: HOOK_MANAGER },
  { path: ".commitlintrc.ts", kind: "file", why: HOOK_MANAGER },
  { path: ".overcommit.yml", kind: "file", why: HOOK_MANAGER },
  { path: ".simple-git-hooks.json", kind: "file", why: HOOK_MANAGER },
  { path: ".simple-git-hooks.js", kind: "file", why: HOOK_MANAGER },
  { path: ".simple-git-hooks.cjs", kind: "file", why: HOOK_MANAGER },
  { path: "simple-git-hooks.json", kind: "file", why: HOOK_MANAGER },
  { path: "simple-git-hooks.js", kind: "file", why: HOOK_MANAGER },
  { path: "simple-git-hooks.cjs", kind: "file", why: HOOK_MANAGER },
  { path: ".git-hooks", kind: "dir", why: HOOK_MANAGER },
  // Editors and CI that run what these files say, outside any sandbox.
  { path: ".idea", kind: "dir", why: "JetBrains IDE project files: run configurations and their before-launch tasks, external tools and startup tasks run programs" },
  {
    path: ".github/workflows",
    kind: "dir",
    why: "GitHub Actions workflows run on GitHub's machines on the next push, with the repository's secrets and a token that can write to it",
  },
];

/**
 * In a home folder inside a workspace (the workspace is the home, or holds it), the top-level entries
 * that may be written: everything that is not a dot entry (projects, documents) but the program
 * folders below (`bin`, `go`, `node_modules`, …), and of the dot
 * entries only histories (read as text, never run). Every other dot entry (`.config`, `.local`,
 * `.bashrc`, `.vscode-server`, the package managers' caches, and any new one) is read-only, or
 * quarantined when created: programs read their configuration, plugins and code from there later,
 * outside any sandbox. One rule for the command sandbox (read-only mounts,
 * src/node/commands/sandbox/plan.ts) and the gate (a file tool's or a redirection's write there asks
 * in every mode, src/core/permissions/context.ts): before session 19 the gate let write_file plant
 * `~/.claude.json` MCP servers and `~/.bash_aliases`. Session 20 (home20): the caches are no longer
 * writable — a sandboxed command rewrote `~/.npm/_npx/<hash>/node_modules/PKG/cli.js` and the
 * person's next `npx -y PKG` on the host ran it; sandboxed commands get private caches instead
 * (PRIVATE_CACHE_ENV).
 */
const HOME_WRITABLE_DOT = new Set([
  ".bash_history",
  ".zsh_history",
  ".python_history",
  ".node_repl_history",
  ".lesshst",
  ".wget-hsts",
  ".sqlite_history",
  ".psql_history",
  ".mysql_history",
  ".viminfo",
]);
/**
 * Top-level names without a dot that hold what programs run later on the host: `bin` (on PATH),
 * `go` (GOPATH: `bin` on PATH, the module cache builds use), `node_modules` (npm takes the home for
 * the package root of any folder below it without its own: the person's `npx -y PKG@V` in
 * `~/Downloads` ran a planted `~/node_modules/PKG`, tried in session 20), `snap` (strict snaps'
 * settings and profiles), `Library` (macOS: LaunchAgents, editors' user settings), `AppData`
 * (Windows). Any case (case-insensitive file systems).
 */
const HOME_PROGRAM_FOLDERS = new Set(["bin", "go", "node_modules", "snap", "library", "appdata"]);
export function homeEntryWritable(name: string): boolean {
  return name.startsWith(".") ? HOME_WRITABLE_DOT.has(name) : !HOME_PROGRAM_FOLDERS.has(name.toLowerCase());
}

/**
 * Where a sandboxed command's package managers keep their caches when a home folder is writable in
 * the sandbox (a home-folder workspace): the home's own caches are read-only there (above), so these
 * point into the command's private temporary folder (relative to it: `/tmp` inside the sandbox).
 * `npm install`, `npx`, `pip`, `uv`, `pnpm`, `yarn`, `bun`, `go` keep working; nothing they cache
 * reaches the person's caches, from which the person's own tools later run code on the host.
 */
export const PRIVATE_CACHE_ENV: Readonly<Record<string, string>> = {
  XDG_CACHE_HOME: "xdg",
  npm_config_cache: "npm",
  PIP_CACHE_DIR: "pip",
  UV_CACHE_DIR: "uv",
  YARN_CACHE_FOLDER: "yarn",
  YARN_GLOBAL_FOLDER: "yarn-berry",
  BUN_INSTALL_CACHE_DIR: "bun",
  GOMODCACHE: "gomod",
  GRADLE_USER_HOME: "gradle",
};
/**
 * The installs inside `home` of the folders of a command path (`PATH`'s text; give real paths where
 * links matter): a `bin` or `sbin` folder's parent — an install prefix, `~/miniconda3` for
 * `~/miniconda3/bin`, `~/google-cloud-sdk`, `~/flutter` — any other folder itself, never the home
 * itself (`~/bin` is its own entry, above). A program there runs what lies beside it: a python's
 * `lib/python3.X/site-packages/*.pth` at every start, conda's `etc/profile.d/conda.sh` sourced by the
 * person's .bashrc (red team T, session 20: the sandbox kept only the PATH folder read-only, and the
 * person's next python3 on the host ran a planted `.pth`). One rule for the command sandbox (plan.ts)
 * and the gate (context.ts), in a home that lies in a workspace as homeEntryWritable's.
 */
/**
 * A command path with its elements' leading tilde written out: bash expands `~`, `~/x` and `~NAME/x`
 * of a PATH element when it looks a program up (`export PATH="~/miniconda3/bin:$PATH"`, quoted, leaves
 * the tilde in the value and the person's shell still runs `~/miniconda3/bin/python3`). `~NAME` is
 * taken for this home when NAME is the home's last folder name (`/home/NAME`, `/root`); other forms
 * (`~+`, `~-`, another person's `~NAME`) are left as written (red team V, session 20).
 */
export function expandPathTilde(searchPath: string, home: string): string {
  const h = home.replace(/\/+$/, "");
  if (!h) return searchPath;
  const name = h.slice(h.lastIndexOf("/") + 1);
  return searchPath
    .split(":")
    .map((d) => {
      const m = /^~([^/]*)(\/.*)?$/.exec(d);
      return m && (m[1] === "" || m[1] === name) ? h + (m[2] ?? "") : d;
    })
    .join(":");
}

export function pathInstalls(searchPath: string, home: string): string[] {
  const out = new Set<string>();
  const h = home.replace(/\/+$/, "");
  if (!h) return [];
  for (const raw of expandPathTilde(searchPath, h).split(":")) {
    const dir = raw.replace(/\/+$/, "");
    if (!dir.startsWith(`${h}/`) || dir.split("/").some((s) => s === "." || s === "..")) continue;
    const cut = dir.lastIndexOf("/");
    const parent = dir.slice(0, cut);
    out.add(/^s?bin$/.test(dir.slice(cut + 1)) && parent !== h ? parent : dir);
  }
  return [...out];
}
/**
 * What a repository's git configuration makes git run or read from the working tree: the hooks folder
 * `core.hooksPath` names (`scripts/git-hooks`, often set by a project's `prepare` script: a file there
 * runs at the person's next `git commit`/`merge`/`checkout` on the host), and a configuration file
 * `include.path` names (`../.gitconfig`, a team's shared settings: its core.fsmonitor runs at the next
 * `git status`). The list above names the usual folders (`.husky`, `.githooks`, `.git-hooks`); these
 * are the ones git itself reports, whatever their names (red team W, session 21).
 */
export const GIT_RUNS_FROM_WHY =
  "the git configuration of this repository (or of one nested in the workspace) runs hooks from here (core.hooksPath), runs it as a command (core.fsmonitor, a filter, a diff driver, a ! alias) or reads it as configuration (include.path): git runs what it names at the next commit, checkout or status on the host";

export const PATH_INSTALL_WHY = "a program on the person's PATH is installed there: what lies beside it (its libraries, its startup scripts) runs on the host";

export const HOME_WHY = "a home folder's dot entries and bin hold what programs and shells run later (configuration, plugins, user settings of editors, scripts on PATH)";

const EDITOR_RUNS = (who: string) => `${who} in the person's editor loads this configuration as code when a file is opened or saved (a trusted workspace), outside any sandbox`;

/**
 * Top-level names that are protected by pattern: a VS Code multi-root workspace file carries
 * `settings` and `tasks` (a `runOn: folderOpen` task runs when the user opens it) and `launch`
 * configurations like `.vscode/` does.
 */
export const PROTECTED_NAME_PATTERNS: ReadonlyArray<{ pattern: RegExp; why: string; outsideGitOnly?: boolean }> = [
  { pattern: /\.code-workspace$/i, why: "a VS Code workspace file: its settings, tasks (runOn: folderOpen) and launch configurations run programs when it is opened" },
  // git takes any folder holding a valid HEAD (or a commondir) beside objects/ and refs/ for a
  // repository — a bare one — and every git command run below that folder (the user's shell prompt,
  // an editor) reads the folder's `config`, whose core.fsmonitor runs on the host. The name is
  // the one marker without which the folder is never a repository; inside `.git` it is git's own.
  { pattern: /^\.?(mise|rtx)(\.[A-Za-z0-9_-]+)*\.toml$/i, why: MISE },
  // Configurations the person's editor loads as code without being asked, when a file is opened or
  // saved in a trusted workspace (session 21, protect21; docs/security.md): the ESLint extension runs
  // ESLint with the folder's configuration in a Node process of the extension host, Prettier's
  // formats on save with it, stylelint's likewise; Tailwind CSS IntelliSense loads tailwind.config;
  // the test explorers of Vitest, Jest and Playwright load their configuration to list the tests.
  // JSON and YAML spellings too: they name parsers and plugins, which may be files of the workspace
  // (`"plugins": ["./p.js"]`). Editing them is ordinary work: a write asks (never denies), a command
  // keeps them read-only and a new one is quarantined.
  { pattern: /^(eslint\.config\.(js|mjs|cjs|ts|mts|cts)|\.eslintrc(\.(js|cjs|mjs|ts|cts|mts|json|yaml|yml))?)$/i, why: EDITOR_RUNS("ESLint") },
  { pattern: /^(prettier\.config\.(js|mjs|cjs|ts|mts|cts)|\.prettierrc(\.(js|cjs|mjs|ts|cts|mts|json|json5|yaml|yml|toml))?)$/i, why: EDITOR_RUNS("Prettier") },
  { pattern: /^(stylelint\.config\.(js|mjs|cjs|ts|mts|cts)|\.stylelintrc(\.(js|cjs|mjs|ts|json|yaml|yml))?)$/i, why: EDITOR_RUNS("stylelint") },
  { pattern: /^tailwind\.config\.(js|mjs|cjs|ts|mts|cts)$/i, why: EDITOR_RUNS("Tailwind CSS IntelliSense") },
  { pattern: /^(vite|vitest)\.(config|workspace)\.(js|mjs|cjs|ts|mts|cts)$/i, why: EDITOR_RUNS("the Vitest test explorer") },
  { pattern: /^jest\.config\.(js|mjs|cjs|ts|mts|cts|json)$/i, why: EDITOR_RUNS("the Jest test explorer") },
  { pattern: /^playwright\.config\.(js|mjs|cjs|ts|mts|cts)$/i, why: EDITOR_RUNS("the Playwright test explorer") },
  // Svelte for VS Code's language server imports svelte.config to preprocess a .svelte file it opens (red team X).
  { pattern: /^svelte\.config\.(js|mjs|cjs|ts|mts|cts)$/i, why: EDITOR_RUNS("Svelte for VS Code") },
  {
    pattern: /^(HEAD|commondir)$/i,
    why: "a file named HEAD or commondir makes git take its folder for a repository (with objects/ and refs/ beside it) and read that folder's config, which can run programs (core.fsmonitor), for every git command below it",
    outsideGitOnly: true,
  },
];

/** The protected entry for a top-level name matched by pattern (`app.code-workspace`), or undefined. */
export function protectedName(name: string, insideGit = false): ProtectedPath | undefined {
  const hit = PROTECTED_NAME_PATTERNS.find((e) => e.pattern.test(name) && !(insideGit && e.outsideGitOnly));
  return hit ? { path: name, kind: "file", why: hit.why } : undefined;
}

/**
 * Inside a repository's `.git` folder, what git's ordinary work writes (commit, checkout, branch,
 * stash, merge, rebase, cherry-pick, bisect, fetch, gc): these top-level entries are writable.
 * Every other entry, existing or new, is protected: `config`, `config.worktree`, `commondir`,
 * `gitdir`, `hooks`, `info`, `modules`, `worktrees`, `description`, and any name git may learn to
 * read later. An allow-list, so that an entry nobody thought of (the observed `commondir`, which
 * made git read its configuration from a folder the agent wrote) is protected by default.
 */
export const GIT_WRITABLE_ENTRIES: readonly string[] = [
  "objects",
  "refs",
  "logs",
  "index",
  "HEAD",
  "packed-refs",
  // git's temporary name for a new packed-refs (pack-refs, gc), renamed into place: quarantining it
  // while the command ran made every sandboxed `git pack-refs` and `git gc` fail under bwrap.
  "packed-refs.new",
  "reftable",
  "shallow",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "rr-cache",
  "lfs",
  "lost-found",
  "gc.pid",
  "gc.log",
  "AUTO_MERGE",
  "MERGE_MODE",
  "MERGE_RR",
];
/** Patterns of writable `.git` entries: lock files, `*_HEAD`, message files, bisect state, the stash's temporary index. */
const GIT_WRITABLE_PATTERNS = [/\.lock$/, /^[A-Z_]+_HEAD$/, /^[A-Z_]+_(MSG|EDITMSG)$/, /^BISECT_[A-Z_]+$/, /^NOTES_MERGE_[A-Z_]+$/, /^index\.[A-Za-z0-9._-]+$/];

/**
 * `.git` entries that hold commands git runs later: an interactive rebase's todo list (its `exec`
 * lines run when the user continues the rebase), the sequencer's todo and options (config
 * syntax). git's own work writes them while a command runs (a rebase in the sandbox works), but one
 * left behind after the command — a rebase or cherry-pick stopped half way, or a todo the command
 * wrote — is quarantined, one that existed before the command is read-only for it, and writing
 * them directly (a file tool, a redirection) asks like any protected path.
 */
export const GIT_COMMAND_STATE: readonly string[] = ["rebase-merge", "rebase-apply", "sequencer"];

const GIT_COMMAND_STATE_ENTRY: ProtectedPath = {
  path: ".git",
  kind: "dir",
  why: "git runs the commands of a rebase's or cherry-pick's todo list (exec lines) when the user continues it",
};

/** May commands write the top-level `.git` entry `name`? */
export function gitEntryWritable(name: string): boolean {
  return GIT_WRITABLE_ENTRIES.includes(name) || GIT_WRITABLE_PATTERNS.some((r) => r.test(name));
}

/**
 * Inside the entries git's ordinary work writes, what git reads as trusted without checking it: a
 * replace ref makes it serve another object for a name, alternates another object store, a
 * commit-graph other trees for existing commits, and packed-refs may hold replace refs too. A file
 * tool's or redirection's write asks; in the sandbox, each is read-only or guarded (packed-refs,
 * which git rewrites: the replace lines a command adds are taken out when it ends).
 */
export const GIT_TRUSTED_READS: readonly ProtectedPath[] = [
  {
    path: ".git/refs/replace",
    kind: "dir",
    why: "git reads the object a ref under .git/refs/replace names in place of the object it replaces: a planted one would change what checkout and show give for trusted names",
  },
  { path: ".git/packed-refs", kind: "file", why: "git reads replace refs from .git/packed-refs too: a planted one would change what checkout and show give for trusted names" },
  ...["alternates", "http-alternates"].map((f): ProtectedPath => ({
    path: `.git/objects/info/${f}`,
    kind: "file",
    why: "git reads objects from the folders .git/objects/info/alternates names: another store would serve content under names the user trusts",
  })),
  ...[
    ["commit-graph", "file"],
    ["commit-graphs", "dir"],
  ].map(([f, kind]): ProtectedPath => ({
    path: `.git/objects/info/${f}`,
    kind: kind as "file" | "dir",
    why: "git takes commits' trees and parents from .git/objects/info/commit-graph without checking them against the commits: a forged one changes what diff, revert and merge write",
  })),
];

const GIT_INTERNALS: ProtectedPath = {
  path: ".git",
  kind: "dir",
  why: "git reads its configuration and the repository's location from the other entries of .git (commondir, config.worktree, worktrees…)",
};

/** The protected entry covering `rel` (a path relative to a workspace folder), or undefined. */
export function protectedEntry(rel: string): ProtectedPath | undefined {
  const p = rel.replace(/^\.\/+/, "").replace(/\/+$/, "");
  const listed = PROTECTED_WORKSPACE_PATHS.find((e) => p === e.path || (e.kind === "dir" && p.startsWith(`${e.path}/`)));
  if (listed) return listed;
  const top = /^[^/]+$/.exec(p);
  const named = top ? protectedName(p) : undefined;
  if (named) return named;
  const trusted = GIT_TRUSTED_READS.find((e) => p === e.path || (e.kind === "dir" && p.startsWith(`${e.path}/`)));
  if (trusted) return trusted;
  // Inside .git: everything but what git's ordinary work writes.
  const m = /^\.git\/([^/]+)/.exec(p);
  if (m && GIT_COMMAND_STATE.includes(m[1]!)) return GIT_COMMAND_STATE_ENTRY;
  return m && !gitEntryWritable(m[1]!) ? GIT_INTERNALS : undefined;
}

/**
 * The git commands whose ordinary work writes what is protected: `git submodule add|init|update|
 * sync|deinit|set-url|set-branch|absorbgitdirs` write `.git/config` and `.gitmodules` (config can run
 * programs: core.fsmonitor, aliases, hooksPath), and `git submodule deinit`, `git worktree
 * remove|move|prune|repair` remove, move or rewrite the `.git` file of a submodule's or linked
 * worktree's folder (read-only mount points otherwise, so those folders could not be removed). They
 * failed in the sandbox. A command line that is exactly one of them — one simple command, every word
 * made only of characters the shell gives no meaning to (no quotes, `$`, globs, braces, operators),
 * no global option but `-c protocol.<file|git|http|https|ssh>.allow=…` — gets `confine.gitLinked`
 * (and a submodule line `confine.gitSubmodule`): the repository's own `.git/config` stays read-only;
 * a submodule line works on a private copy of it, checked when the line has ended and renamed into
 * place only when git's `submodule.<name>.*` entries are all that changed, and may write
 * `.gitmodules` (checked while and when it ends; node/commands/git-config-guard.ts); a `.git` file
 * left naming another folder is checked as a new repository (node/commands/new-repositories.ts).
 */
export const GIT_LINKED_WORK: Readonly<Record<string, readonly string[]>> = {
  submodule: ["add", "init", "update", "sync", "deinit", "set-url", "set-branch", "absorbgitdirs"],
  worktree: ["add", "remove", "move", "prune", "repair"],
};

/**
 * The one global option the door takes: `-c protocol.<name>.allow=…` for a transport that fetches
 * (file, git, http, https, ssh), or `never` for any. Not `protocol.ext.allow=always|user`: git then
 * runs the URL as a command (`ext::/ws/evil.sh`, no quote or space needed) inside the one command
 * the door is open for, and that program rewrote `.git/config` in a loop faster than the check put
 * it back — the user's own `git status` on the host ran core.fsmonitor 106 times (red team 22-gate).
 * Likewise any other name (`foo::url` runs a `git-remote-foo` helper).
 */
const DOOR_PROTOCOL = /^protocol\.(?:(?:file|git|http|https|ssh)\.allow=(?:always|never|user)|[a-z]+\.allow=never)$/;

const INERT_WORD = /^[A-Za-z0-9_./:@%+=,^-][A-Za-z0-9_./:@%+=,~^-]*$/;

/** Is `command` exactly one git command of GIT_LINKED_WORK? */
export function isGitLinkedWork(command: string): boolean {
  return gitLinkedCommand(command) !== undefined;
}

/** Of a command line that is exactly one git command of GIT_LINKED_WORK: which (`submodule` or `worktree`); else undefined. */
export function gitLinkedCommand(command: string): "submodule" | "worktree" | undefined {
  if (command.length > 4096 || /[\n\r]/.test(command)) return undefined;
  const words = command.trim().split(/[ \t]+/);
  if (words[0] !== "git") return undefined;
  if (!words.every((w) => INERT_WORD.test(w))) return undefined;
  let i = 1;
  while (words[i] === "-c" && DOOR_PROTOCOL.test(words[i + 1] ?? "")) i += 2;
  const which = words[i];
  const subs = which !== undefined && Object.hasOwn(GIT_LINKED_WORK, which) ? GIT_LINKED_WORK[which] : undefined;
  if (!subs) return undefined;
  // `git submodule [--quiet] SUB …`: the subcommand comes first (git-submodule.sh takes -q/--quiet before it).
  i++;
  while (words[i] === "-q" || words[i] === "--quiet") i++;
  return subs.includes(words[i] ?? "") ? (which as "submodule" | "worktree") : undefined;
}
