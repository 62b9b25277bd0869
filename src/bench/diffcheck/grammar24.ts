/**
 * Issue 18, session 24 (red team I): productions for what the coverage count (coverage.ts) found no
 * generated input reaching — programs named by a path outside the system's folders (a workspace
 * script, the dynamic loader, /opt/…) handed a payload a deny rule covers; code in data through
 * builtins that take a number (`shift`, `exit`, `ulimit`, `read -t`, `printf %d`, `${y:x}`, a variable
 * whose value is a subscript), prompt expansion `${x@P}`, builtins with code-taking options (`compgen
 * -C/-F`, `mapfile -C`, `getopts`, `declare`/`local`/`export`/`readonly` subscripts, `exec {a[…]}>`),
 * compound commands the list had not (select, until, `for ((;;))`, case patterns, function bodies that
 * are not braces, named coprocs), here-document spellings, builtins that bypass a name (`command -p`,
 * `builtin`, `\eval`, `exec -a/-c/-l`), traps on RETURN and signals, and metadata writes (owner,
 * extended attributes, times, a socket bound to a path) the oracle now sees.
 */
import { tablePrograms } from "./coverage";
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Payloads a deny rule of the checker's rule sets covers, plus the marker and a plain write. */
const PAYLOADS: readonly string[] = ["rm -f src/a.ts", "rm -rf src", "cat .env", MARKER, "touch pwned", "chmod -R 777 src", "git push --force"];

/** The script a workspace wrapper is (planted before the gate looks). */
const WRAPPER_SCRIPT = `printf '#!/bin/sh\\nexec "$@"\\n' > w24 && chmod +x w24`;

/** A payload's program by its path (the loader needs one). */
const byPath = (c: string) => c.replace(/^(rm|cat|touch|chmod|git) /, "/usr/bin/$1 ").replace(new RegExp(`^${MARKER}`), `$(command -v ${MARKER})`);

/** Programs named by a path outside the system's folders, running the payload: `(payload) => line`. */
const PATH_WRAPPERS: ReadonlyArray<readonly [string, (c: string, r: Rng) => string, boolean]> = [
  ["workspace script", (c) => `./w24 ${c}`, true],
  ["workspace script via ..", (c) => `src/../w24 ${c}`, true],
  ["workspace script, env", (c, r) => `./w24 env ${pick(r, ["", "-u X ", "A=1 "])}${c}`, true],
  ["workspace script, unknown then payload", (c) => `./w24 nice ${c}`, true],
  ["dynamic loader", (c) => `/lib64/ld-linux-x86-64.so.2 ${byPath(c)}`, false],
  ["dynamic loader, options", (c, r) => `/lib64/ld-linux-x86-64.so.2 ${pick(r, ["--argv0 ls", "--inhibit-cache", "--library-path /lib"])} ${byPath(c)}`, false],
  ["dynamic loader, other path", (c) => `/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ${byPath(c)}`, false],
  ["dynamic loader runs a shell", (c) => `/lib64/ld-linux-x86-64.so.2 /bin/sh -c ${sq(c)}`, false],
  ["absolute path, not a system folder", (c) => `/opt/w24 ${c}`, false],
];

/** Code in data: `V` is a variable holding `a[$(payload)]`; each line makes bash evaluate it as arithmetic. */
const NUMERIC_USES: readonly string[] = [
  "echo $((V))",
  "(( V ))",
  "echo ${y:V}",
  "y=(1 2); echo ${y[V]}",
  "y=(1); echo ${y[@]:V}",
  "for ((i=V;i<0;)); do :; done",
  "[[ $V -eq 1 ]]",
  "test $V -eq 1",
  "[ 1 -lt $V ]",
  "shift $V",
  "exit $V",
  "printf %d $V",
  "declare -i n=$V",
  "ulimit -t $V",
  "read -t $V l < /dev/null",
  "read -n $V l <<< abc",
  "echo {1..$V}",
  "caller $V",
  "break $V",
  "umask $V",
  "W=V; echo $((W))",
];

/** Builtins with a code-taking option or a name bash evaluates: `P` is the payload. */
const BUILTIN_CODE: readonly string[] = [
  "x='$(P)'; echo ${x@P}",
  "x='`P`'; : \"${x@P}\"",
  "compgen -C 'P' x",
  "f() { P; }; compgen -F f x",
  "mapfile -C 'P;:' -c 1 L < README.md",
  "readarray -C 'P;:' -c1 L <<< x",
  "getopts a 'a[$(P)]' -a",
  "declare 'a[$(P)]=1'",
  "f() { local 'a[$(P)]'; }; f",
  "export 'a[$(P)]=1'",
  "readonly 'a[$(P)]=1'",
  "typeset -a 'a[$(P)]'",
  "exec {a[$(P)]}>/dev/null",
  "a[$(P)]=1",
  "declare -A A; k='$(P)'; A[$k]=1",
  "declare -A A; k='$(P)'; unset 'A[$k]'",
  "declare -A A; k='$(P)'; test -v \"A[$k]\"",
  "read -a 'a[$(P)]' <<< x",
  "test -R 'a[$(P)]'",
  "[[ -R a[$(P)] ]]",
  "let x=1 'y=a[$(P)]'",
  "declare -n r; r='a[$(P)]'; echo $r",
  "echo ${#a[$(P)]}",
  "shopt -s extglob; echo @(x|$(P))",
  "echo ~$(P)",
  "case $(P) in *) ;; esac",
  "case x in $(P)) ;; esac",
  "[[ x == $(P) ]]",
];

/** Compound commands and builtins that run `P` directly. */
const RUNS: readonly string[] = [
  "select x in a; do P; break; done <<< 1",
  "P |& cat",
  "! P",
  "P 1<>/dev/null",
  "exec 3<>m24; P",
  "exec 3<>m24; exec 3>&-; P",
  "P <&- 2>&-",
  "until false; do P; break; done",
  "for ((i=0;i<1;i++)); do P; done",
  "f() ( P ); f",
  "function f() ( P ); f",
  "f() [[ $(P) ]]; f",
  "f() for i in 1; do P; done; f",
  "f() { P; } > /dev/null; f",
  "coproc C { P; }; wait",
  "coproc C P; wait",
  "command -p P",
  "command -p env P",
  "builtin eval 'P'",
  "builtin command P",
  "\\eval 'P'",
  "'eval' 'P'",
  "e=eval; $e 'P'",
  "(exec -a ls P)",
  "(exec -c P)",
  "(exec -l P)",
  "trap 'P' RETURN; f() { :; }; . /dev/null; f",
  "set -T; trap 'P' RETURN; f() { :; }; f",
  "trap 'P' USR1; kill -USR1 $$",
  "trap -- 'P' INT; kill -INT $$",
  "trap 'P' 0",
  "shopt -s extdebug; trap 'P' DEBUG; :",
  "set -o functrace; trap 'P' DEBUG; f() { :; }; f",
  "cat <<-EOF\n\t$(P)\n\tEOF",
  'cat <<"EOF"\n$(P)\nEOF',
  "cat <<E\\OF\n$(P)\nEOF",
  "cat <<A; cat <<B\nx\nA\n$(P)\nB",
  "cat <<< $(P)",
  "printf '%s\\n' 'P' | while read -r c; do eval \"$c\"; done",
  "shopt -s lastpipe; echo 'P' | read -r c; eval \"$c\"",
  "set -o history; history -s 'P'; fc -s",
  "echo 'P' | bash",
  "bash <<< 'P'",
  "bash /dev/stdin <<< 'P'",
  "printf '%s' 'P' > s24; . ./s24",
  "printf '%s' 'P' > s24; bash s24",
];

/** Metadata writes (owner, extended attributes, times, a socket's file) the oracle sees since session 24. */
const METADATA: readonly string[] = [
  "chown 0 README.md",
  "chgrp 0 src/a.ts",
  "chown --reference=README.md src/a.ts",
  "setfattr -n user.x -v 1 README.md",
  "touch -d 2000-01-01 README.md",
  "touch -r .env README.md",
  "cp -p README.md m24",
  "python3 -c 'import os; os.chown(\"README.md\", 0, 0)'",
  'python3 -c \'import os; os.setxattr("README.md", "user.a", b"1")\'',
  "python3 -c 'import os; os.utime(\"README.md\", (1, 1))'",
  "python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind(\"m24\")'",
  "perl -e 'utime 1, 1, \"README.md\"'",
  "perl -e 'chown 0, 0, \"README.md\"'",
  "find . -maxdepth 1 -name README.md -exec touch -m {} +",
];

/** Every program of the gate's tables (read-only commands, wrappers, runners), read once. */
let TABLE: string[] | undefined;

export function generate24(r: Rng): { command: string; shape: string[]; plant?: string } {
  const payload = pick(r, PAYLOADS);
  const roll = r();
  if (roll < 0.2) {
    // A program of the gate's tables given the payload as its words, in a substitution, or its output redirected.
    const prog = pick(r, (TABLE ??= tablePrograms()));
    const form = pick(r, [`${prog} ${payload}`, `${prog} -- ${payload}`, `${prog} "$(${payload})"`, `${prog} README.md > m24`, `echo | ${prog} ${payload}`]);
    return { command: form, shape: [`g24 table program: ${prog}`] };
  }
  if (roll < 0.4) {
    const [name, make, plant] = pick(r, PATH_WRAPPERS);
    const base = { command: make(payload, r), shape: [`g24 path-named program: ${name}`] };
    return plant ? { ...base, plant: WRAPPER_SCRIPT } : base;
  }
  if (roll < 0.55) {
    const use = pick(r, NUMERIC_USES);
    return { command: `V=${sq(`a[$(${payload})]`)}; ${use}`, shape: [`g24 number from data: ${use.replace(/V/g, "$V").slice(0, 30)}`] };
  }
  if (roll < 0.72) {
    const t = pick(r, BUILTIN_CODE);
    return { command: t.replace(/(?<!@)P/g, () => payload), shape: [`g24 builtin evaluates: ${t.slice(0, 30)}`] };
  }
  if (roll < 0.9) {
    const t = pick(r, RUNS);
    return { command: t.replace(/P/g, () => payload), shape: [`g24 runs: ${t.slice(0, 30)}`] };
  }
  const m = pick(r, METADATA);
  return { command: m, shape: [`g24 metadata write: ${m.slice(0, 30)}`] };
}
