/**
 * Programs the analysis knows (read-only commands, writers, tools with option tables, wrappers,
 * interpreters, common build tools), and what an unknown one could run. A program Yoke does not
 * know could be a wrapper: a word it is given that names a program a deny or ask rule covers
 * (`setarch x86_64 rm -rf src` under `Bash(rm:*)`) or a shell or interpreter could be what it runs
 * (parse or ask). Never used to allow anything.
 */
import { isInterpreter, OPTION_SENSITIVE } from "./command-effects";
import { writesNamedPaths } from "./command-paths";
import { NO_PATH_COMMANDS, PATH_COMMANDS } from "./readonly-commands";
import { isKnownRunner, isShell } from "./shell/unwrap";
import { tokenize } from "./bash-spec";
import { literalWord, type Word } from "./shell/words";

const LISTED = new Set([...NO_PATH_COMMANDS, ...PATH_COMMANDS]);
/** Build, test and package tools whose arguments are targets, files or package names, not commands. */
const TOOLS = new Set(
  (
    "tsc eslint prettier jest vitest mocha ava tap playwright cypress webpack vite rollup esbuild turbo nx lerna tsx ts-node " +
    "pip pip3 pipenv poetry uv ruff black isort mypy pyright flake8 pylint pytest tox nox coverage " +
    "gcc g++ cc c++ clang clang++ ld ar as rustc rustup rustfmt clippy-driver javac java mvn gradle gradlew kotlinc scalac sbt dotnet swift swiftc " +
    "cmake ninja meson bazel buck make gmake autoreconf ./configure " +
    "docker podman kubectl helm terraform ansible-playbook " +
    "apt apt-get apt-cache dpkg dnf yum apk brew pacman zypper snap " +
    "tar gzip gunzip bzip2 xz unxz zip unzip 7z zstd " +
    "ls cat echo printf git npm pnpm yarn bun deno node python python3 go cargo " +
    "code open xdg-open man info help shellcheck shfmt hadolint actionlint yamllint markdownlint jq yq"
  ).split(" "),
);

export function isKnownProgram(name: string): boolean {
  return LISTED.has(name) || name === "git" || writesNamedPaths(name) || OPTION_SENSITIVE.has(name) || isInterpreter(name) || isKnownRunner(name) || TOOLS.has(name);
}

/** Does this word name a shell or an interpreter (as itself or by path)? */
export function namesCodeRunner(word: Word): boolean {
  if (word.dynamic) return false;
  const base = word.value.slice(word.value.lastIndexOf("/") + 1);
  return isShell(base) || (isInterpreter(base) && base !== "sed" && base !== "." && base !== "source");
}

/** Words after which a program's language runs a command: its escapes (`system`, `.shell`, `\\!`, `:!`), shells, runners, shell keywords. */
const RUNS_NEXT = /^[.\\:]?(system|shell|exec|execute|spawn|popen|call|run|cmd|command|sh|bash|zsh|dash|sudo|doas|xargs|eval|env|nohup|time|then|do|else|!)$/i;

/** Where a command can start inside a program's data: shell escapes (`!cmd`, `system cmd`), calls (`syscmd(cmd)`), separators. */
const COMMAND_STARTS = /[!;|&()`{}<>,\n'"]|\$\(/;

/** Shell quote removal, literal echo/printf substitutions and the variables the text itself assigns expanded (`c=r; ${c}m` is `rm`). */
function unquoted(text: string): string {
  // A literal echo/printf substituted in place (`$(echo r)m`, `` `printf r`m ``) is its words.
  let t = text.replace(/['"\\]/g, "").replace(/\$\((?:echo|printf)\s+([^()]*?)\s*\)|`(?:echo|printf)\s+([^`]*?)\s*`/g, (_all, a?: string, b?: string) => a ?? b ?? "");
  // m4 quotes changed with changequote (`r[]m`): an empty pair of brackets is removed too.
  t = t.replace(/`/g, "").replace(/\[\]|\{\}|<>/g, "");
  const vars = new Map<string, string>();
  for (const m of t.matchAll(/(?:^|[\s;&|(!])([A-Za-z_][A-Za-z0-9_]*)=([^\s;&|()]*)/g)) vars.set(m[1]!, m[2]!);
  if (vars.size) t = t.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (all, n: string) => vars.get(n) ?? all);
  return t;
}

/**
 * The commands an unknown program could run: from each literal word that is not an option (or is
 * the value of one, `--prog=rm`), the rest of the words, with a path reduced to its name. A word
 * holding text (`psql -c '\\! rm -rf src'`, `m4 <<< 'syscmd(rm -rf src)'`) is cut where a command
 * could start in the languages such programs speak; with `everyToken`, each of its words is a
 * possible start (for the names rules cover: a program's own escape, `system rm …`, precedes them).
 */
export function candidateCommands(args: Word[], wanted: (name: string) => boolean, limit = 64, everyToken = false): Word[][] {
  const out: Word[][] = [];
  for (let i = 0; i < args.length && out.length < limit; i++) {
    const w = args[i]!;
    if (w.dynamic) continue;
    let v = w.value;
    if (v.startsWith("-")) {
      const eq = v.indexOf("=");
      if (eq < 0) continue;
      v = v.slice(eq + 1);
    }
    if (!v) continue;
    // A word holding a whole command line (`tool 'rm -rf src'`): its words, from each place a command could start;
    // with everyToken, also as the shell (or m4) an escape hands it to would read it: quotes removed
    // (`!r''m`, `!r\\m`, ``esyscmd(r`'m …)``) and variables it sets expanded (`!c=rm;$c -rf src`).
    const texts = everyToken ? [...new Set([v, unquoted(v)])] : [v];
    for (const text of texts) {
      const segments = /\s/.test(text.trim()) || COMMAND_STARTS.test(text) ? text.split(COMMAND_STARTS) : [text];
      for (const segment of segments) {
        const inner = /\s/.test(segment.trim()) ? tokenize(segment.replace(/[\\]/g, " ")) : segment ? [segment] : [];
        for (let j = 0; j < (everyToken ? inner.length : Math.min(1, inner.length)) && out.length < limit; j++) {
          // A later word starts a command only after a word that runs one (`system rm …`, `.shell rm …`),
          // not in prose (`gh pr create --title 'fix: rm stale files'`).
          if (j > 0 && !RUNS_NEXT.test(inner[j - 1]!)) continue;
          // A definition's value (`m4 -D X=rm`, `c=rm`) may be what is run under the defined name.
          const head = everyToken ? inner[j]!.replace(/^[A-Za-z_][A-Za-z0-9_]*=/, "") : inner[j]!;
          const base = head.slice(head.lastIndexOf("/") + 1);
          if (!base || !wanted(base)) continue;
          const rest = [...inner.slice(j + 1).map(literalWord), ...(segments.length > 1 ? [] : args.slice(i + 1))];
          out.push([{ ...w, value: base, raw: w.raw, glob: false, pattern: undefined }, ...rest]);
        }
      }
    }
  }
  return out;
}
