/**
 * Code inside data. Bash evaluates some words a second time: as arithmetic (`$((…))`, `((…))`,
 * `let`, `$[…]`, array subscripts, `${x:off:len}`, `[[ a -eq b ]]`, `declare -i` values) or as a
 * variable name (`test -v`, `printf -v`, `read`, `unset`, `declare`, `wait -p`, namerefs, `${!x}`).
 * In both, a subscript `a[…]` is expanded again, so `a[$(cmd)]` runs cmd — also when the text
 * came from a quoted string, a file or a variable's value (arithmetic evaluates a variable's value
 * recursively: `x='a[$(id)]'; echo $((x))` runs id).
 *
 * The rule: an operand that is a literal number or identifier is fine; an identifier's value must
 * be known (every assignment to it in the command line is scanned the same way, recursively); a
 * command substitution whose output bash evaluates, a positional parameter, a variable set from
 * input or files (`read`, `for f in *`, `mapfile`…) or a subscript holding `$(`/`` ` `` makes the
 * command ask. What bash does was checked with bash 5.2 (test/unit/permissions/code-in-data.test.ts).
 */
import { isDangerousVariable } from "./variables";

/** Variables the shell itself sets to text from elsewhere (`$_` is the previous command's last argument). */
const SHELL_SET = new Set([
  "_",
  "REPLY",
  "OPTARG",
  "MAPFILE",
  "BASH_REMATCH",
  "BASH_ARGV",
  "BASH_ARGV0",
  "BASH_ARGC",
  "BASH_COMMAND",
  "BASH_EXECUTION_STRING",
  "BASH_SOURCE",
  "BASH_ALIASES",
  "BASH_CMDS",
  "FUNCNAME",
  "COPROC",
  "DIRSTACK",
  "READLINE_LINE",
  "COMP_LINE",
  "COMP_WORDS",
  "PWD",
  "OLDPWD",
  "HISTFILE",
]);

const UNKNOWN = Symbol("unknown");
type Value = string | typeof UNKNOWN;

/** Commands whose output is a number (so bash may evaluate it as arithmetic). */
const NUMERIC_OUTPUT = /^\s*(nproc(\s+--all)?|getconf\s+[A-Z_]+|seq(\s+-?[0-9]+){1,3}|id\s+-[ug]r?|date\s+\+%s|wc\s+-[lcmw]\s*(<\s*[^\s;&|<>()$`]+)?|echo\s+-?[0-9]+)\s*$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_DEPTH = 8;
/** Where a use was found, short enough for a message (a 30 KB expression is not repeated per use). */
const short = (where: string) => (where.length > 60 ? `${where.slice(0, 57)}…` : where);

/**
 * What the whole command line assigns to variables and where it evaluates them; shared by every
 * nested analysis of one check (an exported variable reaches `bash -c`; `eval` shares the shell).
 * Checked once the line is walked, because a use can come before the assignment in the text
 * (loops, functions).
 */
export class DataState {
  private readonly values = new Map<string, Value[]>();
  private readonly uses: Array<{ name: string; where: string }> = [];
  private readonly integerNames = new Set<string>();
  private readonly problems: string[] = [];
  /** `source`/`.`: any variable may hold anything. */
  private everything: string | undefined;

  problem(p: string): void {
    if (!this.problems.includes(p)) this.problems.push(p);
  }

  /** `NAME=value` (any form): the value bash will hold, as text (`$x`, `$(…)` parts kept as written). */
  assign(name: string, value: string, dynamic: boolean): void {
    const base = name.replace(/\[[\s\S]*$/, "").replace(/\+$/, "");
    if (!IDENT.test(base)) return;
    if (dynamic && /\$'|\\/.test(value)) return this.assignUnknown(base);
    const list = this.values.get(base) ?? [];
    list.push(value);
    this.values.set(base, list);
  }

  /** `read NAME`, `for f in *`, `mapfile NAME`…: a value from input, files or the run. */
  assignUnknown(name: string): void {
    const base = name.replace(/\[[\s\S]*$/, "");
    if (!IDENT.test(base)) return;
    // `read PS4`, `printf -v PATH …`, `mapfile -t BASH_ENV`: a builtin that stores into a named
    // variable sets it as surely as `PS4=…` does (PS4's $(…) runs at every traced command).
    if (isDangerousVariable(base)) this.problem(`it sets ${base} (read, printf -v, mapfile, getopts…), which changes what later commands run`);
    const list = this.values.get(base) ?? [];
    list.push(UNKNOWN);
    this.values.set(base, list);
  }

  everythingUnknown(why: string): void {
    this.everything ??= why;
  }

  /** `declare -i NAME`: every value assigned to NAME is evaluated as arithmetic. */
  integer(name: string): void {
    if (IDENT.test(name)) this.integerNames.add(name);
  }

  /** Text bash evaluates as arithmetic. */
  arithmetic(text: string, where: string): void {
    scanArithmetic(text, short(where), this, 0);
  }

  /** A word bash reads as a variable name (`printf -v NAME`, `test -v NAME`): an identifier, optionally with a subscript. */
  name(word: { value: string; raw: string; dynamic: boolean; glob?: boolean }, where: string): void {
    if (word.dynamic) {
      this.problem(`${where} is given the variable name ${word.raw}, only known when it runs (bash evaluates a name such as a[$(cmd)], which runs cmd)`);
      return;
    }
    const v = word.value;
    // `read PAT?`, `unset P???`, `read {P,X}ATH`: bash expands the word against the folder's file
    // names first, so a file named PATH (or F, or IFS) makes it that name (red team X).
    if (word.glob && /[*?[{]/.test(v)) {
      this.problem(`${where} is given names made by expansion (${word.raw}), which Yoke does not follow`);
      return;
    }
    if (IDENT.test(v)) return;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\[([\s\S]*)\]$/.exec(v);
    if (m) {
      if (m[2] === "@" || m[2] === "*") return;
      scanArithmetic(m[2]!, short(`the subscript of ${v} (${where})`), this, 0);
      return;
    }
    if (/[$`[]/.test(v)) this.problem(`${where} is given ${word.raw}, which bash evaluates as code`);
  }

  /** A variable whose value bash evaluates (as arithmetic, or as a name through `${!x}`). */
  use(name: string, where: string): void {
    this.uses.push({ name, where: short(where) });
  }

  /** The problems found, once the whole line is walked. */
  finish(): string[] {
    const out = [...this.problems];
    const seen = new Map<string, string | undefined>();
    const check = (name: string, depth: number): string | undefined => {
      if (seen.has(name)) return seen.get(name);
      seen.set(name, undefined);
      let why: string | undefined;
      if (SHELL_SET.has(name)) why = `${name} is set by the shell from text Yoke cannot see`;
      else if (depth > MAX_DEPTH) why = `the values of ${name} refer to each other too deeply`;
      else {
        const values = this.values.get(name);
        if (this.everything) why = this.everything;
        for (const v of values ?? []) {
          if (why) break;
          if (v === UNKNOWN) {
            why = `${name} is set from input, files or the run (read, for … in, mapfile…)`;
            break;
          }
          const inner = new DataState();
          scanArithmetic(v, "", inner, depth + 1);
          if (inner.problems.length) why = `the value of ${name}, ${JSON.stringify(v)}, ${inner.problems[0]!.replace(/^ ?/, "")}`;
          else for (const u of inner.uses) if (!why) why = check(u.name, depth + 1);
        }
      }
      seen.set(name, why);
      return why;
    };
    for (const u of this.uses) {
      const why = check(u.name, 0);
      if (why) out.push(`bash evaluates the value of ${u.name} as code (${u.where}), and ${why}: a value such as a[$(cmd)] runs cmd`);
    }
    for (const name of this.integerNames) {
      const why = check(name, 0);
      if (why) out.push(`${name} is an integer variable (declare -i), so bash evaluates what is assigned to it, and ${why}`);
    }
    return [...new Set(out)];
  }
}

/**
 * Scans arithmetic text as bash evaluates it: identifiers are variable uses (their values are
 * evaluated in turn), subscripts are arithmetic again, `$x`/`${x}` are uses, a command
 * substitution's output is evaluated (unknown unless it is a number), positional parameters are
 * unknown. Quotes are looked through (erring wide).
 */
export function scanArithmetic(text: string, where: string, state: DataState, depth: number): void {
  const at = where ? ` in ${where}` : "";
  if (depth > MAX_DEPTH) {
    state.problem(`arithmetic nested too deeply to follow${at}`);
    return;
  }
  const n = text.length;
  for (let i = 0; i < n;) {
    const c = text[i]!;
    if (c === "`") {
      state.problem(`bash evaluates the output of a backquoted command as arithmetic${at}`);
      return;
    }
    if (c === "$") {
      const d = text[i + 1];
      if (d === "(" && text[i + 2] === "(") {
        i += 3;
        continue;
      }
      if (d === "(") {
        const end = matching(text, i + 1, "(", ")");
        const cmd = text.slice(i + 2, end < 0 ? n : end);
        if (!NUMERIC_OUTPUT.test(cmd)) state.problem(`bash runs $(${cmd.length > 40 ? `${cmd.slice(0, 40)}…` : cmd}) and evaluates its output as arithmetic${at}`);
        i = end < 0 ? n : end + 1;
        continue;
      }
      if (d === "[") {
        i += 2;
        continue;
      }
      if (d === "{") {
        const end = matching(text, i + 1, "{", "}");
        braced(text.slice(i + 2, end < 0 ? n : end), at, state, depth);
        i = end < 0 ? n : end + 1;
        continue;
      }
      if (d !== undefined && /[A-Za-z_]/.test(d)) {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))!;
        state.use(m[0], `$${m[0]}${at}`);
        i += 1 + m[0].length;
        continue;
      }
      if (d !== undefined && /[0-9@*]/.test(d)) {
        state.problem(`bash evaluates the positional parameter $${d} as arithmetic${at}`);
        i += 2;
        continue;
      }
      i += d !== undefined && /[#?$!-]/.test(d) ? 2 : 1;
      continue;
    }
    if (/[0-9]/.test(c)) {
      // A number, in any base (0x1f, 2#101, 64#a@_).
      i++;
      while (i < n && /[0-9A-Za-z_#@]/.test(text[i]!)) i++;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256))!;
      const name = m[0];
      i += name.length;
      state.use(name, `${name}${at}`);
      let j = i;
      while (j < n && (text[j] === " " || text[j] === "\t")) j++;
      if (text[j] === "[") {
        const end = matching(text, j, "[", "]");
        const sub = text.slice(j + 1, end < 0 ? n : end);
        if (sub !== "@" && sub !== "*") scanArithmetic(sub, short(`the subscript ${name}[${sub}]`), state, depth + 1);
        i = end < 0 ? n : end + 1;
      }
      continue;
    }
    i++;
  }
}

/** `${…}` inside arithmetic: a use of the variable; `${!x}` and positional parameters are unknown. */
function braced(body: string, at: string, state: DataState, depth: number): void {
  if (body.startsWith("!")) {
    const m = /^!([A-Za-z_][A-Za-z0-9_]*)([*@]|\[[@*]\])?$/.exec(body);
    if (m && m[2]) return; // names or keys, not a value
    if (m) state.use(m[1]!, `\${!${m[1]}}${at}`);
    else state.problem(`bash evaluates \${${body}} as arithmetic${at}`);
    return;
  }
  if (body.startsWith("#") && body.length > 1) return; // a length
  const m = /^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])([\s\S]*)$/.exec(body);
  if (!m) {
    state.problem(`bash evaluates \${${body}} as arithmetic${at}`);
    return;
  }
  const name = m[1]!;
  if (/^[0-9@*]/.test(name)) state.problem(`bash evaluates the positional parameter \${${name}} as arithmetic${at}`);
  else if (IDENT.test(name)) state.use(name, `\${${name}}${at}`);
  // The rest (a subscript, a default word, a pattern): scanned as arithmetic, erring wide.
  if (m[2]) scanArithmetic(m[2].replace(/^\[|\]$/g, " "), at.replace(/^ in /, ""), state, depth + 1);
}

/** The index of the bracket closing the one at `open`, or -1. */
export function matching(text: string, open: number, o: string, c: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === o) depth++;
    else if (ch === c && --depth === 0) return i;
  }
  return -1;
}

/** `${x:off:len}` (and `${a[@]:off}`): the offset and length texts bash evaluates as arithmetic, or none. */
export function substringOperands(expansionText: string): string[] {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])(\[[^\]]*\])?:(?![-=?+])([\s\S]*)\}$/.exec(expansionText);
  if (!m) return [];
  const rest = m[3]!;
  const colon = topLevelColon(rest);
  return colon < 0 ? [rest] : [rest.slice(0, colon), rest.slice(colon + 1)];
}

function topLevelColon(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === "(" || ch === "[" || ch === "{") depth++;
    else if (ch === ")" || ch === "]" || ch === "}") depth--;
    else if (ch === "?" && depth === 0)
      depth += 1000; // a ternary's `:` belongs to it
    else if (ch === ":" && depth >= 1000) depth -= 1000;
    else if (ch === ":" && depth === 0) return i;
  }
  return -1;
}
