/**
 * The commands ed's shell escapes run, read from ed's input as GNU ed reads them (ed 1.19, checked with
 * the real program): `!CMD`, `r !CMD`, `w !CMD`/`W !CMD` (after any address) and `e !CMD`/`E !CMD` hand
 * the rest of the line to `sh -c`, after ed's own processing — an unescaped `%` becomes the default file
 * name, `\%` a plain `%`, other backslashes stay; `!!` at the start is the previous escape's command. A
 * global command (`g/RE/!CMD`, `v/…/`) runs its command list for each matching line; its escape is read
 * the same way. A file operand `!CMD` reads the command's output as the buffer.
 *
 * Every line is read as a possible command, also lines ed may take as text (after `a`, `i`, `c`): more
 * commands than run, never fewer. What cannot be placed (`%` without a known file name, `!!` with no
 * escape before it, a global command list Yoke cannot follow) is returned as a reason instead.
 */

export interface EdEscapes {
  /** The command lines the escapes hand to `sh -c`. */
  commands: string[];
  /** Why some escape's command is not known (code Yoke cannot see). */
  unknown: string[];
}

/**
 * Where the closing `delim` of an ed pattern starting at `i` is, as GNU ed's extract_pattern reads it: a
 * backslash escapes the next character and a bracket expression (`[/]`, `[]/]`, `[[:alpha:]/]`) may hold
 * the delimiter (red-team A, session 17: `/[/]/w !cat .env` and `g/[/]/!cat .env` ran `cat .env` while Yoke
 * ended the pattern inside the brackets). The line's length when the pattern runs to its end; -1 when ed
 * refuses it (unbalanced brackets).
 */
function patternEnd(s: string, i: number, delim: string): number {
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === delim) return i;
    if (c === "\\") i++;
    else if (c === "[") {
      let j = i + 1;
      if (s[j] === "^") j++;
      if (s[j] === "]") j++;
      for (; j < s.length && s[j] !== "]"; j++) {
        const d = s[j + 1];
        if (s[j] === "[" && (d === "." || d === ":" || d === "=")) {
          const close = s.indexOf(`${d}]`, j + 2);
          if (close < 0) return -1;
          j = close + 1;
        }
      }
      if (j >= s.length) return -1;
      i = j;
    }
  }
  return s.length;
}

/**
 * The length of the address before an ed command: line numbers, `.`, `$`, `%` (GNU ed: the whole buffer —
 * `%w !cat .env` ran; Yoke missed it), offsets, marks, `/RE/` and `?RE?` searches, separators and blanks.
 * -1 when a search pattern is one ed refuses.
 */
function addressEnd(s: string): number {
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/[\d.$,;%+\-^ \t]/.test(c)) i++;
    else if (c === "'" && /[a-z]/.test(s[i + 1] ?? "")) i += 2;
    else if (c === "/" || c === "?") {
      const end = patternEnd(s, i + 1, c);
      if (end < 0) return -1;
      i = end + 1;
    } else break;
  }
  return Math.min(i, s.length);
}

/** GNU ed's command letters: a line whose address is followed by anything else is not a command Yoke can read. */
const COMMANDS = /^(?:[acdeEfgGhHijklmnpPqQrstuvVwWxyz#=!]|$)/;

/** Does this text end in a backslash that escapes the newline after it (an odd number of them)? */
function trailingEscape(s: string): boolean {
  const m = /\\+$/.exec(s);
  return !!m && m[0].length % 2 === 1;
}

/**
 * The escapes in ed's input `text`; `file`: the default file name (ed's operand), undefined when ed has
 * none or a command may change it.
 */
export function edEscapes(text: string, file: string | undefined): EdEscapes {
  const out: EdEscapes = { commands: [], unknown: [] };
  const lines = text.split("\n");
  const rest = (l: string): string | undefined => {
    const end = addressEnd(l);
    return end < 0 ? undefined : l.slice(end);
  };
  // A command that sets the default file name (`f NAME`, `e FILE`, `E FILE`; `r`/`w` FILE when none is set).
  const renames = lines.some((l) => {
    const r = rest(l) ?? "";
    return /^[fEe]\s*[^\s!]/.test(r) || (file === undefined && /^[rwW]q?\s*[^\s!]/.test(r));
  });
  const name = renames ? undefined : file;
  let previous: string | undefined;
  const unknown = (why: string) => {
    if (!out.unknown.includes(why)) out.unknown.push(why);
  };
  // `at`: the index of the escape's line, so a line ending in an escaping backslash is joined with the
  // next as GNU ed joins it (get_extended_line drops the backslash and the newline: `!cat .e\` then `nv`
  // runs `cat .env`). The joined lines are also read on their own (more commands than run, never fewer).
  const escape = (first: string, at: number): void => {
    let cmd = first;
    for (let k = at + 1; trailingEscape(cmd) && k < lines.length; k++) cmd = cmd.slice(0, -1) + lines[k]!;
    // The previous escape's command as it ran (its `%` already replaced), then the rest of this line.
    let built = "";
    if (cmd.startsWith("!")) {
      if (previous === undefined) {
        unknown("ed's `!!` repeats an escape Yoke cannot place");
        return;
      }
      built = previous;
      cmd = cmd.slice(1);
    }
    for (let i = 0; i < cmd.length; i++) {
      const c = cmd[i]!;
      if (c === "\\" && cmd[i + 1] === "%") {
        built += "%";
        i++;
      } else if (c === "%") {
        if (name === undefined) {
          unknown("an ed escape names the default file (`%`), which Yoke cannot place");
          return;
        }
        built += name;
      } else built += c;
    }
    previous = built;
    out.commands.push(built);
  };
  const line = (text: string, at: number, depth: number): void => {
    const r = rest(text);
    // An address Yoke cannot read, or one followed by a letter that is no ed command: where the line holds a
    // `!`, what ed makes of it is not known (asks, never allows). A line starting with neither an address
    // nor a command (`Note: hi!`, text after `a`) is an error to ed as a command: nothing runs.
    if (r === undefined || (!COMMANDS.test(r) && r.length < text.length)) {
      if (text.includes("!")) unknown("an ed line holds a `!` Yoke cannot place as a command or as text");
      return;
    }
    if (!COMMANDS.test(r)) return;
    const m = /^(?:!|[rwWeE]q?[ \t]*!)([\s\S]*)$/.exec(r);
    if (m) return escape(m[1]!, at);
    // A global command: its command list, after the pattern's closing delimiter.
    const g = /^[gvGV](.)/.exec(r);
    if (g && (r.includes("!") || trailingEscape(r))) {
      const end = g[1] === "\\" || g[1] === " " ? -1 : patternEnd(r, 2, g[1]!);
      if (depth > 0 || end < 0 || end >= r.length) unknown("an ed global command runs a command list Yoke cannot follow");
      else line(r.slice(end + 1), at, depth + 1);
    }
  };
  lines.forEach((l, at) => line(l, at, 0));
  return out;
}
