/**
 * Issue 18, session 20 (red team Q): a program's option that reads a FILE AS CODE the gate does not
 * read. jq takes its FIRST operand as the program file wherever `-f`/`--from-file` stands (`jq q.jq -n -f`,
 * `jq -f -n q.jq`, the cluster `-nf`), and that program's `import "P" as $x` reads `P.json`, `include "P"`
 * reads `P.jq`: a planted program file read a file under a Read deny (`.env/k.json` under `Read(**\/.env)`)
 * while the gate classified the command read-only. The ordinary forms (a filter given on the command line,
 * a program file that imports nothing) are produced too: they must agree as well.
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The planted secret module and jq program files (`q.jq` imports it, `p.jq` includes a module that does, `o.jq` is ordinary). */
const PLANT = [
  "rm -rf .env && mkdir -p .env lib",
  `printf '%s\\n' ${sq('{"k":"s"}')} > .env/k.json`,
  `printf '%s\\n' ${sq('import ".env/k" as $s; $s')} > q.jq`,
  `printf '%s\\n' ${sq('def leak: "x"; .')} > .env/m.jq`,
  `printf '%s\\n' ${sq('include ".env/m"; leak')} > p.jq`,
  `printf '%s\\n' ${sq(".a")} > o.jq`,
  `printf '%s\\n' ${sq('{"a":1}')} > d.json`,
].join(" && ");

export interface Generated20q {
  command: string;
  plant: string;
  shape: string[];
}

export function generate20q(r: Rng): Generated20q {
  const file = pick(r, ["q.jq", "p.jq", "o.jq"]);
  const flag = pick(r, ["-r", "-c", "-S", "-M", ""]);
  const input = pick(r, ["-n", "d.json", "-n d.json"]);
  const command = pick(r, [
    `jq ${flag} -f ${file} ${input}`,
    `jq ${input} -f ${file}`,
    `jq -f ${input} ${file}`,
    `jq ${file} ${input} --from-file`,
    `jq --from-file ${file} ${input}`,
    `jq -nf ${file}`,
    `jq -${pick(r, ["rf", "cf", "nrf", "fn"])} ${file} ${pick(r, ["", "d.json"])}`,
    `jq ${flag} .a d.json`,
    `jq -n ${sq('import ".env/k" as $s; $s')}`,
    `jq -n -L . ${sq('import ".env/k" as $s; $s')}`,
  ]);
  return { command: command.replace(/ +/g, " ").trim(), plant: PLANT, shape: ["jq program file", file] };
}
