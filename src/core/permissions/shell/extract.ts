/**
 * Walks a tree-sitter bash syntax tree and collects every simple command and redirection, each
 * with the folders it may run in (shell/flow.ts). Parse or ask: a construct the walker does not
 * know, text in which the shell would substitute something the parser did not see, nesting too
 * deep to follow: each is a problem, which makes the command ask.
 */
import type { Node, Parser } from "web-tree-sitter";
import { analyseFlow } from "./flow";
import type { CommandAnalysis, CommandPart, CwdSet, Redirect } from "./types";
import { unwrapCommand } from "./unwrap";
import { isDangerousVariable } from "./variables";
import { literalWord, wordOf, type Word } from "./words";

/** bash -c inside bash -c… deeper than this is not analysed. */
const MAX_DEPTH = 8;
/** Syntax nesting deeper than this is not walked (asks). */
const MAX_NESTING = 400;

export interface AnalyseOptions {
  /** The folders the command line starts in (null: unknown). */
  cwd?: CwdSet;
  /** The home folder (for `cd` alone and `~`). */
  home?: string;
  depth?: number;
  via?: string[];
  elevated?: boolean;
}

/** Node types whose contents the walker understands (anything else is a problem). */
const KNOWN = new Set([
  "program",
  "command",
  "redirected_statement",
  "list",
  "pipeline",
  "subshell",
  "compound_statement",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "c_style_for_statement",
  "case_statement",
  "case_item",
  "do_group",
  "function_definition",
  "negated_command",
  "test_command",
  "declaration_command",
  "unset_command",
  "variable_assignment",
  "variable_assignments",
  "comment",
  "command_substitution",
  "process_substitution",
  "file_redirect",
  "heredoc_redirect",
  "herestring_redirect",
  "heredoc_body",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "word",
  "string",
  "raw_string",
  "ansi_c_string",
  "translated_string",
  "concatenation",
  "simple_expansion",
  "expansion",
  "arithmetic_expansion",
  "string_content",
  "number",
  "variable_name",
  "special_variable_name",
  "command_name",
  "file_descriptor",
  "array",
  "subscript",
  "brace_expression",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "parenthesized_expression",
  "postfix_expression",
  "test_operator",
  "extglob_pattern",
  "regex",
  "expansion_flags",
]);

/** Builtins that take a command string and run it later or at once. */
const SCRIPT_ARGS: Record<string, (args: Word[]) => Word[] | undefined> = {
  // trap 'cmd' SIGNAL…: the first argument is a script (unless it is -l/-p or a signal list).
  trap: (args) => {
    const a = args.filter((w) => w.value !== "--");
    if (!a.length || /^-[lp]$/.test(a[0]!.value)) return [];
    return a.length > 1 ? [a[0]!] : [];
  },
  // alias name='cmd': the value runs wherever the alias is used (with expand_aliases).
  alias: (args) => args.filter((w) => w.value.includes("=")).map((w) => ({ ...w, value: w.value.slice(w.value.indexOf("=") + 1) })),
  mapfile: (args) => valueOf(args, "-C"),
  readarray: (args) => valueOf(args, "-C"),
  compgen: (args) => valueOf(args, "-C"),
};

function valueOf(args: Word[], option: string): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === option && args[i + 1]) out.push(args[i + 1]!);
    else if (v.startsWith(option) && v.length > option.length) out.push({ ...args[i]!, value: v.slice(option.length) });
  }
  return out;
}

/** Builtins that change how later commands are found or expanded. */
const LOOKUP_CHANGERS: Record<string, (args: Word[]) => string | undefined> = {
  alias: (args) => (args.some((w) => w.value.includes("=")) ? "it defines aliases, which change what later commands run" : undefined),
  hash: (args) => (args.some((w) => w.value.startsWith("-p")) ? "hash -p changes which program a command name runs" : undefined),
  enable: (args) => (args.some((w) => /^-[a-z]*f/.test(w.value)) ? "enable -f loads a builtin from a file" : undefined),
  bind: (args) => (args.some((w) => /^-[a-z]*x/.test(w.value)) ? "bind -x runs commands on key presses" : undefined),
  complete: (args) => (args.some((w) => /^-[a-zA-Z]*[CF]/.test(w.value)) ? "complete -C/-F runs commands" : undefined),
  fc: () => "fc runs commands from the history",
};

export function analyseCommand(parser: Parser, source: string, opts: AnalyseOptions = {}): CommandAnalysis {
  if (source.includes("\\\n")) {
    // bash removes a backslash-newline before it splits words (`r\<newline>m` is `rm`); tree-sitter
    // reads it as a space. Both readings are analysed, and every part of either must pass.
    const joined = analyseOne(parser, source.replace(/\\\n/g, ""), opts);
    const split = analyseOne(parser, source, opts);
    return { parts: [...split.parts, ...joined.parts], problems: [...new Set([...split.problems, ...joined.problems])], globOptionsChanged: split.globOptionsChanged || joined.globOptionsChanged };
  }
  return analyseOne(parser, source, opts);
}

function analyseOne(parser: Parser, source: string, opts: AnalyseOptions): CommandAnalysis {
  const depth = opts.depth ?? 0;
  const result: CommandAnalysis = { parts: [], problems: [] };
  if (depth > MAX_DEPTH) {
    result.problems.push("commands nested too deeply (bash -c / eval) to analyse");
    return result;
  }
  const tree = parser.parse(source);
  if (!tree) {
    result.problems.push("the command could not be parsed");
    return result;
  }
  try {
    const root = tree.rootNode;
    if (root.hasError) result.problems.push("the command has a syntax error, so Yoke cannot tell what it runs");
    const home = opts.home ?? "/";
    const initial = opts.cwd === undefined ? null : opts.cwd;
    const flow = analyseFlow(root, initial, home);
    const walker = new Walker(parser, { depth, via: opts.via ?? [], elevated: opts.elevated ?? false, home }, flow.cwdAt, result);
    walker.walk(root, [], initial);
  } finally {
    tree.delete();
  }
  return result;
}

interface WalkerOptions {
  depth: number;
  via: string[];
  elevated: boolean;
  home: string;
}

class Walker {
  private nesting = 0;
  private stopped = false;

  constructor(
    private readonly parser: Parser,
    private readonly opts: WalkerOptions,
    private readonly cwdAt: Map<number, CwdSet>,
    private readonly out: CommandAnalysis,
  ) {}

  walk(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    if (this.stopped) return;
    if (++this.nesting > MAX_NESTING) {
      this.stopped = true;
      this.out.problems.push("the command is nested too deeply to analyse");
      return;
    }
    try {
      this.visit(node, redirects, this.cwdAt.has(node.id) ? this.cwdAt.get(node.id)! : cwd);
    } finally {
      this.nesting--;
    }
  }

  private visit(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    if (!KNOWN.has(node.type)) {
      if (node.type === "ERROR" || node.isMissing) this.problem("the command has a syntax error, so Yoke cannot tell what it runs");
      else this.problem(`it uses shell syntax Yoke does not analyse (${node.type})`);
      this.walkChildren(node, redirects, cwd);
      return;
    }
    switch (node.type) {
      case "command":
        this.command(node, redirects, cwd);
        return;
      case "redirected_statement": {
        const own: Redirect[] = [];
        let stdin: string | undefined;
        for (const r of node.childrenForFieldName("redirect")) {
          if (!r) continue;
          this.collectRedirects(r, own);
          stdin = literalInput(r) ?? stdin;
        }
        const body = node.childForFieldName("body");
        for (const r of node.childrenForFieldName("redirect")) if (r) this.walkChildren(r, [], cwd);
        if (body) {
          this.pendingStdin = body.type === "command" ? stdin : undefined;
          this.walk(body, [...redirects, ...own], cwd);
          this.pendingStdin = undefined;
        } else this.out.parts.push(this.pseudoPart(node.text, [...redirects, ...own], cwd));
        return;
      }
      case "function_definition":
        this.problem(`it defines a shell function (${node.childForFieldName("name")?.text ?? "?"}), whose calls cannot be checked`);
        this.walkChildren(node, redirects, cwd);
        return;
      case "variable_assignment":
        this.assignment(node, redirects, cwd);
        return;
      case "declaration_command":
        this.declaration(node, redirects, cwd);
        return;
      case "command_substitution":
        if (node.text.startsWith("`")) this.backticks(node, cwd);
        else {
          // `$(< file)` reads the file: a redirection with no command.
          const own: Redirect[] = [];
          for (const child of node.namedChildren) if (child?.type === "file_redirect") this.collectRedirects(child, own);
          if (own.length) this.out.parts.push(this.pseudoPart(node.text, own, cwd));
          this.walkChildren(node, [], cwd);
        }
        return;
      case "process_substitution":
        this.walkChildren(node, [], cwd);
        return;
      case "list":
        // `a && b && c` nests to the left; walk the chain without recursing down it.
        for (const item of flattenList(node)) this.walk(item, redirects, cwd);
        return;
      case "arithmetic_expansion":
        this.arithmetic(node.text);
        this.walkChildren(node, redirects, cwd);
        return;
      case "expansion":
        this.expansion(node);
        this.walkChildren(node, redirects, cwd);
        return;
      case "for_statement": {
        const v = node.childForFieldName("variable")?.text;
        if (v && isDangerousVariable(v)) this.problem(`it sets ${v}, which changes what later commands run`);
        this.walkChildren(node, redirects, cwd);
        return;
      }
      case "word":
      case "string_content":
      case "heredoc_content":
        this.scanLeaf(node, cwd);
        return;
      case "heredoc_body":
        this.heredocBody(node, cwd);
        return;
      case "raw_string":
      case "ansi_c_string":
      case "comment":
      case "heredoc_start":
      case "heredoc_end":
        return;
      default:
        this.walkChildren(node, redirects, cwd);
    }
  }

  /** Literal input for the next command walked (a here-document or here-string of its statement). */
  private pendingStdin: string | undefined;

  private problem(p: string): void {
    if (!this.out.problems.includes(p)) this.out.problems.push(p);
  }

  private walkChildren(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    for (const child of node.namedChildren) if (child) this.walk(child, redirects, cwd);
  }

  /**
   * Old-style command substitution: bash removes the backslash before `\`, `` ` `` and `$` (and, in
   * double quotes, `"`) and parses the result as a script of its own. tree-sitter does not see into
   * escaped backquotes (`` `echo \`rm x\`` ``), so the text is parsed again here, both ways when the
   * quoting makes a difference.
   */
  private backticks(node: Node, cwd: CwdSet): void {
    const body = node.text.slice(1, node.text.endsWith("`") && node.text.length > 1 ? -1 : undefined);
    const plain = body.replace(/\\([\\`$])/g, "$1");
    const quoted = body.replace(/\\([\\`$"])/g, "$1");
    for (const script of plain === quoted ? [plain] : [plain, quoted]) this.nested(script, "`…`", cwd, this.opts.elevated);
  }

  /** A word, string or here-document text: a backquote or `$(` the parser did not turn into a substitution. */
  private scanLeaf(node: Node, cwd: CwdSet): void {
    const text = node.text;
    if (!text.includes("`") && !text.includes("$(")) return;
    const inner = hiddenBackticks(text);
    if (inner === undefined) {
      this.problem("it contains a command substitution Yoke cannot parse");
      return;
    }
    for (const script of inner) this.nested(script, "`…`", cwd, this.opts.elevated);
  }

  private heredocBody(node: Node, cwd: CwdSet): void {
    const redirect = node.parent;
    const start = redirect?.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
    // A quoted delimiter (<<'EOF', <<"EOF", <<\EOF) means the body is taken literally.
    if (/['"\\]/.test(start)) return;
    if (node.namedChildCount === 0) this.scanLeaf(node, cwd);
    for (const child of node.namedChildren) if (child) this.walk(child, [], cwd);
  }

  private nested(script: string, how: string, cwd: CwdSet, elevated: boolean): void {
    const sub = analyseCommand(this.parser, script, { cwd, home: this.opts.home, depth: this.opts.depth + 1, via: [...this.opts.via, how], elevated });
    this.out.parts.push(...sub.parts);
    for (const p of sub.problems) this.problem(`inside ${how}: ${p}`);
    if (sub.globOptionsChanged) this.out.globOptionsChanged = true;
  }

  private collectRedirects(node: Node, into: Redirect[]): void {
    if (node.type === "file_redirect") {
      const dest = node.childForFieldName("destination");
      const op = node.children.find((c) => c && !c.isNamed)?.text ?? ">";
      if (!dest) return;
      const target = wordOf(dest);
      let kind: Redirect["kind"] = op === "<" ? "read" : op === "<>" ? "write" : "write";
      if ((op === ">&" || op === "<&") && (dest.type === "number" || target.value === "-" || /^\d+-?$/.test(target.value))) kind = "dup";
      if (op === "<&" || op === ">&-" || op === "<&-") kind = "dup";
      into.push({ op, kind, target });
      return;
    }
    if (node.type === "heredoc_redirect") {
      for (const child of node.namedChildren) if (child?.type === "file_redirect") this.collectRedirects(child, into);
      return;
    }
    for (const child of node.namedChildren) if (child && child.type !== "heredoc_body") this.collectRedirects(child, into);
  }

  private assignment(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    const name = node.childForFieldName("name")?.text ?? "";
    if (isDangerousVariable(name.replace(/\[.*$/, ""))) this.problem(`it sets ${name}, which changes what later commands run`);
    this.walkChildren(node, redirects, cwd);
  }

  private declaration(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    const keyword = node.children[0]?.text ?? "";
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") this.assignment(child, [], cwd);
      else if (child.type === "variable_name") {
        if (isDangerousVariable(child.text) && /^(export|declare|typeset|local|readonly)$/.test(keyword)) this.problem(`it changes ${child.text}, which changes what later commands run`);
      } else {
        const w = wordOf(child);
        if (/^-[a-zA-Z]*f/.test(w.value)) this.problem("it declares shell functions");
        else if (w.dynamic) this.problem(`${keyword} is given a name only known when it runs (${w.raw})`);
        else if (!w.value.startsWith("-") && !w.value.startsWith("+")) {
          const name = w.value.split("=")[0]!.replace(/\[.*$/, "");
          if (isDangerousVariable(name)) this.problem(`it changes ${name}, which changes what later commands run`);
        }
        this.walk(child, [], cwd);
      }
    }
    if (redirects.length) this.out.parts.push(this.pseudoPart(node.text, redirects, cwd));
  }

  /** `(( PATH = 1 ))`, `let IFS=x`: an assignment inside arithmetic. */
  private arithmetic(text: string): void {
    if (!/[^=!<>]=(?!=)/.test(text)) return;
    for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\s*[-+*/%&|^]?=(?!=)/g)) {
      if (isDangerousVariable(m[1]!)) this.problem(`it sets ${m[1]} in arithmetic, which changes what later commands run`);
    }
  }

  /** `${PATH:=x}`, `${IFS=x}`: default assignment. */
  private expansion(node: Node): void {
    // `${x@P}` expands the value as a prompt, which runs the command substitutions in it.
    if (/@P\}$/.test(node.text)) this.problem(`${node.text} expands a value as a prompt, which runs commands in it`);
    const m = /^\$\{!?([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?:?=/.exec(node.text);
    if (m && isDangerousVariable(m[1]!)) this.problem(`it sets ${m[1]}, which changes what later commands run`);
  }

  private command(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    const own = [...redirects];
    const assignments: CommandPart["assignments"] = [];
    const words: Word[] = [];
    const stdin = this.pendingStdin;
    this.pendingStdin = undefined;
    const nameNode = node.childForFieldName("name");
    if (nameNode) words.push(wordOf(nameNode));
    let literalStdin = stdin;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        assignments.push({ name: child.childForFieldName("name")?.text ?? "", value: wordOf(child.childForFieldName("value") ?? child) });
      } else if (child.type === "file_redirect" || child.type === "herestring_redirect" || child.type === "heredoc_redirect") {
        this.collectRedirects(child, own);
        literalStdin = literalInput(child) ?? literalStdin;
      }
    }
    for (const arg of node.childrenForFieldName("argument")) if (arg) words.push(wordOf(arg));
    // Substitutions anywhere inside (arguments, assignments, redirections) are commands too.
    for (const child of node.namedChildren) {
      if (child?.type === "variable_assignment") this.walkChildren(child, [], cwd);
      else if (child) this.walk(child, [], cwd);
    }
    if (words.length === 0) {
      this.out.parts.push(this.pseudoPart(node.text, own, cwd));
      return;
    }
    const part: CommandPart = {
      text: node.text,
      views: [{ words, allowable: true, skip: 0 }],
      assignments,
      redirects: own,
      elevated: this.opts.elevated,
      extraArgs: false,
      wrapper: false,
      problems: [],
      hidden: [],
      via: this.opts.via,
      cwd,
      stdin: literalStdin,
    };
    for (const a of assignments) if (isDangerousVariable(a.name)) part.problems.push(`it sets ${a.name} for the command, which changes what runs`);
    const nested = unwrapCommand(part);
    this.out.parts.push(part, ...nested.parts);
    const inner = part.views[part.views.length - 1]!.words;
    const name = inner[0]?.dynamic ? undefined : inner[0]?.value;
    if (name === "shopt" || (name === "set" && inner.slice(1).some((w) => /^[-+][a-zA-Z]*f|^[-+]o$/.test(w.value)))) this.out.globOptionsChanged = true;
    if (name === "let")
      this.arithmetic(
        inner
          .slice(1)
          .map((w) => w.value)
          .join(" "),
      );
    if (name && LOOKUP_CHANGERS[name]) {
      const why = LOOKUP_CHANGERS[name]!(inner.slice(1));
      if (why) part.problems.push(why);
    }
    if (name && SCRIPT_ARGS[name]) for (const s of SCRIPT_ARGS[name]!(inner.slice(1)) ?? []) nested.scripts.push({ how: name, script: s, elevated: part.elevated });
    for (const script of nested.scripts) {
      if (script.script.dynamic) {
        part.problems.push(`${script.how} runs a string Yoke cannot read (${script.script.raw})`);
        continue;
      }
      this.nestedInto(part, script.script.value, script.how, cwd, part.elevated || script.elevated);
    }
  }

  private nestedInto(part: CommandPart, script: string, how: string, cwd: CwdSet, elevated: boolean): void {
    const sub = analyseCommand(this.parser, script, { cwd, home: this.opts.home, depth: this.opts.depth + 1, via: [...this.opts.via, how], elevated });
    this.out.parts.push(...sub.parts);
    part.problems.push(...sub.problems.map((p) => `inside ${how}: ${p}`));
    if (sub.globOptionsChanged) this.out.globOptionsChanged = true;
  }

  private pseudoPart(text: string, redirects: Redirect[], cwd: CwdSet): CommandPart {
    return {
      text,
      views: [{ words: [literalWord(":")], allowable: true, skip: 0 }],
      assignments: [],
      redirects,
      elevated: this.opts.elevated,
      extraArgs: false,
      wrapper: false,
      problems: [],
      hidden: [],
      via: this.opts.via,
      cwd,
    };
  }
}

/** The commands of an and-or list (`a && b || c`), first to last, without recursion. */
export function flattenList(node: Node): Node[] {
  const rights: Node[] = [];
  let cur: Node = node;
  while (cur.type === "list") {
    const named = cur.namedChildren.filter((c): c is Node => !!c && c.type !== "comment");
    if (named.length < 2) break;
    rights.push(...named.slice(1).reverse());
    cur = named[0]!;
  }
  return [cur, ...rights.reverse()];
}

/** The literal text a here-string or a here-document with no expansions gives as input, or undefined. */
function literalInput(node: Node): string | undefined {
  if (node.type === "herestring_redirect") {
    const arg = node.namedChildren.find((c) => !!c && c.type !== "file_descriptor");
    if (!arg) return undefined;
    const w = wordOf(arg);
    return w.dynamic ? undefined : `${w.value}\n`;
  }
  if (node.type === "heredoc_redirect") {
    const start = node.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
    const body = node.namedChildren.find((c) => c?.type === "heredoc_body");
    if (!body) return undefined;
    const quoted = /['"\\]/.test(start);
    if (!quoted && (body.namedChildCount > 1 || /[`$\\]/.test(body.text))) return undefined;
    return body.text;
  }
  return undefined;
}

/**
 * The scripts of unescaped backquote pairs in text the shell expands, or undefined when the text
 * holds a `$(` or an odd backquote (a substitution the parser missed and Yoke cannot delimit).
 */
function hiddenBackticks(text: string): string[] | undefined {
  const out: string[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (open < 0 && c === "$" && text[i + 1] === "(") return undefined;
    if (c === "`") {
      if (open < 0) open = i;
      else {
        out.push(text.slice(open + 1, i).replace(/\\([\\`$])/g, "$1"));
        open = -1;
      }
    }
  }
  return open >= 0 ? undefined : out;
}
