/**
 * Issue 18, session 21 (red team X): a variable name given to a builtin as an unquoted glob or brace
 * word is expanded against the folder's file names first. The checker's workspace holds `lnk`, so
 * `l?k` is `lnk`: `lnk=true; read -r l?k <<< rm; env "$lnk" -rf src` runs rm while gate21's literal
 * variables judged it as `env true -rf src` (before the fix).
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export const CONSTRUCTS21X: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "a variable name made by pathname expansion",
    (c, r) => {
      const [prog, ...rest] = c.split(" ");
      const name = pick(r, ["l?k", "?nk", "l*k", "[l]nk", "{l,x}nk"]);
      const set = pick(r, [`read -r ${name} <<< ${prog}`, `printf -v ${name} ${prog}`, `read -ra ${name} <<< ${prog}`]);
      return `lnk=true; ${set}; env "$lnk" ${rest.join(" ")}`;
    },
  ],
];
