/** The value a shell word has after quote removal, as far as it can be known without running anything. */
import type { Node } from "web-tree-sitter";

/** One word of a command line after quote removal. */
export interface Word {
  /** The unquoted value; for dynamic parts, their source text. */
  value: string;
  /** Contains an expansion whose value is unknown ($x, ${x}, $(...), `...`, $((...))). */
  dynamic: boolean;
  /** Contains an unquoted glob or brace pattern (*, ?, [...], {a,b}) that the shell would expand. */
  glob: boolean;
  /** The source text. */
  raw: string;
}

const DYNAMIC_TYPES = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "arithmetic_expansion",
  "process_substitution",
]);

export function wordOf(node: Node): Word {
  const w = evaluate(node);
  return { ...w, raw: node.text };
}

function evaluate(node: Node): Omit<Word, "raw"> {
  switch (node.type) {
    case "word":
    case "command_name": {
      if (node.type === "command_name" || node.namedChildCount > 0) return concat(node.namedChildren);
      return unquotedWord(node.text);
    }
    case "number":
      return { value: node.text, dynamic: false, glob: false };
    case "raw_string":
      return { value: node.text.slice(1, -1), dynamic: false, glob: false };
    case "ansi_c_string":
      return decodeAnsiC(node.text.slice(2, -1));
    case "string":
    case "translated_string":
      return doubleQuoted(node);
    case "concatenation": {
      const w = concat(node.namedChildren);
      // tree-sitter splits `{a,b}` into plain words; an unquoted brace list expands like a glob.
      if (/^[^'"]*\{[^}'"]*(,|\.\.)[^}'"]*\}/.test(node.text)) w.glob = true;
      return w;
    }
    case "brace_expression":
      return { value: node.text, dynamic: false, glob: true };
    default:
      if (DYNAMIC_TYPES.has(node.type)) return { value: node.text, dynamic: true, glob: false };
      return { value: node.text, dynamic: true, glob: false };
  }
}

function concat(children: (Node | null)[]): Omit<Word, "raw"> {
  let value = "";
  let dynamic = false;
  let glob = false;
  for (const child of children) {
    if (!child) continue;
    const part = evaluate(child);
    value += part.value;
    dynamic ||= part.dynamic;
    glob ||= part.glob;
  }
  return { value, dynamic, glob };
}

/** An unquoted word: backslash escapes removed; unescaped glob characters noted. */
function unquotedWord(text: string): Omit<Word, "raw"> {
  let value = "";
  let glob = false;
  let dynamic = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      if (i + 1 < text.length) value += text[++i];
      continue;
    }
    if (c === "*" || c === "?" || c === "[") glob = true;
    if (c === "{" && /\{[^}]*(,|\.\.)[^}]*\}/.test(text.slice(i))) glob = true;
    if (c === "$") dynamic = true;
    value += c;
  }
  return { value, dynamic, glob };
}

function doubleQuoted(node: Node): Omit<Word, "raw"> {
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
  return { value, dynamic, glob: false };
}

const SIMPLE_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "?": "?" };

function decodeAnsiC(body: string): Omit<Word, "raw"> {
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
      const hex = /^[0-9a-fA-F]{1,2}/.exec(body.slice(i + 1))?.[0] ?? "";
      value += String.fromCharCode(parseInt(hex || "0", 16));
      i += hex.length;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))![0];
      value += String.fromCharCode(parseInt(oct, 8));
      i += oct.length - 1;
    } else {
      // \u, \U, \c and unknown escapes: give up on a literal value.
      return { value: body, dynamic: true, glob: false };
    }
  }
  return { value, dynamic: false, glob: false };
}
