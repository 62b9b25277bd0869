/**
 * Issue 18, session 19 (red team J): productions drawn from every program's REAL option table
 * (option-kinds.ts reads it from the program's own getopt_long call), for every program the gate
 * has a table or a list for (shell/wrapper-options.ts, RUNS_A_COMMAND, the read-only lists) that is
 * installed here:
 * - an option whose value is optional (getopt's `::`, `optional_argument`: a value only with `=` or
 *   glued) written without one, then the payload — a reader that takes the next word for its value
 *   skips the program or the file (red team I's `xargs --replace rm -rf {}`; `grep --color x .env`);
 * - the shortest unique prefix of every long option, as the program resolves it against its own table,
 *   with its value glued (`=`) or the next word, by its real kind;
 * - clusters of short flags ending in a valued letter with its value glued or next;
 * - `--` ending the options; options after operands (GNU permutes them) and the same under
 *   `POSIXLY_CORRECT=1` (then they are operands);
 * - sudo's options (`-u`, `-g`, `-i`, `-s`, `-E`, `--preserve-env=`, `-D`, `-R`, `-T`, `-e`/sudoedit
 *   with SUDO_EDITOR/VISUAL/EDITOR) and su/runuser `-s PROGRAM` — sudo and su cannot switch users inside the
 *   checker's sandboxes (a user namespace; firejail's no_new_privs), so these inputs exercise the gate's
 *   reading only;
 * - words built at run time: `$(printf …)`, `${x:-rm}`, arithmetic making option letters, `"${arr[@]}"`,
 *   `eval`, `source <(…)`, a process substitution as the program or the script.
 */
import { NO_PATH_COMMANDS, PATH_COMMANDS } from "../../core/permissions/readonly-commands";
import { RUNS_A_COMMAND } from "../../core/permissions/shell/unwrap";
import { WRAPPER_OPTIONS } from "../../core/permissions/shell/wrapper-options";
import { type ArgKind, type RealOptionTable, realOptionTable, uniquePrefix } from "./option-kinds";
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Payloads a deny rule of the checker's rule sets covers, or that leave evidence. */
const PAYLOADS: readonly string[] = ["rm -f src/a.ts", "rm -rf src", "cat .env", MARKER, "touch pwned", "chmod -R 777 src"];
/** Program names the gate knows as harmless: what a misread value word is. */
const HARMLESS = ["ls", "echo", "true", "cat", "date", "pwd"];

/** Words a runner needs before its command (a duration, a lock file, a mask), and a prefix that bounds it. */
const RUNNER_ARGS: Record<string, { before?: string; after?: string; prefix?: string; input?: string }> = {
  timeout: { before: "5" },
  flock: { before: "/dev/null" },
  taskset: { before: "1" },
  chrt: { before: "-o 0" },
  xargs: { input: "echo q |" },
  watch: { prefix: "timeout 3", before: "-x" },
  strace: { before: "-o /dev/null" },
  ltrace: { before: "-o /dev/null" },
  stdbuf: { before: "-oL" },
};
/** Runners the checker leaves out (they open windows, need privileges the sandbox lacks, or hang). */
const SKIP = new Set([
  "xterm",
  "konsole",
  "gnome-terminal",
  "firejail",
  "bwrap",
  "pkexec",
  "systemd-run",
  "dbus-launch",
  "dbus-run-session",
  "xvfb-run",
  "entr",
  "proot",
  "nsenter",
  "unshare",
  "chroot",
  "script",
  "su",
  "runuser",
  "sg",
  "sudoedit",
  "sudo",
  "doas",
  "ssh-agent",
  "nix-shell",
  "cpulimit",
]);

interface Tables {
  runners: RealOptionTable[];
  readers: RealOptionTable[];
}
let tables: Tables | undefined;

/** The real tables of the installed programs the gate knows (read once per process). */
export function realTables(): Tables {
  if (tables) return tables;
  const runnerNames = [...new Set([...Object.keys(WRAPPER_OPTIONS).filter((n) => n !== "exec" && n !== "bash"), ...RUNS_A_COMMAND])].filter((n) => !SKIP.has(n));
  const readerNames = [...new Set([...PATH_COMMANDS, ...NO_PATH_COMMANDS])].filter((n) => !SKIP.has(n) && n !== "cd");
  const load = (n: string) => realOptionTable(n === "time" ? "/usr/bin/time" : n);
  tables = {
    runners: runnerNames.map(load).filter((t): t is RealOptionTable => !!t && t.how !== "getopt"),
    readers: readerNames.map(load).filter((t): t is RealOptionTable => !!t && t.how !== "getopt"),
  };
  return tables;
}

interface Opt {
  name: string;
  kind: ArgKind;
  long: boolean;
}
const optsOf = (t: RealOptionTable): Opt[] => [
  ...Object.entries(t.short).map(([c, kind]) => ({ name: `-${c}`, kind, long: false })),
  ...Object.entries(t.long)
    .filter(([l]) => !/^--(help|version|usage)$/.test(l))
    .map(([name, kind]) => ({ name, kind, long: true })),
];
const nameOf = (t: RealOptionTable) => t.program.slice(t.program.lastIndexOf("/") + 1);

/** One option as the program reads it, spelled by its real kind: `value` fills a valued one. */
function spell(r: Rng, t: RealOptionTable, o: Opt, value: string): string {
  const name = o.long && r() < 0.6 ? uniquePrefix(o.name, Object.keys(t.long)) : o.name;
  if (o.kind === 0) return name;
  if (o.kind === 2) return r() < 0.7 ? name : o.long ? `${name}=${value}` : `${name}${value}`;
  if (o.long) return r() < 0.5 ? `${name}=${value}` : `${name} ${value}`;
  return r() < 0.5 ? `${name}${value}` : `${name} ${value}`;
}

/** A value for an option: a harmless program's name (a reader that skips it not takes it for the program). */
const valueFor = (r: Rng, reader: boolean) => (reader ? pick(r, ["1", "x", "README.md"]) : pick(r, HARMLESS));

function runnerLine(t: RealOptionTable, opts: string, payload: string, posix = false): string {
  const name = t.program;
  const a = RUNNER_ARGS[nameOf(t)] ?? {};
  const parts = [a.prefix, a.input, posix ? "POSIXLY_CORRECT=1" : undefined, name, opts, a.before, payload, a.after].filter((x) => x !== undefined && x !== "");
  return parts.join(" ");
}

/** A real optional-value option written without its value, then the payload (or the secret for a reader). */
function optionalWithoutValue(r: Rng): { command: string; shape: string[] } | undefined {
  const { runners, readers } = realTables();
  const withOptional = (ts: RealOptionTable[]) => ts.filter((t) => optsOf(t).some((o) => o.kind === 2));
  const reader = r() < 0.5;
  const pool = withOptional(reader ? readers : runners);
  if (!pool.length) return undefined;
  const t = pick(r, pool);
  const o = pick(
    r,
    optsOf(t).filter((x) => x.kind === 2),
  );
  const name = o.long && r() < 0.5 ? uniquePrefix(o.name, Object.keys(t.long)) : o.name;
  if (reader) {
    const operand = nameOf(t) === "grep" || /grep$/.test(nameOf(t)) ? "x .env" : ".env";
    return { command: `${t.program} ${name} ${operand}`, shape: ["real table: optional value without =", `reader ${nameOf(t)}`] };
  }
  return { command: runnerLine(t, name, pick(r, PAYLOADS)), shape: ["real table: optional value without =", `runner ${nameOf(t)}`] };
}

/** 1–3 real options (unique prefixes, clusters, glued or next values) then the payload; `--` sometimes. */
function realOptions(r: Rng): { command: string; shape: string[] } | undefined {
  const { runners, readers } = realTables();
  const reader = r() < 0.4;
  const pool = reader ? readers : runners;
  if (!pool.length) return undefined;
  const t = pick(r, pool);
  const opts = optsOf(t);
  if (!opts.length) return undefined;
  const words: string[] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const flags = Object.entries(t.short).filter(([, k]) => k === 0);
    const valued = Object.entries(t.short).filter(([, k]) => k === 1);
    if (r() < 0.3 && flags.length && valued.length) {
      // A cluster of flags ending in a valued letter, its value glued or the next word.
      const f = [pick(r, flags)[0], pick(r, flags)[0]].join("");
      const v = pick(r, valued)[0];
      words.push(r() < 0.5 ? `-${f}${v}${valueFor(r, reader)}` : `-${f}${v} ${valueFor(r, reader)}`);
    } else words.push(spell(r, t, pick(r, opts), valueFor(r, reader)));
  }
  const shape = ["real table: options by kind", `${reader ? "reader" : "runner"} ${nameOf(t)}`];
  const dashdash = r() < 0.2;
  if (dashdash) shape.push("-- ends the options");
  if (reader) {
    const posix = r() < 0.3;
    // GNU permutes: options after the operand are still options; under POSIXLY_CORRECT they are operands.
    const after = r() < 0.3;
    if (posix) shape.push("POSIXLY_CORRECT");
    if (after) shape.push("options after operands");
    const operand = /grep$/.test(nameOf(t)) ? "x .env" : ".env";
    const opts1 = words.join(" ");
    const body = after ? `${operand} ${opts1}` : `${opts1}${dashdash ? " --" : ""} ${operand}`;
    return { command: `${posix ? "POSIXLY_CORRECT=1 " : ""}${t.program} ${body}`, shape };
  }
  return { command: runnerLine(t, `${words.join(" ")}${dashdash ? " --" : ""}`, pick(r, PAYLOADS), r() < 0.2), shape };
}

/** sudo's options around the payload (the gate's reading only: see the file's comment). */
function sudoLine(r: Rng): { command: string; shape: string[] } {
  const p = pick(r, PAYLOADS);
  const editor = pick(r, ["SUDO_EDITOR", "VISUAL", "EDITOR"]);
  const line = pick(r, [
    `sudo -u root ${p}`,
    `sudo -g root ${p}`,
    `sudo -ugroot ${p}`,
    `sudo -i ${p}`,
    `sudo -s ${p}`,
    `sudo -E ${p}`,
    `sudo --preserve-env ${p}`,
    `sudo --preserve-env=PATH ${p}`,
    `sudo --pres ${p}`,
    `sudo -D src ${p}`,
    `sudo --chdir=src ${p}`,
    `sudo -R / ${p}`,
    `sudo -T 5 ${p}`,
    `sudo -nT5 ${p}`,
    `sudo -h ${p}`,
    `sudo -- ${p}`,
    `sudo -Es -- ${p}`,
    `${editor}=${sq(p)} sudo -e README.md`,
    `${editor}=${sq(p)} sudoedit README.md`,
    `${editor}=${sq(p)} sudo --ed README.md`,
    `export ${editor}=${sq(p)}; sudo -e README.md`,
    `sudo -u root env ${p}`,
    `sudo -s -- -c ${sq(p)}`,
    // su/runuser run `-s PROGRAM` with the words after the user (red team J: `su --shell=/usr/bin/rm root -- -f x`).
    `su -s $(command -v ${p.split(" ")[0]}) root -- ${p.split(" ").slice(1).join(" ")}`,
    `su --shell=/usr/bin/${p.split(" ")[0]} root -- ${p.split(" ").slice(1).join(" ")}`,
    `runuser -s/usr/bin/${p.split(" ")[0]} root -- ${p.split(" ").slice(1).join(" ")}`,
    `su -ls /usr/bin/${p.split(" ")[0]} root ${p.split(" ").slice(1).join(" ")}`,
    `su root -c ${sq(p)}`,
  ]);
  return { command: line, shape: ["sudo options (gate only)"] };
}

/** Words built at run time, which the gate must treat as unknown. */
function runtimeWords(r: Rng): { command: string; shape: string[] } {
  const p = pick(r, PAYLOADS);
  const [prog, ...rest] = p.split(" ");
  const tail = rest.join(" ");
  const hex = [...prog!].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("");
  const line = pick(r, [
    `$(printf ${prog}) ${tail}`,
    `$(printf '${hex}') ${tail}`,
    `"$(printf %s ${prog})" ${tail}`,
    `\${x:-${prog}} ${tail}`,
    `x=${prog}; \${x} ${tail}`,
    `\${x:=${prog}} ${tail}`,
    `a=(${p}); "\${a[@]}"`,
    `a=(${tail}); ${prog} "\${a[@]}"`,
    `a=(${prog}); \${a[0]} ${tail}`,
    `eval "$(printf '%s ' ${p})"`,
    `eval ${sq(p)}`,
    `source <(printf '%s\\n' ${sq(p)})`,
    `. <(echo ${sq(p)})`,
    `bash <(echo ${sq(p)})`,
    `sh <(echo ${sq(p)})`,
    `$(echo bash) <(echo ${sq(p)})`,
    `env $(printf ${prog}) ${tail}`,
    `nice $(printf ${prog}) ${tail}`,
    `printf -v c '\\x%x' $((0x${prog!.charCodeAt(0).toString(16)})); \${c}${prog!.slice(1)} ${tail}`,
    `${prog} -$(printf '\\x%x' $((0x66))) ${rest.filter((w) => !w.startsWith("-")).join(" ")}`,
    `${prog} -$([ 1 ] && echo rf) src`,
    `o=$(( 1 ? 0 : 1 )); env -$o ${p}`,
    `echo q | xargs --$(printf replace) ${p}`,
    `echo q | xargs --repl${"$"}{x} ${p}`,
    `env --$(echo unset) ls ${p}`,
    `IFS=: read -r a b <<< ${sq(`${prog}:${tail}`)}; $a $b`,
    `set -- ${p}; "$@"`,
    `f() { "$@"; }; f ${p}`,
    `alias_word=${prog}; command $alias_word ${tail}`,
  ]);
  return { command: line, shape: ["words built at run time"] };
}

/** One input of these productions. */
export function generate19j(r: Rng): { command: string; shape: string[] } {
  const k = r();
  const g = k < 0.3 ? optionalWithoutValue(r) : k < 0.65 ? realOptions(r) : k < 0.75 ? sudoLine(r) : runtimeWords(r);
  return g ?? runtimeWords(r);
}
