/**
 * Issue 18, session 18 (red team E): productions the earlier grammars did not make.
 * - A wrapper's valued option spelled as getopt reads it (a cluster `-iu V`, an abbreviation `--uns V`,
 *   GNU time's `--f V`, `-qo V`) whose value is the name of a program the gate knows as harmless
 *   (`ls`, `echo`…): a reader that skips the value word takes it for the program and never sees the
 *   payload after it.
 * - Environment words that are not identifiers (`env 'BASH_FUNC_ls%%=() { CMD; }' bash -c ls`:
 *   bash imports the function and runs it for `ls`; `env 'a.b=1' CMD`).
 * - Bash features not produced before: `select`, `case` with `;&`/`;;&`, `trap … RETURN`,
 *   `command_not_found_handle`, functions shadowing builtins, exported functions into a child bash,
 *   `$"…"`, `read -e`, `fc -s`, `history -s` + `fc -s`, `printf %()T`, `caller`, `wait -n`, named
 *   descriptors holding a here-string read by an interpreter, `PROMPT_COMMAND`, `ENV` for `sh -i`,
 *   `complete -C`/`compgen -C`, `enable -f`, `hash -p`, `${x@P}`.
 * - A runner's `-c` spelled as getopt_long reads it: `script --comm CMD`, `--command=CMD`, `-qcCMD`, `flock F --com CMD`.
 * - A shell's own options around `-c` (`bash -co errexit CMD`, `-c -- CMD`, `+c CMD`, `-oo A B -c CMD`; sh, dash, zsh, ksh, mksh).
 * - Program tables: git `--config-env`, `GIT_CONFIG_*` pairs, `rsync -e`/`--rsh`, `LESSOPEN`, `man -P`,
 *   `parallel`, `busybox` applets, `dash`/`zsh`/`ksh`/`mksh -c`, awk pipes, `find -fprintf`, `sort
 *   --compress-program`, `zip -TT`, `tar --to-command`, `xargs -I`, `watch`, `timeout`, `env -S`.
 */
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const cstr = (s: string) => JSON.stringify(s);

/** Names of programs the gate knows as harmless (read-only), used where a wrapper's option takes a value. */
const HARMLESS = ["ls", "echo", "true", "cat", "head", "wc", "date", "pwd"];

/** Wrapper options with a value, spelled so a reader that skips the value word mistakes it for the program. */
function valueNamesAProgram(r: Rng, c: string): string {
  const v = pick(r, HARMLESS);
  return pick(r, [
    `env -iu ${v} ${c}`,
    `env -0u ${v} ${c}`,
    `env -vu ${v} ${c}`,
    `env --uns ${v} ${c}`,
    `env --unset ${v} ${c}`,
    `env --un=${v} ${c}`,
    `env -u${v} ${c}`,
    `env -i -u ${v} PATH=/usr/bin:/bin ${c}`,
    `env --ignore-signal ${v} ${c}`,
    `/usr/bin/time --f ${v} ${c}`,
    `/usr/bin/time --form ${v} ${c}`,
    `/usr/bin/time -af ${v} ${c}`,
    `/usr/bin/time -qo ${v} ${c}`,
    `/usr/bin/time --outp ${v} ${c}`,
    `/usr/bin/time -vf ${v} ${c}`,
    `command time -qf %e ${c}`,
    `\\time --app -o /dev/null ${c}`,
    `timeout -vk1 5 ${c}`,
    `timeout --k 1 5 ${c}`,
    `nice --adj 3 ${c}`,
    `stdbuf -oL -e0 ${c}`,
    `exec -ca ${v} ${c}`,
    `exec -la ${v} ${c}`,
  ]);
}

/** Environment words that are not identifiers: bash's exported functions, other names. */
function envNotIdentifier(r: Rng, c: string): string {
  const fn = pick(r, ["ls", "true", "echo", "git", "cat", "date"]);
  const body = `() { ${c}; }`;
  return pick(r, [
    `env ${sq(`BASH_FUNC_${fn}%%=${body}`)} bash -c ${fn}`,
    `env -i ${sq(`BASH_FUNC_${fn}%%=${body}`)} /bin/bash -c ${sq(`${fn} x`)}`,
    `nice env ${sq(`BASH_FUNC_${fn}%%=${body}`)} bash -c ${fn}`,
    `timeout 5 env ${sq(`BASH_FUNC_${fn}%%=${body}`)} bash -c ${fn}`,
    `printf '%s\\n' ${fn} > s.sh && env ${sq(`BASH_FUNC_${fn}%%=${body}`)} bash s.sh`,
    `env ${sq(`BASH_FUNC_${fn}%%=${body}`)} xargs -0 bash -c ${fn} <<< ''`,
    `env ${sq("a.b=1")} ${c}`,
    `env ${sq("x-y=2")} ${c}`,
    `env ${sq("=x")} ${c}`,
    `env A=1 ${sq("b c=2")} ${c}`,
  ]);
}

/** Bash features the earlier grammars did not produce, each running `c`. */
function bashFeature(r: Rng, c: string): string {
  const [first, ...rest] = c.split(" ");
  return pick(r, [
    `select x in a; do ${c}; break; done <<< 1`,
    `case x in x) :;& y) ${c};; esac`,
    `case x in x) :;;& *) ${c};; esac`,
    `trap ${sq(c)} RETURN; f() { :; }; f`,
    `set -T; trap ${sq(c)} RETURN; f() { :; }; f`,
    `command_not_found_handle() { ${c}; }; no-such-program-x`,
    `cd() { ${c}; }; cd src`,
    `test() { ${c}; }; test -f README.md`,
    `[() { ${c}; }; [ -f README.md ]`,
    `f() { ${c}; }; declare -fx f; bash -c f`,
    `f() { ${c}; }; export -f f; env bash -c f`,
    `ls() { ${c}; }; export -f ls; bash -c ls`,
    `$"${first}" ${rest.join(" ")}`,
    `read -e x <<< ${sq(c)}; eval "$x"`,
    `set -o history; history -s ${sq(c)}; fc -s`,
    `set -o history; history -s ${sq(c)}; fc -s -1`,
    `printf '%(%s)T\\n' -1; ${c}`,
    `f() { caller; ${c}; }; f`,
    `sleep 0 & wait -n; ${c}`,
    `exec {fd}<<< ${sq(c)}; bash <&$fd`,
    `exec {fd}<<< ${sq(c)}; bash /dev/fd/$fd`,
    `PROMPT_COMMAND=${sq(c)} bash -i -c : < /dev/null`,
    `ENV=<(echo ${sq(c)}) sh -i -c : < /dev/null`,
    `complete -C ${sq(c)} ls; compgen -C ${sq(c)} x`,
    `enable -f /usr/lib/bash/mypid enable_mypid 2>/dev/null; ${c}`,
    `hash -p $(command -v ${first}) ls; ls ${rest.join(" ")}`,
    `x=${sq(`$(${c})`)}; echo "\${x@P}"`,
    `time -p ${c}`,
    `shopt -s expand_aliases; alias cd=${sq(c)}\ncd`,
    `mapfile -C ${sq(`${c} #`)} -c 1 a <<< x`,
  ]);
}

/** Programs that run or are given a command by an option or the environment (tables of the brief). */
function programTable(r: Rng, c: string): string {
  return pick(r, [
    `X=${sq(c)} git --config-env=core.pager=X -p log -1`,
    `X=${sq(c)} git --config-env core.pager=X -p log -1`,
    `echo y >> README.md; X=${sq(c)} git --config-env=diff.external=X diff`,
    `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=${sq(c)} git -p log -1`,
    `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0=${sq(`!${c}`)} git zz`,
    `timeout 5 rsync -e ${sq(`sh -c ${sq(`${c}; exit 1`)}`)} README.md h:b`,
    `timeout 5 rsync --rsh=${sq(`sh -c ${sq(`${c}; exit 1`)}`)} README.md h:b`,
    `timeout 5 rsync --rs=${sq(`sh -c ${sq(`${c}; exit 1`)}`)} README.md h:b`,
    `LESSOPEN=${sq(`|${c} %s`)} less README.md < /dev/null`,
    `env LESSOPEN=${sq(`|${c} %s`)} less -f README.md < /dev/null`,
    `man -P ${sq(c)} ls`,
    `man --pager=${sq(c)} ls`,
    `parallel ::: ${sq(c)}`,
    `parallel -j1 {} ::: ${sq(c)}`,
    `busybox sh -c ${sq(c)}`,
    `busybox ash -c ${sq(c)}`,
    `busybox ${c}`,
    `busybox env ${c}`,
    `busybox xargs ${c} < /dev/null`,
    `dash -c ${sq(c)}`,
    `zsh -c ${sq(c)}`,
    `ksh -c ${sq(c)}`,
    `mksh -c ${sq(c)}`,
    `zsh -fc ${sq(c)}`,
    `awk ${sq(`BEGIN{print "x" | ${cstr(c)}}`)}`,
    `awk ${sq(`BEGIN{while ((${cstr(c)} | getline l) > 0) print l}`)}`,
    `awk ${sq(`BEGIN{x=${cstr(c)}; x | getline}`)}`,
    `seq 1 30000 | sort -S 1K --compress-program=${sq(c.split(" ")[0]!)}`,
    `zip -q -T -TT ${sq(c)} pwned.zip README.md`,
    `tar -cf x.tar README.md && tar -xf x.tar --to-command=${sq(c)}`,
    `echo q | xargs -I{} ${c}`,
    `timeout 3 watch -n1 -x ${c}`,
    `timeout 5 ${c}`,
    `env -S ${sq(c)}`,
    `find README.md -fprintf pwned x`,
  ]);
}

/** A runner's `-c` spelled as getopt_long reads it (prefixes of `--command`, `=VALUE`, a glued `-cCMD`). */
function runnerCommandSpelled(r: Rng, c: string): string {
  return pick(r, [
    `script --comm ${sq(c)} /dev/null`,
    `script -q --co ${sq(c)} /dev/null`,
    `script --command=${sq(c)} /dev/null`,
    `script -qc${sq(c)} /dev/null`,
    `script -c${sq(c)} -q /dev/null`,
    `flock /dev/null --com ${sq(c)}`,
    `flock /dev/null --command=${sq(c)}`,
    `flock -w1 /dev/null -c${sq(c)}`,
  ]);
}

/** A shell's own options around `-c`: the script is the first operand after all of them (`-co NAME CMD`, `-c -- CMD`, `+c CMD`). */
function shellOptionsAroundC(r: Rng, c: string): string {
  const sh = pick(r, ["bash", "bash", "sh", "dash", "zsh", "mksh", "ksh"]);
  const line = pick(r, [
    `${sh} -co errexit ${sq(c)}`,
    `${sh} -c -o errexit ${sq(c)}`,
    `${sh} -c -- ${sq(c)}`,
    `${sh} +c ${sq(c)}`,
    `${sh} -ec -- ${sq(c)} x`,
    `bash -Oc extglob ${sq(c)}`,
    `bash -oo errexit pipefail -c ${sq(c)}`,
    `bash -c - ${sq(c)}`,
    `bash -xco pipefail ${sq(c)} 2>/dev/null`,
    `${sh} -oerrexit -c ${sq(c)}`,
    `bash -oerrexit pipefail -c ${sq(c)} 2>/dev/null`,
  ]);
  return pick(r, ["", "", "nice ", "env ", "timeout 9 ", "setsid -w "]) + line;
}

export const CONSTRUCTS18E: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  ["wrapper option value names a known program", (c, r) => valueNamesAProgram(r, c)],
  ["env word not an identifier", (c, r) => envNotIdentifier(r, c)],
  ["bash feature (red team E)", (c, r) => bashFeature(r, c)],
  ["program table (red team E)", (c, r) => programTable(r, c)],
  ["runner -c spelled as getopt reads it", (c, r) => runnerCommandSpelled(r, c)],
  ["shell options around -c", (c, r) => shellOptionsAroundC(r, c)],
];

/** Payloads a deny rule of the checker's rule sets covers, or that leave evidence. */
const PAYLOADS18E: readonly string[] = ["rm -f src/a.ts", "rm -rf src", "cat .env", MARKER, "touch pwned", "chmod -R 777 src"];

/** One input of these productions: a construct around a payload. */
export function generate18e(r: Rng): { command: string; shape: string[] } {
  const [cname, construct] = pick(r, CONSTRUCTS18E);
  const payload = pick(r, PAYLOADS18E);
  return { command: construct(payload, r), shape: [cname, `payload ${payload.split(" ")[0]}`] };
}
