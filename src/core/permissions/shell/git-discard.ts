/**
 * Commands that discard work as `git reset --hard` does, spelled as other git commands (red team
 * 13/14: `git checkout -f`, `git restore -SW .`, `git read-tree -u --reset HEAD`, `git switch -f`
 * passed a `Bash(git reset:*)` deny rule). Yoke's reading (docs/permissions.md, "What a rule on
 * `git reset` covers"), after the spelled-values precedent of option-values.ts and git-push.ts: a
 * deny or ask rule that covers `git reset --hard` also covers every command that throws away
 * uncommitted changes of the work tree, however it is spelled. Each such command gets one more
 * reading, `git reset --hard`, for deny and ask rules only (it never allows anything), so
 * `Bash(git reset:*)` and `Bash(git reset --hard:*)` cover it and `Bash(git reset --soft:*)` does not.
 *
 * The table of equivalent effects (uncommitted changes of tracked files are overwritten or dropped):
 * - `git checkout -f|--force …`, `git checkout [TREE-ISH] [--] PATH…` (the paths' changes), `git checkout -p` (a command
 *   answers the per-hunk questions itself: `yes | git checkout -p`; red18g);
 * - `git restore PATH…` and `git restore --worktree|-W …` (not `--staged` alone, which keeps the work tree);
 * - `git switch -f|--force|--discard-changes …`;
 * - `git read-tree --reset -u …` (and `-u` with `--reset` in any order);
 * - `git checkout-index -f|--force …` (overwrites work-tree files from the index);
 * - `git stash drop|clear` (drops saved work), and the same on the stash's ref or reflog: `git update-ref`
 *   naming `refs/stash` (or reading its commands from `--stdin`), `git reflog delete|expire` of `stash` or `--all`;
 * - `git checkout --pathspec-from-file=F` (the listed paths' changes);
 * - `git apply -R|--reverse PATCH` on the work tree (`git diff > p; git apply -R p`), not with `--cached` or `--check`;
 * - `git worktree remove -f|--force` (a work tree with uncommitted changes, removed).
 * Commands that keep the work (`git checkout BRANCH`, `git switch BRANCH`, `git restore --staged`,
 * `git stash`, `git stash pop`) are not in it.
 */
import { isLongOption } from "../long-options";
import { literalWord, type Word } from "./words";

/** Does a cluster of short options (`-qf`) hold the letter? */
function shortHas(v: string, letter: string): boolean {
  return /^-[a-zA-Z]+$/.test(v) && v.slice(1).includes(letter);
}

/** The `git reset --hard` reading of `git SUB ARGS…` (words after `git`) when it discards work, else undefined. */
export function discardReading(args: readonly Word[]): Word[] | undefined {
  const sub = args[0];
  if (!sub || sub.dynamic) return undefined;
  const rest = args.slice(1);
  const values = rest.map((w) => w.value);
  const dd = values.indexOf("--");
  const opts = dd < 0 ? values : values.slice(0, dd);
  const afterDd = dd < 0 ? [] : values.slice(dd + 1);
  const discards = ((): boolean => {
    switch (sub.value) {
      case "checkout": {
        if (opts.some((v) => isLongOption(v, "--force") || shortHas(v, "f"))) return true;
        // Paths named in a file (red16g: git checkout --pathspec-from-file=list threw the listed files' changes away).
        if (opts.some((v) => isLongOption(v, "--pathspec-from-file"))) return true;
        // Patch mode: the command answers its own per-hunk questions (red18g: `yes | git checkout -p` threw
        // every change away; Yoke gives commands no terminal, so the user is never the one asked).
        if (opts.some((v) => shortHas(v, "p") || isLongOption(v, "--patch"))) return true;
        if (afterDd.length) return true;
        // `git checkout .` / `git checkout HEAD file`: operands that are paths. A branch name alone keeps the work
        // (git refuses to switch when it would overwrite changes), so two or more operands, or a single `.`-like
        // path, are read as paths; an operand that is a path only git knows asks through the rules (the reading is added).
        const operands = opts.filter((v, i) => !v.startsWith("-") && !isValueOf(opts, i));
        return operands.length >= 2 || operands.some(pathLike);
      }
      case "restore": {
        const staged = opts.some((v) => isLongOption(v, "--staged") || shortHas(v, "S"));
        const worktree = opts.some((v) => isLongOption(v, "--worktree") || shortHas(v, "W"));
        // Patch mode answers its own questions (see checkout): read as what it restores.
        return worktree || !staged;
      }
      case "switch":
        return opts.some((v) => isLongOption(v, "--force") || isLongOption(v, "--discard-changes") || shortHas(v, "f"));
      case "read-tree":
        return opts.some((v) => isLongOption(v, "--reset")) && opts.some((v) => v === "-u" || shortHas(v, "u"));
      case "checkout-index":
        return opts.some((v) => isLongOption(v, "--force") || shortHas(v, "f"));
      case "stash":
        return opts[0] === "drop" || opts[0] === "clear";
      // Ending an operation in progress (checked with git 2.39, git-checkout-operand.test.ts): `rebase
      // --abort|--skip` reset the whole work tree (an unrelated edit made during the conflict is lost too);
      // `merge --abort` and `cherry-pick`/`revert`/`am` `--abort|--skip` reset the files the operation
      // touched, throwing the conflict resolution away. `--quit` and `--continue` keep the work.
      case "rebase":
      case "am":
      case "cherry-pick":
      case "revert":
        return opts.some((v) => isLongOption(v, "--abort") || isLongOption(v, "--skip"));
      case "merge":
        return opts.some((v) => isLongOption(v, "--abort"));
      // The stash's own ref and reflog: deleting or moving refs/stash, or dropping its reflog entries, is git stash drop/clear.
      case "update-ref":
        return opts.some((v) => isLongOption(v, "--stdin")) || values.some((v) => /^(refs\/)?stash(@\{.*\})?$/.test(v));
      case "reflog":
        return (opts[0] === "delete" || opts[0] === "expire") && values.some((v) => /^(refs\/)?stash(@\{.*\})?$/.test(v) || isLongOption(v, "--all"));
      // A patch applied in reverse to the work tree (git diff > p; git apply -R p) throws the changes it holds away.
      case "apply":
        return (
          opts.some((v) => isLongOption(v, "--reverse") || shortHas(v, "R")) &&
          !opts.some((v) => isLongOption(v, "--cached") || isLongOption(v, "--check") || isLongOption(v, "--stat") || isLongOption(v, "--numstat") || isLongOption(v, "--summary"))
        );
      // A work tree removed with its changes.
      case "worktree":
        return opts[0] === "remove" && opts.some((v) => isLongOption(v, "--force") || shortHas(v, "f"));
      default:
        return false;
    }
  })();
  return discards ? [literalWord("git"), literalWord("reset"), literalWord("--hard")] : undefined;
}

/** An operand git can only read as a path (`.`, `dir/`, a glob, pathspec magic `:/`). */
function pathLike(v: string): boolean {
  return /^(\.|\.\/|\*|:\/|:\(top\)|:\/:.*|\.\/\*|.*\/)$|[*?[]|^:/.test(v);
}

/**
 * `git checkout X`: one operand, no `--`, no option that settles it. git decides when it runs
 * whether X is a branch or commit (it switches and keeps the work) or a path (it throws that
 * path's changes away; when X is both, the branch wins). The operand, for the gate to decide from
 * the repository (evaluate-bash.ts: a discard unless X names a commit and the line changes nothing
 * before it runs, or X matches no file git tracks); undefined for every other form.
 */
export function checkoutOperand(args: readonly Word[], extraArgs = false): Word | undefined {
  const sub = args[0];
  if (!sub || sub.dynamic || sub.value !== "checkout") return undefined;
  const rest = args.slice(1);
  const values = rest.map((w) => w.value);
  if (values.includes("--")) return undefined;
  // A new branch (`-b NAME [START]`), `--detach`, `--orphan`: X is a start point, never a path.
  if (values.some((v) => shortHas(v, "b") || shortHas(v, "B") || isLongOption(v, "--orphan") || isLongOption(v, "--detach"))) return undefined;
  // Operands added when it runs (`xargs git checkout`, `find -exec git checkout {} ;`; red18g): X is only
  // known then, as a dynamic word is.
  if (extraArgs) return { value: "{}", raw: "{}", dynamic: true, glob: false };
  // A dynamic word that may be an option settles nothing: keep it as an operand.
  const operands = rest.filter((w, i) => (w.dynamic || !w.value.startsWith("-")) && !isValueOf(values, i));
  if (operands.length !== 1) return undefined;
  const op = operands[0]!;
  return op.dynamic || !pathLike(op.value) ? op : undefined;
}

/** Is `opts[i]` the value of the option before it (`-b NAME`, `--source TREE`, `--conflict STYLE`)? */
function isValueOf(opts: readonly string[], i: number): boolean {
  const prev = opts[i - 1];
  return prev !== undefined && /^(-[bBs]|--orphan|--source|--conflict|--pathspec-from-file|-c|--create|-C|--force-create)$/.test(prev);
}
