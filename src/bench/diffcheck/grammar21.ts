/**
 * Issue 18, session 21 (gate21): literal variables set earlier on the line. The gate now reads
 * `p=VALUE; … "$p"` and `for p in A B; do … "$p"; done` as the command with the value in place
 * (shell/literal-vars.ts). Each input either sets a variable to a literal and uses it where it names
 * the program that runs or the file written (the checker must see the analysis name it), or sets it
 * to something harmless and then changes it in one of the ways bash has that the gate must not
 * follow (`read`, `printf -v`, a nameref, `declare -l`, `+=`, `eval`, a DEBUG trap, a function,
 * `mapfile`, a decoded `$'\x70'` name…) before the use, with the marker program as the new value.
 */
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Uses of `$p` where p names the program run. */
const RUNS = [`env "$p" x`, `env \${p}`, `nice "$p"`, `timeout 5 "$p"`, `bash -c "$p"`, `env $p`, `xargs "$p" </dev/null`];
/** Uses of `$f` where f names the file written. */
const WRITES = [`echo x > "$f"`, `touch "$f"`, `: > $f`, `sort README.md -o "$f"`, `cp README.md "$f"`, `rm -rf "$f"`, `mkdir -p "$f"/x`];

/** Ways to change p (set to `true` first) to the marker that the gate must leave unknown. */
const CHANGES = [
  `read p <<< ${MARKER}`,
  `read -r p <<< ${MARKER}`,
  `printf -v p %s ${MARKER}`,
  `printf -vp %s ${MARKER}`,
  `declare -n q=p; q=${MARKER}`,
  `declare -l p; p=${MARKER.toUpperCase()}`,
  `typeset -l p=${MARKER.toUpperCase()}`,
  `p=yoke; p+=-marker`,
  `eval 'p=${MARKER}'`,
  `eval $'\\x70=${MARKER}'`,
  `trap $'\\x70=${MARKER}' DEBUG`,
  `f() { p=${MARKER}; }; f`,
  `mapfile -t p <<< ${MARKER}`,
  `{ p=${MARKER}; }`,
  `true && p=${MARKER}`,
  `unset p; : \${p:=${MARKER}}`,
  `for p in ${MARKER}; do :; done`,
  `IFS= read p <<< ${MARKER}`,
  `getopts :y p -x; p=${MARKER}`,
];

/** One input of the production. */
export function generate21(r: Rng): { command: string; shape: string[] } {
  const roll = r();
  if (roll < 0.2) {
    const use = pick(r, RUNS);
    const form = pick(r, [
      { command: `p=${MARKER}; ${use}`, shape: "assigned" },
      { command: `p=${MARKER} && ${use}`, shape: "assigned &&" },
      { command: `q=x p=${MARKER}; ${use}`, shape: "two assignments" },
      { command: `for p in true ${MARKER}; do ${use}; done`, shape: "loop" },
      { command: `p='${MARKER}'; ${use}`, shape: "quoted value" },
      { command: `p=${MARKER} & wait; ${use}`, shape: "background" },
      { command: `(p=${MARKER}); ${use}`, shape: "subshell" },
      { command: `p=${MARKER} | cat; ${use}`, shape: "pipeline" },
    ]);
    return { command: form.command, shape: ["literal vars", "runs", form.shape] };
  }
  if (roll < 0.45) {
    const use = pick(r, WRITES);
    const target = pick(r, ["pwned", "src/a.ts", "src", "README.md", "made/dir"]);
    const form = pick(r, [
      { command: `f=${target}; ${use}`, shape: "assigned" },
      { command: `f="${target}"; ${use}`, shape: "quoted value" },
      { command: `for f in pwned1 ${target}; do ${use}; done`, shape: "loop" },
      { command: `f=${target}; g=x; ${use}; echo "$g"`, shape: "beside another" },
      { command: `f='${target} x'; ${use.replaceAll('"$f"', "$f")}`, shape: "split value" },
      { command: `f=README.md; read f <<< ${target}; ${use}`, shape: "read after" },
    ]);
    return { command: form.command, shape: ["literal vars", "writes", form.shape] };
  }
  const change = pick(r, CHANGES);
  const use = pick(r, RUNS);
  return { command: `p=true; ${change}; ${use}`, shape: ["literal vars", "changed", change.slice(0, 12)] };
}
