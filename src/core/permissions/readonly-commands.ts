/**
 * Commands that only read, allowed without asking when every path they are given lies inside the
 * workspace and is not sensitive. Deliberately short: anything not listed asks.
 */
import type { Word } from "./shell/words";

export type ReadOnlyClass =
  | { ok: true; paths: Word[]; cd?: boolean }
  | { ok: false; why: string };

/** Commands whose arguments are not file names (nothing to check). */
export const NO_PATH_COMMANDS = ["echo", "printf", "pwd", "whoami", "id", "uname", "date", "true", "false", ":", "which", "type", "nproc", "basename", "dirname", "test", "[", "sleep", "seq", "tr", "hostname"];
/** Commands whose non-option arguments (and `--opt=value` values) are read as paths. */
export const PATH_COMMANDS = ["ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "file", "stat", "du", "df", "tree", "realpath", "readlink", "diff", "cmp", "comm", "nl", "od", "hexdump", "xxd", "sha1sum", "sha256sum", "sha512sum", "md5sum", "cksum", "sort", "uniq", "cut", "column", "fold", "rev", "tac", "strings", "find", "cd"];
/** git subcommands that only read (with their own restrictions below). */
export const GIT_READ_SUBCOMMANDS = ["status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "describe", "shortlog", "branch", "remote", "tag", "stash"];

const NO_PATH = new Set(NO_PATH_COMMANDS);
const WITH_PATHS = new Set(PATH_COMMANDS);

/** Options that make an otherwise read-only command write or execute. */
const FORBIDDEN_OPTIONS: Record<string, RegExp> = {
  sort: /^(-o|--output|--compress-program)|^-[a-zA-Z]*o/,
  tree: /^(-o|--output)/,
  rg: /^(--pre($|=))/,
  find: /^-(delete|fprint|fprint0|fprintf|fls)$/,
  date: /^(-s|--set)/,
  diff: /^--to-file=\/dev/,
};

export function classifyReadOnly(words: Word[]): ReadOnlyClass {
  const name = words[0]!.value;
  const args = words.slice(1);
  if (name === "command") return args.some((a) => a.value === "-v" || a.value === "-V") ? { ok: true, paths: [] } : { ok: false, why: "command runs another command" };
  if (NO_PATH.has(name)) {
    if (name === "hostname" && args.some((a) => !a.value.startsWith("-"))) return { ok: false, why: "hostname NAME changes the host name" };
    if (name === "date" && args.some((a) => FORBIDDEN_OPTIONS.date!.test(a.value))) return { ok: false, why: "date --set changes the clock" };
    return { ok: true, paths: [] };
  }
  if (name === "git") return classifyGit(args);
  if (!WITH_PATHS.has(name)) return { ok: false, why: `${name} is not a known read-only command` };
  const forbidden = FORBIDDEN_OPTIONS[name];
  const bad = forbidden && args.find((a) => forbidden.test(a.value));
  if (bad) return { ok: false, why: `${name} ${bad.value} writes files or runs programs` };
  const paths = pathArguments(args);
  if ((name === "uniq" || name === "xxd") && paths.length > 1) return { ok: false, why: `${name} writes its second file argument` };
  if (name === "cd") {
    if (paths.length === 0) return { ok: false, why: "cd without a folder goes to the home folder" };
    return { ok: true, paths, cd: true };
  }
  return { ok: true, paths };
}

/** Non-option arguments, `--opt=value` and `-fVALUE` path values, and everything after `--`. */
export function pathArguments(args: Word[]): Word[] {
  const out: Word[] = [];
  let optionsDone = false;
  for (const a of args) {
    if (!optionsDone && a.value === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && a.value.startsWith("-") && a.value.length > 1) {
      const glued = gluedValue(a.value);
      if (glued !== undefined) out.push({ ...a, value: glued });
      continue;
    }
    out.push(a);
  }
  return out;
}

function classifyGit(args: Word[]): ReadOnlyClass {
  const paths: Word[] = [];
  let i = 0;
  while (i < args.length && args[i]!.value.startsWith("-")) {
    const v = args[i]!.value;
    if (v === "-C" || v === "--git-dir" || v === "--work-tree") {
      if (args[i + 1]) paths.push(args[i + 1]!);
      i += 2;
    } else if (/^--(git-dir|work-tree)=/.test(v)) {
      paths.push({ ...args[i]!, value: v.slice(v.indexOf("=") + 1) });
      i++;
    } else if (v === "--no-pager" || v === "-P" || v === "--no-optional-locks") i++;
    else return { ok: false, why: `git ${v} may change how git runs` };
  }
  const sub = args[i]?.value;
  if (!sub || !GIT_READ_SUBCOMMANDS.includes(sub)) return { ok: false, why: `git ${sub ?? ""} is not a read-only git command`.replace(/ +$/, "") };
  const rest = args.slice(i + 1);
  const bad = rest.find((a) => /^--(output|ext-diff)/.test(a.value));
  if (bad) return { ok: false, why: `git ${sub} ${bad.value} writes files or runs programs` };
  const positional = rest.filter((a) => !a.value.startsWith("-"));
  if (sub === "branch" && (positional.length > 0 || rest.some((a) => !/^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color)$/.test(a.value))))
    return { ok: false, why: "git branch with arguments can create, rename or delete branches" };
  if (sub === "remote" && rest.some((a) => a.value !== "-v" && a.value !== "--verbose")) return { ok: false, why: "git remote with arguments can change remotes" };
  if (sub === "tag" && rest.some((a) => !/^(-l|--list|-n\d*)$/.test(a.value))) return { ok: false, why: "git tag with arguments can create or delete tags" };
  if (sub === "stash" && !(rest.length >= 1 && (rest[0]!.value === "list" || rest[0]!.value === "show"))) return { ok: false, why: "git stash changes the working tree (only stash list/show are read-only)" };
  // Revisions and paths look alike; every argument is checked as a path, and `rev:path` by its path.
  for (const a of pathArguments(rest)) {
    paths.push(a);
    const colon = a.value.lastIndexOf(":");
    if (colon >= 0 && colon < a.value.length - 1) paths.push({ ...a, value: a.value.slice(colon + 1) });
  }
  return { ok: true, paths };
}

/** `-f/etc/passwd` → `/etc/passwd`; `--file=x` → `x`; undefined when the option carries no path-like value. */
export function gluedValue(option: string): string | undefined {
  const eq = option.indexOf("=");
  if (option.startsWith("--")) return eq > 0 ? option.slice(eq + 1) : undefined;
  const rest = option.slice(2);
  return rest && /^[./~]|\//.test(rest) ? rest : undefined;
}
