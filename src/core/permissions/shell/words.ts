/**
 * The value a shell word has after quote removal, as far as it can be known without running
 * anything, and its expansion pattern: the same text with every quoted or escaped character
 * backslash-escaped, so that brace, tilde and pathname expansion (shell/expand.ts) can tell an
 * unquoted `*` from a quoted one.
 */
import type { Node } from "web-tree-sitter";

/** One word of a command line after quote removal. */
export interface Word {
  /** The unquoted value; for dynamic parts, their source text. */
  value: string;
  /** Contains an expansion whose value is unknown ($x, ${x}, $(...), `...`, $((...)), ~+, ~user). */
  dynamic: boolean;
  /** Contains an unquoted glob or brace pattern (*, ?, [...], {a,b}) that the shell would expand. */
  glob: boolean;
  /** The source text. */
  raw: string;
  /**
   * For words that are not dynamic: the text to expand, with quoted and escaped characters
   * backslash-escaped (`'*'.ts` → `\*.ts`). Absent for words made up by the analysis.
   */
  pattern?: string;
}

type Value = Omit<Word, "raw">;

/** Characters that mean something to brace, tilde or pathname expansion. */
const SPECIAL = /[*?[\]{},~\\]/g;
const escapeSpecial = (s: string) => s.replace(SPECIAL, (c) => `\\${c}`);

const DYNAMIC_TYPES = new Set(["simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution"]);

export function wordOf(node: Node): Word {
  const w = evaluate(node, true);
  return { ...w, raw: node.text };
}

/** A word the analysis makes up (e.g. `git` for `git -C x push` read as `git push`). */
export function literalWord(value: string): Word {
  return { value, raw: value, dynamic: false, glob: false, pattern: escapeSpecial(value) };
}

function evaluate(node: Node, first: boolean): Value {
  switch (node.type) {
    case "word":
    case "command_name": {
      if (node.type === "command_name" || node.namedChildCount > 0) return concat(node.namedChildren, first);
      return unquotedWord(node.text, first);
    }
    case "number":
      return unquotedWord(node.text, first);
    case "raw_string": {
      const v = node.text.slice(1, -1);
      return { value: v, dynamic: false, glob: false, pattern: escapeSpecial(v) };
    }
    case "ansi_c_string":
      return decodeAnsiC(node.text.slice(2, -1));
    case "string":
    case "translated_string":
      return doubleQuoted(node);
    case "concatenation":
      return concat(node.namedChildren, first);
    case "brace_expression":
      return { value: node.text, dynamic: false, glob: true, pattern: node.text };
    default:
      if (DYNAMIC_TYPES.has(node.type)) return { value: node.text, dynamic: true, glob: false };
      // Anything else (test operators, regexes, extglob patterns…): not a value Yoke can know.
      return { value: node.text, dynamic: true, glob: false };
  }
}

function concat(children: (Node | null)[], first: boolean): Value {
  let value = "";
  let pattern = "";
  let dynamic = false;
  let glob = false;
  let start = first;
  for (const child of children) {
    if (!child) continue;
    const part = evaluate(child, start);
    start = false;
    value += part.value;
    pattern += part.pattern ?? "";
    dynamic ||= part.dynamic;
    glob ||= part.glob;
  }
  // tree-sitter splits `{a,b}` into plain words; the joined pattern tells whether it is a brace list.
  if (!dynamic && hasBraceList(pattern)) glob = true;
  return dynamic ? { value, dynamic, glob } : { value, dynamic, glob, pattern };
}

/** An unquoted word: backslash escapes removed; unescaped glob characters noted; `~+`, `~user` are dynamic. */
function unquotedWord(text: string, first: boolean): Value {
  let value = "";
  let glob = false;
  let dynamic = false;
  if (!text.includes("\\")) {
    // No escapes (the common case): one pass of native searches instead of a character loop.
    value = text;
    glob = /[*?[]/.test(text);
    dynamic = text.includes("$");
    text = "";
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      // A backslash-newline is a line continuation: both go.
      if (i + 1 < text.length && text[i + 1] !== "\n") value += text[i + 1];
      i++;
      continue;
    }
    if (c === "*" || c === "?" || c === "[") glob = true;
    if (c === "$") dynamic = true;
    value += c;
  }
  const source = (text || value).replace(/\\\n/g, "");
  if (first && source.startsWith("~") && !/^~(\/|$)/.test(source)) dynamic = true;
  if (!glob && hasBraceList(source)) glob = true;
  return dynamic ? { value, dynamic, glob } : { value, dynamic, glob, pattern: source };
}

/** Does an expansion pattern hold an unescaped brace list or sequence (`{a,b}`, `{1..3}`)? Linear scan. */
export function hasBraceList(pattern: string): boolean {
  let open = -1;
  let depth = 0;
  let comma = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") {
      if (depth === 0) {
        open = i;
        comma = false;
      }
      depth++;
    } else if (c === "}" && depth > 0) {
      depth--;
      if (depth === 0 && (comma || /^\{[^{}]*\.\.[^{}]*\}$/.test(pattern.slice(open, i + 1)))) return true;
    } else if (c === "," && depth > 0) comma = true;
  }
  return false;
}

function doubleQuoted(node: Node): Value {
  let value = "";
  let dynamic = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "string_content") value += child.text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
    else {
      value += child.text;
      dynamic = true;
    }
  }
  return dynamic ? { value, dynamic, glob: false } : { value, dynamic, glob: false, pattern: escapeSpecial(value) };
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "?": "?" };

function decodeAnsiC(body: string): Value {
  let value = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      value += c;
      continue;
    }
    const n = body[++i] ?? "";
    if (n in SIMPLE_ESCAPES) value += SIMPLE_ESCAPES[n];
    else if (n === "x") {
      const hex = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1, i + 3))?.[0] ?? "";
      value += String.fromCharCode(parseInt(hex || "0", 16));
      i += hex.length;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i, i + 3))![0];
      value += String.fromCharCode(parseInt(oct, 8));
      i += oct.length - 1;
    } else {
      // \u, \U, \c and unknown escapes: give up on a literal value.
      return { value: body, dynamic: true, glob: false };
    }
  }
  // Bash cuts a string at a NUL byte.
  const nul = value.indexOf("\0");
  if (nul >= 0) value = value.slice(0, nul);
  return { value, dynamic: false, glob: false, pattern: escapeSpecial(value) };
}

/**
 * The delimiter bash takes from a here-document's word (`<<WORD`): the word after quote removal —
 * `'…'`, `"…"` (a backslash kept unless it escapes `$`, `` ` ``, `"`, `\` or a newline), `$'…'`
 * decoded as an ANSI-C string, `$"…"` as a double-quoted one, `\c` as `c`. Undefined when Yoke cannot
 * tell (an unterminated quote, an ANSI-C escape it does not decode). tree-sitter's grammar ends the
 * body at a line equal to the word only for the plain and the whole-word-quoted forms, so the shell
 * analysis compares its reading with this one (shell/extract.ts).
 */
export function heredocDelimiter(word: string): string | undefined {
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const c = word[i]!;
    if (c === "\\") {
      if (i + 1 < word.length && word[i + 1] !== "\n") out += word[i + 1];
      i++;
    } else if (c === "'") {
      const end = word.indexOf("'", i + 1);
      if (end < 0) return undefined;
      out += word.slice(i + 1, end);
      i = end;
    } else if (c === "$" && word[i + 1] === "'") {
      let j = i + 2;
      while (j < word.length && word[j] !== "'") j += word[j] === "\\" ? 2 : 1;
      if (j >= word.length) return undefined;
      const v = decodeAnsiC(word.slice(i + 2, j));
      if (v.dynamic) return undefined;
      out += v.value;
      i = j;
    } else if (c === '"' || (c === "$" && word[i + 1] === '"')) {
      let j = c === "$" ? i + 2 : i + 1;
      let inner = "";
      while (j < word.length && word[j] !== '"') {
        if (word[j] === "\\" && j + 1 < word.length) {
          const n = word[j + 1]!;
          if (n !== "\n") inner += /[$`"\\]/.test(n) ? n : `\\${n}`;
          j += 2;
        } else inner += word[j++];
      }
      if (j >= word.length) return undefined;
      out += inner;
      i = j;
    } else out += c;
  }
  return out;
}
