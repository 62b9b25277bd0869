/**
 * Commands that only read, allowed without asking when every path they are given lies inside the
 * workspace and is not sensitive. Deliberately short: anything not listed asks.
 */
import type { Word } from "./shell/words";
import { isLongOption, longOptionOf, optionValues, shortOptionUses } from "./long-options";
import { awkProgramProblem, JQ_READS_OUTSIDE, sedScriptEffects } from "./script-scanners";

export type ReadOnlyClass =
  | {
      ok: true;
      paths: Word[];
      cd?: boolean;
      /** With no path argument it reads its working folder (`ls`, `grep -r x`, `find`). */
      readsCwd?: boolean;
      /** git: the folders git runs in besides the working folder (`-C dir`). */
      gitDirs?: Word[];
      /**
       * git: it prints file contents from the repository (diff, show, log -p, grep…): the pathspecs
       * that limit it (empty: every file), or `any` when they cannot be known.
       */
      gitContent?: GitContent;
      /** git: `rev:path` arguments, whose path is relative to the repository's top folder. */
      repoPaths?: Word[];
      /** git: the paths of `rev:path` arguments (not `:path`): REV may name a subtree, so PATH may be below any folder. */
      treePaths?: Word[];
    }
  | { ok: false; why: string };

/** What of the repository a git command prints. */
export interface GitContent {
  /** Pathspecs after `--`. */
  pathspecs: Word[];
  /** Without `--`: the non-option words; from the first that names an existing file on, they are pathspecs. */
  positional: Word[];
  /** The pathspecs cannot be known (magic, run-time values): every file. */
  any: boolean;
}

/** Commands whose arguments are not file names (nothing to check). */
export const NO_PATH_COMMANDS = [
  "echo",
  "printf",
  "pwd",
  "whoami",
  "id",
  "uname",
  "date",
  "true",
  "false",
  ":",
  "which",
  "type",
  "nproc",
  "basename",
  "dirname",
  "test",
  "[",
  "sleep",
  "seq",
  "tr",
  "hostname",
  "expr",
  "yes",
  "arch",
  "tty",
  "groups",
  "logname",
  "getconf",
  // Reads a line of its input into variables; names bash would evaluate (`a[$(…)]`) or that change
  // what runs (`PATH`) are caught by the shell analysis (shell/evaluated.ts, shell/variables.ts).
  "read",
];
/** Commands whose non-option arguments (and `--opt=value` values) are read as paths. */
export const PATH_COMMANDS = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "file",
  "stat",
  "du",
  "df",
  "tree",
  "realpath",
  "readlink",
  "diff",
  "cmp",
  "comm",
  "nl",
  "od",
  "hexdump",
  "xxd",
  "sha1sum",
  "sha256sum",
  "sha512sum",
  "md5sum",
  "cksum",
  "b2sum",
  "sort",
  "uniq",
  "cut",
  "column",
  "fold",
  "rev",
  "tac",
  "strings",
  "find",
  "cd",
  "jq",
  "sed",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "paste",
  "join",
  "expand",
  "unexpand",
  "fmt",
  "pr",
  "look",
  "zcat",
  "bzcat",
  "xzcat",
  "less",
  "more",
];
/** git subcommands that only read (with their own restrictions below). */
export const GIT_READ_SUBCOMMANDS = [
  "status",
  "diff",
  "log",
  "show",
  "blame",
  "ls-files",
  "ls-tree",
  "rev-parse",
  "describe",
  "shortlog",
  "branch",
  "remote",
  "tag",
  "stash",
  "grep",
  "cat-file",
  "rev-list",
  "show-ref",
  "merge-base",
  "whatchanged",
  "reflog",
  "name-rev",
  "count-objects",
  "for-each-ref",
  "var",
  "check-ignore",
  "version",
  "help",
  // `list` only (classifyGit).
  "worktree",
];

const NO_PATH = new Set(NO_PATH_COMMANDS);
const WITH_PATHS = new Set(PATH_COMMANDS);
/** Read their working folder when given no path. */
const READS_CWD = new Set(["ls", "du", "tree", "find", "rg"]);

/** Options that make an otherwise read-only command write or execute. */
const FORBIDDEN_OPTIONS: Record<string, RegExp> = {
  sort: /^(-o|-T|--output|--compress-program|--temporary-directory|--files0-from)|^-[a-zA-Z]*[oT]/,
  tree: /^(-o|--output|-R)$|^--output=/,
  rg: /^--pre($|=)|^--pre-glob/,
  find: /^-(delete|fprint|fprint0|fprintf|fls|exec|execdir|ok|okdir|files0-from)$/,
  date: /^(-s|--set)/,
  diff: /^--to-file=\/dev/,
  less: /^(-o|-O|--log-file|--LOG-FILE|-k|--lesskey-file|--lesskey-src)/,
  more: /^-[a-zA-Z]*$^/,
};
/** Long options (GNU abbreviations included: `sort --compress-prog`, `sort --out=F`) that make a command write, run programs or read unknown files. */
const FORBIDDEN_LONG: Record<string, { options: string[]; exact?: string[] }> = {
  sort: { options: ["--output", "--compress-program", "--temporary-directory", "--files0-from"] },
  wc: { options: ["--files0-from"] },
  du: { options: ["--files0-from"] },
  tree: { options: ["--output", "--fromfile"] },
  less: { options: ["--log-file", "--LOG-FILE", "--lesskey-file", "--lesskey-src"] },
};

/** Value-taking options whose value is not a file name (grep -e PATTERN, head -n 5…). */
/**
 * Value-taking options whose value is not a file name, per program. An entry ending in `=` takes its value only
 * glued (getopt_long's optional argument: `--color=always`; `--color .env` is `--color` then the file `.env` —
 * red team J, session 19: `grep --color x .env` and `od -w .env` printed a denied file while the gate took
 * `.env` for the option's value). test/unit/permissions/option-kinds-drift.test.ts sets every entry against the
 * installed program's own getopt table.
 */
export const NON_PATH_VALUES: Record<string, Set<string>> = {
  grep: new Set([
    "-e",
    "--regexp",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--context",
    "--after-context",
    "--before-context",
    "--include",
    "--exclude",
    "--exclude-dir",
    "--color=",
    "--colour=",
    "--label",
    "--binary-files",
    "-d",
    "--directories",
    "-D",
    "--devices",
  ]),
  rg: new Set([
    "-e",
    "--regexp",
    "-g",
    "--glob",
    "--iglob",
    "-t",
    "--type",
    "-T",
    "--type-not",
    "-m",
    "--max-count",
    "-A",
    "-B",
    "-C",
    "--context",
    "-M",
    "--max-columns",
    "--max-depth",
    "-d",
    "--color",
    "--colors",
    "-j",
    "--threads",
    "-E",
    "--encoding",
    "-r",
    "--replace",
    "--sort",
    "--sortr",
    "--type-add",
    "--max-filesize",
    "-U",
  ]),
  head: new Set(["-n", "-c", "--lines", "--bytes"]),
  tail: new Set(["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"]),
  cut: new Set(["-d", "-f", "-c", "-b", "--delimiter", "--fields", "--characters", "--bytes", "--output-delimiter"]),
  sort: new Set(["-k", "--key", "-t", "--field-separator", "-S", "--buffer-size", "--parallel"]),
  uniq: new Set(["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"]),
  find: new Set([
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-type",
    "-xtype",
    "-maxdepth",
    "-mindepth",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-size",
    "-perm",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-links",
    "-inum",
    "-printf",
    "-fstype",
    "-regextype",
    "-lname",
    "-ilname",
    "-used",
    "-context",
  ]),
  ls: new Set(["--color=", "--format", "--sort", "--time", "--time-style", "-I", "--ignore", "--hide", "-w", "--width", "-T", "--tabsize", "--block-size", "--indicator-style", "--quoting-style"]),
  du: new Set(["-d", "--max-depth", "--exclude", "-B", "--block-size", "-t", "--threshold", "--time-style"]),
  tree: new Set(["-L", "-P", "-I", "--charset", "--filelimit", "--sort", "--timefmt"]),
  wc: new Set(),
  cat: new Set(),
  od: new Set(["-t", "-A", "-j", "-N", "-w=", "--format", "--address-radix", "--skip-bytes", "--read-bytes", "--width="]),
  xxd: new Set(["-c", "-g", "-l", "-s", "-o", "-cols", "-len", "-seek"]),
  hexdump: new Set(["-n", "-s", "-e"]),
  column: new Set(["-s", "-c", "-o", "-N", "--separator", "--output-separator"]),
  fold: new Set(["-w", "--width"]),
  nl: new Set(["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"]),
  strings: new Set(["-n", "-t", "-e", "--bytes", "--radix", "--encoding"]),
  paste: new Set(["-d", "--delimiters"]),
  join: new Set(["-t", "-1", "-2", "-j", "-o", "-a", "-v", "-e"]),
  jq: new Set(["--arg", "--argjson", "--indent", "--tab"]),
  awk: new Set(["-F", "-v", "--field-separator", "--assign"]),
};
NON_PATH_VALUES.egrep = NON_PATH_VALUES.fgrep = NON_PATH_VALUES.grep!;
NON_PATH_VALUES.gawk = NON_PATH_VALUES.mawk = NON_PATH_VALUES.nawk = NON_PATH_VALUES.awk!;

export function classifyReadOnly(words: Word[]): ReadOnlyClass {
  const name = words[0]!.value;
  const args = words.slice(1);
  if (name === "command") return args.some((a) => a.value === "-v" || a.value === "-V") ? { ok: true, paths: [] } : { ok: false, why: "command runs another command" };
  if (NO_PATH.has(name)) {
    if (name === "hostname" && args.some((a) => !/^(-[fsdiIAay]+|--(fqdn|long|short|domain|ip-address|all-ip-addresses|all-fqdns|alias|yp|nis))$/.test(a.value)))
      return { ok: false, why: "hostname with a name or a file sets the host name" };
    if (name === "date" && (args.some((a) => FORBIDDEN_OPTIONS.date!.test(a.value) || isLongOption(a.value, "--set")) || clustered(args, "s", DATE_VALUED).length))
      return { ok: false, why: "date --set changes the clock" };
    // `date -f FILE` prints every line of FILE it cannot read as a date: a read (also bundled: `date -uf.env`).
    if (name === "date")
      return { ok: true, paths: [...optionValues(args, "--file", "-f"), ...optionValues(args, "--reference", "-r"), ...clustered(args, "f", DATE_VALUED), ...clustered(args, "r", DATE_VALUED)] };
    return { ok: true, paths: [] };
  }
  if (name === "git") return classifyGit(args);
  if (name === "set") return shellOptionsOnly(args) ? { ok: true, paths: [] } : { ok: false, why: "set with these arguments changes how later commands are read or run" };
  if (!WITH_PATHS.has(name)) return { ok: false, why: `${name} is not a known read-only command` };
  const forbidden = FORBIDDEN_OPTIONS[name];
  const longForbidden = FORBIDDEN_LONG[name];
  const bad = args.find((a) => (forbidden && forbidden.test(a.value)) || (longForbidden && longOptionOf(a.value, longForbidden.options, longForbidden.exact)));
  if (bad) return { ok: false, why: `${name} ${bad.value} writes files or runs programs` };
  if (name === "sed") return classifySed(args);
  if (name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") return classifyAwk(name, args);
  if (name === "jq") return classifyJq(args);
  if (name === "less" || name === "more") return { ok: false, why: `${name} is interactive and can run commands` };
  const paths = pathArguments(args, NON_PATH_VALUES[name]);
  if ((name === "uniq" || name === "xxd") && paths.length > 1) return { ok: false, why: `${name} writes its second file argument` };
  if (name === "cd") {
    if (paths.length === 0) return { ok: false, why: "cd without a folder goes to the home folder" };
    return { ok: true, paths, cd: true };
  }
  const recursive = name === "grep" || name === "egrep" || name === "fgrep" ? args.some((a) => /^-[a-zA-Z]*[rR]|^--(recursive|dereference-recursive)$/.test(a.value)) : false;
  let files = paths;
  // grep/rg: the first operand is the pattern unless -e/-f gave one.
  if ((name === "grep" || name === "egrep" || name === "fgrep" || name === "rg") && !args.some((a) => /^-[a-zA-Z]*[ef]|^--(regexp|file)/.test(a.value))) files = paths.slice(1);
  // `grep -rFf.env .`: a pattern file attached to a cluster of short options is read too.
  if (name === "grep" || name === "egrep" || name === "fgrep") for (const w of clustered(args, "f", GREP_VALUED)) if (!files.some((f) => f.value === w.value)) files = [...files, w];
  // Long options whose value is a file the program reads, any abbreviation (`grep --exclude-fro .env`: the
  // differential checker, session 16 — the value was taken for the pattern and dropped).
  for (const [full, exact] of PATH_VALUED_LONG[name] ?? []) for (const w of optionValues(args, full, undefined, exact)) if (!files.some((f) => f.value === w.value)) files = [...files, w];
  return { ok: true, paths: files, readsCwd: (READS_CWD.has(name) || recursive) && files.length === 0 };
}

/** Long options whose value names a file the program reads, with the other options an abbreviation must not be. */
const PATH_VALUED_LONG: Record<string, Array<[string, string[]]>> = {
  grep: [
    ["--exclude-from", ["--exclude", "--exclude-dir"]],
    ["--file", ["--files-with-matches", "--files-without-match"]],
  ],
  rg: [
    ["--ignore-file", ["--ignore-file-case-insensitive"]],
    ["--file", ["--files", "--files-with-matches", "--files-without-match"]],
  ],
};
PATH_VALUED_LONG.egrep = PATH_VALUED_LONG.fgrep = PATH_VALUED_LONG.grep!;

/** Short options of date and grep that take a value (a letter among them ends a cluster: `-uf.env`, `-rFf.env`). */
const DATE_VALUED = "dfrsI";
const GREP_VALUED = "efmABCdD";

/** The values of short option `letter` inside a cluster of short options (`-uf.env`, `-rFf .env`), before `--`. */
function clustered(args: Word[], letter: string, takesValue: string): Word[] {
  return shortOptionUses(args, letter, takesValue)
    .map((u) => u.value)
    .filter((w): w is Word => w !== undefined);
}

/** Non-option arguments, `--opt=value` and `-fVALUE` path values, and everything after `--`. */
export function pathArguments(args: Word[], nonPathValues?: Set<string>): Word[] {
  const out: Word[] = [];
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!optionsDone && a.value === "--") {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && a.value.startsWith("-") && a.value.length > 1) {
      if (nonPathValues?.has(a.value)) {
        i++;
        continue;
      }
      const eq = a.value.indexOf("=");
      if (eq > 0 && (nonPathValues?.has(a.value.slice(0, eq)) || nonPathValues?.has(a.value.slice(0, eq + 1)))) continue;
      const glued = gluedValue(a.value);
      if (glued !== undefined) out.push({ ...a, value: glued });
      continue;
    }
    out.push(a);
  }
  return out;
}

function classifySed(args: Word[]): ReadOnlyClass {
  if (args.some((a) => /^(-i|--in-place)|^-[a-zA-Z]*i/.test(a.value) && !a.value.startsWith("--")) || args.some((a) => isLongOption(a.value, "--in-place")))
    return { ok: false, why: "sed -i changes files" };
  if (args.some((a) => isLongOption(a.value, "--file", ["--follow-symlinks"]) || a.value === "--f")) return { ok: false, why: "sed -f runs a script from a file" };
  const scripts: Word[] = [];
  const files: Word[] = [];
  let explicit = false;
  let optionsDone = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (!optionsDone && v === "--") optionsDone = true;
    else if (!optionsDone && (v === "-e" || (isLongOption(v, "--expression") && !v.includes("=")))) {
      explicit = true;
      if (args[i + 1]) scripts.push(args[++i]!);
    } else if (!optionsDone && isLongOption(v, "--expression")) {
      explicit = true;
      scripts.push({ ...a, value: v.slice(v.indexOf("=") + 1) });
    } else if (!optionsDone && /^-[a-zA-Z]*e$/.test(v) && !v.startsWith("--")) {
      explicit = true;
      if (args[i + 1]) scripts.push(args[++i]!);
    } else if (!optionsDone && /^-[a-zA-Z]*e./.test(v) && !v.startsWith("--")) {
      explicit = true;
      scripts.push({ ...a, value: v.slice(v.indexOf("e") + 1) });
    } else if (!optionsDone && isLongOption(v, "--line-length") && !v.includes("=")) i++;
    else if (!optionsDone && (v === "-f" || v === "--file")) return { ok: false, why: "sed -f runs a script from a file" };
    else if (!optionsDone && v.startsWith("-") && v.length > 1) {
      if (/^-[a-zA-Z]*[lL]$/.test(v)) i++;
      if (/^-[a-zA-Z]*s?f/.test(v) && !v.startsWith("--")) return { ok: false, why: "sed -f runs a script from a file" };
    } else if (!explicit && scripts.length === 0) scripts.push(a);
    else files.push(a);
  }
  const reads: Word[] = [...files];
  for (const s of scripts) {
    if (s.dynamic) return { ok: false, why: `the sed script ${s.raw} is only known when it runs` };
    const fx = sedScriptEffects(s.value);
    if (fx.unknown) return { ok: false, why: `Yoke cannot read the sed script (${fx.unknown})` };
    if (fx.runs) return { ok: false, why: "the sed script runs commands (e)" };
    if (fx.writes.length) return { ok: false, why: "the sed script writes files (w)" };
    for (const r of fx.reads) reads.push({ ...s, value: r });
  }
  return { ok: true, paths: reads };
}

function classifyAwk(name: string, args: Word[]): ReadOnlyClass {
  let program: Word | undefined;
  const files: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (program === undefined && (v === "-f" || v.startsWith("-f") || v === "-E" || longOptionOf(v, ["--file", "--exec"], ["--field-separator"])))
      return { ok: false, why: `${name} -f runs a program from a file` };
    if (program === undefined && (v === "-F" || v === "-v" || v === "--assign" || v === "--field-separator")) {
      i++;
      continue;
    }
    if (program === undefined && v.startsWith("-") && v !== "-" && v !== "--") {
      if (/^-[a-zA-Z]*[eil]/.test(v) || longOptionOf(v, ["--source", "--include", "--load", "--lint", "--exec"])) return { ok: false, why: `${name} ${v} runs code Yoke cannot check` };
      continue;
    }
    if (program === undefined && v === "--") continue;
    if (program === undefined) program = args[i];
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) continue;
    else files.push(args[i]!);
  }
  if (!program) return { ok: false, why: `${name} without a program reads it from its arguments` };
  if (program.dynamic) return { ok: false, why: `the ${name} program ${program.raw} is only known when it runs` };
  const problem = awkProgramProblem(program.value);
  if (problem) return { ok: false, why: `the ${name} program ${problem}` };
  return { ok: true, paths: files };
}

function classifyJq(args: Word[]): ReadOnlyClass {
  let program: Word | undefined;
  const files: Word[] = [];
  let restAreArgs = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (restAreArgs) continue;
    if (v === "--args" || v === "--jsonargs") {
      restAreArgs = true;
      continue;
    }
    if (v === "--arg" || v === "--argjson") {
      i += 2;
      continue;
    }
    if (v === "--slurpfile" || v === "--rawfile") {
      if (args[i + 2]) files.push(args[i + 2]!);
      i += 2;
      continue;
    }
    // jq's program file is code the repository wrote (its `import`/`include` read other files, `$ENV`
    // the environment), and jq takes the FIRST operand as that file wherever -f stands (`jq q.jq -n -f`,
    // `jq -f -n q.jq`, a cluster `-nf`): Yoke does not read it, so any -f asks, as awk -f and sed -f do.
    if (v === "--from-file" || (/^-[^-]/.test(v) && v.includes("f"))) return { ok: false, why: "jq -f runs a program file Yoke does not read (its import and include read other files)" };
    if (v === "-L" || v.startsWith("-L")) return { ok: false, why: "jq -L loads modules from a folder" };
    if (v === "--indent") {
      i++;
      continue;
    }
    if (v.startsWith("-") && v.length > 1) continue;
    if (program === undefined) program = a;
    else files.push(a);
  }
  if (program?.dynamic) return { ok: false, why: `the jq program ${program.raw} is only known when it runs` };
  if (program && JQ_READS_OUTSIDE.test(program.value)) return { ok: false, why: "the jq program reads the environment or other files" };
  return { ok: true, paths: files };
}

/** git options that write files or run programs (git accepts unambiguous abbreviations of long options). */
const GIT_DANGEROUS_LONG = ["--output", "--output-directory", "--ext-diff", "--textconv", "--open-files-in-pager", "--exec", "--upload-pack"];
/** Harmless git options that are prefixes of the ones above. */
const GIT_HARMLESS_LONG = ["--text", "--exit-code", "--oneline", "--ours", "--only"];

/** git global options a read-only command may have. */
const GIT_SAFE_GLOBAL = /^(--no-pager|-P|--no-optional-locks|--literal-pathspecs|--no-advice)$/;
/** Options after which git prints file contents only when combined with a patch option. */
const GIT_PATCH = /^(-p|-u|--patch|-U\d*|--unified(=.*)?|--word-diff.*|--color-words.*|--cc|--combined-all-paths|--full-diff|-L.*|--patch-with-stat|--patch-with-raw|--textconv)$/;
/**
 * Options of git log/whatchanged/reflog known to print no file contents (revision selection,
 * formatting, statistics). Any other option may print contents or answer questions about them.
 */
const GIT_LOG_NO_CONTENT =
  /^(--oneline|--graph|--all|--branches(=.*)?|--tags(=.*)?|--remotes(=.*)?|--glob=.*|--exclude=.*|--decorate(=.*)?|--no-decorate|--abbrev(=\d+)?|--abbrev-commit|--no-abbrev-commit|--no-abbrev|--format=.*|--pretty(=.*)?|--date=.*|--relative-date|--reverse|--first-parent|--no-merges|--merges|--min-parents=\d+|--max-parents=\d+|--topo-order|--date-order|--author-date-order|--left-right|--cherry-pick|--cherry-mark|--cherry|--boundary|--ancestry-path|--simplify-by-decoration|--full-history|--dense|--sparse|--follow|--parents|--children|--no-walk(=.*)?|--do-walk|--since=.*|--after=.*|--until=.*|--before=.*|--author=.*|--committer=.*|--grep=.*|--all-match|--invert-grep|-i|--regexp-ignore-case|-E|--extended-regexp|-F|--fixed-strings|-P|--perl-regexp|-n\d*|--max-count=\d+|-\d+|--skip=\d+|--name-only|--name-status|--stat(=.*)?|--numstat|--shortstat|--summary|--dirstat(=.*)?|--compact-summary|--raw|-s|--no-patch|--color(=.*)?|--no-color|--mailmap|--use-mailmap|--no-mailmap|--log-size|--source|--encoding=.*|--no-notes|--show-linear-break(=.*)?|--quiet|-q|--)$/;
/** Options of git diff/show that answer questions about contents even with --name-only (`-G`, `-S`) or run converters. */
const GIT_CONTENT_ORACLE = /^(-G.*|-S.*|--pickaxe-.*|--find-object=.*|--textconv|--binary|--word-diff.*|--color-words.*|--check|-W|--function-context)$/;
/** git commands that write repository contents out (archives, patches, bundles, object dumps). */
export const GIT_DUMPS_CONTENT = new Set([
  "archive",
  "fast-export",
  "format-patch",
  "diff-tree",
  "diff-index",
  "diff-files",
  "bundle",
  "pack-objects",
  "unpack-file",
  "range-diff",
  "cat-file",
  "show",
  "log",
  "whatchanged",
  "diff",
  "grep",
  "blame",
  "annotate",
  "reflog",
  "stash",
  "notes",
  "am",
  "apply",
  "cherry",
  "request-pull",
  "send-email",
  "verify-pack",
  "unpack-objects",
  "show-branch",
]);

const GIT_NO_CONTENT = /^(--stat.*|--numstat|--shortstat|--name-only|--name-status|--summary|--dirstat.*|--quiet|-s|--no-patch|--raw|--compact-summary|--exit-code)$/;

/** Options of git show/cat-file that print an object as it is (no walk to other objects). */
const GIT_BLOB_OPTIONS = /^(-p|-t|-s|-e|--no-patch|--format=.*|--pretty=.*|--oneline|--no-color|--color(=.*)?|--abbrev-commit|--no-abbrev-commit|-q|--quiet|--no-textconv|--no-filters)$/;

/** Only listing: `git tag`, `git tag -l 'v1.*'`, `git tag --list --sort=-v:refname -n5` (patterns, never a tag to create). */
function gitTagLists(rest: Word[]): boolean {
  const listing = rest.some((a) => /^(-l|--list|-n\d*)$/.test(a.value));
  return rest.every((a) =>
    a.value.startsWith("-")
      ? /^(-l|--list|-n\d*|-i|--ignore-case|--column|--no-column|--sort=.+|--format=.+|--contains|--no-contains|--merged|--no-merged|--points-at|--color(=.*)?|--no-color)$/.test(a.value) ||
        /^(--contains|--no-contains|--merged|--no-merged|--points-at)=.+$/.test(a.value)
      : listing && !a.dynamic,
  );
}

/**
 * `set -euo pipefail`, `set -x`, `set +e`: shell options that only make the line stop earlier, trace it or
 * refuse to overwrite files (red team U, session 20: every `set -euo pipefail; …` asked). Each `o` of a
 * cluster takes the next word, which must be one of those options too. Anything else — `-a`/allexport,
 * `-k`, `-f`/noglob, `-B`, `-P`, `posix`, `--`, operands (the positional parameters), bare `set` (prints
 * every variable), a word only known at run time — is not this.
 */
export function shellOptionsOnly(args: Word[]): boolean {
  if (args.length === 0) return false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const m = /^[-+]([euxvCno]+)$/.exec(w.value);
    if (w.dynamic || !m) return false;
    for (const letter of m[1]!) {
      if (letter !== "o") continue;
      const next = args[++i];
      if (!next || next.dynamic || !/^(errexit|nounset|pipefail|xtrace|verbose|noclobber|noexec)$/.test(next.value)) return false;
    }
  }
  return true;
}

function classifyGit(args: Word[]): ReadOnlyClass {
  const paths: Word[] = [];
  const repoPaths: Word[] = [];
  const treePaths: Word[] = [];
  const gitDirs: Word[] = [];
  let i = 0;
  while (i < args.length && args[i]!.value.startsWith("-")) {
    const v = args[i]!.value;
    if (v === "-C") {
      if (args[i + 1]) gitDirs.push(args[i + 1]!);
      i += 2;
    } else if (GIT_SAFE_GLOBAL.test(v)) i++;
    // `git --version` (alone) is `git version`.
    else if (v === "--version" && i === args.length - 1) return { ok: true, paths: [] };
    else return { ok: false, why: `git ${v} may change how git runs` };
  }
  const subWord = args[i];
  const sub = subWord?.value;
  if (subWord?.dynamic) return { ok: false, why: `the git subcommand ${subWord.raw} is only known when it runs` };
  if (!sub || !GIT_READ_SUBCOMMANDS.includes(sub)) return { ok: false, why: `git ${sub ?? ""} is not a read-only git command`.replace(/ +$/, "") };
  const rest = args.slice(i + 1);
  const bad = rest.find(
    (a) =>
      /^--(output|ext-diff|textconv|open-files-in-pager|exec|upload-pack)(=|$)|^-O/.test(a.value) ||
      longOptionOf(a.value, GIT_DANGEROUS_LONG, GIT_HARMLESS_LONG) ||
      (sub === "grep" && /^-[a-zA-Z]*O/.test(a.value)),
  );
  if (bad) return { ok: false, why: `git ${sub} ${bad.value} writes files or runs programs` };
  const positional = rest.filter((a) => !a.value.startsWith("-"));
  if (
    sub === "branch" &&
    (positional.length > 0 || rest.some((a) => !/^(-a|-r|-v|-vv|-l|--list|--all|--remotes|--verbose|--show-current|--no-color|--color|--merged|--no-merged|--contains)$/.test(a.value)))
  )
    return { ok: false, why: "git branch with arguments can create, rename or delete branches" };
  if (sub === "remote" && rest.some((a) => a.value !== "-v" && a.value !== "--verbose")) return { ok: false, why: "git remote with arguments can change remotes" };
  if (sub === "tag" && !gitTagLists(rest)) return { ok: false, why: "git tag with arguments can create or delete tags" };
  if (sub === "stash" && !(rest.length >= 1 && (rest[0]!.value === "list" || rest[0]!.value === "show")))
    return { ok: false, why: "git stash changes the working tree (only stash list/show are read-only)" };
  if (sub === "worktree" && !(rest[0]?.value === "list" && rest.slice(1).every((a) => /^(--porcelain|-v|--verbose|-z)$/.test(a.value))))
    return { ok: false, why: "git worktree changes work trees (only git worktree list is read-only)" };
  if (sub === "reflog" && rest.length && !/^(show|-)/.test(rest[0]!.value)) return { ok: false, why: "git reflog with a subcommand can change the reflog" };
  // Revisions and paths look alike; every argument is checked as a path, and `rev:path` by its path.
  const dashdash = rest.findIndex((a) => a.value === "--");
  const pathspecs: Word[] = dashdash >= 0 ? rest.slice(dashdash + 1) : [];
  for (const a of pathArguments(rest)) {
    paths.push(a);
    const colon = a.value.lastIndexOf(":");
    const index = /^:(?:[0-3]:)?([^(!^/:].*)$/.exec(a.value);
    if (index) repoPaths.push({ ...a, value: index[1]! });
    if (colon >= 0 && colon < a.value.length - 1 && !a.value.startsWith(":")) {
      const p = a.value.slice(colon + 1);
      paths.push({ ...a, value: p });
      if (!p.startsWith("./") && !p.startsWith("../")) repoPaths.push({ ...a, value: p });
      // Printed as it is by show/cat-file only (rev-parse prints an id, diff and log their own way);
      // `./x` is x below the working folder's place in that tree, so below some folder too.
      if ((sub === "show" || sub === "cat-file") && !p.startsWith("../")) treePaths.push({ ...a, value: p.replace(/^(\.\/+)+/, "") });
    }
  }
  return { ok: true, paths, gitDirs, repoPaths, treePaths, gitContent: gitContent(sub, rest, pathspecs, dashdash >= 0) };
}

/** What of the repository a read-only git command prints. */
function gitContent(sub: string, rest: Word[], pathspecs: Word[], hasDashDash: boolean): GitContent | undefined {
  const opts = (
    hasDashDash
      ? rest.slice(
          0,
          rest.findIndex((a) => a.value === "--"),
        )
      : rest
  ).filter((a) => a.value.startsWith("-"));
  const noContent = opts.some((a) => GIT_NO_CONTENT.test(a.value)) && !opts.some((a) => GIT_PATCH.test(a.value));
  let prints: boolean;
  switch (sub) {
    case "diff":
    case "show":
      prints = !noContent || opts.some((a) => GIT_CONTENT_ORACLE.test(a.value));
      break;
    case "log":
    case "whatchanged":
    case "reflog":
      // An allow-list: options not known to print no content may (`--binary`, `-c`, `--cc` and
      // `--remerge-diff` imply a patch; `-G`/`-S` answer questions about contents one regex at a time).
      prints = opts.some((a) => GIT_PATCH.test(a.value) || /^-[a-zA-Z]*p[a-zA-Z]*$/.test(a.value) || !GIT_LOG_NO_CONTENT.test(a.value));
      break;
    case "stash":
      prints = rest[0]?.value === "show" && opts.some((a) => GIT_PATCH.test(a.value));
      break;
    case "grep":
    case "cat-file":
      prints = true;
      break;
    default:
      prints = false;
  }
  if (!prints) return undefined;
  // `git show HEAD:README.md`, `git cat-file -p v1:src/a.ts`: only the objects those `rev:path`
  // words name are printed (their paths are reads of their own, classifyGit's repoPaths).
  if (
    (sub === "show" || sub === "cat-file") &&
    !hasDashDash &&
    rest.some((a) => !a.value.startsWith("-")) &&
    rest.every((a) => (a.value.startsWith("-") ? GIT_BLOB_OPTIONS.test(a.value) : !a.dynamic && /^[^:\s-][^:\s]*:[^:(!/][^:]*$/.test(a.value) && commitRevision(a.value)))
  )
    return undefined;
  // Magic pathspecs (`:(glob)x`, `:!x`, `:/`) and unknown words: assume every file.
  const positional = hasDashDash ? [] : rest.filter((a) => !a.value.startsWith("-"));
  const any = [...pathspecs, ...positional].some((p) => p.dynamic) || [...pathspecs, ...positional].some((p) => p.value.startsWith(":"));
  return { pathspecs, positional, any };
}

/**
 * Is the `REV` of `REV:PATH` spelled as a commit (a name, `HEAD`, `origin/main`, with `~N`, `^N`,
 * `@{…}`, `^{commit}`, `^{/text}`)? Then PATH is relative to a commit's top folder. An object id
 * (hexadecimal) may name any tree — `git show <id of vault>:key` prints vault/key — and `^{tree}`
 * or `^{}` may peel a tag to one, so those print what Yoke cannot place (red team round 13). A
 * name can still be a tag pointing to a subtree: classifyGit checks PATH at any depth too.
 */
function commitRevision(word: string): boolean {
  const rev = word.slice(0, word.indexOf(":"));
  const m = /^([^~^@{}]*)((?:~\d*|\^\d*|\^\{(?:commit|\/[^}]*)\}|@\{[^}]*\})*)$/.exec(rev);
  if (!m) return false;
  const base = m[1]!;
  return !/^[0-9a-fA-F]{4,64}$/.test(base) && (base !== "" || m[2]!.startsWith("@"));
}

/** `-f/etc/passwd` → `/etc/passwd`; `--file=x` → `x`; undefined when the option carries no path-like value. */
export function gluedValue(option: string): string | undefined {
  const eq = option.indexOf("=");
  if (option.startsWith("--")) return eq > 0 ? option.slice(eq + 1) : undefined;
  const rest = option.slice(2);
  return rest && /^[./~]|\//.test(rest) ? rest : undefined;
}
