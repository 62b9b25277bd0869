/**
 * Issue 18, session 19 (gate19): productions for the readings added there — m4's `syscmd`/`esyscmd` in the
 * input Yoke reads (quoted and unquoted arguments, `m4 -P`'s `m4_syscmd`, comments, a name built by `define`,
 * `-D` text, options around them), psql's meta-commands in `-c` and on its input (`\!`, `\o |`, `\g |`,
 * `\copy … program`, backquotes; psql runs none of them without a server, so the checker sees what the gate
 * claims against nothing run), and `.npmrc` texts with ini's quirks read by npm's own `ini`
 * (quoted/escaped keys, `key[]`, duplicates, CRLF, a BOM, `${VAR}` in keys).
 */
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Options of m4 that change nothing the escapes run. */
const M4_OPTIONS = ["", "-s", "--synclines", "-Q", "-G", "--gnu", "-E", "-I inc", "--include=inc", "-DV=1", "--def=V=2", "-U len"];

/** m4 input running `c`: the forms m4-escapes.ts reads, and ones it must refuse. */
function m4Text(c: string, r: Rng): string {
  return pick(r, [
    `syscmd(${c})`,
    `syscmd(\`${c}')dnl`,
    `# don\`t\nsyscmd(${c})`,
    `syscmd( \`${c}' , ignored)`,
    `dnl comment\nsyscmd(${c})dnl`,
    `esyscmd(${c})`,
    `define(\`x',\`sys'\`cmd($1)')x(${c})`,
    `define(\`C',\`${c}')syscmd(C)`,
    `indir(\`syscmd',\`${c}')`,
    `ifelse(a,a,\`syscmd(${c})')`,
    `changequote([,])syscmd([${c}])`,
    `\`syscmd(${c})'`,
  ]);
}

export const CONSTRUCTS19: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "m4 escapes",
    (c, r) => {
      const text = m4Text(c, r);
      const opts = pick(r, M4_OPTIONS);
      const m4 = `m4${opts ? ` ${opts}` : ""}`;
      return pick(r, [
        `${m4} <<< ${sq(text)}`,
        `printf '%s\\n' ${sq(text)} | ${m4}`,
        `${m4} - <<'EOF'\n${text}\nEOF`,
        `printf '%s\\n' ${sq(text.replace(/\b(syscmd|esyscmd|define|indir|ifelse|changequote)\(/g, "m4_$1("))} | m4 -P`,
        `${m4} -DX=${sq(c.split(" ")[0]!)} <<< ${sq(`syscmd(X ${c.split(" ").slice(1).join(" ")})`)}`,
      ]);
    },
  ],
  ["m4 ordinary", (_c, r) => pick(r, [`m4 <<< 'eval(2+3)'`, `m4 -s <<< 'syscmd(echo ok)dnl'`, `m4 <<< 'syscmd(\`ls')'`, `m4 <<< 'len(abc)'`])],
  [
    "psql meta-commands",
    (c, r) => {
      const meta = pick(r, [`\\! ${c}`, `\\o |${c}`, `select 1 \\g |${c}`, `\\echo \`${c}\``, `\\set x \`${c}\``, `\\copy t from program '${c.replaceAll("'", "''")}'`, `\\setenv A b`, `\\i x.sql`]);
      const opts = pick(r, ["", "-X", "-q", "-h /nonexistent", "-v x=1"]);
      return pick(r, [
        `psql ${opts} -c ${sq(meta)}`,
        `psql ${opts} --comm=${sq(meta)}`,
        `psql ${opts} <<< ${sq(meta)}`,
        `printf '%s\\n' ${sq(meta)} | psql ${opts} -f -`,
        `psql -c 'select 1' -c ${sq(meta)}`,
      ]);
    },
  ],
];

export interface Generated19 {
  command: string;
  plant?: string;
  shape: string[];
}

/** An npm edit whose editor a planted `.npmrc` with ini's quirks names (or does not: npm compares keys exactly). */
export function generate19(r: Rng): Generated19 {
  const c = pick(r, ["cat .env", "rm -rf src", MARKER, `${MARKER} x`, "touch pwned"]);
  const key = pick(r, ["editor", '"editor"', "'editor'", '"\\u0065ditor"', "editor ;c", "editor#c", "editor[]", "EDITOR", "${K}", "${K?}", "[s]\neditor"]);
  const value = pick(r, [c, `"${c}"`, `${c} ; x`, `'${c}'`]);
  const eol = pick(r, ["\\n", "\\r\\n"]);
  const bom = r() < 0.2 ? "\\357\\273\\277" : "";
  const dup = r() < 0.3 ? `editor=ls${eol}` : "";
  const text = `${bom}${dup}${key} = ${value}${eol}`;
  const pkg = `mkdir -p node_modules/p && echo '{"name":"p","version":"1.0.0"}' > node_modules/p/package.json`;
  return { command: pick(r, ["npm edit p", "K=editor npm edit p"]), plant: `${pkg} && printf ${sq(text)} > .npmrc`, shape: ["npm editor from an .npmrc with ini quirks"] };
}
