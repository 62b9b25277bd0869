/**
 * Walks a tree-sitter bash syntax tree and collects every simple command and redirection, each
 * with the folders it may run in (shell/flow.ts). Parse or ask: a construct the walker does not
 * know, text in which the shell would substitute something the parser did not see, nesting too
 * deep to follow: each is a problem, which makes the command ask.
 */
import type { Node, Parser } from "web-tree-sitter";
import { DataState, matching, substringOperands } from "./evaluated";
import { estimateSize, MAX_COMMAND_LENGTH, MAX_COMMAND_STATEMENTS, MAX_COMMAND_TOKENS } from "./bounds";
import { analyseFlow } from "./flow";
import type { CommandAnalysis, CommandPart, CwdSet, Redirect } from "./types";
import { unwrapCommand } from "./unwrap";
import { isDangerousVariable, isHarmlessSetting } from "./variables";
import { shellOptionsOnly } from "../readonly-commands";
import { exportsOf, type Exported } from "./exports";
import { literalVariants } from "./literal-vars";
import { heredocDelimiter, literalWord, wordOf, type Word } from "./words";

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
  /** Variables and evaluated operands of the whole line (shell/evaluated.ts), shared by nested analyses. */
  data?: DataState;
  /** What the strings the line runs (`bash -c`, `eval`…) add up to, against the bounds (shell/bounds.ts). */
  spent?: { statements: number; tokens: number };
  /** The line's standard input is something Yoke cannot read (a file, a pipe from another command): see CommandPart.inputUnseen. */
  inputUnseen?: boolean;
  /** Variables exported to this line by the line that runs it (shell/exports.ts); an `eval` shares its parent's list. */
  exports?: Exported[];
  /** The line's literal variables were already put in place (shell/literal-vars.ts). */
  literalsPlaced?: boolean;
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

/** Builtins that declare variables (tree-sitter reads them as keywords only when spelled plainly first). */
const DECLARATION_BUILTINS = /^(export|declare|typeset|local|readonly)$/;

/** The words without a leading `builtin`/`command` (and command's -p): the builtin they run. */
function builtinWords(words: Word[]): Word[] {
  let i = 0;
  while (i < words.length && !words[i]!.dynamic && /^(builtin|command)$/.test(words[i]!.value)) {
    i++;
    while (i < words.length && /^-p+$/.test(words[i]!.value)) i++;
  }
  return i ? words.slice(i) : words;
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
  if (opts.data) return analyseBoth(parser, source, opts);
  const data = new DataState();
  const result = analyseBoth(parser, source, { ...opts, data, spent: opts.spent ?? { statements: 0, tokens: 0 } });
  for (const p of data.finish()) if (!result.problems.includes(p)) result.problems.push(p);
  return result;
}

function analyseBoth(parser: Parser, source: string, opts: AnalyseOptions): CommandAnalysis {
  if (source.includes("\\\n")) {
    // bash removes a backslash-newline before it splits words (`r\<newline>m` is `rm`); tree-sitter
    // reads it as a space. Both readings are analysed, and every part of either must pass.
    const joined = analyseOne(parser, source.replace(/\\\n/g, ""), opts);
    const split = analyseOne(parser, source, opts);
    return {
      parts: [...split.parts, ...joined.parts],
      problems: [...new Set([...split.problems, ...joined.problems])],
      globOptionsChanged: split.globOptionsChanged || joined.globOptionsChanged,
      ...(split.tooLarge || joined.tooLarge ? { tooLarge: true } : {}),
    };
  }
  return analyseOne(parser, source, opts);
}

function mergeAnalyses(all: CommandAnalysis[]): CommandAnalysis {
  return {
    parts: all.flatMap((a) => a.parts),
    problems: [...new Set(all.flatMap((a) => a.problems))],
    globOptionsChanged: all.some((a) => a.globOptionsChanged),
    ...(all.some((a) => a.tooLarge) ? { tooLarge: true } : {}),
  };
}

function analyseOne(parser: Parser, source: string, opts: AnalyseOptions): CommandAnalysis {
  const depth = opts.depth ?? 0;
  const result: CommandAnalysis = { parts: [], problems: [] };
  if (depth > MAX_DEPTH) {
    result.problems.push("commands nested too deeply (bash -c / eval) to analyse");
    return result;
  }
  if (depth > 0) {
    // A string the line runs is parsed again: all of them together stay within the bounds.
    const spent = opts.spent ?? { statements: 0, tokens: 0 };
    const size = estimateSize(source);
    spent.statements += size.statements;
    spent.tokens += size.tokens;
    if (source.length > MAX_COMMAND_LENGTH || spent.statements > MAX_COMMAND_STATEMENTS || spent.tokens > MAX_COMMAND_TOKENS) {
      result.problems.push("the commands it runs from strings (bash -c, eval…) are too large to analyse");
      return result;
    }
  }
  const tree = parser.parse(source);
  if (!tree) {
    result.problems.push("the command could not be parsed");
    return result;
  }
  try {
    const root = tree.rootNode;
    // Literal variables set earlier on the line: each rewriting with their values is analysed, and all must pass.
    const variants = depth === 0 && !opts.literalsPlaced ? literalVariants(root, source) : undefined;
    if (variants) return mergeAnalyses(variants.map((v) => analyseOne(parser, v, { ...opts, literalsPlaced: true })));
    const commandNodes = root.descendantsOfType("command");
    const commands = commandNodes.length;
    // Words: the arguments of every command (a word with many globs or braces is one argument here;
    // the estimate weighs those).
    const words = commands > MAX_COMMAND_STATEMENTS ? 0 : commandNodes.reduce((n, c) => n + (c?.namedChildCount ?? 0), 0);
    if (commands > MAX_COMMAND_STATEMENTS || words > MAX_COMMAND_TOKENS) {
      result.tooLarge = true;
      result.problems.push(
        commands > MAX_COMMAND_STATEMENTS ? `it holds more than ${MAX_COMMAND_STATEMENTS} commands, too many to analyse` : `it holds more than ${MAX_COMMAND_TOKENS} words, too many to analyse`,
      );
      return result;
    }
    if (root.hasError) result.problems.push("the command has a syntax error, so Yoke cannot tell what it runs");
    result.problems.push(...heredocDisagreements(root, source));
    const home = opts.home ?? "/";
    const initial = opts.cwd === undefined ? null : opts.cwd;
    const flow = analyseFlow(root, initial, home);
    if (flow.tooComplex) result.problems.push("its control flow is too large to follow (which folder each command runs in)");
    // What the line exports reaches every command it runs, as a prefix assignment would (shell/exports.ts).
    const exports = opts.exports ?? [];
    const own = exportsOf(root);
    result.problems.push(...own.problems);
    for (const e of own.exported) if (!exports.some((x) => x.name === e.name)) exports.push(e);
    const walker = new Walker(
      parser,
      {
        depth,
        via: opts.via ?? [],
        elevated: opts.elevated ?? false,
        home,
        data: opts.data ?? new DataState(),
        spent: opts.spent ?? { statements: 0, tokens: 0 },
        inputUnseen: opts.inputUnseen ?? false,
        exports,
      },
      flow.cwdAt,
      result,
    );
    walker.walk(root, [], flow.tooComplex ? null : initial);
    // Parts made before an `eval` exported more, and parts a wrapper runs (`find -exec`, `xargs`), get them too.
    for (const part of result.parts) for (const e of exports) if (!part.assignments.some((a) => a.name === e.name)) part.assignments.push({ ...e, exported: true });
  } finally {
    tree.delete();
  }
  return result;
}

/**
 * Where bash ends each here-document must be where tree-sitter ended it (red team H, session 24). bash
 * ends the body at the first line equal to the word after quote removal (`<<E''OF`, `<<E"O"F`,
 * `<<$'EOF'` end at a line `EOF`; `<<-` strips leading tabs; an unquoted word's body joins
 * backslash-newline pairs first) and only at a whole line; tree-sitter compared with the word as
 * written, and ended at a line that merely starts with it (`EOF;cat <<'Y'`). Where the two differ the
 * lines after bash's end run as commands the analysis took for data (`cat <<E''OF`, `EOF`, `cat .env`,
 * `E''OF` was read-only in plan mode under `Read(./.env)`), so the line is not analysable.
 */
function heredocDisagreements(root: Node, source: string): string[] {
  const problems: string[] = [];
  for (const node of root.descendantsOfType("heredoc_redirect")) {
    if (!node) continue;
    const startNode = node.namedChildren.find((c) => c?.type === "heredoc_start");
    if (!startNode) continue;
    const start = startNode.text;
    const body = node.namedChildren.find((c) => c?.type === "heredoc_body")?.text ?? "";
    const endNode = node.namedChildren.find((c) => c?.type === "heredoc_end");
    const delimiter = heredocDelimiter(start);
    const tabs = node.children.some((c) => c?.type === "<<-");
    const line = (l: string) => (tabs ? l.replace(/^\t+/, "") : l);
    const quoted = /['"\\]/.test(start);
    const lines = [...body.split("\n"), ...(quoted ? [] : body.replace(/\\\n/g, "").split("\n"))];
    let differs = delimiter === undefined || lines.some((l) => line(l) === delimiter);
    if (endNode && !differs) {
      let i = endNode.startIndex - 1;
      while (tabs && i >= 0 && source[i] === "\t") i--;
      const after = source[endNode.endIndex];
      differs = line(endNode.text) !== delimiter || (i >= 0 && source[i] !== "\n") || (after !== undefined && after !== "\n");
    }
    if (differs) problems.push(`the here-document's delimiter ${start} ends the text where bash and Yoke's parser disagree, so Yoke cannot tell which lines run as commands`);
  }
  return problems;
}

interface WalkerOptions {
  depth: number;
  via: string[];
  elevated: boolean;
  home: string;
  data: DataState;
  spent: { statements: number; tokens: number };
  inputUnseen: boolean;
  exports: Exported[];
}

class Walker {
  private nesting = 0;
  private stopped = false;

  constructor(
    private readonly parser: Parser,
    private readonly opts: WalkerOptions,
    private readonly cwdAt: Map<number, CwdSet>,
    private readonly out: CommandAnalysis,
  ) {
    this.unseenInput = opts.inputUnseen;
  }

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
        let hint: string | undefined;
        for (const r of node.childrenForFieldName("redirect")) {
          if (!r) continue;
          this.collectRedirects(r, own);
          const literal = literalInput(r);
          if (literal === undefined) hint = roughInput(r) ?? hint;
          stdin = literal ?? stdin;
        }
        const body = node.childForFieldName("body");
        // tree-sitter files the words after a redirection as its further destinations
        // (`rm 2>/dev/null -rf src`: bash runs rm -rf src) or a here-document's arguments: they are the command's.
        const strays = node.childrenForFieldName("redirect").flatMap((r) => (r ? strayArguments(r) : []));
        if (body?.type === "command") {
          const redirs = node.childrenForFieldName("redirect").filter((r): r is Node => !!r);
          this.varRedirects([...body.childrenForFieldName("argument").filter((a): a is Node => !!a), ...strays], redirs);
        }
        if (strays.length && body?.type !== "command") this.problem(`a word after a redirection (${strays[0]!.text}) belongs to a command Yoke cannot place, so Yoke cannot tell what runs`);
        const piped = this.pendingPiped;
        this.pendingPiped = undefined;
        const exactPiped = this.pendingExact;
        this.pendingExact = undefined;
        for (const r of node.childrenForFieldName("redirect")) if (r) this.walkChildren(r, [], cwd);
        if (body) {
          this.pendingStdin = body.type === "command" ? stdin : undefined;
          this.pendingStrays = body.type === "command" ? strays : undefined;
          // A here-document with expansions: its text as written is a hint of the input too (see CommandPart.pipedData).
          const hints = [piped, hint].filter((d): d is string => d !== undefined);
          this.pendingPiped = body.type === "command" && hints.length ? hints.join("\n") : undefined;
          // Its own input redirection replaces the pipe.
          this.pendingExact = body.type === "command" && stdin === undefined && hint === undefined && !own.some(readsInput) ? exactPiped : undefined;
          // Input from a file, or a here-string/document with expansions: every command inside reads what Yoke cannot see.
          const unseenBefore = this.unseenInput;
          if (hint !== undefined || own.some(readsInput)) this.unseenInput = true;
          this.walk(body, [...redirects, ...own], cwd);
          this.unseenInput = unseenBefore;
          this.pendingStdin = undefined;
          this.pendingStrays = undefined;
          this.pendingPiped = undefined;
          this.pendingExact = undefined;
        } else this.out.parts.push(this.pseudoPart(node.text, [...redirects, ...own], cwd));
        return;
      }
      case "pipeline": {
        // What a literal `echo`/`printf` pipes into the next command is a hint of its input
        // (`echo 'syscmd(rm -rf src)' | m4`), never taken as its exact text (see CommandPart.pipedData).
        let piped: string | undefined;
        // The exact output of the stage just before, when it is an echo/printf Yoke can print itself.
        let exact: string | undefined;
        // A stage after one that is not a literal echo/printf reads what Yoke cannot see (`cat cmds | ed f`).
        let unseen = false;
        const unseenBefore = this.unseenInput;
        for (const child of node.namedChildren) {
          if (!child) continue;
          if (piped !== undefined) this.pendingPiped = piped;
          this.pendingExact = exact;
          this.unseenInput = unseenBefore || unseen;
          this.walk(child, redirects, cwd);
          this.unseenInput = unseenBefore;
          this.pendingPiped = undefined;
          this.pendingExact = undefined;
          exact = exactEcho(child);
          if (literalEcho(child) === undefined) unseen = true;
          // Any earlier stage's text is a hint too (`{ echo …; } | ed`, `cat <<< … | tee x | ed`, `echo "… $X" | ed`).
          piped = [piped, literalEcho(child), child.text].filter((d) => d !== undefined).join("\n");
        }
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
      case "arithmetic_expansion": {
        this.arithmetic(node.text);
        const t = node.text;
        const inner = t.startsWith("$((") ? t.slice(3, -2) : t.startsWith("$[") ? t.slice(2, -1) : t.startsWith("((") ? t.slice(2, -2) : t;
        this.opts.data.arithmetic(inner, t);
        this.walkChildren(node, redirects, cwd);
        return;
      }
      case "c_style_for_statement": {
        const t = node.text;
        const open = t.indexOf("((");
        const close = open < 0 ? -1 : matching(t, open, "(", ")");
        const header = open < 0 ? t : t.slice(open + 2, close < 0 ? undefined : close - 1);
        this.arithmetic(header);
        this.opts.data.arithmetic(header, `for ((${header}))`);
        this.walkChildren(node, redirects, cwd);
        return;
      }
      case "subscript": {
        const index = node.childForFieldName("index");
        const name = node.childForFieldName("name")?.text ?? "";
        if (index && index.text !== "@" && index.text !== "*") this.opts.data.arithmetic(index.text, `the subscript ${name}[${index.text}]`);
        this.walkChildren(node, redirects, cwd);
        return;
      }
      case "expansion":
        this.expansion(node);
        this.walkChildren(node, redirects, cwd);
        return;
      case "test_command":
        this.testCommand(node);
        this.walkChildren(node, redirects, cwd);
        return;
      case "unset_command": {
        const words = node.namedChildren.filter((c): c is Node => !!c).map((c) => wordOf(c));
        if (!words.some((w) => /^-[a-zA-Z]*f/.test(w.value))) for (const w of words) if (!w.value.startsWith("-")) this.opts.data.name(w, "unset");
        this.walkChildren(node, redirects, cwd);
        return;
      }
      case "for_statement": {
        const v = node.childForFieldName("variable")?.text;
        if (v && isDangerousVariable(v)) this.problem(`it sets ${v}, which changes what later commands run`);
        if (v) {
          const values = node.childrenForFieldName("value").filter((c): c is Node => !!c);
          if (node.text.startsWith("select") || values.length === 0) this.opts.data.assignUnknown(v);
          for (const c of values) {
            const w = wordOf(c);
            if (w.glob && /[*?[]/.test(w.value)) this.opts.data.assignUnknown(v);
            else this.opts.data.assign(v, w.value, w.dynamic);
          }
        }
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
      case "regex":
        // tree-sitter leaves the pattern of `${x#…}`, `${x%%…}`, `${x^…}`, `${x,,…}` as one leaf, but bash
        // expands it — command substitutions included — whenever x is set (`echo "${PWD#$(cat .env)}"` ran
        // cat; red team H, session 24). Its backquotes are parsed; a `$(…)` or `<(…)` there asks.
        if (/[<>]\(/.test(node.text)) this.problem("a pattern in a parameter expansion holds a process substitution Yoke does not parse");
        this.scanLeaf(node, cwd);
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
  /** Words after a redirection of the statement the next command is the body of (see strayArguments). */
  private pendingStrays: Node[] | undefined;
  private pendingPiped: string | undefined;
  /** The exact text piped into the next command (see CommandPart.pipedExact). */
  private pendingExact: string | undefined;
  /** The commands walked now read input Yoke cannot see (see CommandPart.inputUnseen). */
  private unseenInput = false;

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

  /** A string run in this shell (`eval`, a trap, an alias) shares its exports; a child shell (`bash -c`, `` `…` ``) gets a copy. */
  private exportsFor(how: string): Exported[] {
    return /^(eval|trap|alias|source|\.)$/.test(how) ? this.opts.exports : [...this.opts.exports];
  }

  private nested(script: string, how: string, cwd: CwdSet, elevated: boolean): void {
    const sub = analyseCommand(this.parser, script, {
      cwd,
      home: this.opts.home,
      depth: this.opts.depth + 1,
      via: [...this.opts.via, how],
      elevated,
      data: this.opts.data,
      spent: this.opts.spent,
      exports: this.exportsFor(how),
    });
    this.out.parts.push(...sub.parts);
    for (const p of sub.problems) this.problem(`inside ${how}: ${p}`);
    if (sub.globOptionsChanged) this.out.globOptionsChanged = true;
  }

  /**
   * `{name}>file` right before a redirection (no space) is bash's named descriptor: it assigns the
   * descriptor's number to name (`: {PATH}>/dev/null; ls` runs ./10/ls; `{HOME}` moves git's
   * config), and a subscript is evaluated (`{a[$(cmd)]}>f` runs cmd).
   */
  private varRedirects(words: Node[], redirects: Node[]): void {
    const starts = new Set(redirects.map((r) => r.startIndex));
    for (const w of words) {
      if (!starts.has(w.endIndex)) continue;
      const m = /^\{(.+)\}$/s.exec(w.text);
      if (!m) continue;
      const name = m[1]!;
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) this.problem(`{${name}} before a redirection names a variable Yoke cannot follow (bash evaluates it to store a descriptor)`);
      else if (isDangerousVariable(name)) this.problem(`{${name}} before a redirection sets ${name} to a descriptor number, which changes what later commands run`);
    }
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
    const value = node.childForFieldName("value");
    if (isDangerousVariable(name.replace(/\[.*$/, "")) && !(plainDeclaration(node) && isHarmlessSetting(name, value ? wordOf(value) : undefined, node.text.startsWith(`${name}+=`))))
      this.problem(`it sets ${name}, which changes what later commands run`);
    this.recordAssignment(node);
    this.walkChildren(node, redirects, cwd);
  }

  /** What a `NAME=value` (or `NAME=(…)`) gives the variable, for the arithmetic that may use it. */
  private recordAssignment(node: Node): string | undefined {
    const nameNode = node.childForFieldName("name");
    const name = (nameNode?.type === "subscript" ? nameNode.childForFieldName("name")?.text : nameNode?.text) ?? "";
    const value = node.childForFieldName("value");
    if (!value) this.opts.data.assign(name, "", false);
    else if (value.type === "array") {
      for (const el of value.namedChildren) {
        if (!el) continue;
        const m = /^\[([^\]]*)\]=/.exec(el.text);
        if (m) this.opts.data.arithmetic(m[1]!, `the array index [${m[1]}] of ${name}`);
        const w = wordOf(el);
        this.opts.data.assign(name, m ? w.value.slice(w.value.indexOf("]=") + 2) : w.value, w.dynamic);
      }
    } else {
      const w = wordOf(value);
      this.opts.data.assign(name, w.value, w.dynamic);
    }
    return name;
  }

  /** `[[ a -eq b ]]`: both operands are arithmetic; `[[ -v NAME ]]`: a variable name. */
  private testCommand(node: Node): void {
    const stack: Node[] = [node];
    while (stack.length) {
      const n = stack.pop()!;
      for (const c of n.namedChildren) if (c) stack.push(c);
      if (n.type === "binary_expression") {
        const op = n.childForFieldName("operator")?.text ?? "";
        if (/^-(eq|ne|lt|le|gt|ge)$/.test(op))
          for (const side of [n.childForFieldName("left"), n.childForFieldName("right")]) if (side) this.opts.data.arithmetic(wordOf(side).value, `[[ … ${op} … ]]`);
      } else if (n.type === "unary_expression") {
        const op = n.childForFieldName("operator")?.text ?? n.namedChildren[0]?.text ?? "";
        const operand = n.namedChildren[n.namedChildren.length - 1];
        if ((op === "-v" || op === "-R") && operand && operand.type !== "test_operator") this.opts.data.name(wordOf(operand), `test ${op}`);
      }
    }
  }

  private declaration(node: Node, redirects: Redirect[], cwd: CwdSet): void {
    const keyword = node.children[0]?.text ?? "";
    const flags = node.namedChildren.filter((c) => c && c.type !== "variable_assignment" && c.type !== "variable_name" && /^[-+]/.test(wordOf(c).value)).map((c) => wordOf(c!).value);
    const integer = keyword !== "export" && flags.some((f) => /^[-+][a-zA-Z]*i/.test(f));
    const nameref = keyword !== "export" && flags.some((f) => /^-[a-zA-Z]*n/.test(f));
    const declared = (name: string, value: { value: string; raw: string; dynamic: boolean } | undefined) => {
      if (integer) this.opts.data.integer(name.replace(/\[[\s\S]*$/, ""));
      if (nameref && value) this.opts.data.name(value, `${keyword} -n ${name}`);
      // A nameref to a variable that changes what runs sets that variable through every later
      // assignment to the reference (`declare -n r=PS4; r='$(…)'; set -x`, `r=BASH_CMDS; r[ls]=/bin/rm`);
      // one declared without a target takes the name of its first assignment (red team round 10).
      if (nameref && !value) this.problem(`${keyword} -n ${name} is given its target later, a variable name Yoke cannot follow`);
      else if (nameref && value && (value.dynamic || isDangerousVariable(value.value.replace(/\[[\s\S]*$/, ""))))
        this.problem(`${keyword} -n ${name} refers to ${value.raw}, which changes what later commands run`);
    };
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        this.assignment(child, [], cwd);
        const nameNode = child.childForFieldName("name");
        const value = child.childForFieldName("value");
        declared(nameNode?.type === "subscript" ? (nameNode.childForFieldName("name")?.text ?? "") : (nameNode?.text ?? ""), value ? wordOf(value) : undefined);
      } else if (child.type === "variable_name") {
        declared(child.text, undefined);
        if (isDangerousVariable(child.text) && /^(export|declare|typeset|local|readonly)$/.test(keyword)) this.problem(`it changes ${child.text}, which changes what later commands run`);
      } else {
        const w = wordOf(child);
        if (/^-[a-zA-Z]*f/.test(w.value)) this.problem("it declares shell functions");
        else if (w.dynamic) this.problem(`${keyword} is given a name only known when it runs (${w.raw})`);
        // `export BASH_{ENV=./x.sh,X=1}`: brace or pathname expansion makes the names (session 20).
        else if (w.glob && /[{*?[]/.test(w.value.split("=")[0]!)) this.problem(`${keyword} is given names made by expansion (${w.raw}), which Yoke does not follow`);
        else if (!w.value.startsWith("-") && !w.value.startsWith("+")) {
          const name = w.value.split("=")[0]!.replace(/\[.*$/, "");
          if (isDangerousVariable(name)) this.problem(`it changes ${name}, which changes what later commands run`);
          // A quoted `'a[$(cmd)]=1'`: bash reads the name (and its subscript) after quote removal.
          const eq = w.value.indexOf("=");
          const target = eq < 0 ? w.value : w.value.slice(0, eq).replace(/\+$/, "");
          this.opts.data.name({ ...w, value: target }, keyword);
          if (eq >= 0) quotedCompound(w.value.slice(eq + 1), keyword, this.opts.data);
          if (eq >= 0) this.opts.data.assign(target, w.value.slice(eq + 1), w.dynamic);
          declared(target, eq >= 0 ? { ...w, value: w.value.slice(eq + 1) } : undefined);
        }
        this.walk(child, [], cwd);
      }
    }
    if (redirects.length) this.out.parts.push(this.pseudoPart(node.text, redirects, cwd));
  }

  /** A declaration builtin run as a command (`\export`, `builtin declare`): its arguments as the keyword's would be read. */
  private declarationArgs(keyword: string, args: Word[], part: CommandPart): void {
    for (const w of args) {
      if (w.dynamic) part.problems.push(`${keyword} is given a name only known when it runs (${w.raw})`);
      else if (/^-[a-zA-Z]*f/.test(w.value)) part.problems.push("it declares shell functions");
      else if (/^[-+]/.test(w.value)) continue;
      else {
        const name = w.value.split("=")[0]!.replace(/\[.*$/, "").replace(/\+$/, "");
        if (w.glob && /[{*?[]/.test(name)) part.problems.push(`${keyword} is given names made by expansion (${w.raw}), which Yoke does not follow`);
        else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) part.problems.push(`${keyword} is given ${w.raw}, which Yoke does not follow`);
        else if (isDangerousVariable(name)) part.problems.push(`it changes ${name}, which changes what later commands run`);
        else this.opts.data.name({ ...w, value: w.value.includes("=") ? w.value.slice(0, w.value.indexOf("=")) : w.value }, keyword);
      }
    }
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
    // `${!x}`: the value of x is a variable name, which bash evaluates (a[$(cmd)] runs cmd).
    const ind = /^\$\{!([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?([*@]?)/.exec(node.text);
    if (ind && !ind[3] && !(ind[2] === "[@]" || ind[2] === "[*]")) this.opts.data.use(ind[1]!, node.text);
    for (const operand of substringOperands(node.text)) this.opts.data.arithmetic(operand, node.text);
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
    const strays = this.pendingStrays ?? [];
    this.pendingStrays = undefined;
    const pipedData = this.pendingPiped;
    this.pendingPiped = undefined;
    const pipedExact = this.pendingExact;
    this.pendingExact = undefined;
    const nameNode = node.childForFieldName("name");
    if (nameNode) words.push(wordOf(nameNode));
    let literalStdin = stdin;
    let inputHint: string | undefined;
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        const name = child.childForFieldName("name")?.text ?? "";
        const value = child.childForFieldName("value");
        // `X+=v cmd` appends to the value X already has: only known when it runs.
        const word = value ? wordOf(value) : literalWord("");
        assignments.push({ name, value: child.text.startsWith(`${name}+=`) ? { ...word, dynamic: true } : word });
      } else if (child.type === "file_redirect" || child.type === "herestring_redirect" || child.type === "heredoc_redirect") {
        this.collectRedirects(child, own);
        const literal = literalInput(child);
        if (literal === undefined && child.type !== "file_redirect") inputHint = roughInput(child);
        literalStdin = literal ?? literalStdin;
      }
    }
    const ownRedirects = node.namedChildren.filter((c): c is Node => !!c && /_redirect$/.test(c.type));
    if (ownRedirects.length)
      this.varRedirects(
        node.childrenForFieldName("argument").filter((a): a is Node => !!a),
        ownRedirects,
      );
    const args = [...node.childrenForFieldName("argument"), ...strays, ...node.namedChildren.flatMap((c) => (c && c.type !== "file_redirect" && /_redirect$/.test(c.type) ? strayArguments(c) : []))];
    // `{NAME}` right before a redirection is bash's descriptor variable (`chmod {fd}>/dev/null -R 777 src` runs
    // `chmod -R 777 src`), not an argument: tree-sitter files it as one (differential checker, session 16).
    const outer = node.parent?.type === "redirected_statement" ? node.parent.childrenForFieldName("redirect") : [];
    const redirectStarts = new Set([...ownRedirects, ...outer].filter((r): r is Node => !!r).map((r) => r.startIndex));
    const namedFd = (a: Node) => redirectStarts.has(a.endIndex) && /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(a.text);
    for (const arg of args.filter((a): a is Node => !!a && !namedFd(a)).sort((a, b) => a.startIndex - b.startIndex)) words.push(wordOf(arg));
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
      ...(this.unseenInput || inputHint !== undefined || own.some(readsInput) ? { inputUnseen: true } : {}),
      ...(pipedData !== undefined || inputHint !== undefined ? { pipedData: [pipedData, inputHint].filter((d) => d !== undefined).join("\n") } : {}),
      // Its own input redirection (a file, a here-string) replaces the pipe.
      ...(pipedExact !== undefined && !own.some(readsInput) ? { pipedExact } : {}),
    };
    for (const a of assignments) if (isDangerousVariable(a.name) && !isHarmlessSetting(a.name, a.value)) part.problems.push(`it sets ${a.name} for the command, which changes what runs`);
    // `\export`, `'declare'`, `builtin export`, `command declare`: the builtin as a command, not the keyword
    // tree-sitter reads (session 20: `\export BASH_ENV=./x.sh; bash -c true` ran x.sh unasked).
    const declared = part.views.map((v) => builtinWords(v.words)).find((ws) => !ws[0]?.dynamic && DECLARATION_BUILTINS.test(ws[0]?.value ?? ""));
    if (declared) this.declarationArgs(declared[0]!.value, declared.slice(1), part);
    // `set -k`: every NAME=value argument of every later command is put in its environment.
    if (
      part.views
        .map((v) => builtinWords(v.words))
        .some((ws) => ws[0]?.value === "set" && ws.slice(1).some((w, i, a) => /^[-+]?-[a-zA-Z]*k/.test(w.value) || (w.value === "keyword" && /^-[a-zA-Z]*o$/.test(a[i - 1]?.value ?? ""))))
    )
      part.problems.push("set -k puts every NAME=value argument of later commands in their environment, which Yoke does not follow");
    // Exported earlier on the line (`export PSQLRC=f; psql …`): the program gets it as it would `PSQLRC=f psql …`.
    for (const e of this.opts.exports) if (!part.assignments.some((a) => a.name === e.name)) part.assignments.push({ ...e, exported: true });
    const nested = unwrapCommand(part);
    this.out.parts.push(part, ...nested.parts);
    const inner = part.views[part.views.length - 1]!.words;
    const name = inner[0]?.dynamic ? undefined : inner[0]?.value;
    if (name === "shopt" || (name === "set" && !shellOptionsOnly(inner.slice(1)) && inner.slice(1).some((w) => /^[-+][a-zA-Z]*[fo]/.test(w.value)))) this.out.globOptionsChanged = true;
    if (name === "let")
      this.arithmetic(
        inner
          .slice(1)
          .map((w) => w.value)
          .join(" "),
      );
    for (const a of part.assignments) if (!a.exported) this.opts.data.assign(a.name, a.value.value.startsWith(`${a.name}=`) ? a.value.value.slice(a.name.length + 1) : a.value.value, a.value.dynamic);
    for (const view of part.views) evaluatedOperands(view.words, this.opts.data);
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
    const sub = analyseCommand(this.parser, script, {
      // git runs these in another folder: each submodule, the top of the work tree (red18g: `git submodule
      // foreach git checkout x` was checked against the repository here); `npm explore` in the package's folder.
      cwd: /^(git (submodule foreach|rebase)|npm explore)/.test(how) ? null : cwd,
      home: this.opts.home,
      depth: this.opts.depth + 1,
      via: [...this.opts.via, how],
      elevated,
      data: this.opts.data,
      spent: this.opts.spent,
      // `bash -c 'ed f' < cmds`: the script's commands read the wrapper's input.
      inputUnseen: part.inputUnseen === true,
      exports: this.exportsFor(how),
    });
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

/**
 * Words tree-sitter-bash files under a redirection that bash gives the command as arguments: a
 * file redirection's destinations after the first (`rm 2>/dev/null -rf src`, `cat >&2 .env`) and a
 * here-document's `argument`s (`cat <<E .env`), with those of a redirection nested in it.
 */
function strayArguments(redirect: Node): Node[] {
  if (redirect.type === "file_redirect")
    return redirect
      .childrenForFieldName("destination")
      .slice(1)
      .filter((c): c is Node => !!c);
  if (redirect.type !== "heredoc_redirect") return [];
  const own = redirect.childrenForFieldName("argument").filter((c): c is Node => !!c);
  return [...own, ...redirect.namedChildren.flatMap((c) => (c?.type === "file_redirect" ? strayArguments(c) : []))];
}

/** A redirection that gives a command its input from a file or another descriptor (`< f`, `<&3`, `<> f`). */
function readsInput(r: Redirect): boolean {
  return r.op.startsWith("<") && r.op !== "<&-";
}

/** The text a literal `echo` or `printf` command prints (its words joined), when every word is literal. */
function literalEcho(node: Node): string | undefined {
  if (node.type === "redirected_statement") {
    const body = node.childForFieldName("body");
    return body?.type === "command" ? literalEcho(body) : undefined;
  }
  if (node.type !== "command") return undefined;
  const name = node.childForFieldName("name");
  if (!name || !/^(echo|printf)$/.test(name.text)) return undefined;
  const words: string[] = [];
  for (const arg of node.childrenForFieldName("argument")) {
    if (!arg) continue;
    const w = wordOf(arg);
    if (w.dynamic) return undefined;
    words.push(w.value);
  }
  // Also with escapes (`\x72`, `\162`) decoded and formats (`r%sm`) dropped: a hint, never the exact output.
  const text = words.join(" ");
  const decoded = text
    .replace(/\\x([0-9a-fA-F]{1,2})/g, (_a, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\0?([0-7]{1,3})/g, (_a, o: string) => String.fromCharCode(parseInt(o, 8)))
    .replace(/%[-+ #0-9.]*[a-zA-Z]/g, "");
  return decoded === text ? `${text}\n` : `${text}\n${decoded}\n`;
}

/**
 * The exact output of an `echo` or `printf` whose output Yoke can print itself, or undefined: echo
 * with literal words, no option and no backslash (bash's echo then prints the words joined, and a
 * newline); printf with a literal format of plain text, `%s`, `%%` and the escapes `\n`, `\t`, `\\`,
 * and literal arguments (the format is reused until they run out, as printf does).
 */
export function exactEcho(node: Node): string | undefined {
  // (With a redirection, its output may go elsewhere: not placed.)
  if (node.type !== "command") return undefined;
  const name = node.childForFieldName("name");
  if (!name || !/^(echo|printf)$/.test(name.text)) return undefined;
  if (node.namedChildren.some((c) => !!c && /redirect$/.test(c.type))) return undefined;
  const words: string[] = [];
  for (const arg of node.childrenForFieldName("argument")) {
    if (!arg) continue;
    const w = wordOf(arg);
    if (w.dynamic || w.glob) return undefined;
    words.push(w.value);
  }
  if (name.text === "echo") {
    if (words.some((w) => w.includes("\\")) || (words[0] !== undefined && /^-[neE]+$/.test(words[0]))) return undefined;
    return `${words.join(" ")}\n`;
  }
  const [format, ...args] = words;
  if (format === undefined || format.startsWith("-")) return undefined;
  const pieces: Array<string | null> = [];
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === "\\") {
      const e = format[++i];
      if (e === "n") pieces.push("\n");
      else if (e === "t") pieces.push("\t");
      else if (e === "\\") pieces.push("\\");
      else return undefined;
    } else if (c === "%") {
      const f = format[++i];
      if (f === "s") pieces.push(null);
      else if (f === "%") pieces.push("%");
      else return undefined;
    } else pieces.push(c);
  }
  const slots = pieces.filter((p) => p === null).length;
  let out = "";
  let k = 0;
  do {
    for (const p of pieces) out += p === null ? (args[k++] ?? "") : p;
  } while (slots > 0 && k < args.length);
  return out;
}

/** The text of a here-string or here-document with expansions, as written: a hint of the input, never its exact text. */
function roughInput(node: Node): string | undefined {
  if (node.type === "herestring_redirect") return node.namedChildren.find((c) => !!c && c.type !== "file_descriptor")?.text;
  if (node.type === "heredoc_redirect") return node.namedChildren.find((c) => c?.type === "heredoc_body")?.text;
  return undefined;
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

/** Options of the builtins below that take a value (which is not a variable name). */
const VALUED: Record<string, RegExp> = {
  read: /^-[a-zA-Z]*[dinNptu]$/,
  mapfile: /^-[a-zA-Z]*[dnOsuCc]$/,
  readarray: /^-[a-zA-Z]*[dnOsuCc]$/,
};

/**
 * `declare -a 'a=($(cmd))'` (also typeset, local, readonly, `declare -A 'a=([k]=$(cmd))'`): a
 * quoted word whose value is a parenthesised list is parsed and expanded again as a compound
 * assignment, so the substitutions inside it run (checked with bash 5.2; differential checker,
 * session 14). Quotes hid them from the analysis, so any expansion in such a value asks.
 */
function quotedCompound(value: string, keyword: string, data: DataState): void {
  if (/^\s*\(/.test(value) && /[$`]|[<>]\(/.test(value))
    data.problem(`${keyword} is given the quoted list ${value.length > 40 ? `${value.slice(0, 40)}…` : value}, which bash expands again as an array assignment (a $(cmd) in it runs cmd)`);
}

/**
 * Builtins that evaluate an operand as a variable name or as arithmetic (shell/evaluated.ts):
 * `printf -v NAME`, `read NAME…`, `mapfile NAME`, `getopts S NAME`, `wait -p NAME`, `test -v NAME`,
 * `let EXPR…`, `declare`-like builtins run as plain commands; and `source`, after which any
 * variable may hold anything.
 */
function evaluatedOperands(words: Word[], data: DataState): void {
  const first = words[0];
  if (!first || first.dynamic) return;
  const name = first.value;
  const args = words.slice(1);
  switch (name) {
    case "printf": {
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === "--") break;
        if (v === "-v" && args[i + 1]) {
          data.name(args[i + 1]!, "printf -v");
          data.assignUnknown(args[i + 1]!.value);
          i++;
        } else if (/^-v./.test(v)) {
          data.name({ ...args[i]!, value: v.slice(2) }, "printf -v");
          data.assignUnknown(v.slice(2));
        } else if (!v.startsWith("-")) break;
      }
      return;
    }
    case "read":
    case "mapfile":
    case "readarray": {
      let operands = 0;
      for (let i = 0; i < args.length; i++) {
        const a = args[i]!;
        const v = a.value;
        if (!a.dynamic && v.startsWith("-") && v.length > 1 && v !== "--") {
          if (name === "read" && /^-[a-zA-Z]*a$/.test(v) && args[i + 1]) {
            data.name(args[i + 1]!, "read -a");
            data.assignUnknown(args[++i]!.value);
          } else if (VALUED[name]!.test(v)) i++;
          continue;
        }
        if (v === "--" && !a.dynamic) continue;
        operands++;
        data.name(a, name);
        data.assignUnknown(a.value);
      }
      if (operands === 0) data.assignUnknown(name === "read" ? "REPLY" : "MAPFILE");
      return;
    }
    case "getopts":
      if (args[1]) {
        data.name(args[1], "getopts");
        data.assignUnknown(args[1].value);
      }
      return;
    case "wait":
      for (let i = 0; i < args.length; i++) {
        if (args[i]!.value === "-p" && args[i + 1]) {
          data.name(args[i + 1]!, "wait -p");
          data.assignUnknown(args[++i]!.value);
        } else if (/^-[a-zA-Z]*p$/.test(args[i]!.value) && args[i + 1]) {
          data.name(args[i + 1]!, "wait -p");
          data.assignUnknown(args[++i]!.value);
        }
      }
      return;
    case "test":
    case "[":
      for (let i = 0; i < args.length; i++)
        if ((args[i]!.value === "-v" || args[i]!.value === "-R") && args[i + 1] && args[i + 1]!.value !== "]") data.name(args[++i]!, `${name} ${args[i - 1]!.value}`);
      return;
    case "let":
      for (const a of args) {
        // `let P???=0` with a file named PATH=0 is `let PATH=0`: the word is expanded against file names first.
        if (a.glob && /[*?[{]/.test(a.value)) data.problem(`let is given ${a.raw}, which bash expands against file names before it evaluates it`);
        data.arithmetic(a.value, "let");
      }
      return;
    case "unset":
      if (!args.some((a) => /^-[a-zA-Z]*f/.test(a.value))) for (const a of args) if (!a.value.startsWith("-")) data.name(a, "unset");
      return;
    case "declare":
    case "typeset":
    case "local":
    case "export":
    case "readonly": {
      const integer = name !== "export" && args.some((a) => /^[-+][a-zA-Z]*i/.test(a.value));
      const nameref = name !== "export" && args.some((a) => /^-[a-zA-Z]*n/.test(a.value));
      for (const a of args) {
        if (/^[-+]/.test(a.value)) continue;
        const eq = a.value.indexOf("=");
        const target = eq < 0 ? a.value : a.value.slice(0, eq).replace(/\+$/, "");
        data.name({ ...a, value: target }, name);
        if (eq >= 0) quotedCompound(a.value.slice(eq + 1), name, data);
        const base = target.replace(/\[[\s\S]*$/, "");
        if (eq >= 0) data.assign(base, a.value.slice(eq + 1), a.dynamic);
        if (integer) data.integer(base);
        if (nameref && eq >= 0) data.name({ ...a, value: a.value.slice(eq + 1) }, `${name} -n`);
      }
      return;
    }
    case "compgen":
      // `compgen -W '$(cmd)' x` expands its word list (and -C runs a command, -F a function) when it
      // runs: code inside data (differential checker, session 14).
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (/^-[a-zA-Z]*[CF]/.test(v)) data.problem(`compgen ${v} runs a command or function to complete words`);
        else if (/^-[a-zA-Z]*W$/.test(v) && args[i + 1] && /[$`]|[<>]\(/.test(args[i + 1]!.value))
          data.problem(`compgen -W expands its word list ${args[i + 1]!.raw} again, so a $(cmd) in it runs cmd`);
        else if (/^-[a-zA-Z]*W./.test(v) && /[$`]|[<>]\(/.test(v)) data.problem(`compgen -W expands its word list again, so a $(cmd) in it runs cmd`);
      }
      return;
    case "source":
    case ".":
      data.everythingUnknown(`${name} runs a file that may set any variable`);
      return;
    default:
      return;
  }
}

/**
 * Is an assignment's value stored as written? Inside `declare`/`typeset`/`local`/`export`/`readonly`
 * only when the options are `-x`, `-g`, `-r` (export, global, read-only): `declare -ux GIT_PAGER=cat`
 * exports `CAT` (git runs a program of that name from PATH), `-l`/`-i`/`-n`/`-a` change or reinterpret
 * the value too, and an option known only at run time could be any of them (red team V, session 20).
 */
function plainDeclaration(node: Node): boolean {
  const parent = node.parent;
  if (parent?.type !== "declaration_command") return true;
  for (const child of parent.namedChildren) {
    if (!child || child.type === "variable_assignment" || child.type === "variable_name") continue;
    if (child.type !== "word" || !/^[-+][xgr]+$/.test(child.text)) return false;
  }
  return true;
}
