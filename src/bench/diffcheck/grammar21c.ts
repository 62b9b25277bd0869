/**
 * Issue 18, session 21 (check21): the payload's program under another name, and writes by a path the
 * trace must resolve. A deny rule names a program, whatever file name starts it: a symlink or a copy of
 * it (`ln -s /usr/bin/rm x && ./x -rf src`), a multi-call binary's applet (`busybox rm`), a file reached
 * through `/proc/self/fd/N`. Writes through a descriptor link (`/proc/self/fd/3/a.ts`,
 * `/proc/self/cwd/…`), renames and a library's tree removal (`shutil.rmtree`) are writes the
 * comparison must see as what they reach.
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** The payload's first word (its program) and the rest, when it starts with a plain name. */
const split = (c: string): [string, string] | undefined => {
  const m = /^([a-z][\w-]*)(\s+.*)?$/s.exec(c);
  return m ? [m[1]!, m[2] ?? ""] : undefined;
};

export const CONSTRUCTS21C: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  [
    "program under another name",
    (c, r) => {
      const s = split(c);
      if (!s) return `busybox sh -c ${sq(c)}`;
      const [prog, rest] = s;
      return pick(r, [
        `ln -s /usr/bin/${prog} x && ./x${rest}`,
        `ln -sf "$(command -v ${prog})" .t && ./.t${rest}`,
        `cp /usr/bin/${prog} /tmp/x && /tmp/x${rest}`,
        `install -m755 /usr/bin/${prog} ./y && ./y${rest}`,
        `busybox ${c}`,
        `exec -a ${prog} busybox${rest}`,
        `exec 7</usr/bin/${prog}; /proc/self/fd/7${rest}`,
        `cd /usr/bin && ./${prog}${rest.replace(/ src/g, " $OLDPWD/src").replace(/ \.env/g, " $OLDPWD/.env")}`,
      ]);
    },
  ],
  [
    "write through a descriptor link",
    (_c, r) =>
      pick(r, [
        `exec 3<src; python3 -c 'import os; os.unlink("/proc/self/fd/3/a.ts")'`,
        `exec 4<.git; echo x > /proc/self/fd/4/config`,
        `python3 -c 'import os; os.rename("README.md", "/proc/self/cwd/.git/config")'`,
        `python3 -c 'import shutil; shutil.rmtree("src")'`,
        `perl -e 'rename "README.md", ".git/hooks/pre-commit"'`,
        `perl -e 'unlink "/proc/self/cwd/src/a.ts"'`,
        `python3 -c 'import os; fd = os.open("src", os.O_RDONLY); os.unlink("a.ts", dir_fd=fd)'`,
        `cd src && exec 5<. && cd .. && mv /dev/fd/5/a.ts /dev/fd/5/b.ts`,
      ]),
  ],
];
