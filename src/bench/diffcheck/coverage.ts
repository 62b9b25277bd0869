/**
 * What the generator reaches (issue 18, session 24, red team I): of a list of bash constructs (bash's
 * grammar: compound commands, expansions, redirections, builtins with code-taking options), of the
 * programs in the gate's tables, and of option spellings, which ones generated inputs produce, and
 * which system calls the oracle asks strace for against those that change files or run programs.
 * `node scripts/diffcheck.mjs --coverage --count N --seed S` prints it (no run).
 */
import { NO_PATH_COMMANDS, PATH_COMMANDS } from "../../core/permissions/readonly-commands";
import { RUNS_A_COMMAND } from "../../core/permissions/shell/unwrap";
import { WRAPPER_OPTIONS } from "../../core/permissions/shell/wrapper-options";
import { TRACED_CALLS } from "./trace";

/** Bash constructs, each by a pattern over the command line. */
export const CONSTRUCTS: ReadonlyArray<readonly [string, RegExp]> = [
  ["if", /\bif\b.*\bthen\b/s],
  ["for in", /\bfor \w+ in\b/],
  ["for (( ))", /\bfor \(\(/],
  ["while", /\bwhile\b/],
  ["until", /\buntil\b/],
  ["select", /\bselect \w+ in\b/],
  ["case", /\bcase\b.*\bin\b/s],
  ["case pattern substitution", /\bcase \w+ in \$\(/],
  ["brace group", /(^|[;&|\s])\{ /],
  ["subshell", /(^|[;&|\s])\(\s*[^(]/],
  ["function f()", /\w+\(\) *[{([]/],
  ["function keyword", /\bfunction \w+/],
  ["function body not braces", /\w+\(\) *[([]/],
  ["coproc", /\bcoproc\b/],
  ["named coproc", /\bcoproc [A-Z]\w* [{\w]/],
  ["pipeline", /[^|]\|[^|]/],
  ["|&", /\|&/],
  ["and-or", /&&|\|\|/],
  ["background &", /[^&>]&(\s|$)/],
  ["negation !", /(^|[;&|]\s*)! /m],
  ["time", /(^|[;&|(]\s*)time /],
  ["$( )", /\$\([^(]/],
  ["backquote", /`/],
  ["<( )", /<\(/],
  [">( )", />\(/],
  ["$(( ))", /\$\(\(/],
  ["(( ))", /(^|[;&|\s])\(\(/],
  ["$[ ]", /\$\[/],
  ["let", /\blet /],
  ["[[ ]]", /\[\[ /],
  ["[[ -v ]]", /\[\[ -v /],
  ["[[ -R ]]", /\[\[ -R /],
  ["[[ -eq ]]", /\[\[ .* -(eq|ne|lt|le|gt|ge) /],
  ["test -v / [ -v ]", /\b(test|\[) -v /],
  ["test -R", /\b(test|\[) -R /],
  ["${!x}", /\$\{!/],
  ["${x@P}", /@P\}/],
  ["${x:off}", /\$\{\w+:[^-=?+}]/],
  ["${x:-w}", /\$\{\w+:?[-=?+]/],
  ["${#a[…]}", /\$\{#\w+\[/],
  ["array subscript assignment", /\w+\[[^\]]*\$\([^)]*\)[^\]]*\]=/],
  ["brace expansion", /\{[^{}\s]*,[^{}\s]*\}/],
  ["sequence {1..n}", /\{\w*\.\.\$?\w+\}/],
  ["$'…'", /\$'/],
  ['$"…"', /\$"/],
  ["~ expansion", /(^|\s|=)~[+-/\w]?/],
  ["glob", /(^|\s)[^\s'"=]*[*?][^\s'"]*/],
  ["extglob", /[@!+*?]\(/],
  ["IFS", /\bIFS=/],
  ["here-doc", /<<-?\s*['"\\]?\w+/],
  ["here-doc <<-", /<<-/],
  ["here-doc quoted", /<<\s*(['"]\w+|\w*\\\w)/],
  ["two here-docs", /<<.*<</],
  ["here-string", /<<</],
  ["> >> >|", /(^|[^<>&])>[>|]?\s*[\w./$"]/],
  ["&> &>>", /&>>?/],
  ["fd dup n>&m", /\d>&\d/],
  ["fd close >&-", /[<>]&-/],
  ["<> read-write", /<>/],
  ["{fd}> named fd", /\{\w+(\[[^\]]*\])?\}[<>]/],
  ["{a[…]}> subscript fd", /\{\w+\[[^\]]+\]\}[<>]/],
  ["exec redirection only", /\bexec \d*[<>{]/],
  ["alias", /\balias /],
  ["eval", /\beval\b/],
  ["\\eval / 'eval'", /\\eval|'eval'/],
  ["builtin", /\bbuiltin \w/],
  ["command", /\bcommand \w/],
  ["command -p", /\bcommand -p/],
  ["exec CMD", /\bexec [a-z/]/],
  ["exec -a/-c/-l", /\bexec -[acl]/],
  ["trap EXIT/0", /\btrap .*\b(EXIT|0)\b/],
  ["trap DEBUG", /\btrap .*DEBUG/],
  ["trap ERR", /\btrap .*ERR/],
  ["trap RETURN", /\btrap .*RETURN/],
  ["trap signal", /\btrap .*\b(USR1|INT|TERM|HUP|SIG\w+)\b/],
  ["source / .", /(^|[;&|]\s*)(source|\.) /],
  ["bash -c / sh -c", /\b(ba)?sh -c/],
  ["shell reads stdin", /\|\s*(ba)?sh\b|\b(ba)?sh\s*<|bash \/dev\/stdin/],
  ["printf -v", /\bprintf -v/],
  ["read NAME", /\bread( -\w+)* ['"]?\w+\[/],
  ["read -a", /\bread -r?a/],
  ["mapfile / readarray", /\b(mapfile|readarray)\b/],
  ["mapfile -C", /\b(mapfile|readarray) .*-C/],
  ["compgen -C / -F", /\bcompgen -[CF]/],
  ["getopts", /\bgetopts\b/],
  ["declare -n", /\b(declare|local|typeset) -n/],
  ["declare -i", /\b(declare|local|typeset) -i/],
  ["declare/local/export/readonly subscript", /\b(declare|local|typeset|export|readonly)( -\w+)* ['"]?\w+\[/],
  ["declare -A", /\bdeclare -A/],
  ["unset subscript", /\bunset ['"]?\w+\[/],
  ["shift/exit/break with a value", /\b(shift|exit|break|continue|return) \$/],
  ["ulimit/umask value", /\b(ulimit -\w|umask) \$/],
  ["read -t/-n value", /\bread -[tn] \$/],
  ["printf %d data", /\bprintf %d/],
  ["shopt", /\bshopt -s/],
  ["set -o / set -x", /\bset -[ox]/],
  ["PS4", /\bPS4\b/],
  ["BASH_ENV / ENV", /\b(BASH_)?ENV=/],
  ["PATH=", /\bPATH=/],
  ["hash -p", /\bhash -p/],
  ["BASH_CMDS / BASH_ALIASES", /\bBASH_(CMDS|ALIASES)\b/],
  ["enable", /\benable -/],
  ["fc / history", /\b(fc|history) /],
  ["kill $$", /\bkill .*\$\$/],
  ["caller", /\bcaller\b/],
  ["wait", /\bwait\b/],
  ["path-named program (./x, /opt/x)", /(^|[;&|]\s*)(\.\/|src\/\.\.\/|\/opt\/)\w+ /m],
  ["dynamic loader", /ld-linux/],
];

/** Option spellings, by a pattern over the line's words. */
export const SPELLINGS: ReadonlyArray<readonly [string, RegExp]> = [
  ["--opt=value", /(^|\s)--[a-z][\w-]*=/],
  ["--opt value", /(^|\s)--[a-z][\w-]* [^-\s]/],
  ["clustered short options", /(^|\s)-[a-zA-Z]{2,}(\s|$)/],
  ["short option with glued value", /(^|\s)-[a-zA-Z][^\s-]*[./=][^\s]*/],
  ["-- ends options", /\s--(\s|$)/],
  ["-o- / option-looking value", /(^|\s)-\w+-(\s|$)/],
  ["quoted or escaped option", /(^|\s)(['"]-|\\-|-\$')/],
  ["option from a variable or pattern", /(^|\s)-\{|(^|\s)\$\w+ /],
];

/** System calls that run a program, change a file or its metadata, or reach out; what the oracle should see. */
export const EFFECT_CALLS: readonly string[] = [
  ...["execve", "execveat", "open", "openat", "openat2", "creat", "truncate", "ftruncate", "rename", "renameat", "renameat2"],
  ...["unlink", "unlinkat", "mkdir", "mkdirat", "rmdir", "link", "linkat", "symlink", "symlinkat", "mknod", "mknodat"],
  ...["chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat", "utimensat"],
  ...["setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr", "bind", "connect"],
  // Not traced, and why: io_uring's file operations never reach the system-call layer strace sees; ioctl FS_IOC_SETFLAGS
  // (chattr) needs CAP_LINUX_IMMUTABLE the sandbox drops; mount and name_to_handle_at need privileges the sandbox drops;
  // fchmodat2 is unknown to strace 6.1.
  ...["io_uring_enter", "ioctl", "mount", "open_by_handle_at", "fchmodat2"],
];

export interface Coverage {
  inputs: number;
  constructs: Array<{ name: string; inputs: number }>;
  programs: { listed: number; reached: number; missing: string[] };
  spellings: Array<{ name: string; inputs: number }>;
  calls: { traced: string[]; untraced: string[] };
}

/** The programs of the gate's tables: read-only commands, wrappers and runners. */
export function tablePrograms(): string[] {
  return [...new Set([...NO_PATH_COMMANDS, ...PATH_COMMANDS, ...RUNS_A_COMMAND, ...Object.keys(WRAPPER_OPTIONS)])].filter((p) => /^[\w.+-]+$/.test(p)).sort();
}

/** An input as the generator makes it (its type is not imported: the generator uses this file's program list). */
export function measureCoverage(inputs: ReadonlyArray<{ command: string; plant?: string }>): Coverage {
  const lines = inputs.map((i) => `${i.plant ?? ""}\n${i.command}`);
  const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
  const programs = tablePrograms();
  const words = new Set(lines.flatMap((l) => l.split(/[\s;&|(){}`'"<>=$]+/).map((w) => w.slice(w.lastIndexOf("/") + 1))));
  const missing = programs.filter((p) => !words.has(p));
  return {
    inputs: inputs.length,
    constructs: CONSTRUCTS.map(([name, re]) => ({ name, inputs: count(re) })),
    programs: { listed: programs.length, reached: programs.length - missing.length, missing },
    spellings: SPELLINGS.map(([name, re]) => ({ name, inputs: count(re) })),
    calls: { traced: EFFECT_CALLS.filter((c) => TRACED_CALLS.includes(c)), untraced: EFFECT_CALLS.filter((c) => !TRACED_CALLS.includes(c)) },
  };
}

export function formatCoverage(c: Coverage, label = ""): string {
  const none = c.constructs.filter((x) => x.inputs === 0).map((x) => x.name);
  return [
    `coverage${label ? ` (${label})` : ""}: ${c.inputs} inputs`,
    `  constructs: ${c.constructs.length - none.length} of ${c.constructs.length} reached${none.length ? `; none: ${none.join(", ")}` : ""}`,
    `  ${c.constructs.map((x) => `${x.name} ${x.inputs}`).join(", ")}`,
    `  programs of the gate's tables: ${c.programs.reached} of ${c.programs.listed} reached; none: ${c.programs.missing.join(" ")}`,
    `  spellings: ${c.spellings.map((x) => `${x.name} ${x.inputs}`).join(", ")}`,
    `  system calls traced: ${c.calls.traced.length} of ${c.calls.traced.length + c.calls.untraced.length}; not traced: ${c.calls.untraced.join(", ")}`,
  ].join("\n");
}
