/** What the shell analysis extracts from a command line. */
import type { Word } from "./words";

export type { Word } from "./words";

/** A redirection of a simple command (or of a compound command around it). */
export interface Redirect {
  /** The operator as written: `>`, `>>`, `&>`, `&>>`, `>|`, `<`, `>&`, `<&`. */
  op: string;
  kind: "read" | "write" | "dup";
  target: Word;
}

/** One way of reading a simple command: the command as written, then with wrappers removed. */
export interface CommandView {
  words: Word[];
  /** May an allow rule (or a read-only default) matching this view allow the part? False below sudo. */
  allowable: boolean;
  /** Only for deny/ask matching: e.g. `/opt/x/git push` read as `git push`. */
  denyOnly?: boolean;
  /**
   * How many words of the command as written (views[0]) come before this view's first word
   * (`timeout 5 npm test` → `npm test` has skip 2). An allow rule matching an outer view allows the
   * part only when its literal text reaches the command it wraps.
   */
  skip?: number;
}

/** Folders a command may run in: absolute paths (logical, as `cd` leaves them), or null when unknown. */
export type CwdSet = string[] | null;

/** A simple command found anywhere in the command line (after unwrapping). */
export interface CommandPart {
  /** Source text of the simple command (for reasons and rule proposals). */
  text: string;
  /** Outermost first; the last allowable view is the command that actually runs. */
  views: CommandView[];
  /** Environment prefixes (`FOO=1 cmd`) and `env NAME=VALUE` assignments; `exported`: exported earlier on the line (`export FOO=1; cmd`, shell/exports.ts). */
  assignments: Array<{ name: string; value: Word; exported?: boolean }>;
  redirects: Redirect[];
  /** Runs under sudo/doas. */
  elevated: boolean;
  /** Receives more arguments at run time (xargs, find -exec). */
  extraArgs: boolean;
  /** `bash -c '…'`/`eval '…'`: its inner commands are separate parts, so it needs no allowing itself. */
  wrapper: boolean;
  /** Why this part cannot be analysed confidently (asks). */
  problems: string[];
  /**
   * Code this part runs that Yoke cannot see (`python -c`, `echo … | sh`, an awk program that runs
   * commands…): where a deny rule could apply, the command asks in every mode.
   */
  hidden: string[];
  /**
   * It runs another command whose position among its arguments Yoke does not know (`watch`-like
   * programs seen only for deny rules): an allow rule must name the whole command literally.
   */
  runsUnknown?: boolean;
  /** For run-time arguments (find -exec … {}): the folders the file names come from. */
  filesFrom?: Word[];
  /** Files read by the wrappers around the command (`xargs -a F`). */
  reads?: Word[];
  /** Files written by the wrappers around the command (`time -o F`, `strace -o F`, `script F`). */
  writes?: Word[];
  /** How it was reached, outermost first (e.g. `bash -c`, `xargs`, `find -exec`). */
  via: string[];
  /** The folders it may run in (`cd` earlier in the command line). */
  cwd: CwdSet;
  /** The literal text its standard input comes from (a here-document or here-string), when known. */
  stdin?: string;
  /**
   * Roughly what earlier stages of its pipeline print (their text, and what a literal `echo`/`printf` prints,
   * also with escapes decoded and formats dropped), or the text as written of a here-string or here-document with
   * expansions. Only a hint of the data a program may read commands from: never trusted as its exact
   * input (a shell reading it stays code Yoke cannot see).
   */
  pipedData?: string;
  /**
   * The exact text piped into it by the stage just before, where that stage is an echo or printf whose
   * output Yoke prints itself (shell/extract.ts exactEcho). Read only for ed's escapes.
   */
  pipedExact?: string;
  /**
   * The commands its input hands to a shell escape were read as scripts of their own (ed's `!`:
   * shell/ed-escapes.ts), so its input is not code Yoke cannot see for that reason alone.
   */
  escapesRead?: boolean;
  /**
   * The programs whose escapes on this part's input (and `-c` text) were read as scripts of their own (m4's
   * `syscmd`, psql's `\!`: shell/m4-escapes.ts, shell/psql-escapes.ts): only that program's input is no
   * longer code Yoke cannot see.
   */
  escapesReadFor?: string[];
  /**
   * Files (absolute) whose text the analysis uses to read this part's code (m4's input files and what they
   * include, psql's `-f`): evaluate-bash.ts reads those not read yet through the gate's port, the Read rules applied, and
   * analyses the line again with them known (shell/unwrap.ts withScriptFiles).
   */
  scriptFiles?: string[];
  /**
   * npm's settings that name the program this npm command runs (`editor` for `npm edit`, `shell` and
   * `script-shell` for `npm explore`) and are not on its line: what the gate must read from npm's
   * configuration (npm-config.ts) before the line is analysed again. `userconfig`: `--userconfig F` on the line.
   */
  npmSettings?: { settings: string[]; userconfig?: string };
  /** Those settings were read and each value evaluated as the command it is (no longer code Yoke cannot see). */
  npmSettingsRead?: boolean;
  /**
   * Its standard input is something Yoke cannot read: a file (`< script`), another descriptor, a
   * pipe from a command that is not a literal echo/printf (`cat cmds | ed f`), or a here-string or
   * here-document with expansions. A program that reads commands from its input then runs code Yoke
   * cannot see (parse or ask: known-programs.ts COMMAND_INPUT).
   */
  inputUnseen?: boolean;
  /**
   * Other spellings of its effect, for deny and ask rules only (`git checkout -f` read as
   * `git reset --hard`: shell/git-discard.ts). Never allowed by a rule and never what runs.
   */
  readings?: Word[][];
  /**
   * `git checkout X` with one operand and no `--` (shell/git-discard.ts checkoutOperand): a branch
   * or a path, decided when git runs. The gate reads it as a discard (the `git reset --hard`
   * reading) unless the repository shows it cannot be one (evaluate-bash.ts). `plain`: git runs
   * with no global option (`-C`, `--git-dir`, `-c`…) that could make it another repository.
   */
  checkoutOperand?: { operand: Word; plain: boolean };
}

export interface CommandAnalysis {
  parts: CommandPart[];
  /** Problems of the whole line (parse errors, function definitions…). */
  problems: string[];
  /** Something in the line (shopt, set -f…) may change how globs expand. */
  globOptionsChanged?: boolean;
  /**
   * The parsed line holds more commands than MAX_COMMAND_STATEMENTS (shell/bounds.ts): it was not
   * analysed. The estimate before parsing can be fooled (`$((1<<2))` or `<<<` read as the start of a
   * here-document whose body it does not count); the tree cannot.
   */
  tooLarge?: boolean;
}
