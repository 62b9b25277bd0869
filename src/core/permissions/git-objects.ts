/**
 * git's object store under Read rules (issue 18, docs/permissions.md "Files git holds").
 *
 * A Read deny rule names paths; git prints and checks out objects, and any name may be made to
 * lead to any object: `git mktree` or `git commit-tree` builds a tree or commit with `foo` pointing
 * at `.env`'s blob, `git update-index --cacheinfo` stages it as `foo`, `git update-ref` moves HEAD
 * or a branch to such a commit, `git notes add -C` attaches it as a note, `git replace` swaps an
 * object. Every one of those only writes objects and refs (allowed in bypassPermissions, and the
 * sandbox keeps objects and refs writable), so no spelling of a later command — not even
 * `git show HEAD:README.md` — tells what it prints.
 *
 * So: when git holds content for a path a Read deny or ask rule covers (the index, any commit
 * reachable from a ref or a reflog — `gitObjectPaths`, a port the Node side implements), every git
 * command that could print an object or write one out (to the working tree, an archive, a remote)
 * reads "every file of the repository history", which the rule covers: it asks. Only commands
 * known to show no object content stay as they are (`status`, `ls-files`, `log --oneline`, `add`,
 * `commit -m`…). Reads of `.git` or its objects by any program count the same way. When Yoke
 * cannot tell (no port, git failed, the history is too large to list in time), it assumes git
 * holds such a path: a wrong guess asks, it never prints.
 */
import type { CheckedPath, EvalContext, GitObjectPaths } from "./context";
export type { GitObjectPaths };
import { matchPathRule } from "./context";
import { isLongOption } from "./long-options";
import { isWithin } from "./posix-path";
import type { Word } from "./shell/types";

/** git global options that change nothing about what a command prints. */
const SAFE_GLOBAL = /^(--no-pager|-P|--no-optional-locks|--literal-pathspecs|--no-advice|--glob-pathspecs|--noglob-pathspecs|--icase-pathspecs)$/;

/** A format that names object contents (`%(raw)`, `%(contents)`, `%B`, `%N`…); other atoms print names and ids. */
const CONTENT_FORMAT = /%\(\*?(raw|contents|body|subject|trailers|signature|describe)|%[-+ ]?[BbNsfe]/;

/**
 * git commands that never print an object's content nor write one out of the object store, with
 * the options that would (`status -v` prints the staged diff, `add -p` its hunks). Any other git
 * command (`show`, `diff`, `log -p`, `grep`, `cat-file`, `blame`, `archive`, `checkout`,
 * `restore`, `reset --hard`, `stash`, `merge`, `push`, `worktree add`…) may.
 */
/** Options that show content: long ones in any abbreviation git accepts (`--verb`, `--lost`), short letters in any cluster. */
interface Showing {
  long: readonly string[];
  short?: RegExp;
  /** Other tests on the word (`--sort=…%…`). */
  other?: RegExp;
}
const NEVER_SHOWS: Record<string, Showing | null> = {
  status: { long: ["--verbose"], short: /^-[a-zA-Z]*v/ },
  "ls-files": null,
  "ls-tree": null,
  "rev-parse": null,
  "rev-list": null,
  describe: null,
  "show-ref": null,
  "merge-base": null,
  "name-rev": null,
  "count-objects": null,
  var: null,
  "check-ignore": null,
  "check-attr": null,
  version: null,
  help: null,
  shortlog: null,
  add: { long: ["--patch", "--interactive", "--edit"], short: /^-[a-zA-Z]*[pie]/ },
  commit: { long: ["--verbose", "--dry-run", "--patch", "--interactive"], short: /^-[a-zA-Z]*[vp]/ },
  rm: null,
  mv: null,
  clean: null,
  init: null,
  mktree: null,
  "hash-object": null,
  "commit-tree": null,
  "update-index": null,
  "update-ref": null,
  "symbolic-ref": null,
  gc: null,
  prune: null,
  // --lost-found writes dangling blobs out to .git/lost-found/other (git rm --cached '.en*' makes a staged secret's blob dangling).
  fsck: { long: ["--lost-found"] },
  repack: null,
  maintenance: null,
  tag: { long: ["--format"], other: /^--sort=.*%/ },
  branch: { long: ["--format"] },
  "for-each-ref": { long: ["--format"] },
  config: { long: ["--blob"] },
  remote: null,
  log: null,
  whatchanged: null,
  reflog: null,
  stash: null,
  worktree: null,
};

function shows(bad: Showing, v: string): boolean {
  if (v.startsWith("--")) return bad.long.some((l) => isLongOption(v, l)) || (bad.other?.test(v) ?? false);
  return bad.short?.test(v) ?? false;
}

/** The subcommand and its arguments of `git [global options] SUB …`; undefined when git runs differently (`-c`, `--git-dir`). */
function gitCommand(words: readonly Word[]): { sub: string; rest: Word[] } | undefined {
  let i = 1;
  while (i < words.length && words[i]!.value.startsWith("-")) {
    // `-c user.name=… -c user.email=…` (who commits) changes nothing git shows.
    if (words[i]!.value === "-c" && words[i + 1] && !words[i + 1]!.dynamic && /^user\.(name|email)=/i.test(words[i + 1]!.value)) {
      i += 2;
      continue;
    }
    if (words[i]!.dynamic || !SAFE_GLOBAL.test(words[i]!.value)) return undefined;
    i++;
  }
  const sub = words[i];
  if (!sub || sub.dynamic) return undefined;
  return { sub: sub.value, rest: words.slice(i + 1) };
}

/** Is `words` (a git command line) known to show no object's content? */
export function gitShowsNoObject(words: readonly Word[], printsContent: boolean): boolean {
  const cmd = gitCommand(words);
  if (!cmd || !Object.hasOwn(NEVER_SHOWS, cmd.sub)) return false;
  const { sub, rest } = cmd;
  if (rest.some((w) => w.dynamic || CONTENT_FORMAT.test(w.value))) return false;
  const bad = NEVER_SHOWS[sub];
  const options = rest
    .slice(
      0,
      Math.max(
        0,
        rest.findIndex((w) => w.value === "--"),
      ) || rest.length,
    )
    .filter((w) => w.value.startsWith("-"));
  if (bad && options.some((w) => shows(bad, w.value))) return false;
  switch (sub) {
    case "log":
    case "whatchanged":
    case "reflog":
      // No patch, and no notes (which `git log` prints by default in its medium format).
      return (
        !printsContent &&
        !options.some((w) => /^--(notes|show-notes|standard-notes)/.test(w.value)) &&
        options.some((w) => /^(--oneline|--no-notes|--format=|--pretty=(format|tformat|oneline):?|--pretty=oneline$)/.test(w.value))
      );
    case "stash":
      return rest[0]?.value === "list" && !printsContent && options.every((w) => !/^(-p|--patch|-u|-U|--stat|--unified)/.test(w.value));
    case "worktree":
      return rest[0]?.value === "list" || rest[0]?.value === "prune" || rest[0]?.value === "lock" || rest[0]?.value === "unlock";
    case "remote":
      return rest.every((w) => /^(-v|--verbose)$/.test(w.value)) || (rest[0]?.value === "add" && !options.some((w) => /^(--mirror|-f|--fetch)/.test(w.value)));
    case "tag":
      // Creating a tag or listing names; `-n` prints annotations (attacker-written text, no object of a file).
      return true;
    default:
      return true;
  }
}

/**
 * Folders of `.git` that hold file content outside the object store: `git fsck --lost-found` writes
 * dangling blobs to lost-found/other, rerere keeps conflicted files' preimages, an interrupted
 * rebase or am keeps its patches.
 */
const GIT_CONTENT_DIRS = ["objects", "lost-found", "rr-cache", "rebase-apply", "rebase-merge"];

/** A read of the repository's object store itself (`.git`, `.git/objects/…`): it reads every file git holds. (Folders above it are reads of their whole region already.) */
export function readsGitStore(ctx: EvalContext, abs: string): boolean {
  return ctx.roots.some((r) => abs === `${r}/.git` || GIT_CONTENT_DIRS.some((d) => isWithin(abs, `${r}/.git/${d}`)));
}

/**
 * A path git holds content for in the repository of `dir` that a Read deny or ask rule covers;
 * `unknown` when that cannot be told (then the caller assumes there is one).
 */
export async function gitHoldsCovered(ctx: EvalContext, dir: string): Promise<{ path: string } | "unknown" | undefined> {
  const hasRules = [...ctx.sessionRules, ...ctx.settings.rules].some((r) => (r.list === "deny" || r.list === "ask") && r.tool === "Read");
  if (!hasRules) return undefined;
  if (!ctx.gitObjectPaths) return "unknown";
  const key = `${dir}`;
  let answer = heldCache.get(ctx)?.get(key);
  if (!answer) {
    answer = (async () => {
      const paths = await ctx.gitObjectPaths!(dir).catch(() => undefined);
      if (!paths) return "unknown" as const;
      for (const p of paths) {
        const checked: CheckedPath = { written: p, lexical: p, real: p, inside: true };
        const rule = matchPathRule(ctx, "deny", "Read", checked) ?? matchPathRule(ctx, "ask", "Read", checked);
        if (rule) return { path: p };
      }
      return undefined;
    })();
    let m = heldCache.get(ctx);
    if (!m) heldCache.set(ctx, (m = new Map()));
    m.set(key, answer);
  }
  return answer;
}

const heldCache = new WeakMap<EvalContext, Map<string, Promise<{ path: string } | "unknown" | undefined>>>();
