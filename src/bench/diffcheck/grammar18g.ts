/**
 * Issue 18, session 17 (gate18): productions for the classes closed there — a compiler driver under
 * another name (or a copy the line makes) given `-wrapper` inside a wrapper, what a compiler driver reads
 * when it runs (`-B DIR` with a planted `as`, `-specs=F` naming a planted linker), make's command-line
 * variables used as commands in a recipe, npm settings whose value is a program (`npm edit --editor=`),
 * and ed's shell escapes in every form GNU ed reads (`!CMD`, `r !`, `w !`, `g/RE/!`, `%`, a `!CMD` operand).
 * `c` holds no comma, quote or `%` where a form cannot carry one (the callers' commands are plain).
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** An installed package for `npm edit` (npm needs one in node_modules). */
const NPM_PKG = `mkdir -p node_modules/p && echo '{"name":"p","version":"1.0.0"}' > node_modules/p/package.json && `;
/** A makefile whose recipe runs $(CC) and $(CFLAGS), as ordinary ones do. */
const MAKEFILE = `printf 'all:\\n\\t$(CC) $(CFLAGS) -c a.c\\n' > Makefile && `;
const WRAPPERS = ["setsid", "flock /dev/null", "nohup", "nice -n 1", "timeout 20", "setsid -w"];

export const CONSTRUCTS18G: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "compiler -wrapper under another name in a wrapper",
    (c, r) => {
      const packed = `sh,-c,${c.replaceAll(",", " ")},x`;
      const driver = pick(r, ["gcc", "gcc-12", "x86_64-linux-gnu-gcc-12", "cc", "c++", "cpp-12", "./gccgo", "./g++-mp-12"]);
      const copy = driver.startsWith("./") ? `ln -s /usr/bin/${driver.includes("++") ? "g++" : "gcc"} ${driver.slice(2)} && ` : "";
      return `${copy}${pick(r, WRAPPERS)} ${driver} -wrapper ${sq(packed)} -fsyntax-only -x c /dev/null`;
    },
  ],
  [
    "compiler reads code at run time",
    (c, r) =>
      pick(r, [
        `mkdir -p b && printf '#!/bin/sh\\n%s\\n' ${sq(c)} > b/as && chmod +x b/as && gcc -B b/ -c -x c /dev/null -o /dev/null`,
        `mkdir -p b && printf '#!/bin/sh\\n%s\\n' ${sq(c)} > b/as && chmod +x b/as && ${pick(r, WRAPPERS)} cc -Bb -c -x c /dev/null -o /dev/null`,
        `printf '#!/bin/sh\\n%s\\n' ${sq(c)} > ev && chmod +x ev && printf '*linker:\\n./ev\\n\\n' > s.specs && printf 'int main(){return 0;}' > m.c && gcc -specs=s.specs m.c -o m`,
      ]),
  ],
  [
    "make variable used as a command",
    (c, r) => {
      const [first, ...rest] = c.split(" ");
      return pick(r, [
        `printf 'int x;' > a.c && ${MAKEFILE}make -s CC=${sq(`${c} #`)}`,
        `printf 'int x;' > a.c && ${MAKEFILE}make -s CFLAGS=${sq(`; ${c} #`)}`,
        `printf 'int x;' > a.c && ${MAKEFILE}make -s CC=${sq(first!)} CFLAGS=${sq(rest.join(" "))}`,
      ]);
    },
  ],
  ["npm setting names a program", (c, r) => `${NPM_PKG}npm edit p ${pick(r, ["--editor", "--edito", "--edit"])}=${sq(c)}`],
  [
    "ed shell escape",
    (c, r) =>
      pick(r, [
        `echo ${sq(`!${c}`)} | ed -s README.md`,
        `printf '%s\\n' ${sq(`!${c}`)} q | ed -s README.md`,
        `ed -s README.md <<< ${sq(`r !${c}`)}`,
        `ed -s README.md <<< ${sq(`1,$w !${c}`)}`,
        `ed -s README.md <<< ${sq(`g/./!${c}`)}`,
        `ed -s ${sq(`!${c}`)} <<< q`,
        `printf '%s\\n' ${sq(`!${c}`)} '!!' q | ed -s README.md`,
      ]),
  ],
];
