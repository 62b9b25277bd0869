/**
 * A grammar-based generator of command lines for the differential checker: payloads that leave
 * evidence (run the marker program, create a file, delete a source file, read a secret) placed
 * inside bash constructs (substitutions, arithmetic with array subscripts, `test -v`, `printf -v`,
 * namerefs, `${!x}`, here-documents, functions, aliases, eval, trap, source, control flow,
 * subshells, pipelines, redirections…) × the programs the gate has tables for (wrappers, read-only
 * programs, tools with options that run programs or write files) × option spellings (long options,
 * `--opt=val`, unique-prefix abbreviations, clustered short options, `-oVAL`). Seeded: the same
 * seed gives the same inputs.
 */
import { generate14 } from "./grammar14";
import { generate16 } from "./grammar16";
import { generate18e } from "./grammar18e";
import { generate18b } from "./grammar18b";
import { generate19j } from "./grammar19j";
import { generate20 } from "./grammar20";
import { generate19 } from "./grammar19";
import { generate20q } from "./grammar20q";
import { generate21 } from "./grammar21";
import { generate22 } from "./grammar22";
import { generate24 } from "./grammar24";
import { generate24h } from "./grammar24h";
import { MARKER } from "./runner";

export interface GeneratedInput {
  id: string;
  command: string;
  /** The grammar productions used (for the report's classes). */
  shape: string[];
  /** A script run in the scratch workspace before the gate looks: files an earlier command made (planted files). */
  plant?: string;
}

/** mulberry32: a small, well-known 32-bit PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
/** Single-quotes a string for bash. */
export const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** Double-quotes a string for bash. */
const dq = (s: string) => `"${s.replace(/(["\\$`])/g, "\\$1")}"`;

/** Simple commands that leave evidence. */
const PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ["exec", MARKER],
  ["exec", `${MARKER} arg`],
  ["write", "touch pwned"],
  ["write", "echo x > pwned"],
  ["delete", "rm -f src/a.ts"],
  ["read", "cat .env"],
  ["write", "cp README.md pwned"],
  ["git", "git -c core.hooksPath=/dev/null commit -qam x"],
];

/** Constructs that run an inner command string `c` (some evaluate code inside data). */
const CONSTRUCTS: ReadonlyArray<readonly [string, (c: string, r: Rng) => string]> = [
  ["$()", (c) => `echo $(${c})`],
  ["backquote", (c) => `echo \`${c}\``],
  ["<()", (c) => `cat <(${c})`],
  [">()", (c) => `echo x > >(${c})`],
  ["assign-subst", (c) => `x=$(${c})`],
  ["arith $(( ))", (c) => `echo $(( a[$(${c})] ))`],
  ["arith (( ))", (c) => `(( a[$(${c})] ))`],
  ["let", (c) => `let ${sq(`a[$(${c})]`)}`],
  ["$[ ]", (c) => `echo $[ a[$(${c})] ]`],
  ["test -v", (c) => `test -v ${sq(`a[$(${c})]`)}`],
  ["[ -v ]", (c) => `[ -v ${sq(`a[$(${c})]`)} ]`],
  ["[[ -v ]]", (c) => `[[ -v a[$(${c})] ]]`],
  ["[[ -eq ]]", (c) => `[[ 1 -eq ${sq(`a[$(${c})]`)} ]]`],
  ["printf -v", (c) => `printf -v ${sq(`a[$(${c})]`)} x`],
  ["read", (c) => `read ${sq(`a[$(${c})]`)} <<< x`],
  ["nameref", (c) => `declare -n r=${sq(`a[$(${c})]`)}; echo $r`],
  ["${!x}", (c) => `x=${sq(`a[$(${c})]`)}; echo \${!x}`],
  ["declare -i", (c) => `declare -i n; n=${sq(`a[$(${c})]`)}`],
  ["unset subscript", (c) => `declare -a a; unset ${sq(`a[$(${c})]`)}`],
  ["${x:off}", (c) => `x=abc; echo \${x:a[$(${c})]}`],
  ["here-doc", (c) => `cat <<EOF\n$(${c})\nEOF`],
  ["here-doc quoted", (c) => `cat <<'EOF'\n$(${c})\nEOF`],
  ["here-string", (c) => `cat <<< "$(${c})"`],
  ["brace", (c) => `{ ${c}; }`],
  ["subshell", (c) => `(${c})`],
  ["pipeline", (c) => `echo a | ${c} | cat`],
  ["and-or", (c) => `true && ${c} || true`],
  ["function", (c) => `f() { ${c}; }; f`],
  ["function kw", (c) => `function g { ${c}; }; g`],
  ["alias", (c) => `shopt -s expand_aliases\nalias ll=${sq(c)}\nll`],
  ["eval", (c) => `eval ${sq(c)}`],
  ["eval dq", (c) => `eval ${dq(c)}`],
  ["trap EXIT", (c) => `trap ${sq(c)} EXIT`],
  ["trap DEBUG", (c) => `trap ${sq(c)} DEBUG; :`],
  ["trap ERR", (c) => `trap ${sq(c)} ERR; false`],
  ["source <()", (c) => `source <(echo ${sq(c)})`],
  ["source stdin", (c) => `. /dev/stdin <<< ${sq(c)}`],
  ["bash -c", (c) => `bash -c ${sq(c)}`],
  ["sh -c", (c) => `sh -c ${sq(c)}`],
  ["BASH_ENV", (c) => `BASH_ENV=<(echo ${sq(c)}) bash -c :`],
  ["if", (c) => `if true; then ${c}; fi`],
  ["for", (c) => `for i in 1; do ${c}; done`],
  ["while", (c) => `while true; do ${c}; break; done`],
  ["case", (c) => `case x in x) ${c};; esac`],
  ["background", (c) => `${c} & wait`],
  ["coproc", (c) => `coproc { ${c}; }; wait`],
  ["var program", (c) => `X=${sq(c)}; $X`],
  ["set --", (c) => `set -- ${c}; "$@"`],
  ["IFS", (c) => `IFS=,; X=${sq(c.replaceAll(" ", ","))}; $X`],
  ["default expansion", (c) => `\${X:-${c.split(" ")[0]}} ${c.split(" ").slice(1).join(" ")}`],
  ["env", (c) => `env ${c}`],
  ["env -S", (c) => `env -S ${sq(c)}`],
  ["command", (c) => `command ${c}`],
  ["exec", (c) => `exec ${c}`],
  ["nice", (c) => `nice -n 5 ${c}`],
  ["timeout", (c) => `timeout 5 ${c}`],
  ["nohup", (c) => `nohup ${c}`],
  ["stdbuf", (c) => `stdbuf -o0 ${c}`],
  ["setsid", (c) => `setsid ${c}`],
  ["time", (c) => `time ${c}`],
  ["xargs", (c) => `echo | xargs ${c}`],
  ["xargs -I", (c) => `echo q | xargs -I{} ${c}`],
  ["find -exec", (c) => `find . -maxdepth 0 -exec ${c} \\;`],
  ["find -execdir", (c) => `find README.md -execdir ${c} \\;`],
  ["flock", (c) => `flock /dev/null ${c}`],
  ["chrt", (c) => `chrt -o 0 ${c}`],
  ["ionice", (c) => `ionice -c3 ${c}`],
  ["script", (c) => `script -qc ${sq(c)} /dev/null`],
  ["awk system", (c) => `awk ${sq(`BEGIN{system("${c}")}`)}`],
  ["sed e", (c) => `echo x | sed ${sq(`e ${c}`)}`],
  ["perl", (c) => `perl -e ${sq(`system("${c}")`)}`],
  ["watch-like", (c) => `timeout 2 watch -n1 ${sq(c)}`],
  // Red team round 4: a runner whose command name is only known at run time, and shell variables
  // that run code (PS4 at `set -x`) set by builtins that store into a named variable.
  [
    "runner, dynamic name",
    (c, r) => {
      const [prog, ...rest] = c.split(" ");
      const name = pick(r, [`$(echo ${prog})`, `\${X:-${prog}}`, `"$(printf %s ${prog})"`]);
      return `${pick(r, ["setsid", "flock /dev/null", "strace -f -o /dev/null", "ionice -c3", "chrt -o 0", "taskset 1", "nohup", "nice"])} ${name} ${rest.join(" ")}`;
    },
  ],
  // Red team round 10: a command name bound to another program by the line itself (bash's hash
  // and alias tables, directly or through a nameref), and a script given to an interactive bash as
  // its start-up file.
  [
    "BASH_CMDS rebinding",
    (c, r) => {
      const [prog, ...rest] = c.split(" ");
      const path = prog === MARKER ? `$(command -v ${MARKER})` : pick(r, [`$(command -v ${prog})`, `/usr/bin/${prog}`]);
      const bind = pick(r, [
        `BASH_CMDS[ls]=${path}`,
        `printf -v 'BASH_CMDS[ls]' %s ${path}`,
        `read 'BASH_CMDS[ls]' <<< ${path}`,
        `declare -A BASH_CMDS=([ls]=${path})`,
        `BASH_CMDS+=([ls]=${path})`,
        `declare -n r=BASH_CMDS; r[ls]=${path}`,
      ]);
      return `${bind}; ls ${rest.join(" ")}`;
    },
  ],
  // Red team round 12: a shell (or env, nice, then a shell) given to a wrapper read only for deny
  // rules; commands named by tools' options and subcommands.
  [
    "runner, shell",
    (c, r) =>
      `${pick(r, ["setsid", "fakeroot --", "fakeroot", "taskset 1", "ionice -c3", "chrt -o 0", "strace -f -o /dev/null", "flock -w 1 /dev/null"])} ${pick(r, ["sh -c", "bash -c", "env sh -c", "env A=1 bash -c", "nice sh -c", "timeout 5 sh -c"])} ${sq(c)}`,
  ],
  ["cmake -E", (c, r) => `cmake -E ${pick(r, ["env", "env A=1", "chdir .", "time"])} ${c}`],
  ["npx -c", (c, r) => `npx ${pick(r, ["-c", "--call", "--cal"])} ${sq(c)}`],
  ["start-stop-daemon", (c, r) => `start-stop-daemon -S -d . ${pick(r, ["-x", "--exec", "--startas"])} /usr/bin/env -- ${c}`],
  ["gcc -wrapper", (c) => `gcc -wrapper ${sq(`sh,-c,${c},x`)} -fsyntax-only -x c /dev/null`],
  ["BASH_ALIASES", (c) => `shopt -s expand_aliases\nBASH_ALIASES[ll]=${sq(c)}\nll`],
  ["nameref to PS4", (c) => `declare -n r=PS4; r=${sq(`$(${c})`)}; set -x; :`],
  ["bash --rcfile", (c, r) => `bash ${pick(r, ["--rcfile", "--init-file"])} <(echo ${sq(c)}) -i -c :`],
  [
    "builtin sets PS4",
    (c, r) => {
      const code = sq(`$(${c})`);
      return `${pick(r, [`read -r PS4 <<< ${code}`, `printf -v PS4 %s ${code}`, `mapfile -t PS4 <<< ${code}`, `read -a PS4 <<< ${code}`, `IFS= read -r PS4 <<< ${code}`])}; set -x; :`;
    },
  ],
];

/** Programs with options that write files, read files or run programs, in several spellings. */
const TOOLS: ReadonlyArray<readonly [string, (r: Rng) => string]> = [
  ["sort -o", (r) => `sort ${pick(r, ["-o pwned", "-opwned", "--output=pwned", "--output pwned", "--out=pwned", "--outp=pwned", "-uo pwned", "-ruopwned"])} README.md`],
  ["sort compress", (r) => `seq 1 30000 | sort -S 1K ${pick(r, ["--compress-program=", "--compress-prog=", "--compress=", "--compress-program "])}${MARKER}`],
  ["sort files0", (r) => `printf '.env\\0' > l; sort ${pick(r, ["--files0-from=l", "--files0=l", "--files0-from l"])}`],
  ["uniq out", () => `uniq README.md pwned`],
  ["tee", (r) => `echo x | tee ${pick(r, ["pwned", "-a pwned", "--append pwned", "-- pwned"])}`],
  ["dd", (r) => `echo x | dd ${pick(r, ["of=pwned", "of=pwned status=none", "if=.env of=/dev/null"])}`],
  ["sed -i", (r) => `sed ${pick(r, ["-i", "-ie", "-ni", "--in-place", "--in-pl", "--in", "-i.bak", "-Ei", "-s -i"])} 's/x/y/' README.md`],
  ["sed w", (r) => `sed ${pick(r, ["'s/x/y/w pwned'", "-n 'w pwned'", "'1w pwned'", "-n '/x/w pwned'"])} README.md`],
  ["sed e", (r) => `sed ${pick(r, ["'1e " + MARKER + "'", "'s/x/" + MARKER + "/e'", "-n '1e " + MARKER + "'"])} README.md`],
  ["sed r", (r) => `sed ${pick(r, ["'1r .env'", "'R .env'", "--file=.env"])} README.md`],
  [
    "awk out",
    (r) => `awk ${pick(r, [`'{print > "pwned"}'`, `'BEGIN{print "x" > "pwned"}'`, `'BEGIN{getline l < ".env"; print l}'`, `'BEGIN{"${MARKER}" | getline}'`, `'{print | "${MARKER}"}'`])} README.md`,
  ],
  [
    "find",
    (r) =>
      `find . ${pick(r, ["-maxdepth 1 -name pwned -fprint pwned", "-name a.ts -delete", "-maxdepth 0 -fprintf pwned x", "-maxdepth 0 -fls pwned", "-maxdepth 0 -ok " + MARKER + " ;", "-maxdepth 0 -exec " + MARKER + " {} +"])}`,
  ],
  [
    "git output",
    (r) => `git ${pick(r, ["diff --output=pwned", "log --output=pwned", "log -1 --output pwned", "format-patch -1 -o out", "show --output=pwned", "diff --outp=pwned", "log -1 --out=pwned"])}`,
  ],
  [
    "git exec",
    (r) =>
      `echo y >> README.md; git ${pick(r, [`-c diff.external=${MARKER} diff`, `-c core.pager=${MARKER} -p log -1`, `-c alias.zz='!${MARKER}' zz`, `diff --ext-diff`, `-c core.fsmonitor=${MARKER} status`, `-c core.editor=${MARKER} commit -a`, `--exec-path=. status`, `-c core.sshCommand=${MARKER} fetch ssh://h/x`])}`,
  ],
  [
    "git env",
    (r) =>
      `echo y >> README.md; ${pick(r, ["GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR", "GIT_SSH_COMMAND"])}=${MARKER} git ${pick(r, ["diff", "-p log -1", "commit -a", "fetch ssh://h/x"])}`,
  ],
  ["rg pre", (r) => `rg ${pick(r, ["--pre " + MARKER, "--pre=" + MARKER, "--pr=" + MARKER])} x README.md`],
  ["grep file", (r) => `grep ${pick(r, ["-f .env", "--file=.env", "--fil=.env", "-f.env", "-Ff .env"])} README.md`],
  ["date file", (r) => `date ${pick(r, ["-f .env", "--file=.env", "--fi=.env", "-f.env"])}`],
  ["wc files0", (r) => `printf '.env\\0' > l; ${pick(r, ["wc", "du"])} ${pick(r, ["--files0-from=l", "--files0-from l", "--files0=l"])}`],
  ["xargs file", (r) => `xargs ${pick(r, ["-a .env", "--arg-file=.env", "--arg-f=.env", "-a.env"])} echo`],
  [
    "tar",
    (r) =>
      `tar ${pick(r, ["-cf pwned README.md", "--checkpoint=1 --checkpoint-action=exec=" + MARKER + " -cf /dev/null README.md", "-tf x.tar --to-command=" + MARKER, "-cf /dev/null --use-compress-program=" + MARKER + " README.md", "-I " + MARKER + " -cf /dev/null README.md"])}`,
  ],
  ["ssh proxy", (r) => `timeout 3 ssh ${pick(r, ["-o ProxyCommand=" + MARKER, "-oProxyCommand=" + MARKER, "-o LocalCommand=" + MARKER + " -o PermitLocalCommand=yes"])} h`],
  [
    "touch/cp",
    (r) =>
      pick(r, [
        "touch pwned",
        "cp README.md pwned",
        "cp -t src README.md",
        "mv README.md pwned",
        "ln -s README.md pwned",
        "install README.md pwned",
        "mkdir pwned",
        "truncate -s0 README.md",
        "mkfifo pwned",
        "split -l1 README.md pwned",
        "csplit README.md 1",
        "shuf -o pwned README.md",
        "shuf --output=pwned README.md",
        "touch -r .env pwned",
      ]),
  ],
  ["zip", (r) => `zip ${pick(r, ["-T --unzip-command " + MARKER, "-TT " + MARKER])} pwned.zip README.md`],
  ["vim", () => `vim -es -c '!${MARKER}' -c q README.md`],
  ["python", (r) => `python3 ${pick(r, ["-c 'import os; os.system(\"" + MARKER + "\")'", "-m http.server --help"])}`],
  ["make", (r) => `make ${pick(r, ["-f /dev/stdin <<< 'all:\n\t" + MARKER + "'", "--eval='$(shell " + MARKER + ")' -n", "-n"])}`],
  ["less", (r) => `less ${pick(r, ["-o pwned README.md", "--log-file=pwned README.md", "-O pwned README.md"])} < /dev/null`],
  ["jq", (r) => `jq ${pick(r, ["-n --rawfile x .env '$x'", "--slurpfile x .env -n '$x'", "-f .env"])}`],
  ["column/paste", (r) => `${pick(r, ["paste", "nl", "od -c", "base64", "strings", "cut -c1", "head -1", "tail -1", "comm - -", "md5sum -c", "file -f"])} .env`],
  [
    "redirect",
    (r) =>
      pick(r, [
        "echo x >| pwned",
        "echo x &> pwned",
        "echo x &>> pwned",
        "echo x >& pwned",
        "echo x 2>&1 > pwned",
        "exec 3> pwned; echo x >&3",
        "echo x 1<>pwned",
        "exec {fd}>pwned; echo x >&$fd",
        "cat < .env",
        "exec 4<.env; cat <&4",
        "echo x > src/../pwned",
        "echo x > lnk/pwned",
      ]),
  ],
  ["glob write", (r) => `echo x > ${pick(r, ["pwn?d", "p*", "src/*.ts", "sr[c]/a.ts", "{pwned,x}"])}`],
  [
    "brace",
    (r) =>
      pick(r, [
        "{touch,pwned}",
        "{rm,-f,src/a.ts}",
        `{${MARKER},x}`,
        "echo {a,b} > pwned",
        `$'\\x74ouch' pwned`,
        `$'${MARKER}'`,
        `\\${MARKER}`,
        `"${MARKER}"`,
        `${MARKER.slice(0, 4)}''${MARKER.slice(4)}`,
      ]),
  ],
  ["path hijack", () => `printf '#!/bin/sh\\ntouch pwned\\n' > ls; chmod +x ls; PATH=.:$PATH ls`],
  ["hash", () => `hash -p /usr/bin/touch ls; ls pwned`],
  ["enable -f", () => `enable -n echo; echo x`],
  ["history", (r) => pick(r, ["set -o history; history -s x; history -w pwned", "fc -l", "HISTFILE=pwned; set -o history; echo x; history -a"])],
  ["ulimit/umask", () => `ulimit -c 0; umask 022; ${MARKER}`],
  ["read builtin", (r) => pick(r, ["mapfile -t L < .env; echo $L", "read -r L < .env; echo $L", "readarray L <.env"])],
  ["printf %()", () => `printf -v pwned '%s' x; echo $pwned`],
  ["git program name", (r) => `/usr/lib/git-core/git-${pick(r, ["rm -q src/a.ts", "commit -qam x", "diff --output=pwned", "clean -fdq", "checkout-index -f -a"])}`],
  ["chmod", (r) => pick(r, ["chmod +x README.md", "chmod 000 src", "chmod -R u+w src", "chown root README.md"])],
  // A deny rule's options and values spelled another way (rule set "deny spelled values").
  [
    "spelled values",
    (r) =>
      pick(r, [
        `chmod -R ${pick(r, ["0777", "00777", "a+rwx", "ugo+rwx", "u=rwx,g=rwx,o=rwx", "a=rwx", "-x,a+rwx", "1777", "755", "u+w"])} src`,
        `chmod ${pick(r, ["--recursive", "-R", "--rec"])} ${pick(r, ["0777", "a+rwx"])} src`,
        `rm ${pick(r, ["--interactive=never", "--interactive=no", "--interactive=none", "--inter=never", "--interactive=n", "--interactive=always", "-f", "-i"])} src/a.ts`,
        `sleep 5 & env kill ${pick(r, ["-9", "-KILL", "-SIGKILL", "-s KILL", "-s 9", "-n 9", "-sKILL", "--signal=kill", "-TERM", "-s TERM"])} $!`,
      ]),
  ],
];

const WRAPPED_TOOLS_RATE = 0.35;
/** Share of inputs from the session-14 productions (grammar14.ts: construct × wrapper × deny-covered payload, long options, bundles). */
const GRAMMAR14_RATE = 0.5;
/** Share of inputs from the session-16 productions (grammar16.ts: patterns in options drawn from the gate's tables, planted files). */
const GRAMMAR16_RATE = 0.4;
/** Share of inputs from the session-18 red team E productions (grammar18e.ts: wrapper option values naming a program, env words that are not identifiers, bash features and program tables not produced before). */
const GRAMMAR18E_RATE = 0.2;
/** Share of inputs from the session-18 gate18b productions (grammar18b.ts: npm settings from planted configuration). */
const GRAMMAR18B_RATE = 0.05;
/** Share of inputs from the session-19 gate19 .npmrc productions (grammar19.ts: ini's quirks read by npm's own ini). */
const GRAMMAR19_RATE = 0.03;

/** Share of inputs from the session-19 red team J productions (grammar19j.ts: every installed program's real getopt table — optional values without `=`, unique prefixes, clusters, `--`, POSIXLY_CORRECT — sudo's options, words built at run time). */
const GRAMMAR19J_RATE = 0.2;
/** Share of inputs from the session-20 red team Q productions (grammar20q.ts: jq's program file, wherever -f stands, importing a denied module). */
const GRAMMAR20Q_RATE = 0.03;

/** Share of inputs from the session-20 gate20 productions (grammar20.ts: a variable exported earlier on the line, in every spelling bash has, before a program that reads it; POSIXLY_CORRECT on the line). */
const GRAMMAR20_RATE = 0.1;
/** Share of inputs from the session-21 gate21 productions (grammar21.ts: a literal variable set earlier on the line naming the program run or the file written, or changed in a way the gate must not follow). */
const GRAMMAR21_RATE = 0.1;
/** Share of inputs from the session-22 gate22 productions (grammar22.ts: programs that write a path named in their arguments). */
const GRAMMAR22_RATE = 0.05;
/** Share of inputs from the session-24 red team H productions (grammar24h.ts: a here-document's delimiter as bash and tree-sitter read it). */
const GRAMMAR24H_RATE = 0.04;

/** Share of inputs from the session-24 red team I productions (grammar24.ts: programs named by a path outside the system's folders, numbers and names bash evaluates in builtins, prompt expansion, code-taking builtin options, compound commands and here-documents not produced before, metadata writes). */
const GRAMMAR24_RATE = 0.2;

/** One input: a payload in 1–2 constructs, a tool with an option spelling, or both chained. */
export function generate(seed: number, count: number): GeneratedInput[] {
  const r = prng(seed);
  const out: GeneratedInput[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < count && i < count * 20; i++) {
    const shape: string[] = [];
    let cmd: string;
    let plant: string | undefined;
    if (r() < GRAMMAR24H_RATE) {
      const g = generate24h(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < GRAMMAR24_RATE) {
      const g = generate24(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR22_RATE) {
      const g = generate22(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < GRAMMAR21_RATE) {
      const g = generate21(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < GRAMMAR20_RATE) {
      const g = generate20(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR20Q_RATE) {
      const g = generate20q(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR19J_RATE) {
      const g = generate19j(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < GRAMMAR19_RATE) {
      const g = generate19(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR18B_RATE) {
      const g = generate18b(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR18E_RATE) {
      const g = generate18e(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < GRAMMAR16_RATE) {
      const g = generate16(r);
      shape.push(...g.shape);
      cmd = g.command;
      plant = g.plant;
    } else if (r() < GRAMMAR14_RATE) {
      const g = generate14(r);
      shape.push(...g.shape);
      cmd = g.command;
    } else if (r() < WRAPPED_TOOLS_RATE) {
      const [name, make] = pick(r, TOOLS);
      shape.push(name);
      cmd = make(r);
      if (r() < 0.3) {
        const [cname, wrap] = pick(r, CONSTRUCTS);
        shape.push(cname);
        cmd = wrap(cmd, r);
      }
    } else {
      const [pname, payload] = pick(r, PAYLOADS);
      shape.push(pname);
      cmd = payload;
      const depth = r() < 0.7 ? 1 : 2;
      for (let d = 0; d < depth; d++) {
        const [cname, wrap] = pick(r, CONSTRUCTS);
        shape.push(cname);
        cmd = wrap(cmd, r);
      }
    }
    const key = `${plant ?? ""}\0${cmd}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ id: `g${seed}-${out.length}`, command: cmd, shape, ...(plant ? { plant } : {}) });
  }
  return out;
}
