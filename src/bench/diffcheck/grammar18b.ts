/**
 * Issue 18, session 18 (gate18b): productions for the classes read there — npm's program settings from a
 * planted `.npmrc` (project, `--userconfig`, a userconfig the project names; keys in any case, quoted values,
 * comments) and the ordinary `npm explore`, and ed behind a wrapper that hands it the line's input.
 */
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** What npm's editor may name (split on blanks, no shell: commands of plain words). */
const PAYLOADS: readonly string[] = ["cat .env", "rm -f src/a.ts", "rm -rf src", MARKER, `${MARKER} x`, "touch pwned", "cp README.md pwned", "ls"];
/** An installed package for `npm edit` / `npm explore` (npm needs one in node_modules). */
const NPM_PKG = `mkdir -p node_modules/p && echo '{"name":"p","version":"1.0.0"}' > node_modules/p/package.json`;
/** Wrappers that hand their input to the command they run (and one that is not a wrapper at all). */
const WRAPPERS = ["flock /dev/null", "setsid", "setsid -w", "taskset 1", "ionice -c 3", "nice", "setsid nice"];

export interface Generated18b {
  command: string;
  plant?: string;
  shape: string[];
}

export const CONSTRUCTS18B: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "ed behind a wrapper",
    (c, r) => {
      const w = pick(r, WRAPPERS);
      return pick(r, [
        `${w} ed -s README.md <<< ${sq(`!${c}`)}`,
        `printf '%s\\n' ${sq(`!${c}`)} q | ${w} ed -s README.md`,
        `${w} ed -s README.md <<'EOF'\n!${c}\nq\nEOF`,
        `echo ${sq(`r !${c}`)} | ${w} ed -s README.md`,
      ]);
    },
  ],
];

/** An npm command whose program a planted configuration names. */
export function generate18b(r: Rng): Generated18b {
  const c = pick(r, PAYLOADS);
  const key = pick(r, ["editor", "EDITOR", "Editor"]);
  const value = pick(r, [c, `"${c}"`, `${c} ; a comment`, `${c} # a comment`, `'${c}'`]);
  const line = `${key} = ${value}`;
  const forms: Array<[string, string, string]> = [
    [`${NPM_PKG} && printf '%s\\n' ${sq(line)} > .npmrc`, "npm edit p", "npm editor from the project .npmrc"],
    [`${NPM_PKG} && printf '%s\\n' ${sq(line)} > u.rc`, "npm edit p --userconfig u.rc", "npm editor from --userconfig"],
    [`${NPM_PKG} && printf '%s\\n' 'userconfig=u.rc' > .npmrc && printf '%s\\n' ${sq(line)} > u.rc`, "npm edit p", "npm editor from a userconfig the project names"],
    [NPM_PKG, `npm explore p -- ${c}`, "npm explore's command"],
    [`${NPM_PKG} && printf '%s\\n' 'script-shell=/bin/sh' > .npmrc`, `npm explore p -- ${sq(c)}`, "npm explore with script-shell set"],
  ];
  const [plant, command, shape] = pick(r, forms);
  return { command, plant, shape: [shape] };
}
