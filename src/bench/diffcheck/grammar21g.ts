/**
 * Issue 18, session 16 (red team 21-gate): productions for the four classes that round found —
 * a known tool's subcommand that runs a command reached by a spelling the table missed (`npm
 * explore`, an option or `--` before npm's subcommand, npm's abbreviations, perf's two-word
 * subcommands), an interpreter given code by an option or module other than `-c`/`-e` (`python -m
 * timeit|code|asyncio`, `python -i FILE <<< CODE`, `node --import=data:`, `perl -M'X;CODE'`), and a
 * make variable definition on the command line that runs as make reads it (`X!=CMD`, `X:=$(shell CMD)`),
 * and the input given to a reader by another name (`bash /dev//stdin`, `python3 /dev/fd/0`, `awk -f /proc/self/fd/0`).
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const cstr = (s: string) => JSON.stringify(s);

/** An installed package for `npm explore` (npm needs one in node_modules). */
const NPM_PKG = `mkdir -p node_modules/p && echo '{"name":"p","version":"1.0.0"}' > node_modules/p/package.json && `;

export const CONSTRUCTS21G: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "runner subcommand spelled another way",
    (c, r) =>
      pick(r, [
        `${NPM_PKG}npm explore p -- ${c}`,
        `${NPM_PKG}npm explor p -- ${sq(c)}`,
        `${NPM_PKG}npm --silent explore -- p ${c}`,
        `npm -- exec ${c}`,
        `npm exe -- ${c}`,
        `npm --loglevel silent exec -- ${c}`,
        `perf stat -x, ${c}`,
        `perf --no-pager stat ${c}`,
      ]),
  ],
  [
    "interpreter code by option or module",
    (c, r) =>
      pick(r, [
        `python3 -m timeit -n1 -s ${sq(`import os; os.system(${cstr(c)})`)} pass`,
        `python3 -m code <<< ${sq(`import os; os.system(${cstr(c)})`)}`,
        `python3 -m asyncio <<< ${sq(`import os; os.system(${cstr(c)})`)}`,
        `python3 -qi /dev/null <<< ${sq(`import os; os.system(${cstr(c)})`)}`,
        `node --import=${sq(`data:text/javascript,import cp from "child_process"; cp.execSync(${cstr(c)})`)} /dev/null`,
        `perl ${sq(`-MPOSIX;system(${cstr(c)});`)} /dev/null`,
        `awk -W posix_space ${sq(`BEGIN{system(${cstr(c)})}`)}`,
        `mawk -W exec /dev/stdin <<< ${sq(`BEGIN{system(${cstr(c)})}`)}`,
      ]),
  ],
  [
    "input by another name",
    (c, r) =>
      pick(r, [
        `bash /dev//stdin <<< ${sq(c)}`,
        `sh /proc/self/fd/0 <<< ${sq(c)}`,
        `source /dev/./stdin <<< ${sq(c)}`,
        `python3 /dev/fd/0 <<< ${sq(`import os; os.system(${cstr(c)})`)}`,
        `perl /dev/./stdin <<< ${sq(`system(${cstr(c)})`)}`,
        `awk -f /proc/self/fd/0 <<< ${sq(`BEGIN{system(${cstr(c)})}`)}`,
      ]),
  ],
  [
    "make definition runs as read",
    (c, r) => pick(r, [`make -s -f /dev/null ${sq(`X!=${c}`)} 2>/dev/null`, `make -s ${sq(`X:=$(shell ${c})`)} 2>/dev/null`, `make -s ${sq(`X::=$(shell ${c})`)} 2>/dev/null`]),
  ],
];
