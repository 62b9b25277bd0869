/**
 * Issue 18, session 20 (gate20): a variable exported EARLIER on the line changes what a later program
 * does (`export PSQLRC=f; psql …`, `declare -x BASH_ENV=f; bash -c …`, `set -a; PAGER=…; git log`).
 * Each input exports a variable in one of bash's spellings (export, `export --`, a name exported
 * after its assignment, declare/typeset/local -x in any flag cluster, `set -a`/`set -o allexport`
 * then a plain assignment, inside `eval`, in a function called later, in a loop after the program)
 * and then runs a program that reads it, with the marker program as the payload; some inputs
 * export a harmless name (the gate must still allow them where it allows the prefix form), and some
 * set `POSIXLY_CORRECT` on the line before a GNU program with options after an operand.
 */
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** A variable, its payload value, and programs that read it (the payload runs the marker). */
const READERS: Array<{ name: string; value: string; run: readonly string[]; plant?: string }> = [
  { name: "BASH_ENV", value: "./p.sh", run: ["bash -c true", "bash -c 'echo hi'", "bash README.md"], plant: `printf '${MARKER}\\n' > p.sh` },
  { name: "ENV", value: "./p.sh", run: ["sh -i -c true </dev/null", "dash -i -c true </dev/null"], plant: `printf '${MARKER}\\n' > p.sh` },
  { name: "PAGER", value: MARKER, run: ["git -p log -1", "man -P cat ls >/dev/null 2>&1; git -p show -s"] },
  { name: "GIT_PAGER", value: MARKER, run: ["git -p log -1", "git -p diff"] },
  { name: "GIT_EXTERNAL_DIFF", value: MARKER, run: ["git diff", "git log -p -1 --ext-diff"] },
  { name: "GIT_CONFIG_PARAMETERS", value: `"'core.pager=${MARKER}'"`, run: ["git -p log -1"] },
  { name: "GIT_EDITOR", value: MARKER, run: ["git commit -a", "git commit --amend"] },
  { name: "EDITOR", value: MARKER, run: ["git commit -a", "crontab -e"] },
  { name: "LESSOPEN", value: `'|${MARKER} %s'`, run: ["less README.md </dev/null", "less -f README.md </dev/null"] },
  { name: "PSQLRC", value: "./rc", run: ["psql -c 'select 1'", "psql -l"], plant: `printf '\\\\! ${MARKER}\\n' > rc` },
  { name: "LD_PRELOAD", value: "./x.so", run: ["cat README.md", "ls"] },
  { name: "PROMPT_COMMAND", value: MARKER, run: ["bash -i -c true </dev/null"] },
  { name: "ZIPOPT", value: `'-TT ${MARKER}'`, run: ["zip -T pwned.zip README.md"] },
  { name: "TAR_OPTIONS", value: `--to-command=${MARKER}`, run: ["tar -cf x.tar README.md; tar -xf x.tar"] },
];

/** Names with no effect on these programs: exporting them must not make ordinary commands ask where the prefix form does not. */
const HARMLESS = ["NODE_ENV", "CI", "FOO", "RUST_LOG", "DEBUG"];

/** Ways bash exports NAME=VALUE before `then`, the rest of the line. */
function exportForm(r: Rng, name: string, value: string, then: string): { command: string; shape: string } {
  return pick(r, [
    { command: `export ${name}=${value}; ${then}`, shape: "export" },
    { command: `export -- ${name}=${value} && ${then}`, shape: "export --" },
    { command: `${name}=${value}; export ${name}; ${then}`, shape: "export after" },
    { command: `declare -x ${name}=${value}; ${then}`, shape: "declare -x" },
    { command: `declare -gx ${name}=${value}; ${then}`, shape: "declare -gx" },
    { command: `typeset -rx ${name}=${value}; ${then}`, shape: "typeset -rx" },
    { command: `f() { local -x ${name}=${value}; ${then}; }; f`, shape: "local -x" },
    { command: `set -a; ${name}=${value}; ${then}`, shape: "set -a" },
    { command: `set -o allexport; ${name}=${value}; set +o allexport; ${then}`, shape: "allexport" },
    { command: `set -ea; ${name}=${value}; ${then}`, shape: "set -ea" },
    { command: `eval 'export ${name}=${value.replaceAll("'", "")}'; ${then}`, shape: "eval export" },
    { command: `g() { ${then}; }; export ${name}=${value}; g`, shape: "function later" },
    { command: `for i in 1 2; do if [ $i = 2 ]; then ${then}; fi; export ${name}=${value}; done`, shape: "loop later" },
    { command: `(export ${name}=${value}; ${then})`, shape: "subshell export" },
    { command: `export ${name}=${value}; bash -c ${JSON.stringify(then)}`, shape: "export into bash -c" },
    { command: `\\export ${name}=${value}; ${then}`, shape: "quoted export" },
    { command: `'declare' -x ${name}=${value}; ${then}`, shape: "quoted declare" },
    { command: `builtin export ${name}=${value}; ${then}`, shape: "builtin export" },
    { command: `command -p declare -x ${name}=${value}; ${then}`, shape: "command declare" },
    { command: `export ${name.slice(0, 2)}{${name.slice(2)}=${value},ZZ=1}; ${then}`, shape: "brace export" },
    { command: `set -k; ${then} ${name}=${value}`, shape: "set -k" },
  ]);
}

/** One input of the production. */
export function generate20(r: Rng): { command: string; shape: string[]; plant?: string } {
  const roll = r();
  if (roll < 0.15) {
    // POSIXLY_CORRECT on the line: GNU programs stop taking options at the first operand.
    const then = pick(r, ["cat README.md -n", "ls . -la", "sort README.md -o pwned", "touch README.md -c", "head README.md -n 1"]);
    const form = pick(r, [`POSIXLY_CORRECT=1 ${then}`, `export POSIXLY_CORRECT=1; ${then}`, `env POSIXLY_CORRECT=1 ${then}`, `set -a; POSIXLY_CORRECT=1; ${then}`]);
    return { command: form, shape: ["exported", "POSIXLY_CORRECT"] };
  }
  if (roll < 0.3) {
    const then = pick(r, ["cat README.md", "ls", "wc -l README.md", "git status --short", "echo ok > made.txt"]);
    const f = exportForm(r, pick(r, HARMLESS), "1", then);
    return { command: f.command, shape: ["exported", "harmless", f.shape] };
  }
  const reader = pick(r, READERS);
  const f = exportForm(r, reader.name, reader.value, pick(r, reader.run));
  return { command: f.command, shape: ["exported", reader.name, f.shape], ...(reader.plant ? { plant: reader.plant } : {}) };
}
