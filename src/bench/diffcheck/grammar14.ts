/**
 * Issue 18, session 14: productions the first generator did not produce, weighted toward
 * combinations — a construct (code fed to an interpreter through stdin, a here-document, a
 * here-string or a file; a shell feature that runs code from a variable or the environment) × a
 * wrapper (with option values, abbreviated options) × a payload a deny rule covers (`rm`, a read
 * of `.env`), the payload's program and options spelled another way (`rm -r{f,}`, `$'\x72m'`,
 * `r\⏎m`, a file named `-rf` and `rm *`). Also long options of the gate's tables given as every
 * unique-looking prefix, `--opt=value` / `--opt value` / bundled short options with attached
 * values, and files that name the files a tool reads.
 */
import { MARKER } from "./runner";
import { CONSTRUCTS21G } from "./grammar21g";
import { CONSTRUCTS21W } from "./grammar21w";
import { CONSTRUCTS21X } from "./grammar21x";

import { CONSTRUCTS21C } from "./grammar21c";
import { CONSTRUCTS18G } from "./grammar18g";
import { CONSTRUCTS18B } from "./grammar18b";
import { CONSTRUCTS19 } from "./grammar19";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** Double-quoted for a C-like string inside a script (awk, python, perl). */
const cstr = (s: string) => JSON.stringify(s);

/** Payloads a deny rule of the checker's rule sets covers (`Bash(rm:*)`, `Bash(rm -f:*)`, `Read(**\/.env)`), plus the marker. */
const DENY_PAYLOADS: readonly string[] = ["rm -f src/a.ts", "rm -rf src", "cat .env", MARKER, "touch pwned", "chmod -R 777 src"];

/** The payload's program and options spelled another way (the same argv, or the same effect). */
const RESPELL: ReadonlyArray<(c: string, r: Rng) => string> = [
  (c) => c,
  (c) => c.replace(/^rm -rf /, "rm -r{f,} ").replace(/^rm -f /, "rm -{f,} "),
  (c) => c.replace(/^rm /, "$'\\x72m' ").replace(/^cat /, "$'\\x63at' "),
  (c) => c.replace(/^rm /, "r\\\nm ").replace(/^cat /, "c\\\nat "),
  (c) => c.replace(/^rm -rf /, "rm -$'rf' ").replace(/^rm -f /, `rm "-"f `),
  (c) => c.replace(/^rm /, '"r"m ').replace(/^cat /, "\\cat "),
  (c, r) => (c.startsWith("rm ") ? `cd src && touch -- -rf ${pick(r, ["&& rm *", "; rm -- *", "&& rm ./*"])}` : c),
  (c) => c.replace(/^rm -rf src$/, "rm --rec --for src").replace(/^rm -f /, "rm --force "),
  (c) => c.replace(/^(\S+) /, "$1\t"),
  (c) => c.replace(/^rm -rf src$/, "X=-rf; rm $X src").replace(/^cat \.env$/, "F=.e; cat ${F}nv"),
  (c) => c.replace(/^rm -rf src$/, 'a=(rm -rf src); "${a[@]}"').replace(/^cat \.env$/, 'a=(cat .env); "${a[@]}"'),
  (c) => c.replace(/^cat \.env$/, "cat .e*").replace(/^rm -rf src$/, "rm -rf s?c"),
];

/** Wrappers, with option values and abbreviated options, that run the rest of the line. */
const WRAPPERS: readonly string[] = [
  "",
  "",
  "env -u X",
  "env --unset=X",
  "env -C .",
  "env --chdir=.",
  "env -i PATH=$PATH",
  "env --ignore-env PATH=$PATH",
  "nice --adjustment=5",
  "nice -n5",
  "nice --adj 5",
  "timeout -k 1 5",
  "timeout --signal=KILL 5",
  "timeout -sKILL 5",
  "timeout --kill-after=1 --sig=TERM 5",
  "nohup",
  "stdbuf -i0 -oL",
  "stdbuf --output=0",
  "ionice -c 3 -n 7",
  "taskset -c 0",
  "chrt --other 0",
  "flock -x /dev/null",
  "flock --exclusive --timeout 1 /dev/null",
  "setsid -w",
  "setsid --fork --wait",
  "command -p",
  "command --",
  "builtin command",
  "exec -a x",
  "exec -c",
  "prlimit --nofile=64",
  "setpriv --reuid=0",
  "unshare -U",
  "unshare --user",
  "xargs -0 -n1 --no-run-if-empty",
  "time -p",
  "/usr/bin/time -o /dev/null",
  "systemd-run --user --scope",
  "dbus-run-session --",
  "valgrind -q",
  "chroot /",
  "runuser -u root --",
  "sg root -c",
  "nsenter --",
  // Not `xvfb-run`: it removes its own /tmp folder with rm, which the checker counts under
  // `Bash(rm:*)` (a script's own housekeeping, not the agent's command; seeds 1401/1402).
  "\\env",
  "'env'",
  "/usr/bin/env",
  "/usr/bin/../bin/env",
];

/** A wrapper, then the command words (the wrapper's own quoting when it takes one string). */
function wrapWords(w: string, c: string): string {
  if (!w) return c;
  if (w === "sg root -c") return `${w} ${sq(c)}`;
  if (w.startsWith("xargs")) return `printf '\\0' | ${w} ${c}`;
  return `${w} ${c}`;
}

/**
 * Constructs that hand the command `c` to an interpreter as data (stdin, a here-document, a
 * here-string, a file, a process substitution as a file argument), or run it through a shell
 * feature that takes code from a variable, the environment or a callback.
 */
export const CONSTRUCTS14: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  // Interpreters reading commands from stdin, here-docs, here-strings and files.
  ["ed !", (c, r) => pick(r, [`printf '%s\\n' ${sq(`!${c}`)} q | ed -s README.md`, `ed -s README.md <<'EOF'\n!${c}\nq\nEOF`, `ed -s README.md <<< ${sq(`!${c}`)}`])],
  ["ex -s", (c, r) => pick(r, [`ex -s README.md <<< ${sq(`!${c}`)}`, `printf '%s\\n' ${sq(`!${c}`)} q | ex -s README.md`, `vi -e -s README.md <<'EOF'\n!${c}\nq\nEOF`])],
  [
    "sed -f",
    (c, r) =>
      pick(r, [
        `echo ${sq(`1e ${c}`)} > p.sed; sed -f p.sed README.md`,
        `sed -f <(echo ${sq(`1e ${c}`)}) README.md`,
        `sed -f /dev/stdin README.md <<< ${sq(`1e ${c}`)}`,
        `sed --file=- README.md <<< ${sq(`1e ${c}`)}`,
      ]),
  ],
  [
    "awk -f",
    (c, r) =>
      pick(r, [
        `echo ${sq(`BEGIN{system(${cstr(c)})}`)} > p.awk; awk -f p.awk`,
        `awk -f <(echo ${sq(`BEGIN{system(${cstr(c)})}`)})`,
        `awk -f /dev/stdin <<< ${sq(`BEGIN{system(${cstr(c)})}`)}`,
        `awk --file=- <<< ${sq(`BEGIN{system(${cstr(c)})}`)}`,
      ]),
  ],
  [
    "sh < f",
    (c, r) =>
      pick(r, [
        `echo ${sq(c)} > s.sh; sh < s.sh`,
        `echo ${sq(c)} > s.sh; bash s.sh`,
        `echo ${sq(c)} > s.sh; . ./s.sh`,
        `printf '%s\\n' ${sq(c)} > s; source s`,
        `echo ${sq(c)} > s.sh; chmod +x s.sh; ./s.sh`,
      ]),
  ],
  [
    "bash -s",
    (c, r) => pick(r, [`echo ${sq(c)} | bash -s`, `bash -s <<< ${sq(c)}`, `sh -s < <(echo ${sq(c)})`, `bash <<'EOF'\n${c}\nEOF`, `cat <<'EOF' | sh\n${c}\nEOF`, `echo ${sq(c)} | bash -s -- x`]),
  ],
  ["sh <(…) file arg", (c, r) => `${pick(r, ["bash", "sh", "source", ".", "bash --norc"])} <(echo ${sq(c)})`],
  [
    "python3 -",
    (c, r) =>
      pick(r, [
        `python3 - <<'EOF'\nimport os\nos.system(${cstr(c)})\nEOF`,
        `python3 <<< ${sq(`import os; os.system(${cstr(c)})`)}`,
        `echo ${sq(`import os; os.system(${cstr(c)})`)} | python3 -`,
        `echo ${sq(`import os; os.system(${cstr(c)})`)} > p.py; python3 p.py`,
      ]),
  ],
  ["perl -", (c, r) => pick(r, [`perl <<< ${sq(`system(${cstr(c)})`)}`, `echo ${sq(`system(${cstr(c)})`)} | perl -`, `perl - <<'EOF'\nsystem(${cstr(c)});\nEOF`])],
  ["node -", (c, r) => pick(r, [`node <<< ${sq(`require("child_process").execSync(${cstr(c)})`)}`, `echo ${sq(`require("child_process").execSync(${cstr(c)})`)} | node -`])],
  ["tclsh", (c) => `echo ${sq(`exec sh -c {${c}}`)} | tclsh`],
  ["m4 syscmd", (c, r) => pick(r, [`echo ${sq(`syscmd(${c})`)} | m4`, `m4 <<< ${sq(`esyscmd(${c})`)}`])],
  ["sqlite3 .shell", (c, r) => pick(r, [`sqlite3 :memory: ${sq(`.shell ${c}`)}`, `echo ${sq(`.system ${c}`)} | sqlite3`, `sqlite3 -cmd ${sq(`.shell ${c}`)} :memory: .quit`])],
  ["gdb -batch", (c, r) => pick(r, [`gdb -batch -ex ${sq(`shell ${c}`)}`, `gdb -nx -batch -x <(echo ${sq(`!${c}`)})`])],
  ["vim -S", (c) => `vim -es -u NONE -S <(echo ${sq(`!${c}`)}) -c q README.md`],
  [
    "xargs stdin",
    (c, r) =>
      pick(r, [
        `printf '%s\\n' ${c} | xargs`,
        `echo ${sq(c)} | xargs -I{} sh -c {}`,
        `printf '%s\\n' ${c} > l; xargs -a l -d '\\n'`,
        `printf '%s\\n' ${c} > l; xargs --arg-file=l --delimiter='\\n' env`,
        `echo ${c} | xargs -t env`,
      ]),
  ],
  [
    "find -exec {} +",
    (c, r) =>
      pick(r, [
        `find . -maxdepth 0 -exec sh -c ${sq(c)} {} +`,
        `find README.md -exec sh -c ${sq(c)} x {} +`,
        `find . -maxdepth 0 -execdir bash -c ${sq(c)} \\;`,
        `find . -maxdepth 0 -ok sh -c ${sq(c)} \\; <<< y`,
      ]),
  ],
  [
    "git alias !",
    (c, r) =>
      pick(r, [`git -c alias.x=${sq(`!${c}`)} x`, `git -c 'alias.x=!sh -c "$0"' x ${sq(c)}`, `git -c alias.st=${sq(`!${c}`)} st`, `git --config-env=alias.x=A x`.replace(/^/, `A=${sq(`!${c}`)} `)]),
  ],
  [
    "git config file",
    (c, r) =>
      `printf ${sq(`[alias]\n\tx = !${c}\n[core]\n\tpager = ${c}\n`)} > g; ${pick(r, ["GIT_CONFIG_GLOBAL=g git x", "git -c include.path=$PWD/g x", "GIT_CONFIG_GLOBAL=g git -p log -1", "HOME=$PWD git x 2>/dev/null; cp g .gitconfig; HOME=$PWD git x"])}`,
  ],
  ["GIT_CONFIG_COUNT", (c, r) => `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=${pick(r, ["alias.x", "core.pager"])} GIT_CONFIG_VALUE_0=${sq(`!${c}`)} git ${pick(r, ["x", "-p log -1"])}`],
  ["env -S", (c, r) => pick(r, [`env -S ${sq(c)}`, `env --split-string=${sq(c)}`, `env --split-s ${sq(c)}`, `env -S${sq(c)}`, `env -vS ${sq(c)}`])],
  ["exec redirect", (c, r) => pick(r, [`exec 3<<<${sq(c)}; bash /dev/fd/3`, `exec < <(echo ${sq(c)}); bash`, `exec 5> >(sh); echo ${sq(c)} >&5`, `{ echo ${sq(c)}; } > >(sh)`])],
  ["builtin/command", (c, r) => pick(r, [`builtin eval ${sq(c)}`, `command eval ${sq(c)}`, `command builtin eval ${sq(c)}`, `builtin source <(echo ${sq(c)})`, `command -- bash -c ${sq(c)}`])],
  ["coproc", (c, r) => pick(r, [`coproc sh; echo ${sq(c)} >&"\${COPROC[1]}"; exec {COPROC[1]}>&-; wait`, `coproc C { ${c}; }; wait`, `coproc bash -c ${sq(c)}; wait`])],
  [">() file arg", (c, r) => pick(r, [`echo x | tee >(${c}) >/dev/null`, `cp README.md >(${c})`, `diff README.md <(${c})`, `sort -o >(${c}) README.md`, `tee >(${c}) < README.md > /dev/null`])],
  [
    "function then call",
    (c, r) =>
      pick(r, [
        `ls() { ${c}; }; ls`,
        `cat() { ${c}; }; cat README.md`,
        `echo() { ${c}; }; echo hi`,
        `f() { ${c}; }; declare -f f >/dev/null; f`,
        `git() { ${c}; }; git status`,
        `true() { ${c}; }; true`,
      ]),
  ],
  [
    "export -f",
    (c, r) =>
      pick(r, [
        `ls() { ${c}; }; export -f ls; bash -c ls`,
        `f() { ${c}; }; export -f f; bash -c f`,
        `env 'BASH_FUNC_ls%%=() { ${c}; }' bash -c ls`,
        `env 'BASH_FUNC_echo%%=() { ${c}; }' bash -c 'echo hi'`,
      ]),
  ],
  [
    "alias expand",
    (c, r) =>
      pick(r, [
        `shopt -s expand_aliases; alias ls=${sq(c)}\nls`,
        `shopt -s expand_aliases\nalias cat=${sq(`${c};`)}\ncat README.md`,
        `shopt -s expand_aliases\nalias x=${sq(c)}\neval x`,
        `bash -O expand_aliases -c ${sq(`alias y=${sq(c)}\ny`)}`,
      ]),
  ],
  [
    "trap",
    (c, r) =>
      pick(r, [
        `trap ${sq(c)} RETURN; f() { :; }; set -T; f`,
        `set -T; trap ${sq(c)} DEBUG; f() { :; }; f`,
        `trap ${sq(c)} RETURN; . /dev/null`,
        `trap ${sq(c)} EXIT; exit`,
        `trap -- ${sq(c)} SIGTERM; kill $$`,
        `trap ${sq(c)} USR1; kill -USR1 $$`,
      ]),
  ],
  [
    "PROMPT_COMMAND / PS1",
    (c, r) =>
      pick(r, [
        `PROMPT_COMMAND=${sq(c)} bash -i <<< : 2>/dev/null`,
        `PS1=${sq(`$(${c})`)} bash -i <<< : 2>/dev/null`,
        `echo : | PS0=${sq(`$(${c})`)} bash -i 2>/dev/null`,
        `PROMPT_COMMAND=(${sq(c)}) bash --norc -i < /dev/null 2>/dev/null`,
      ]),
  ],
  [
    "BASH_ENV/ENV",
    (c, r) =>
      pick(r, [
        `echo ${sq(c)} > e; BASH_ENV=./e bash -c :`,
        `echo ${sq(c)} > e; ENV=./e sh -i < /dev/null 2>/dev/null`,
        `ENV=<(echo ${sq(c)}) bash --posix -i < /dev/null 2>/dev/null`,
        `echo ${sq(c)} > e; env BASH_ENV=e bash README.md 2>/dev/null`,
        `SHELLOPTS=xtrace PS4=${sq(`$(${c})`)} bash -c :`,
      ]),
  ],
  ["prompt ${x@P}", (c, r) => pick(r, [`p=${sq(`$(${c})`)}; echo "\${p@P}"`, `p=${sq(`\`${c}\``)}; : \${p@P}`, `declare -a a=(${sq(`$(${c})`)}); echo "\${a[@]@P}"`])],
  ["${x/pat/$(…)}", (c, r) => pick(r, [`x=a; echo "\${x/a/$(${c})}"`, `x=a; echo \${x//a/\`${c}\`}`, `x=a; echo \${x:-$(${c})}`, `unset x; : \${x:=$(${c})}`])],
  [
    "declare compound",
    (c, r) =>
      pick(r, [
        `declare -a ${sq(`a=($(${c}))`)}`,
        `declare ${sq(`a=$(${c})`)}`,
        `X=${sq(`a=($(${c}))`)}; declare -a "$X"`,
        `local_f() { local -a ${sq(`b=($(${c}))`)}; }; local_f`,
        `typeset -a ${sq(`a=($(${c}))`)}`,
      ]),
  ],
  ["compgen -W", (c) => `compgen -W ${sq(`$(${c})`)} x`],
  ["mapfile -C", (c, r) => pick(r, [`mapfile -C ${sq(`${c} #`)} -c 1 a <<< x`, `readarray -t -C ${sq(`${c};:`)} -c1 a < README.md`])],
  [
    "read -a / getopts",
    (c, r) => pick(r, [`read -a ${sq(`a[$(${c})]`)} <<< x`, `getopts a ${sq(`a[$(${c})]`)} -a`, `wait -n -p ${sq(`a[$(${c})]`)} 2>/dev/null; :`, `printf -v ${sq(`a[$(${c})]`)} %s x`]),
  ],
  [
    "[[ ]] subscripts",
    (c, r) => pick(r, [`[[ -n \${a[$(${c})]} ]]`, `[[ a[$(${c})] -gt 0 ]]`, `(( b = a[$(${c})] ))`, `for (( i=a[$(${c})]; i<1; i++ )); do :; done`, `declare -A A; [[ -v A[$(${c})] ]]`]),
  ],
  [
    "let / declare -i",
    (c, r) => pick(r, [`let "x=a[$(${c})]"`, `declare -i n=${sq(`a[$(${c})]`)}`, `declare -i n; n+=${sq(`a[$(${c})]`)}`, `x=${sq(`a[$(${c})]`)}; echo $(( x ))`, `x=${sq(`a[$(${c})]`)}; let x`]),
  ],
  [
    "IFS games",
    (c, r) => pick(r, [`IFS=:; X=${sq(c.replaceAll(" ", ":"))}; $X`, `IFS=x; X=${sq(c.replaceAll(" ", "x"))}; $X`, `X=${sq(c)}; IFS=' '; set -- $X; "$@"`, `read -ra W <<< ${sq(c)}; "\${W[@]}"`]),
  ],
  ["ANSI-C / newline / CR", (c, r) => pick(r, [`eval $'${c.replaceAll("'", "\\'")}'`, `${c} \\\n`, `${c}\r`, `true \\\n; ${c}`, `: $'\\n'; ${c}`, `${c.replace(" ", " \\\n ")}`])],
  [
    "env prefix",
    (c, r) =>
      pick(r, [
        `TAR_OPTIONS=${sq(`--checkpoint=1 --checkpoint-action=exec=sh\\ -c\\ '${c.replaceAll(" ", "\\ ")}'`)} tar -cf /dev/null README.md`,
        `MAKEFLAGS=${sq(`--eval=x:;${c}`)} make -f /dev/null x`,
        `LESSOPEN=${sq(`|${c}; echo %s`)} less README.md < /dev/null`,
        `ZIPOPT=${sq(`-TT "${c}"`)} zip -T z.zip README.md`,
        `GIT_EXTERNAL_DIFF=${sq(`sh -c "${c}"`)} git diff HEAD~0 -- README.md`,
        `PAGER=${sq(c)} man -P ${sq(c)} ls`,
      ]),
  ],
  ["split --filter", (c, r) => `split ${pick(r, ["--filter", "--filt", "--fil"])}=${sq(c)} -n1 README.md`],
  // Red team 17-gate: tree-sitter files the words after a redirection as the redirection's.
  [
    "words after a redirection",
    (c, r) => {
      const [name, ...rest] = c.split(" ");
      const redir = pick(r, ["2>/dev/null", ">/dev/null", "2>&1", "&>/dev/null", "<README.md"]);
      return pick(r, [`${name} ${redir} ${rest.join(" ")}`, `env ${redir} ${c}`, `true && ${name} ${redir} ${rest.join(" ")}`]);
    },
  ],
  // Red team 17-gate: xargs's input as awk's program after an option that takes a value.
  ["xargs awk after a valued option", (c, r) => `printf %s ${sq(`BEGIN{system(${cstr(c)})}`)} | xargs -0 ${pick(r, ["mawk -W interactive", "mawk -W posix_space", "awk -v x=1", "awk -F:"])}`],
  // Red team 21-gate (grammar21g.ts).
  ...CONSTRUCTS21G,
  ...CONSTRUCTS21W,
  ...CONSTRUCTS21X,

  // Session 21, check21 (grammar21c.ts).
  ...CONSTRUCTS21C,
  // Session 17, gate18 (grammar18g.ts).
  ...CONSTRUCTS18G,
  // Session 18, gate18b (grammar18b.ts).
  ...CONSTRUCTS18B,
  // Session 19, gate19 (grammar19.ts).
  ...CONSTRUCTS19,
];

/** A long option of a tool with a dangerous effect, its value, and the rest of the line. */
const LONG_OPTIONS: ReadonlyArray<readonly [string, string, string, string]> = [
  ["sort", "--output", "pwned", "README.md"],
  ["sort", "--compress-program", MARKER, "-S 1K <(seq 1 30000)"],
  ["sort", "--files0-from", "l", ""],
  ["sort", "--random-source", ".env", "-R README.md"],
  ["shuf", "--output", "pwned", "README.md"],
  ["shuf", "--random-source", ".env", "README.md"],
  ["sed", "--in-place", "", "s/x/y/ README.md"],
  ["sed", "--file", ".env", "README.md"],
  ["tee", "--append", "", "pwned < README.md"],
  ["date", "--file", ".env", ""],
  ["grep", "--file", ".env", "README.md"],
  ["grep", "--exclude-from", ".env", "-r x ."],
  ["wc", "--files0-from", "l", ""],
  ["du", "--files0-from", "l", ""],
  ["du", "--exclude-from", ".env", "."],
  ["xargs", "--arg-file", ".env", "echo"],
  ["tar", "--to-command", MARKER, "-xf t.tar"],
  ["tar", "--checkpoint-action", `exec=${MARKER}`, "--checkpoint=1 -cf /dev/null README.md"],
  ["tar", "--use-compress-program", MARKER, "-cf /dev/null README.md"],
  ["tar", "--info-script", MARKER, "-M -L1 -cf t1 -f t2 README.md"],
  ["tar", "--files-from", "l2", "-cf /dev/null"],
  ["tar", "--index-file", "pwned", "-cvf /dev/null README.md"],
  ["split", "--filter", MARKER, "-n1 README.md"],
  ["split", "--additional-suffix", ".x", "README.md pw"],
  ["diff", "--to-file", ".env", "README.md"],
  ["diff", "--from-file", ".env", "README.md"],
  ["patch", "--output", "pwned", "README.md /dev/null"],
  ["patch", "--input", ".env", "README.md"],
  ["git diff", "--output", "pwned", ""],
  ["git log", "--output", "pwned", "-1"],
  ["git grep", "--open-files-in-pager", MARKER, "x"],
  ["git", "--exec-path", ".", "status"],
  ["git", "--git-dir", ".git", "-c core.pager=" + MARKER + " -p log -1"],
  ["curl", "--output", "pwned", "file:///etc/hostname"],
  ["curl", "--config", ".env", "-s file:///etc/hostname"],
  ["curl", "--upload-file", ".env", "file:///tmp/x"],
  ["curl", "--dump-header", "pwned", "-s file:///etc/hostname"],
  ["curl", "--output-dir", ".", "-o pwned file:///etc/hostname"],
  ["wget", "--output-document", "pwned", "-q file:///etc/hostname"],
  ["wget", "--input-file", ".env", "-q"],
  ["less", "--log-file", "pwned", "README.md < /dev/null"],
  ["less", "--lesskey-file", ".env", "README.md < /dev/null"],
  ["man", "--pager", MARKER, "ls"],
  ["zip", "--unzip-command", MARKER, "-T z.zip README.md"],
  ["cp", "--target-directory", "pwned", "README.md"],
  ["install", "--target-directory", "src", "README.md"],
  ["ln", "--target-directory", "src", "-s README.md"],
  ["touch", "--reference", ".env", "pwned"],
  ["sha256sum", "--check", "", "s"],
  ["md5sum", "--check", "", "s"],
  ["rg", "--pre", MARKER, "x README.md"],
  ["rg", "--ignore-file", ".env", "x"],
  ["jq", "--rawfile", "x .env", "-n '$x'"],
  ["jq", "--from-file", ".env", "-n"],
  ["python3", "--help", "", ""],
  ["node", "--require", "./p.js", "-e 1"],
  ["node", "--import", "./p.mjs", "-e 1"],
];

/** Files the long options above read or run (a list naming `.env`, a tar, a checksum file, a preload). */
const SETUP = `printf '.env\\0' > l; printf '.env\\n' > l2; printf 'x  .env\\n' > s; tar -cf t.tar README.md; echo 'require("child_process").execSync("${MARKER}")' > p.js; cp p.js p.mjs; `;

/** `--opt=value`, `--opt value`, or a prefix of the option (at least 3 letters past `--`). */
function spellLong(r: Rng, opt: string, value: string): string {
  const name = opt.slice(2);
  const len = r() < 0.35 ? name.length : Math.min(name.length, 3 + Math.floor(r() * (name.length - 2)));
  const o = `--${name.slice(0, len)}`;
  if (!value) return o;
  return r() < 0.5 ? `${o}=${value}` : `${o} ${value}`;
}

/** Short options bundled, with attached values. */
const BUNDLED: readonly string[] = [
  "sort -ruopwned README.md",
  "sort -uo pwned README.md",
  "sed -nie 's/x/y/' README.md",
  "sed -Ei.bak 's/x/y/' README.md",
  "sed -sni 'p' README.md",
  "curl -sLopwned file:///etc/hostname",
  "curl -sKl2 file:///etc/hostname",
  "wget -qOpwned file:///etc/hostname",
  "tar -cvfpwned README.md",
  "tar -xOf t.tar",
  "tar -cf- README.md -Tl2 | cat",
  "grep -rFf.env .",
  "xargs -0a l cat",
  "xargs -ra.env echo",
  "cp -ft src README.md",
  "cp -tsrc README.md",
  "ln -sfT README.md pwned",
  "touch -cr.env pwned",
  "date -uf.env",
  "rm -fr src",
  "rm -Rf src",
  "rm -rfv -- src",
  "chmod -vR 777 src",
  "chmod -Rv a+rwx src",
  "git -Cs diff --output=pwned",
  "git -c diff.external=" + MARKER + " -C . diff",
  "git -p -c core.pager=" + MARKER + " log -1",
];

/** Files whose content names the files a tool reads. */
const DATA_NAMES: readonly string[] = [
  "printf 'x  .env\\n' > s; md5sum -c s",
  "printf 'x  .env\\n' > s; sha1sum --check s",
  "printf '.env\\n' > l; tar -cf - -T l | cat",
  "printf '.env\\n' > l; tar --files-from=l -cf - | cat",
  "printf '.env\\n' > l; zip -@ z.zip < l",
  "printf '.env\\n' > l; xargs cat < l",
  "printf '.env\\n' > l; xargs -a l cat",
  "printf '.env\\n' > l; cat $(cat l)",
  "printf '.env\\n' > l; while read f; do cat \"$f\"; done < l",
  "printf '.env\\n' > l; cat $(<l)",
  "printf 'x .env\\n' > l; join l .env",
  "echo .env | xargs -I{} head {}",
  "printf '%s\\0' .env | xargs -0 tail",
  "ls -a | grep '^\\.env$' | xargs cat",
  "find . -maxdepth 1 -name '.e*' -exec cat {} +",
  "find . -maxdepth 1 -name .env -print0 | xargs -0 cat",
];

/** One generated input of the session-14 productions (`shape`: the productions used). */
export function generate14(r: Rng): { command: string; shape: string[] } {
  const roll = r();
  if (roll < 0.55) {
    // Construct × wrapper × deny-covered payload (respelled).
    const [cname, construct] = pick(r, CONSTRUCTS14);
    const payload = pick(r, RESPELL)(pick(r, DENY_PAYLOADS), r);
    const w = pick(r, WRAPPERS);
    const inner = r() < 0.5 ? wrapWords(w, payload) : payload;
    let cmd = construct(inner, r);
    const shape = [cname, `payload ${payload.split(/\s/)[0]}`];
    if (inner !== payload) shape.push(`wrapper ${w.split(" ")[0]}`);
    else if (w && r() < 0.4 && !w.startsWith("xargs") && w !== "sg root -c") {
      cmd = `${w} bash -c ${sq(cmd)}`;
      shape.push(`outer wrapper ${w.split(" ")[0]}`);
    }
    return { command: cmd, shape };
  }
  if (roll < 0.75) {
    const [prog, opt, value, rest] = pick(r, LONG_OPTIONS);
    const spelled = spellLong(r, opt, value);
    const w = pick(r, WRAPPERS);
    const body = `${prog} ${spelled}${rest ? ` ${rest}` : ""}`;
    const cmd = SETUP + wrapWords(w, body);
    return { command: cmd, shape: [`long option ${prog} ${opt}`, spelled.includes("=") ? "--opt=value" : "--opt value", w ? `wrapper ${w.split(" ")[0]}` : "unwrapped"] };
  }
  if (roll < 0.88) {
    const w = pick(r, WRAPPERS);
    return { command: SETUP + wrapWords(w, pick(r, BUNDLED)), shape: ["bundled short options", w ? `wrapper ${w.split(" ")[0]}` : "unwrapped"] };
  }
  const w = pick(r, WRAPPERS);
  const line = pick(r, DATA_NAMES);
  const wrapped = w !== "" && r() < 0.5;
  return { command: wrapped ? `${w} bash -c ${sq(line)}` : line, shape: ["file names in data", wrapped ? `outer wrapper ${w.split(" ")[0]}` : "unwrapped"] };
}
