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
}

/** A simple command found anywhere in the command line (after unwrapping). */
export interface CommandPart {
  /** Source text of the simple command (for reasons and rule proposals). */
  text: string;
  /** Outermost first; the last allowable view is the command that actually runs. */
  views: CommandView[];
  /** Environment prefixes (`FOO=1 cmd`) and `env NAME=VALUE` assignments. */
  assignments: Array<{ name: string; value: Word }>;
  redirects: Redirect[];
  /** Runs under sudo/doas. */
  elevated: boolean;
  /** Receives more arguments at run time (xargs, find -exec). */
  extraArgs: boolean;
  /** `bash -c '…'`/`eval '…'`: its inner commands are separate parts, so it needs no allowing itself. */
  wrapper: boolean;
  /** Why this part cannot be analysed confidently (asks). */
  problems: string[];
  /** How it was reached, outermost first (e.g. `bash -c`, `xargs`, `find -exec`). */
  via: string[];
}

export interface CommandAnalysis {
  parts: CommandPart[];
  /** Problems of the whole line (parse errors, function definitions…). */
  problems: string[];
}
