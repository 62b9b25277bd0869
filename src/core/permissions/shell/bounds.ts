/**
 * The bounds of the shell analysis: inputs past them are not parsed (they ask), which keeps every
 * answer within 200 ms for any input up to 1 MB (docs/benchmarks.md, "Permissions: adversarial
 * inputs"); ordinary commands are far below them. Applied to the command line (evaluate-bash.ts)
 * and, added up, to the strings it runs (`bash -c`, `eval`: shell/extract.ts).
 */
/** Larger commands are not analysed (they ask). */
export const MAX_COMMAND_LENGTH = 100_000;
/**
 * Commands with more separators than this (`;`, `|`, `&`, lines outside here-documents) are not
 * analysed either (they ask). The bounds keep every answer within 200 ms for any input up to 1 MB
 * (docs/benchmarks.md, "Permissions: adversarial inputs"); ordinary commands are far below them.
 */
export const MAX_COMMAND_STATEMENTS = 500;
/**
 * …nor with more words, expansions and syntax characters than this (outside single quotes and
 * here-documents): each whitespace-separated word, `$`, and `[ { * ? " \\ + , < > %` and a dash
 * inside a word — each of which the parser may turn into nodes of its own (one word of 20,000
 * `[a-z]` is 40,000 nodes; `$((x0+x1+…))` one per operand).
 */
export const MAX_COMMAND_TOKENS = 2_000;
/** …nor nested deeper than this (parentheses of subshells and substitutions). */
export const MAX_NESTING_ESTIMATE = 64;
/**
 * Roughly how much a command line holds: commands (`;`, `|`, `&`, line breaks) and words
 * (whitespace runs, expansions), outside single quotes and here-document bodies. A bound on the
 * parser's work (tree-sitter's time grows with the number of tokens), not an analysis; stops
 * counting past the limits.
 */
export function estimateSize(command: string): { statements: number; tokens: number } {
  let statements = 0;
  let tokens = 0;
  let heredoc: string | undefined;
  let heredocExpands = false;
  let lineStart = 0;
  let single = false;
  let prevSpace = false;
  let depth = 0;
  for (let i = 0; i <= command.length; i++) {
    const c = command[i];
    if (c === "\n" || c === undefined) {
      const line = command.slice(lineStart, i);
      if (heredoc !== undefined) {
        if (line.replace(/^\t+/, "") === heredoc) heredoc = undefined;
      } else if (!single) {
        statements++;
        const m = /<<-?\s*(?:'([^']*)'|"([^"]*)"|(\\?)([A-Za-z_0-9]+))/.exec(line);
        if (m) {
          heredoc = m[1] ?? m[2] ?? m[4];
          heredocExpands = m[4] !== undefined && !m[3];
        }
      }
      lineStart = i + 1;
      prevSpace = true;
      if (statements > MAX_COMMAND_STATEMENTS || tokens > MAX_COMMAND_TOKENS) break;
      continue;
    }
    if (heredoc !== undefined) {
      if (!heredocExpands) continue;
      // An unquoted here-document's expansions are parsed (and nest) like the command's own.
      if (c === "$" || c === "`") tokens++;
      else if (c === "\\") i++;
      else if (c === "(" || c === "[") {
        if (++depth > MAX_NESTING_ESTIMATE) return { statements, tokens: MAX_COMMAND_TOKENS + 1 };
      } else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
      continue;
    }
    if (single) {
      if (c === "'") single = false;
      continue;
    }
    if (c === "'") single = true;
    else if (c === "\\") {
      i++;
      tokens++;
    } else if (c === ";" || c === "|" || c === "&") statements++;
    else if (c === "$" || c === "[" || c === "{" || c === "*" || c === "?" || c === '"' || c === "+" || c === "," || c === "<" || c === ">" || c === "%") tokens++;
    // Inside a word (an operator of arithmetic, `x0-x1-…`), not an option's leading dash.
    else if (c === "-" && i > 0 && !/[\s-]/.test(command[i - 1]!)) tokens++;
    else if (c === "`") {
      // Every backquote pair is parsed again on its own: they count for more.
      tokens += 40;
      if (tokens > MAX_COMMAND_TOKENS) break;
    } else if (c === "(") {
      if (++depth > MAX_NESTING_ESTIMATE) return { statements, tokens: MAX_COMMAND_TOKENS + 1 };
    } else if (c === ")") depth = Math.max(0, depth - 1);
    const space = c === " " || c === "\t";
    if (space && !prevSpace) tokens++;
    prevSpace = space;
  }
  return { statements, tokens };
}
