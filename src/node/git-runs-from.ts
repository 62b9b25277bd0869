/**
 * The paths git itself runs or reads as configuration for the repositories of a workspace folder, for
 * the permission gate (GitRunsFrom, src/core/permissions/context.ts): the hooks folder core.hooksPath
 * names (relative to the working tree's top; `.git/hooks` is protected already), every file an
 * `include.path` or `includeIf.*.path` names (relative to the file that names it, `~/` the home),
 * whether it exists yet or not, and the words shaped like files of a value git runs as a command
 * (core.fsmonitor, filters, textconv, `!` aliases…). One in the workspace is protected like
 * `.git/hooks` and `.git/config` (red teams W and X, session 21).
 *
 * Which repositories: the one holding the folder, and every repository below it (a nested clone's
 * `sub/.git/config`, a submodule's `.git/modules/x/config` through its `.git` file, a linked
 * worktree's `config.worktree`): the person's `git -C sub status` runs what sub's configuration
 * names (session 22, gitcfg22). The nested ones are the markers the command sandbox's repository walk
 * keeps (new-repositories.ts: refreshed after every command), or a walk of our own (once) while no
 * command has run: a repository the person clones during the session counts from the next command
 * on (one the agent makes is checked by that walk when its command ends; its `.git` is protected for
 * the file tools).
 *
 * Each repository is read with one hardened `git config --list --show-origin` (every configuration
 * git reads there: system, global, the repository's, its worktree's, included files), without the
 * floor's `core.hooksPath=/dev/null`, which would hide the answer; it runs no hook, fsmonitor or pager.
 * The answer is kept while no file it came from changed: the key is the device, inode, size, change
 * and modification times of every file git read or could read (the `.git` marker, the git folder's
 * config, config.worktree and commondir, the common folder's config, the global and system files,
 * every origin listed and every include target, existing or not). A configuration changed during the
 * session (by the person, or by a command they approved) counts from the next check on.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { GitRunsFrom } from "../core/permissions/context";
import { gateMarkers, latestRepositories } from "./commands/new-repositories";
import { HOST_GIT_READ_ARGS, HOST_GIT_READ_ENV } from "./host-git";
import { hostProgram } from "./host-programs";
import { parseGitfile } from "../core/gitfile";

const TIME_LIMIT_MS = 10_000;

/**
 * Keys whose value is a program or a shell command git runs (red team X): `core.fsmonitor =
 * tools/fsmon.sh` ran the workspace's script at the person's next `git status`, and a filter's clean
 * command, a diff driver's textconv, `core.sshCommand`, a pager, an editor, a `!` alias likewise.
 */
const COMMAND_KEYS =
  /^(core\.(fsmonitor|sshcommand|pager|editor|askpass)|sequence\.editor|diff\.external|(diff|merge|filter|difftool|mergetool|pager|alias)\..*|gpg\.(.*\.)?program|credential\..*helper|remote\..*\.(uploadpack|receivepack))$/;
const INCLUDE_KEY = /^include(if\..*)?\.path$/;

function git(dir: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, { ...HOST_GIT_READ_ENV, GIT_NO_REPLACE_OBJECTS: "1", LC_ALL: "C" });
  // Without the floor's core.hooksPath=/dev/null: it would hide the configured hooks folder.
  const base = HOST_GIT_READ_ARGS.filter((a, i, all) => a !== "core.hooksPath=/dev/null" && !(a === "-c" && all[i + 1] === "core.hooksPath=/dev/null"));
  return new Promise((done) => {
    execFile(hostProgram("git"), [...base, "-C", dir, ...args], { env, timeout: TIME_LIMIT_MS, maxBuffer: 4 * 1024 * 1024, encoding: "utf8" }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
      done({ code, stdout: String(stdout ?? "") });
    });
  });
}

/** The words of a command git runs that are shaped like files (a folder or an extension), from the working tree's top (a `!` alias's `!` is not part of the word); wrong, a path is only protected more. */
function commandFiles(value: string, top: string, home: string, key = ""): string[] {
  // The shell joins what quotes, a backslash or an empty expansion split (`tools/f'o'o.sh`,
  // `tools/fo${UNSET}o.sh` run tools/foo.sh, red team C): the words of the value so joined too.
  const joined = value
    .replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]/g, "")
    .replace(/\\(.)/g, "$1")
    .replace(/['"]/g, "");
  const out = commandWords(value, top, home, key);
  return joined === value ? out : [...out, ...commandWords(joined, top, home, key)];
}

function commandWords(value: string, top: string, home: string, key: string): string[] {
  const out: string[] = [];
  const words = value.split(/[\s;|&()<>'"`=!]+/);
  // A credential helper not starting with `!` or a path is a name: git runs `git credential-NAME`
  // (gitcredentials(7)), found on git's exec path and PATH — no file in the working tree
  // (/etc/gitconfig's `credential.helper = gcloud.sh` protected a `gcloud.sh` in every nested
  // worktree, and its mount point there kept `git worktree remove` from deleting the folder).
  if (/^credential\..*helper$/.test(key) && !value.trimStart().startsWith("!") && !isAbsolute(value.trimStart()) && !value.trimStart().startsWith("~/")) {
    const first = words.findIndex((w) => w !== "");
    // A name with a `/` is a path to exec from the working tree's top, where git runs it from
    // (`x/evil.sh` runs `git-credential-x/evil.sh`, red team C).
    if (first >= 0) words.splice(first, 1, ...(words[first]!.includes("/") ? [`git-credential-${words[first]}`] : []));
  }
  for (const word of words) {
    if (!word || word.startsWith("-") || word.includes("$") || /^[a-z][a-z0-9+.-]*:\/\//i.test(word) || word.endsWith("/")) continue;
    if (!/\/|\.[A-Za-z0-9_-]+$/.test(word)) continue;
    const abs = word.startsWith("~/") ? (home ? resolve(home, word.slice(2)) : undefined) : resolve(top, word);
    // Not the working tree or a folder above it.
    if (abs && abs !== top && !top.startsWith(`${abs}/`)) out.push(abs);
  }
  return out;
}

/**
 * A file's identity and version for the cache key ("-" when it is not there). Of a folder (a `.git`
 * folder, the workspace folder) only its identity: git's own work (a lock file, a ref) changes its
 * times at every command, and what git reads from it is stamped file by file.
 */
function stamp(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    return s.isDirectory() ? `d${s.dev}:${s.ino}` : `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return "-";
  }
}

/** The git folder a `.git` marker names (a folder, or a `gitdir:` file), and the common folder its `commondir` names. */
function gitDirs(top: string): string[] {
  const marker = join(top, ".git");
  let gitDir = marker;
  try {
    const st = statSync(marker);
    if (st.isFile()) {
      const buf = readFileSync(marker);
      const path = buf.length > 4096 ? undefined : parseGitfile(buf);
      if (path !== undefined) gitDir = resolve(top, path);
    }
  } catch {
    return [];
  }
  const dirs = [gitDir];
  try {
    const common = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    if (common) dirs.push(resolve(gitDir, common));
  } catch {
    // No commondir: the git folder is the common one.
  }
  return dirs;
}

interface Reading {
  /** The files whose stamps the answer holds for. */
  files: string[];
  key: string;
  paths: string[];
}

const readings = new Map<string, Reading>();

/** The files the answer for the repository at `top` depends on, besides the origins and include targets it lists. */
function fixedFiles(top: string, home: string): string[] {
  const xdg = process.env.XDG_CONFIG_HOME || (home ? join(home, ".config") : "");
  const out = [join(top, ".git"), "/etc/gitconfig"];
  if (home) out.push(join(home, ".gitconfig"));
  if (xdg) out.push(join(xdg, "git", "config"));
  for (const d of gitDirs(top)) out.push(join(d, "config"), join(d, "config.worktree"), join(d, "commondir"));
  return out;
}

/**
 * A bare layout's files the answer depends on (its own folder is the git folder): config, config.worktree, commondir
 * and the common folder's config.
 */
function bareFixedFiles(bare: string, home: string): string[] {
  const xdg = process.env.XDG_CONFIG_HOME || (home ? join(home, ".config") : "");
  const out = [join(bare, "HEAD"), "/etc/gitconfig", join(bare, "config"), join(bare, "config.worktree"), join(bare, "commondir")];
  if (home) out.push(join(home, ".gitconfig"));
  if (xdg) out.push(join(xdg, "git", "config"));
  try {
    const common = readFileSync(join(bare, "commondir"), "utf8").trim();
    if (common) out.push(join(resolve(bare, common), "config"));
  } catch {
    // No commondir.
  }
  return out;
}

/**
 * What git runs or reads as configuration for the repository whose working tree's top is `top` (cached by the stamps
 * of what it read; `seen`: stamps taken in this call, shared by the repositories). `bare`: `top` is a bare layout's
 * folder (session 23, gitnew23): read with `--git-dir` (the hardened git takes no bare repository it discovers), and
 * what its configuration names is resolved from the folder itself (hooks run there in a bare repository) and from the
 * working tree `core.worktree` gives it when `core.bare` is false — the person's `git status` in that folder runs
 * `core.fsmonitor` from that working tree.
 */
async function repositoryRunsFrom(top: string, home: string, seen: Map<string, string>, bare = false): Promise<string[] | undefined> {
  const cached = readings.get(top);
  const stampOnce = (f: string) => {
    let v = seen.get(f);
    if (v === undefined) seen.set(f, (v = stamp(f)));
    return v;
  };
  if (cached && cached.files.map(stampOnce).join("|") === cached.key) return cached.paths;
  // The stamps are taken before git reads: a change while it reads is seen at the next check.
  const fixed = bare ? bareFixedFiles(top, home) : fixedFiles(top, home);
  const before = new Map(fixed.map((f) => [f, stamp(f)]));
  const r = await git(top, [...(bare ? ["--git-dir=."] : []), "config", "--list", "--show-origin", "-z"]);
  // git failed (a configuration it cannot parse, a time-out on a file that never ends): the last
  // answer stands, so what was protected stays so; none yet: not known.
  if (r.code !== 0) return cached?.paths;
  const parts = r.stdout.split("\0");
  const paths: string[] = [];
  const extra = new Set<string>();
  // The folders a relative value is taken from: the working tree's top; for a bare layout the folder itself and the
  // working tree core.worktree names (relative to the git folder; git uses it when core.bare is false or unset —
  // taken whatever core.bare says: only more is protected).
  const bases = [top];
  if (bare) {
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const entry = parts[i + 1]!;
      if (!entry.startsWith("core.worktree\n")) continue;
      const value = entry.slice("core.worktree\n".length);
      if (value) bases.push(value.startsWith("~/") && home ? resolve(home, value.slice(2)) : resolve(top, value));
    }
  }
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const origin = parts[i]!;
    const nl = parts[i + 1]!.indexOf("\n");
    const key = nl < 0 ? parts[i + 1]! : parts[i + 1]!.slice(0, nl);
    const value = nl < 0 ? "" : parts[i + 1]!.slice(nl + 1);
    const from = origin.startsWith("file:") ? resolve(top, origin.slice(5)) : undefined;
    if (from) extra.add(from);
    if (!value) continue;
    const isInclude = INCLUDE_KEY.test(key);
    if (key !== "core.hookspath" && !isInclude && !COMMAND_KEYS.test(key)) continue;
    const path = value.startsWith("~/") && home ? resolve(home, value.slice(2)) : value;
    // core.hooksPath is relative to the working tree's top; an include to the file that names it.
    if (key === "core.hookspath") paths.push(...bases.map((b) => resolve(b, path)));
    else if (isInclude) {
      if (from) {
        const target = isAbsolute(path) ? path : resolve(dirname(from), path);
        paths.push(target);
        // A target not there yet (or empty) lists nothing: its stamp tells when it comes.
        extra.add(target);
      }
    } else paths.push(...bases.flatMap((b) => commandFiles(value, b, home, key)));
  }
  const files = [...new Set([...fixed, ...extra])];
  const key = files.map((f) => before.get(f) ?? stamp(f)).join("|");
  readings.set(top, { files, key, paths });
  return paths;
}

/** Our own walk for the nested repositories while the command sandbox has none (once per folder: a walk of a large tree is not per check). */
const walks = new Map<string, string[]>();

/**
 * The working trees of the repositories below `root` (not its own). Our own walk has no bound
 * (session 23: it stopped at 20,000 folders, and a nested repository past them was not read until
 * the first command's walk); it fills the folder cache the command sandbox's walk then reuses
 * (folder-states.ts), so the first command's own look at the tree only `lstat`s what this read.
 */
/**
 * The repositories below `root` (not its own): the working trees' tops of `.git` repositories, and bare layouts'
 * folders (`bare:` before the path; session 23: a person's bare layout with core.worktree runs core.fsmonitor too).
 * The layouts inside a `.git` folder (worktrees/<id>, modules/<name>, what git's own folders hold) are the checks'
 * of new-repositories.ts, not a configuration the person's git reads from the workspace.
 */
function nestedTops(root: string): string[] {
  const of = (markers: Iterable<string>) => [...markers].flatMap((m) => (m.endsWith("/.git") ? [dirname(m)] : m.split("/").includes(".git") || m === root ? [] : [`bare:${m}`]));
  const markers = latestRepositories(root);
  if (markers) return of(markers.keys());
  // The whole disk: walking it is a walk of everything (`permissions.additionalDirectories: ["/"]`
  // walked 200,000 folders in every `yoke permissions check`: settings-trust). A folder holding the
  // home is walked (red team C: a workspace with HOME=WS/home left lib/'s core.fsmonitor script writable).
  if (root === "/") return [];
  let tops = walks.get(root);
  if (!tops) {
    // The gate's one walk, shared with what the package managers' configurations are read from (nested24).
    tops = of(gateMarkers(root).keys());
    walks.set(root, tops);
  }
  return tops;
}

export const nodeGitRunsFrom: GitRunsFrom = async (dir) => {
  const root = resolve(dir);
  const home = process.env.HOME ?? "";
  // The working tree's top: the nearest folder holding `.git` (git reports origins relative to it).
  let top: string | undefined = root;
  while (!existsSync(join(top, ".git"))) {
    if (dirname(top) === top) {
      top = undefined;
      break;
    }
    top = dirname(top);
  }
  const tops = [...new Set([...(top ? [top] : []), ...nestedTops(root)])];
  // A few git processes at a time (a workspace of many clones reads each once, then from the cache).
  const found: Array<string[] | undefined> = [];
  const seen = new Map<string, string>();
  for (let i = 0; i < tops.length; i += 4)
    found.push(...(await Promise.all(tops.slice(i, i + 4).map((t) => (t.startsWith("bare:") ? repositoryRunsFrom(t.slice(5), home, seen, true) : repositoryRunsFrom(t, home, seen))))));
  // A repository whose configuration git cannot read (a broken file: git itself stops there) adds
  // nothing; the others still count.
  if (found.length && found.every((f) => f === undefined)) return undefined;
  // The same answer (the same array) while every repository's is the one kept: the gate then keeps its own work on it.
  const last = combined.get(root);
  if (last && last.parts.length === found.length && last.parts.every((p, i) => p === found[i])) return last.out;
  const out = found.flatMap((f) => f ?? []);
  combined.set(root, { parts: found, out });
  return out;
};

const combined = new Map<string, { parts: Array<string[] | undefined>; out: string[] }>();
