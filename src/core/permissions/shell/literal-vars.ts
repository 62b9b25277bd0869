/**
 * Literal variables set earlier on the line (issue 18, session 21): `F=src/a.ts; wc -l "$F"`,
 * `d=build; ls "$d"` and `for f in a.ts b.ts; do wc -l "$f"; done` run exactly what
 * `wc -l src/a.ts`, `ls build` and `wc -l a.ts; wc -l b.ts` run, so they are analysed as those
 * (they asked before: "reads $F, only known when it runs"). The line is rewritten with the values in
 * place of the uses, once per combination of loop values, and every rewriting is analysed; the
 * line passes only if each does (extract.ts).
 *
 * A variable is followed only when its value at each use is certain:
 * - a plain assignment `NAME=literal` (no expansion, no `~`, not `+=`, not an array or element)
 *   that is a statement of the line's top level — not in a pipeline stage, a subshell, a function,
 *   a condition's right-hand side or a background job (`a && F=x` may not run; `F=x | cat` and
 *   `(F=x)` do not persist) — or a `for NAME in literal…` loop (no glob, no expansion, at most
 *   MAX_LOOP_VALUES values; its uses inside the loop body only);
 * - the name is not one bash or a program gives a meaning (`RANDOM`, `SECONDS`, `PATH`, `IFS`…);
 * - the name appears nowhere else on the line except as `$NAME`/`${NAME}` reads and inside the
 *   arguments of programs that are not shell builtins (`read NAME`, `unset NAME`, `declare -i NAME`,
 *   `printf -vNAME`, `declare -n r=NAME`, `${NAME:=x}`, `((NAME++))`, another assignment, a
 *   here-document… each leave it unknown), also once `$'\x46'`-style strings are decoded;
 * - the line runs no shell code Yoke cannot see in the same shell (`eval`, `source`, `.`, `trap`,
 *   `alias`, `builtin`, `command`, `enable`, a command name only known when it runs).
 * A name built at run time (`printf -v "$n"`, `read "${a^^}"`, `eval "$x=…"`) already asks
 * (shell/evaluated.ts, shell/exports.ts): the rewritten line keeps those constructs.
 *
 * A use is replaced only where quoting it changes nothing: inside double quotes (the value escaped
 * for them), or unquoted when the value has no character that word splitting or pathname expansion
 * acts on (then single-quoted: `$c -l` with c=`a=b` stays a command named `a=b`). Uses in
 * arithmetic, `[[ ]]`, `case`, here-documents, here-strings, backquotes and nested `${…}` stay unknown.
 */
import type { Node } from "web-tree-sitter";
import { isDangerousVariable } from "./variables";
import { wordOf } from "./words";

/** More loop values than this: the loop variable stays unknown. */
export const MAX_LOOP_VALUES = 8;
/** More rewritings of one line than this: the loops past it stay unknown. */
export const MAX_VARIANTS = 8;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Variables bash sets or reads itself (bash(1), "Shell Variables"), besides isDangerousVariable's. */
const SHELL_VARIABLES =
  /^(BASH.*|COMP_.*|READLINE_.*|HIST.*|LC_.*|COLUMNS|COPROC|DIRSTACK|EMACS|ENV|EPOCHREALTIME|EPOCHSECONDS|EUID|FCEDIT|FUNCNAME|FUNCNEST|GLOBSORT|GROUPS|HOSTFILE|HOSTNAME|HOSTTYPE|IGNOREEOF|INSIDE_EMACS|LANG|LINENO|LINES|MACHTYPE|MAIL|MAILCHECK|MAILPATH|MAPFILE|OPTARG|OPTERR|OPTIND|OSTYPE|PIPESTATUS|PPID|PROMPT_DIRTRIM|RANDOM|REPLY|SECONDS|SHLVL|SRANDOM|TIMEFORMAT|TMOUT|UID|auto_resume|histchars|_)$/;
/** Commands that run shell code Yoke does not see in this shell, or change how words become commands. */
const OPAQUE_COMMANDS = /^(eval|source|\.|trap|alias|builtin|command|enable|exec|coproc|fc|hash)$/;
/** Builtins that take a variable name as an argument (or in an option's value). */
const NAME_BUILTINS = /^(read|printf|mapfile|readarray|getopts|declare|typeset|local|export|readonly|unset|wait|let|test|\[|\[\[|compgen|complete)$/;
/** Node types a name's occurrence may not be inside (it may be written or evaluated there). */
const WRITING_CONTEXTS = new Set([
  "variable_assignment",
  "variable_assignments",
  "subscript",
  "arithmetic_expansion",
  "expansion",
  "test_command",
  "declaration_command",
  "unset_command",
  "for_statement",
  "c_style_for_statement",
  "compound_statement",
  "heredoc_body",
  "heredoc_redirect",
  "herestring_redirect",
  "case_statement",
  "case_item",
  "binary_expression",
  "unary_expression",
  "postfix_expression",
  "parenthesized_expression",
  "ternary_expression",
  "function_definition",
  "command_name",
]);
/** Where a use stays unreplaced (its quoting means something else there, or it is not a word). */
const USE_BLOCKERS = new Set([
  "arithmetic_expansion",
  "subscript",
  "test_command",
  "case_item",
  "case_statement",
  "heredoc_body",
  "heredoc_redirect",
  "herestring_redirect",
  "expansion",
  "c_style_for_statement",
  "binary_expression",
  "unary_expression",
  "postfix_expression",
  "parenthesized_expression",
  "ternary_expression",
  "regex",
  "extglob_pattern",
]);
/** A value that word splitting and pathname expansion leave as one unchanged word. */
const SPLIT_SAFE = /^[A-Za-z0-9_./:=,%+@-]+$/;

interface Binding {
  name: string;
  values: string[];
  /** The name's own node (the assignment's or the loop's variable). */
  nameNode: Node;
  /** Uses inside [from, to) are replaced. */
  from: number;
  to: number;
}

interface Replacement {
  start: number;
  end: number;
  /** The text for each value of the binding. */
  texts: string[];
  binding: number;
}

/**
 * The line rewritten with its literal variables' values in place of their uses (see the file
 * comment): one source per combination of loop values, or undefined when nothing is replaced.
 */
export function literalVariants(root: Node, source: string): string[] | undefined {
  if (!source.includes("$") || root.text !== source) return undefined;
  for (const c of root.descendantsOfType("command")) {
    const name = c?.childForFieldName("name");
    if (!name) continue;
    const w = wordOf(name);
    // `{eval,} 'F=y'` runs eval: a name brace or pathname expansion makes is only known when it runs.
    if (w.dynamic || w.glob || OPAQUE_COMMANDS.test(w.value)) return undefined;
  }
  const bindings: Binding[] = [];
  for (const node of root.descendantsOfType(["variable_assignment", "for_statement"])) {
    if (!node) continue;
    const b = node.type === "for_statement" ? loopBinding(node) : assignmentBinding(node, source);
    if (b) bindings.push(b);
  }
  if (!bindings.length) return undefined;
  const replacements: Replacement[] = [];
  bindings.forEach((b, index) => {
    const uses = readsOf(root, b.name);
    if (!onlyReads(root, source, b, uses)) return;
    for (const use of uses) {
      if (use.startIndex < b.from || use.endIndex > b.to) continue;
      const texts = b.values.map((v) => replacementFor(use, v));
      if (texts.some((t) => t === undefined)) continue;
      replacements.push({ start: use.startIndex, end: use.endIndex, texts: texts as string[], binding: index });
    }
  });
  if (!replacements.length) return undefined;
  // Loops with uses, in order, while the number of rewritings stays within MAX_VARIANTS.
  const used = [...new Set(replacements.map((r) => r.binding))];
  const kept = new Set<number>();
  let variants = 1;
  for (const i of used) {
    const n = bindings[i]!.values.length;
    if (variants * n > MAX_VARIANTS) continue;
    variants *= n;
    kept.add(i);
  }
  const chosen = replacements.filter((r) => kept.has(r.binding)).sort((a, b) => a.start - b.start);
  if (!chosen.length) return undefined;
  const order = [...kept];
  const out: string[] = [];
  for (let v = 0; v < variants; v++) {
    // Mixed-radix digits: the value of each kept binding in this rewriting.
    const pick = new Map<number, number>();
    let rest = v;
    for (const i of order) {
      const n = bindings[i]!.values.length;
      pick.set(i, rest % n);
      rest = Math.floor(rest / n);
    }
    let text = "";
    let at = 0;
    for (const r of chosen) {
      text += source.slice(at, r.start) + r.texts[pick.get(r.binding)!]!;
      at = r.end;
    }
    out.push(text + source.slice(at));
  }
  return out;
}

function followable(name: string): boolean {
  return IDENT.test(name) && !isDangerousVariable(name) && !SHELL_VARIABLES.test(name);
}

/** `NAME=literal` as a statement of the top level that always runs before what follows it. */
function assignmentBinding(node: Node, source: string): Binding | undefined {
  const nameNode = node.childForFieldName("name");
  if (nameNode?.type !== "variable_name" || !followable(nameNode.text)) return undefined;
  if (source.slice(nameNode.endIndex, nameNode.endIndex + 1) !== "=") return undefined;
  const valueNode = node.childForFieldName("value");
  let value = "";
  if (valueNode) {
    if (valueNode.type === "array") return undefined;
    const w = wordOf(valueNode);
    if (w.dynamic || w.raw.includes("~")) return undefined;
    value = w.value;
  }
  // Climb to the top level: through `A=1 B=2` and as the first element of `&&`/`||` lists only.
  let child: Node = node;
  let parent = node.parent;
  while (parent && parent.type !== "program") {
    if (parent.type === "variable_assignments") {
      // All of `A=1 B=2` run, in order.
    } else if (parent.type === "list") {
      if (parent.namedChildren[0]?.id !== child.id) return undefined;
    } else return undefined;
    child = parent;
    parent = parent.parent;
  }
  if (!parent) return undefined;
  // `F=x &` runs in a background subshell.
  if (child.nextSibling?.type === "&") return undefined;
  return { name: nameNode.text, values: [value], nameNode, from: child.endIndex, to: Number.MAX_SAFE_INTEGER };
}

/** `for NAME in literal…; do BODY; done`: its uses in BODY. */
function loopBinding(node: Node): Binding | undefined {
  if (!node.text.startsWith("for")) return undefined;
  const nameNode = node.childForFieldName("variable");
  const body = node.childForFieldName("body");
  if (!nameNode || !body || !followable(nameNode.text)) return undefined;
  const valueNodes = node.childrenForFieldName("value").filter((c): c is Node => !!c);
  if (!valueNodes.length || valueNodes.length > MAX_LOOP_VALUES) return undefined;
  const values: string[] = [];
  for (const c of valueNodes) {
    const w = wordOf(c);
    if (w.dynamic || w.glob || w.raw.includes("~")) return undefined;
    values.push(w.value);
  }
  return { name: nameNode.text, values, nameNode, from: body.startIndex, to: body.endIndex };
}

/** `$NAME` and `${NAME}` anywhere in the tree. */
function readsOf(root: Node, name: string): Node[] {
  return root.descendantsOfType(["simple_expansion", "expansion"]).filter((n): n is Node => !!n && (n.text === `$${name}` || n.text === `\${${name}}`));
}

/**
 * Is every other occurrence of the binding's name (as written, and in decoded `$'…'` strings)
 * harmless? Also where it is part of a longer word: `printf -vp`, `read -rap` name p too.
 */
function onlyReads(root: Node, source: string, b: Binding, reads: Node[]): boolean {
  const allowed = new Set<number>([b.nameNode.startIndex]);
  for (const r of reads) allowed.add(r.endIndex - b.name.length - (r.type === "expansion" ? 1 : 0));
  const ident = /[A-Za-z0-9_]/;
  const re = new RegExp(b.name, "g");
  for (let m = re.exec(source); m; m = re.exec(source)) {
    if (allowed.has(m.index)) continue;
    const node = root.descendantForIndex(m.index, m.index + b.name.length);
    const alone = !ident.test(source[m.index - 1] ?? "") && !ident.test(source[m.index + b.name.length] ?? "");
    if (alone ? !inProgramArgument(node) : inBuiltinWords(node)) return false;
  }
  for (const s of root.descendantsOfType("ansi_c_string")) {
    if (!s) continue;
    const decoded = wordOf(s);
    if ((decoded.dynamic || decoded.value.includes(b.name)) && !inProgramArgument(s)) return false;
  }
  return true;
}

/** Is the node among the words of a builtin that takes variable names (where `-vp` names p), or of a command only known when it runs? */
function inBuiltinWords(node: Node | null): boolean {
  for (let a = node; a; a = a.parent) {
    // The command's own name (`printf` holds an f): not a word it is given.
    if (a.type === "command_name") return false;
    if (a.type === "declaration_command" || a.type === "unset_command" || a.type === "test_command") return true;
    if (a.type === "command") {
      const name = a.childForFieldName("name");
      if (!name) return true;
      const w = wordOf(name);
      return w.dynamic || w.glob || NAME_BUILTINS.test(w.value) || OPAQUE_COMMANDS.test(w.value);
    }
  }
  return false;
}

/** Is the node inside an argument of a command whose name is a literal program that is not a builtin taking variable names? */
function inProgramArgument(node: Node | null): boolean {
  let child: Node | null = node;
  let parent = node?.parent ?? null;
  while (child && parent) {
    if (parent.type === "command") {
      if (child.type === "command_name" || child.type === "variable_assignment") return false;
      const name = parent.childForFieldName("name");
      if (!name) return false;
      const w = wordOf(name);
      return !w.dynamic && !w.glob && !NAME_BUILTINS.test(w.value) && !OPAQUE_COMMANDS.test(w.value);
    }
    if (WRITING_CONTEXTS.has(parent.type)) return false;
    child = parent;
    parent = parent.parent;
  }
  return false;
}

/** The text that replaces a use with this value, or undefined where quoting would change its meaning. */
function replacementFor(use: Node, value: string): string | undefined {
  // Inside backquotes bash removes a backslash before `$` once more before it parses: no escaping is neutral there.
  for (let a = use.parent; a; a = a.parent) if (USE_BLOCKERS.has(a.type) || (a.type === "command_substitution" && a.text.startsWith("`"))) return undefined;
  const parent = use.parent;
  if (!parent) return undefined;
  if (parent.type === "string") return value.replace(/[\\$`"]/g, (c) => `\\${c}`);
  if (!/^(command|concatenation|variable_assignment|file_redirect|for_statement)$/.test(parent.type)) return undefined;
  if (parent.type === "concatenation" && !/^(command|variable_assignment|file_redirect|for_statement)$/.test(parent.parent?.type ?? "")) return undefined;
  if (!SPLIT_SAFE.test(value)) return undefined;
  return `'${value}'`;
}
