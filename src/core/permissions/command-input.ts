/**
 * Programs whose input — or a script file they are given — is commands in a language with an escape
 * that runs programs: `!cmd` in ed, dc, sftp, ftp and lftp; `syscmd`/`esyscmd` in m4; `\!` in psql
 * and mysql; `system`/`!` in gnuplot; sed's `e` command and awk's `system()` in a script file;
 * vim's normal-mode script (`-s FILE`) and startup file (`-u FILE`); emacs `--script`.
 *
 * Where Yoke can read that input (a literal echo/printf piped in, a literal here-string or
 * here-document) the commands in it meet the deny and ask rules through the same unwrapping as a
 * command line (evaluate-bash.ts, unknownProgramRuns). Where it cannot — a file (`ed -s f < cmds`,
 * `sed -f script`), a pipe from another command (`cat cmds | ed f`), a substitution
 * (`ed f <<< "$(cat cmds)"`) — the program runs code Yoke cannot see: it asks wherever a deny rule
 * could apply (parse or ask). `less` and `more` read their commands from the terminal, not from
 * their input; Yoke's commands have none.
 */
import type { Word } from "./shell/words";
import { namesStdin } from "./posix-path";

interface Reader {
  /** What its escape is, for the reason the user and the model read. */
  escape: string;
  /** Reads commands from its standard input (unless an inline option or a script operand is given). */
  stdin: boolean;
  /** Options whose value is a script file it runs (`-f FILE`, `--file=FILE`). */
  scriptOption?: RegExp;
  /** Its operands are script files (m4, dc, gnuplot). */
  operandsAreScripts?: boolean;
  /** Options that take a value (skipped when looking for operands). */
  valued?: RegExp;
  /** Options with which it reads no commands from its input (`psql -c SQL`, `mysql -e SQL`). */
  inline?: RegExp;
  /** Option values that name no script (`vim -u NONE`). */
  noScript?: RegExp;
  /**
   * Short options (getopt letters) whose value is a script file: in a cluster the letter takes the
   * rest of the word (`awk -fFILE`, `sed -nfFILE`), or the next word when it ends the cluster.
   */
  scriptLetters?: string;
  /** Short letters that take a value (the rest of the cluster is theirs: `awk -vf=1`). */
  valuedLetters?: string;
}

const BANG = "`!` runs programs";
const COMMAND_INPUT: Record<string, Reader> = {
  ed: { escape: BANG, stdin: true, valued: /^(-p|--prompt)$/ },
  dc: { escape: BANG, stdin: true, operandsAreScripts: true, inline: /^(-e|--expression|-f|--file)(=|$)|^-[a-zA-Z]*[ef]/ },
  m4: {
    escape: "syscmd and esyscmd run programs",
    stdin: true,
    operandsAreScripts: true,
    valued: /^(-[DUIdloFRLt]|--(define|undefine|include|debug|debugfile|freeze-state|reload-state|nesting-limit|trace|hashsize|arglength|word-regexp))$/,
  },
  psql: {
    escape: "`\\!` runs programs",
    stdin: true,
    scriptLetters: "f",
    valuedLetters: "cdhpUvPTLoF",
    scriptOption: /^(-f|--file)(=|$)|^-f./,
    inline: /^(-c|--command|-l|--list|-V|--version|-\?|--help)(=|$)|^-c./,
  },
  mysql: { escape: "`\\!` and `system` run programs", stdin: true, inline: /^(-e|--execute|-V|--version|-\?|--help)(=|$)|^-e./ },
  mariadb: { escape: "`\\!` and `system` run programs", stdin: true, inline: /^(-e|--execute|-V|--version|-\?|--help)(=|$)|^-e./ },
  sftp: { escape: BANG, stdin: true, scriptOption: /^-b$|^-b./, scriptLetters: "b", valuedLetters: "BDFiJlPRSsoc" },
  ftp: { escape: BANG, stdin: true },
  tnftp: { escape: BANG, stdin: true },
  lftp: { escape: BANG, stdin: true, scriptOption: /^(-f)$/, inline: /^(-c|-e|-f|--version|--help)$/ },
  telnet: { escape: BANG, stdin: true },
  gnuplot: { escape: "`system` and `!` run programs", stdin: true, operandsAreScripts: true, inline: /^(-e|--version|-V|--help|-h)$/ },
  sed: { escape: "its `e` command runs programs", stdin: false, scriptLetters: "f", valuedLetters: "eli", scriptOption: /^(-f|--file)(=|$)|^-[a-zA-Z]*f|^--f(i(l(e)?)?)?(=|$)/ },
  awk: { escape: "`system()` runs programs", stdin: false, scriptLetters: "fEi", valuedLetters: "evFWlL", scriptOption: /^(-f|--file|-E|--exec)(=|$)|^-f./ },
  gawk: { escape: "`system()` runs programs", stdin: false, scriptLetters: "fEi", valuedLetters: "evFWlL", scriptOption: /^(-f|--file|-E|--exec|-i|--include)(=|$)|^-f./ },
  mawk: { escape: "`system()` runs programs", stdin: false, scriptLetters: "f", valuedLetters: "vFW", scriptOption: /^(-f|--file)(=|$)|^-f./ },
  nawk: { escape: "`system()` runs programs", stdin: false, scriptLetters: "f", valuedLetters: "vF", scriptOption: /^(-f|--file)(=|$)|^-f./ },
  vim: { escape: "`:!` runs programs", stdin: false, scriptOption: /^(-s|-u|-U)$/, noScript: /^(NONE|NORC|DEFAULTS)$/ },
  nvim: { escape: "`:!` runs programs", stdin: false, scriptOption: /^(-s|-u)$/, noScript: /^(NONE|NORC|DEFAULTS)$/ },
  vi: { escape: "`:!` runs programs", stdin: false, scriptOption: /^(-s|-u)$/, noScript: /^(NONE|NORC|DEFAULTS)$/ },
  emacs: { escape: "Lisp runs programs", stdin: false, scriptOption: /^(--script|-script|-scriptload|--load|-l)(=|$)/ },
};

/**
 * Other names of vim (the same program, its `:!` and `-s`/`-u`/`-S`/`-c` included): Debian's
 * alternatives and builds (red16g: `view -s cmds f` and `vimdiff -s cmds a b` ran `:!rm -rf d1`
 * under `Bash(rm:*)` while `vim -s cmds` asked). The restricted `rvim`/`rview` run no programs.
 */
const VIM_NAMES = /^(view|vimdiff|gvim|gview|gvimdiff|evim|eview|vimx|vim\.[a-z0-9]+)$/;

/** The table's name of a program (`view` → `vim`). */
export function commandInputName(name: string): string {
  return VIM_NAMES.test(name) ? "vim" : name;
}

/** Does this program read commands from its standard input (so a literal input is searched for commands)? */
export function readsCommandInput(name: string): boolean {
  return COMMAND_INPUT[commandInputName(name)]?.stdin === true;
}

/**
 * Why the command runs commands from a script file or an input Yoke cannot read, or undefined.
 * `inputUnseen`: its standard input comes from a file, a pipe or a substitution (CommandPart.inputUnseen).
 */
export function commandInputHidden(words: Word[], inputUnseen: boolean): string | undefined {
  const first = words[0];
  if (!first || first.dynamic) return undefined;
  const name = commandInputName(first.value.slice(first.value.lastIndexOf("/") + 1));
  const reader = Object.hasOwn(COMMAND_INPUT, name) ? COMMAND_INPUT[name] : undefined;
  if (!reader) return undefined;
  const args = words.slice(1);
  let inline = false;
  let fromStdin = false;
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (v === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    // A getopt cluster holding a script letter: the rest of the word is its value (`-fFILE`, `-nfFILE`), else the next word.
    const cluster = reader.scriptLetters && /^-[^-]/.test(v) ? scriptInCluster(v.slice(1), reader.scriptLetters, reader.valuedLetters ?? "") : undefined;
    if (cluster !== undefined) {
      const value = cluster ? { ...w, value: cluster, raw: cluster } : args[++i];
      if (!value) continue;
      if (!value.dynamic && namesStdin(value.value)) {
        fromStdin = true;
        inline = true;
        continue;
      }
      return `${name} runs commands from ${value.raw}, which Yoke does not read (${reader.escape})`;
    }
    if (reader.scriptOption?.test(v) && v.startsWith("-")) {
      // The value: after `=`, the next word after an option of letters only (`-f`, `-nf`, `--file`), or glued (`-f./x`).
      const eq = v.indexOf("=");
      const glued = eq > 0 ? v.slice(eq + 1) : /^-[a-zA-Z]+$|^--[a-z-]+$/.test(v) ? undefined : v.slice(2);
      const value = glued !== undefined ? { ...w, value: glued } : args[++i];
      if (!value) continue;
      if (reader.noScript?.test(value.value)) continue;
      if (!value.dynamic && namesStdin(value.value)) {
        fromStdin = true;
        inline = true;
        continue;
      }
      return `${name} runs commands from ${value.raw}, which Yoke does not read (${reader.escape})`;
    }
    if (reader.inline?.test(v)) {
      inline = true;
      if (!v.includes("=") && /^-[a-zA-Z]$|^--[a-z-]+$/.test(v) && !/^--?(version|help|list|\?)$|^-[lV?]$/.test(v)) i++;
      continue;
    }
    if (v.startsWith("-") && v !== "-") {
      if (reader.valued?.test(v)) i++;
      continue;
    }
    operands.push(w);
  }
  if (reader.operandsAreScripts) {
    for (const op of operands) {
      if (!op.dynamic && namesStdin(op.value)) fromStdin = true;
      else return `${name} runs the script ${op.raw}, which Yoke does not read (${reader.escape})`;
    }
    if (operands.length && !fromStdin) return undefined;
  }
  const readsStdin = fromStdin || (reader.stdin && !inline);
  if (readsStdin && inputUnseen) return `${name} runs the commands on its input, which Yoke cannot see (${reader.escape})`;
  return undefined;
}

/**
 * The glued value of the first script letter in a short-option cluster (`fFILE` → `FILE`), `""`
 * when the letter ends the cluster (its value is the next word), undefined when no script letter
 * comes before a letter that takes the rest of the word as its own value.
 */
function scriptInCluster(letters: string, script: string, valued: string): string | undefined {
  for (let k = 0; k < letters.length; k++) {
    const c = letters[k]!;
    if (script.includes(c)) return letters.slice(k + 1);
    if (valued.includes(c)) return undefined;
  }
  return undefined;
}
