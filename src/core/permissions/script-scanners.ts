/**
 * Small readers for the inline programs of sed and awk: does the program run commands, write or
 * read files? sed is parsed command by command (GNU syntax); awk is scanned conservatively (a
 * pipe, `system`, output redirection, `getline <`, ENVIRON or an extension all count).
 */

export interface SedEffects {
  /** `e` command or `s///e`: runs the pattern space or a command. */
  runs: boolean;
  /** Files written by `w`/`W` commands and `s///w` flags. */
  writes: string[];
  /** Files read by `r`/`R`. */
  reads: string[];
  /** The script could not be read (a construct the reader does not know). */
  unknown?: string;
}

const SINGLE = new Set(["=", "d", "D", "g", "G", "h", "H", "x", "n", "N", "p", "P", "z", "F"]);

export function sedScriptEffects(script: string): SedEffects {
  const fx: SedEffects = { runs: false, writes: [], reads: [] };
  const s = script;
  let i = 0;
  const n = s.length;
  const restOfLine = () => {
    const end = s.indexOf("\n", i);
    const text = s.slice(i, end < 0 ? n : end);
    i = end < 0 ? n : end;
    return text;
  };
  const skipSpace = () => {
    while (i < n && (s[i] === " " || s[i] === "\t")) i++;
  };
  /** Reads up to the unescaped delimiter; false when it never comes. */
  const delimited = (delim: string): boolean => {
    for (; i < n; i++) {
      if (s[i] === "\\") {
        i++;
        continue;
      }
      if (s[i] === "\n" && delim !== "\n") return false;
      if (s[i] === delim) {
        i++;
        return true;
      }
    }
    return false;
  };
  const address = (): boolean => {
    if (i >= n) return true;
    const c = s[i]!;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(s[i]!)) i++;
    } else if (c === "$") i++;
    else if (c === "/") {
      i++;
      if (!delimited("/")) return false;
      while (i < n && /[IM]/.test(s[i]!)) i++;
    } else if (c === "\\") {
      const d = s[i + 1];
      if (!d) return false;
      i += 2;
      if (!delimited(d)) return false;
      while (i < n && /[IM]/.test(s[i]!)) i++;
    } else if (c === "+" || c === "~") {
      i++;
      while (i < n && /[0-9]/.test(s[i]!)) i++;
    }
    return true;
  };
  for (let guard = 0; guard < 100_000; guard++) {
    while (i < n && /[\s;]/.test(s[i]!)) i++;
    if (i >= n) return fx;
    if (!address()) return { ...fx, unknown: "an unterminated address" };
    skipSpace();
    if (s[i] === ",") {
      i++;
      skipSpace();
      if (!address()) return { ...fx, unknown: "an unterminated address" };
      skipSpace();
    }
    while (s[i] === "!" || s[i] === " ") i++;
    const c = s[i++];
    if (c === undefined) return { ...fx, unknown: "an address without a command" };
    if (c === "{" || c === "}") continue;
    if (c === "#") {
      restOfLine();
      continue;
    }
    if (c === ":") {
      while (i < n && s[i] !== "\n" && s[i] !== ";") i++;
      continue;
    }
    if (c === "a" || c === "i" || c === "c") {
      // One-liner text or `a\` followed by lines ending in backslashes.
      for (;;) {
        const line = restOfLine();
        if (!line.endsWith("\\") || i >= n) break;
        i++;
      }
      continue;
    }
    if (c === "s") {
      const d = s[i++];
      if (!d || d === "\n" || d === "\\") return { ...fx, unknown: "a malformed s command" };
      if (!delimited(d) || !delimited(d)) return { ...fx, unknown: "an unterminated s command" };
      for (; i < n; i++) {
        const f = s[i]!;
        if (/[gpiImM0-9]/.test(f)) continue;
        if (f === "e") {
          fx.runs = true;
          continue;
        }
        if (f === "w") {
          i++;
          fx.writes.push(restOfLine().trim());
        }
        break;
      }
    } else if (c === "y") {
      const d = s[i++];
      if (!d || !delimited(d) || !delimited(d)) return { ...fx, unknown: "a malformed y command" };
    } else if (c === "e") {
      fx.runs = true;
      restOfLine();
    } else if (c === "w" || c === "W") {
      fx.writes.push(restOfLine().trim());
    } else if (c === "r" || c === "R") {
      fx.reads.push(restOfLine().trim());
    } else if (c === "b" || c === "t" || c === "T") {
      while (i < n && s[i] !== "\n" && s[i] !== ";" && s[i] !== "}") i++;
    } else if (c === "q" || c === "Q" || c === "l" || c === "L" || c === "v") {
      skipSpace();
      while (i < n && /[0-9.]/.test(s[i]!)) i++;
    } else if (!SINGLE.has(c)) return { ...fx, unknown: `the command ${JSON.stringify(c)}` };
    skipSpace();
    if (i < n && !/[;\n}#]/.test(s[i]!)) return { ...fx, unknown: `unexpected text after a command (${JSON.stringify(s.slice(i, i + 10))})` };
  }
  return { ...fx, unknown: "a script too long to read" };
}

/** Why an awk program is not read-only, or undefined when it only reads its input and prints. */
export function awkProgramProblem(program: string): string | undefined {
  // Strings are data; take them out before looking for operators.
  const code = program.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
  if (/\bsystem\s*\(/.test(code)) return "runs commands (system)";
  if (/(^|[^|])\|(?!\|)/.test(code)) return "may pipe to or from a command (|)";
  if (/\bprintf?\b[^;}\n]*>/.test(code)) return "may write to a file (print >)";
  if (/\bgetline\b/.test(code)) return "reads other input (getline)";
  if (/\bENVIRON\b|\bPROCINFO\b/.test(code)) return "reads the environment";
  if (/@(load|include|namespace)\b/.test(code)) return "loads extensions";
  return undefined;
}

/**
 * A jq program that reads the environment or other files: `$ENV`, `$__loc__`, and the builtins `env`,
 * `input_filename`, `import`, `include`, `modulemeta`, `get_search_list` — not a field of that name
 * (`.env`, `.a.env`: one dot before it; `..env` is recursion then the builtin, so it counts).
 */
export const JQ_READS_OUTSIDE = /\$ENV\b|\$__loc__|(?<![^.]\.|^\.)\b(env|input_filename|import|include|modulemeta|get_search_list)\b/;
