/** Walks a tree-sitter bash syntax tree and collects every simple command and redirection. */
import type { Node, Parser } from "web-tree-sitter";
import type { CommandAnalysis, CommandPart, Redirect } from "./types";
import { unwrapCommand } from "./unwrap";
import { isDangerousVariable } from "./variables";
import { wordOf, type Word } from "./words";

const MAX_DEPTH = 6;

export function analyseCommand(parser: Parser, source: string, depth = 0, via: string[] = [], elevated = false): CommandAnalysis {
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
    const walker = new Walker(parser, depth, via, elevated, result);
    walker.walk(root, []);
  } finally {
    tree.delete();
  }
  return result;
}

class Walker {
  constructor(
    private readonly parser: Parser,
    private readonly depth: number,
    private readonly via: string[],
    private readonly elevated: boolean,
    private readonly out: CommandAnalysis,
  ) {}

  walk(node: Node, redirects: Redirect[]): void {
    switch (node.type) {
      case "command":
        this.command(node, redirects);
        return;
      case "redirected_statement": {
        const own: Redirect[] = [];
        for (const r of node.childrenForFieldName("redirect")) if (r) this.collectRedirects(r, own);
        const body = node.childForFieldName("body");
        if (body) this.walk(body, [...redirects, ...own]);
        else this.out.parts.push(this.pseudoPart(node.text, [":"], [...redirects, ...own]));
        for (const r of node.childrenForFieldName("redirect")) if (r) this.walkChildren(r, []);
        return;
      }
      case "function_definition":
        this.out.problems.push(`it defines a shell function (${node.childForFieldName("name")?.text ?? "?"}), whose calls cannot be checked`);
        this.walkChildren(node, redirects);
        return;
      case "variable_assignment":
        this.assignment(node, redirects);
        return;
      case "declaration_command":
        this.declaration(node, redirects);
        return;
      case "command_substitution":
      case "process_substitution":
        this.walkChildren(node, []);
        return;
      case "ERROR":
        this.walkChildren(node, redirects);
        return;
      default:
        this.walkChildren(node, redirects);
    }
  }

  private walkChildren(node: Node, redirects: Redirect[]): void {
    for (const child of node.namedChildren) if (child) this.walk(child, redirects);
  }

  private collectRedirects(node: Node, into: Redirect[]): void {
    if (node.type === "file_redirect") {
      const dest = node.childForFieldName("destination");
      const op = node.children.find((c) => c && !c.isNamed)?.text ?? ">";
      if (!dest) return;
      const target = wordOf(dest);
      let kind: Redirect["kind"] = op === "<" ? "read" : "write";
      if ((op === ">&" || op === "<&") && (dest.type === "number" || target.value === "-")) kind = "dup";
      if (op === "<&") kind = "dup";
      into.push({ op, kind, target });
      return;
    }
    for (const child of node.namedChildren) if (child) this.collectRedirects(child, into);
  }

  private assignment(node: Node, redirects: Redirect[]): void {
    const name = node.childForFieldName("name")?.text ?? "";
    if (isDangerousVariable(name)) this.out.problems.push(`it sets ${name}, which changes what later commands run`);
    this.walkChildren(node, redirects);
  }

  private declaration(node: Node, redirects: Redirect[]): void {
    for (const child of node.namedChildren) {
      if (child?.type === "variable_assignment") this.assignment(child, []);
      else if (child?.type === "word" && /^-[a-zA-Z]*f/.test(child.text)) this.out.problems.push("it declares shell functions");
      else if (child?.type === "variable_name" && isDangerousVariable(child.text) && /^(export|declare|typeset)\b/.test(node.text))
        this.out.problems.push(`it changes ${child.text}, which changes what later commands run`);
    }
    if (redirects.length) this.out.parts.push(this.pseudoPart(node.text, [":"], redirects));
  }

  private command(node: Node, redirects: Redirect[]): void {
    const own = [...redirects];
    const assignments: CommandPart["assignments"] = [];
    const words: Word[] = [];
    const nameNode = node.childForFieldName("name");
    if (nameNode) words.push(wordOf(nameNode));
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "variable_assignment") {
        assignments.push({ name: child.childForFieldName("name")?.text ?? "", value: wordOf(child.childForFieldName("value") ?? child) });
      } else if (child.type === "file_redirect" || child.type === "herestring_redirect" || child.type === "heredoc_redirect") {
        this.collectRedirects(child, own);
      }
    }
    for (const arg of node.childrenForFieldName("argument")) if (arg) words.push(wordOf(arg));
    // Substitutions anywhere inside (arguments, assignments, redirections) are commands too.
    for (const child of node.namedChildren) {
      if (child?.type === "variable_assignment") this.walkChildren(child, []);
      else if (child) this.walk(child, []);
    }
    if (words.length === 0) {
      this.out.parts.push(this.pseudoPart(node.text, [":"], own));
      return;
    }
    const part: CommandPart = {
      text: node.text,
      views: [{ words, allowable: true }],
      assignments,
      redirects: own,
      elevated: this.elevated,
      extraArgs: false,
      wrapper: false,
      problems: [],
      via: this.via,
    };
    for (const a of assignments) if (isDangerousVariable(a.name)) part.problems.push(`it sets ${a.name} for the command, which changes what runs`);
    const nested = unwrapCommand(part);
    this.out.parts.push(part, ...nested.parts);
    for (const inner of nested.scripts) {
      if (inner.script.dynamic) {
        part.problems.push(`${inner.how} runs a string Yoke cannot read (${inner.script.raw})`);
        continue;
      }
      const sub = analyseCommand(this.parser, inner.script.value, this.depth + 1, [...this.via, inner.how], part.elevated || inner.elevated);
      this.out.parts.push(...sub.parts);
      this.out.problems.push(...sub.problems.map((p) => `inside ${inner.how}: ${p}`));
    }
  }

  private pseudoPart(text: string, argv: string[], redirects: Redirect[]): CommandPart {
    const words = argv.map((v) => ({ value: v, raw: v, dynamic: false, glob: false }));
    return { text, views: [{ words, allowable: true }], assignments: [], redirects, elevated: this.elevated, extraArgs: false, wrapper: false, problems: [], via: this.via };
  }
}
