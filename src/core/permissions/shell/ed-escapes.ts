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

/** An ed address: line numbers, `.`, `$`, offsets, marks, and `/RE/` or `?RE?` searches, with separators. */
const ADDRESS = /^(?:[\d.$,;+\-^\s]|'[a-z]|\/(?:[^/\\\n]|\\.)*(?:\/|$)|\?(?:[^?\\\n]|\\.)*(?:\?|$))*/;

/**
 * The escapes in ed's input `text`; `file`: the default file name (ed's operand), undefined when ed has
 * none or a command may change it.
 */
export function edEscapes(text: string, file: string | undefined): EdEscapes {
  const out: EdEscapes = { commands: [], unknown: [] };
  // A command that sets the default file name (`f NAME`, `e FILE`, `E FILE`; `r`/`w` FILE when none is set).
  const renames = text.split("\n").some((line) => {
    const rest = line.replace(ADDRESS, "");
    return /^[fEe]\s*[^\s!]/.test(rest) || (file === undefined && /^[rwW]q?\s*[^\s!]/.test(rest));
  });
  const name = renames ? undefined : file;
  let previous: string | undefined;
  const escape = (raw: string): void => {
    let cmd = raw;
    // The previous escape's command as it ran (its `%` already replaced), then the rest of this line.
    let built = "";
    if (cmd.startsWith("!")) {
      if (previous === undefined) {
        out.unknown.push("ed's `!!` repeats an escape Yoke cannot place");
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
          out.unknown.push("an ed escape names the default file (`%`), which Yoke cannot place");
          return;
        }
        built += name;
      } else built += c;
    }
    previous = built;
    out.commands.push(built);
  };
  const line = (text: string, depth: number): void => {
    const rest = text.replace(ADDRESS, "");
    const m = /^(?:!|[rwWeE]q?[ \t]*!)([\s\S]*)$/.exec(rest);
    if (m) return escape(m[1]!);
    // A global command: its command list, after the pattern's closing delimiter.
    const g = /^[gvGV](.)/.exec(rest);
    if (g && rest.includes("!")) {
      const d = g[1]!;
      let i = 2;
      for (; i < rest.length && rest[i] !== d; i++) if (rest[i] === "\\") i++;
      const list = rest.slice(i + 1);
      if (depth > 0 || i >= rest.length) out.unknown.push("an ed global command runs a command list Yoke cannot follow");
      else line(list, depth + 1);
    }
  };
  for (const l of text.split("\n")) line(l, 0);
  return out;
}
