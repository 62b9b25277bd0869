/**
 * Issue 18, session 21 (red team W): a wrapper's option that names the program it runs instead of a
 * shell. capsh runs `--shell=PROG` for `--` and `-+` with the words after as PROG's arguments
 * (`capsh --shell=/bin/rm -- -rf src`); su and runuser read `-s`/`--shell` the same way (red team J).
 * The payload's program is PROG itself (`--shell=/usr/bin/rm -- -rf src`: the bypass found), or its words
 * reach PROG through `env`, or PROG is a shell given the payload with `-c`.
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const CONSTRUCTS21W: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "capsh --shell names the program",
    (c, r) =>
      pick(r, [
        // The payload's program in the option's value, its words after `--`/`-+` (merged /usr: /bin is /usr/bin).
        // Half the forms (session 21, check21: 48 inputs of the first version held two of these and neither
        // had a denied payload, so the checker never saw the class the red team found by hand).
        `capsh --shell=/usr/bin/${c.replace(/^(\S+)/, "$1 --")}`,
        `capsh --shell=/usr/bin/${c.replace(/^(\S+)/, "$1 -+")}`,
        `capsh --shell=/bin/${c.replace(/^(\S+)/, "$1 --")}`,
        `capsh --quiet --shell=/usr/bin/${c.replace(/^(\S+)/, "$1 -+")}`,
        `capsh --shell=/usr/bin/${c.replace(/^(\S+)/, "$1 --")}`,
        `capsh --shell=/bin/${c.replace(/^(\S+)/, "$1 -+")}`,
        `capsh --shell=/usr/bin/env -- ${c}`,
        `capsh --shell=/usr/bin/env -+ ${c}`,
        `capsh --shell=/bin/sh -- -c ${sq(c)}`,
        `capsh --shell=/bin/sh -+ -c ${sq(c)}`,
        `capsh --quiet --shell=/usr/bin/env -- ${c}`,
        `capsh -- -c ${sq(c)}`,
      ]),
  ],
];
