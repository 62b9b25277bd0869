/**
 * The commands GNU m4's `syscmd` and `esyscmd` hand to `sh -c`, read from m4 input Yoke has as text (a
 * here-document, a here-string, what a literal echo/printf pipes in), as ed's escapes are (ed-escapes.ts;
 * the results go the same way: scripts of the line, judged by every rule, and run in the sandbox).
 *
 * m4 builds macro names from text (a `define` whose body is `` `sys'`cmd' ``, `defn`, `indir`, `builtin`,
 * `ifelse`, `translit`, `patsubst`, …; the rescanned output of `esyscmd`), reads files (`include`,
 * `sinclude`, `undivert(FILE)`), creates them (`maketemp`, `mkstemp`, `debugfile`) and changes its own
 * syntax (`changequote`, `changecom`, `changeword`). Input using any of those is not read: it is returned
 * as a reason (the command asks where a deny rule exists, as before). What is read exactly is input whose
 * only macros are builtins that make no names (`dnl`, `len`, `eval`, `divert`, …) and `syscmd` calls whose
 * argument is literal text (quoted, or unquoted words that name no builtin). Names are read also behind
 * `m4_` (`m4 -P`): more commands than run, never fewer.
 */
import type { EdEscapes } from "./ed-escapes";

/**
 * A file m4 would read for `include`/`sinclude`/`undivert(FILE)` (its name as m4 gets it), as the gate read it:
 * its text, `"absent"` when no file of that name is found (m4 reads nothing: `include` warns, `sinclude` is
 * silent), or undefined when it is not known (not read yet, refused by a Read rule, too large, unreadable).
 */
export type M4Include = (name: string) => string | "absent" | undefined;

/** At most this many files included (nested or not) are followed; a deeper chain is code Yoke cannot see. */
export const M4_MAX_INCLUDES = 16;
/** At most this much text is scanned, included files together. */
const MAX_TEXT = 512 * 1024;

/** GNU m4 1.4's builtins that make, rescan or read text m4 would read again, or touch files: not read. */
const NOT_READ = new Set([
  "builtin",
  "changecom",
  "changequote",
  "changeword",
  "debugfile",
  "define",
  "defn",
  "format",
  "ifdef",
  "ifelse",
  "indir",
  "m4wrap",
  "maketemp",
  "mkstemp",
  "patsubst",
  "popdef",
  "pushdef",
  "regexp",
  "shift",
  "substr",
  "translit",
  "undefine",
]);
/** The other builtins (they make no name from text): an unquoted one in syscmd's argument is expanded there. */
const INERT = new Set([
  "__file__",
  "__gnu__",
  "__line__",
  "__program__",
  "__unix__",
  "unix",
  "decr",
  "divert",
  "divnum",
  "dnl",
  "dumpdef",
  "errprint",
  "eval",
  "incr",
  "index",
  "len",
  "m4exit",
  "sysval",
  "traceoff",
  "traceon",
  "debugmode",
  "undivert",
]);
const RUNS = new Set(["syscmd", "esyscmd"]);
/** Builtins that read a file: its text is read again as input (`include`, `sinclude`), or output as it is (`undivert`). */
const INCLUDES = new Set(["include", "sinclude"]);

const isBuiltin = (name: string) => NOT_READ.has(name) || INERT.has(name) || RUNS.has(name) || INCLUDES.has(name);

/** The macro name a token is, `m4_` removed (`m4 -P` prefixes every builtin). */
const macroName = (token: string): string => (token.startsWith("m4_") ? token.slice(3) : token);

/**
 * The commands m4 input runs through `syscmd`/`esyscmd`, and why some cannot be known. Default quotes
 * (`` ` `` and `'`, nesting) and comments (`#` to the end of the line, output as they are).
 */
export function m4Escapes(input: string, include?: M4Include): EdEscapes {
  let text = input;
  let included = 0;
  const commands: string[] = [];
  const unknown: string[] = [];
  const note = (why: string) => {
    if (!unknown.includes(why)) unknown.push(why);
  };
  let i = 0;
  let n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "#") {
      // A comment (to the end of the line) is output as it is: a quote in it opens nothing.
      const end = text.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === "`") {
      // Quoted text is output as it is, never scanned for macros at this level.
      let depth = 1;
      i++;
      while (i < n && depth) {
        if (text[i] === "`") depth++;
        else if (text[i] === "'") depth--;
        i++;
      }
      continue;
    }
    const m = /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(text.slice(i, i + 256));
    if (!m) {
      i++;
      continue;
    }
    const token = m[0];
    i += token.length;
    const name = macroName(token);
    if (NOT_READ.has(name)) {
      note(`m4's ${name} makes, reads or changes what m4 reads next, which Yoke does not follow`);
      continue;
    }
    if (INCLUDES.has(name)) {
      // `include(FILE)` is replaced by FILE's text, read again as input (a quote or a call may run on across the
      // end of the file: m4 1.4.19 reads them as one stream). Followed when the gate read FILE and no command ran
      // earlier in the input (it could have written FILE).
      if (text[i] !== "(") continue;
      const arg = firstArgument(text, i + 1);
      const got = arg && !arg.expands && !commands.length && include && included < M4_MAX_INCLUDES ? include(arg.value) : undefined;
      if (!arg || got === undefined) {
        note(
          commands.length && arg && !arg.expands
            ? `m4's ${name} reads a file after a command ran, which may have changed it`
            : `m4's ${name} reads a file Yoke did not read (a name m4 makes, a file not found, too large or too many)`,
        );
        if (!arg) break;
        i = arg.end;
        continue;
      }
      included++;
      const rest = text.slice(arg.end);
      if (got === "absent" || got.length + rest.length > MAX_TEXT) {
        if (got !== "absent") note(`m4's ${name} reads more text than Yoke follows`);
        i = arg.end;
        continue;
      }
      text = got + rest;
      n = text.length;
      i = 0;
      continue;
    }
    if (name === "undivert" && text[i] === "(" && !/^\(\s*[\d\s,]*\)/.test(text.slice(i))) {
      // `undivert(FILE)` outputs FILE as it is (not read again): only the Read rules matter, through `include`.
      const arg = firstArgument(text, i + 1);
      const single = arg && !arg.expands && !/[,]/.test(text.slice(i + 1, arg.end - 1).replace(/`[^']*'/g, ""));
      if (!single || !include || include(arg.value) === undefined) note("m4's undivert with a file name reads that file, which Yoke does not follow");
      if (!arg) break;
      i = arg.end;
      continue;
    }
    if (!RUNS.has(name) || text[i] !== "(") continue;
    const arg = firstArgument(text, i + 1);
    if (!arg) {
      note(`m4's ${name} argument runs to the end of the input or is not literal`);
      break;
    }
    i = arg.end;
    commands.push(arg.value);
    if (arg.expands) note(`m4's ${name} argument holds a macro m4 expands first, which Yoke does not follow`);
    if (name === "esyscmd") note("m4 reads the output of esyscmd's command as input again, which Yoke cannot see");
  }
  return { commands: [...new Set(commands)], unknown };
}

/**
 * The first argument of a macro call whose `(` is before `start`, as m4 collects it: leading unquoted
 * blanks skipped, one level of quotes removed, parentheses nesting, a `,` at the top ending it. `expands`:
 * an unquoted word in it names a builtin (m4 would expand it). Undefined when the call does not end.
 */
function firstArgument(text: string, start: number): { value: string; end: number; expands: boolean } | undefined {
  let i = start;
  while (i < text.length && /[ \t\n\r]/.test(text[i]!)) i++;
  let value = "";
  let parens = 0;
  let expands = false;
  let done = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "`") {
      let depth = 1;
      i++;
      const from = i;
      while (i < text.length && depth) {
        if (text[i] === "`") depth++;
        else if (text[i] === "'") depth--;
        i++;
      }
      if (depth) return undefined;
      if (!done) value += text.slice(from, i - 1);
      continue;
    }
    if (c === "#") {
      // A comment inside an argument is collected as it is (a quote in it opens nothing).
      const end = text.indexOf("\n", i);
      const to = end < 0 ? text.length : end + 1;
      if (!done) value += text.slice(i, to);
      i = to;
      continue;
    }
    if (c === "(") parens++;
    else if (c === ")") {
      if (!parens) return { value, end: i + 1, expands };
      parens--;
    } else if (c === "," && !parens) done = true;
    const m = /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(text.slice(i, i + 256));
    if (m) {
      if (isBuiltin(macroName(m[0]))) expands = true;
      if (!done) value += m[0];
      i += m[0].length;
      continue;
    }
    if (!done) value += c;
    i++;
  }
  return undefined;
}
