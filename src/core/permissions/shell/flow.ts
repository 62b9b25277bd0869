/**
 * Which folder each command of a command line runs in. An abstract interpretation of the syntax
 * tree: every statement has a state after success and one after failure; `a && b` runs b only
 * after a succeeded, `a || b` after it failed; subshells, pipelines, `&` and substitutions cannot
 * move their parent; loops run their body any number of times; a `cd` that may or may not have
 * happened leaves a set of folders; what cannot be followed (a cd to `$X`, `popd`, `source`,
 * `eval`, function bodies) leaves the folder unknown (null).
 */
import type { Node } from "web-tree-sitter";
import { resolveFrom } from "../posix-path";
import { staticPath } from "./expand";
import type { CwdSet } from "./types";
import { wordOf } from "./words";

/** More candidate folders than this: unknown. */
const MAX_CWDS = 8;
/**
 * Statements visited (loops run their body until the folders settle, so nested loops multiply):
 * past this the flow gives up and every folder is unknown (the command then asks).
 */
export const MAX_FLOW_STEPS = 20_000;

/** Thrown when the flow exceeds MAX_FLOW_STEPS. */
class FlowBudget extends Error {}
const DEAD = Symbol("dead");
type State = CwdSet | typeof DEAD;

interface Outcome {
  ok: State;
  fail: State;
}

export interface FlowResult {
  /** The folders each statement node (by node id) runs in; absent: use the enclosing node's. */
  cwdAt: Map<number, CwdSet>;
  /** The flow was too large to follow (MAX_FLOW_STEPS): cwdAt is empty and every folder is unknown. */
  tooComplex?: boolean;
}

export function joinCwd(a: CwdSet, b: CwdSet): CwdSet {
  if (a === null || b === null) return null;
  if (a === b) return a;
  const out = [...a];
  for (const d of b) if (!out.includes(d)) out.push(d);
  return out.length > MAX_CWDS ? null : out;
}

function join(...states: State[]): State {
  let out: State = DEAD;
  for (const s of states) {
    if (s === DEAD) continue;
    out = out === DEAD ? s : joinCwd(out, s);
  }
  return out;
}

function same(a: State, b: State): boolean {
  if (a === b) return true;
  if (a === DEAD || b === DEAD || a === null || b === null) return false;
  return a.length === b.length && a.every((d) => b.includes(d));
}

const pass = (s: State): Outcome => ({ ok: s, fail: s });

/** Commands that move the shell, end it or run code in it (the rest leave the folder as it is). */
const FLOW_COMMANDS = new Set(["cd", "pushd", "popd", "set", "exit", "return", "break", "continue", "exec", "source", ".", "eval", "builtin", "command"]);

/** Node types that hold statements run one after another. */
const SEQUENCES = new Set(["program", "compound_statement", "do_group", "else_clause"]);

export function analyseFlow(root: Node, initial: CwdSet, home: string): FlowResult {
  const flow = new Flow(home);
  try {
    flow.sequence(root, initial);
  } catch (err) {
    if (err instanceof FlowBudget) return { cwdAt: new Map(), tooComplex: true };
    throw err;
  }
  return { cwdAt: flow.cwdAt };
}

class Flow {
  readonly cwdAt = new Map<number, CwdSet>();
  /** States at `break` (to the loop's exit) and `continue` (to its head), per enclosing loop. */
  private loopExits: Array<{ breaks: State[]; continues: State[] }> = [];
  private depth = 0;
  private steps = 0;
  /** `set -P` somewhere: every `cd` resolves symlinks before `..`. */
  private physical = false;

  constructor(private readonly home: string) {}

  private record(node: Node, s: State): void {
    if (++this.steps > MAX_FLOW_STEPS) throw new FlowBudget();
    const cwd = s === DEAD ? null : s;
    const had = this.cwdAt.get(node.id);
    this.cwdAt.set(node.id, had === undefined ? cwd : joinCwd(had, cwd));
  }

  /** Statements one after another (the named children of `node`), honouring `&`. */
  sequence(node: Node, s: State): Outcome {
    let state = s;
    let last: Outcome = pass(s);
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (!child || !child.isNamed || child.type === "comment") continue;
      const background = children[i + 1]?.type === "&";
      const r = this.statement(child, state);
      if (background) {
        last = pass(state);
        continue;
      }
      last = r;
      state = join(r.ok, r.fail);
    }
    return last;
  }

  statement(node: Node, s: State): Outcome {
    if (++this.depth > 400) {
      this.depth--;
      this.unknownBelow(node);
      return pass(null);
    }
    try {
      return this.statementInner(node, s);
    } finally {
      this.depth--;
    }
  }

  private statementInner(node: Node, s: State): Outcome {
    this.record(node, s);
    if (SEQUENCES.has(node.type)) return this.sequence(node, s);
    switch (node.type) {
      case "command":
        this.substitutions(node, s);
        return this.command(node, s);
      case "list": {
        // Left-nested chain `a && b || c`: evaluated left to right without recursing down it.
        const chain: Array<{ op: string; node: Node }> = [];
        let cur: Node = node;
        while (cur.type === "list") {
          const kids = cur.children.filter((c): c is Node => !!c && c.type !== "comment");
          const op = kids.find((c) => !c.isNamed && (c.type === "&&" || c.type === "||"));
          const named = kids.filter((c) => c.isNamed);
          if (!op || named.length !== 2) return this.generic(node, s);
          chain.push({ op: op.type, node: named[1]! });
          cur = named[0]!;
          this.record(cur, s);
        }
        let acc = this.statement(cur, s);
        for (let k = chain.length - 1; k >= 0; k--) {
          const { op, node: right } = chain[k]!;
          if (op === "&&") {
            const b = this.statement(right, acc.ok);
            acc = { ok: b.ok, fail: join(acc.fail, b.fail) };
          } else {
            const b = this.statement(right, acc.fail);
            acc = { ok: join(acc.ok, b.ok), fail: b.fail };
          }
        }
        return acc;
      }
      case "pipeline":
        for (const c of node.namedChildren) if (c) this.statement(c, s);
        return pass(s);
      case "subshell":
        this.sequence(node, s);
        return pass(s);
      case "negated_command": {
        const inner = node.namedChildren.find((c) => !!c);
        if (!inner) return pass(s);
        const r = this.statement(inner, s);
        return { ok: r.fail, fail: r.ok };
      }
      case "redirected_statement": {
        for (const r of node.childrenForFieldName("redirect")) if (r) this.substitutions(r, s);
        const body = node.childForFieldName("body");
        if (!body) return pass(s);
        const r = this.statement(body, s);
        // A redirection that fails (no such folder) keeps the command from running.
        return { ok: r.ok, fail: join(r.fail, s) };
      }
      case "if_statement":
        return this.ifStatement(node, s);
      case "while_statement":
        return this.whileStatement(node, s);
      case "for_statement":
      case "c_style_for_statement":
        return this.forStatement(node, s);
      case "case_statement":
        return this.caseStatement(node, s);
      case "function_definition": {
        // The body runs when the function is called, from wherever that is.
        const body = node.childForFieldName("body");
        if (body) this.statement(body, null);
        return pass(s);
      }
      case "declaration_command":
      case "unset_command":
      case "variable_assignment":
      case "variable_assignments":
      case "test_command":
        this.substitutions(node, s);
        return pass(s);
      default:
        return this.generic(node, s);
    }
  }

  /** A node the flow does not model: everything below runs in an unknown folder, and so does what follows. */
  private generic(node: Node, s: State): Outcome {
    void s;
    this.unknownBelow(node);
    return pass(null);
  }

  private unknownBelow(node: Node): void {
    const stack = [node];
    while (stack.length) {
      const n = stack.pop()!;
      this.record(n, null);
      for (const c of n.namedChildren) if (c) stack.push(c);
    }
  }

  /** Command and process substitutions inside a node run in subshells, in the folder of the node. */
  private substitutions(node: Node, s: State): void {
    const stack: Node[] = [...node.namedChildren.filter((c): c is Node => !!c)];
    while (stack.length) {
      const n = stack.pop()!;
      if (n.type === "command_substitution" || n.type === "process_substitution") {
        this.record(n, s);
        this.sequence(n, s);
        continue;
      }
      for (const c of n.namedChildren) if (c) stack.push(c);
    }
  }

  private conditionAndBody(node: Node): { condition: Node[]; body: Node[]; clauses: Node[] } {
    const condition: Node[] = [];
    const body: Node[] = [];
    const clauses: Node[] = [];
    const kids = node.children;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i];
      if (!c || !c.isNamed || c.type === "comment") continue;
      if (node.fieldNameForChild(i) === "condition") condition.push(c);
      else if (c.type === "elif_clause" || c.type === "else_clause") clauses.push(c);
      else body.push(c);
    }
    return { condition, body, clauses };
  }

  private statements(nodes: Node[], s: State): Outcome {
    let state = s;
    let last = pass(s);
    for (const n of nodes) {
      last = this.statement(n, state);
      state = join(last.ok, last.fail);
    }
    return last;
  }

  private ifStatement(node: Node, s: State): Outcome {
    const parts = this.conditionAndBody(node);
    const outs: Outcome[] = [];
    let c = this.statements(parts.condition, s);
    outs.push(this.statements(parts.body, c.ok));
    let next = c.fail;
    let hasElse = false;
    for (const clause of parts.clauses) {
      this.record(clause, next);
      if (clause.type === "else_clause") {
        hasElse = true;
        outs.push(this.sequence(clause, next));
      } else {
        const inner = this.conditionAndBody(clause);
        c = this.statements(inner.condition, next);
        outs.push(this.statements(inner.body, c.ok));
        next = c.fail;
      }
    }
    if (!hasElse) outs.push(pass(next));
    return { ok: join(...outs.map((o) => o.ok)), fail: join(...outs.map((o) => o.fail)) };
  }

  private loop(s: State, once: (head: State) => { cont: State; exit: State }): Outcome {
    let head = s;
    let exit: State = DEAD;
    this.loopExits.push({ breaks: [], continues: [] });
    try {
      for (let i = 0; ; i++) {
        const r = once(head);
        exit = join(exit, r.exit);
        const next = join(head, r.cont, ...this.loopExits[this.loopExits.length - 1]!.continues);
        if (same(next, head)) break;
        head = i >= 4 ? null : next;
        if (i >= 5) break;
      }
      exit = join(exit, ...this.loopExits[this.loopExits.length - 1]!.breaks);
    } finally {
      this.loopExits.pop();
    }
    return pass(exit);
  }

  private whileStatement(node: Node, s: State): Outcome {
    const until = node.children.some((c) => c?.type === "until");
    const condition = node.childrenForFieldName("condition").filter((c): c is Node => !!c && c.isNamed && c.type !== "comment");
    const body = node.childForFieldName("body");
    return this.loop(s, (head) => {
      const c = this.statements(condition, head);
      const enter = until ? c.fail : c.ok;
      const leave = until ? c.ok : c.fail;
      const b = body ? this.statement(body, enter) : pass(enter);
      return { cont: join(b.ok, b.fail), exit: leave };
    });
  }

  private forStatement(node: Node, s: State): Outcome {
    for (const c of node.namedChildren) if (c && c.type !== "do_group") this.substitutions(c, s);
    const body = node.childForFieldName("body");
    return this.loop(s, (head) => {
      const b = body ? this.statement(body, head) : pass(head);
      return { cont: join(b.ok, b.fail), exit: head };
    });
  }

  private caseStatement(node: Node, s: State): Outcome {
    const value = node.childForFieldName("value");
    if (value) this.substitutions(value, s);
    const outs: Outcome[] = [pass(s)];
    let input = s;
    for (const item of node.namedChildren) {
      if (!item || item.type !== "case_item") continue;
      this.record(item, input);
      const body = item.namedChildren.filter((c): c is Node => !!c && item.childForFieldName("value")?.id !== c.id && !isPattern(item, c));
      const r = this.statements(body, input);
      outs.push(r);
      // `;&` and `;;&` fall through to the next item; joining keeps that sound.
      input = join(input, r.ok, r.fail);
    }
    return { ok: join(...outs.map((o) => o.ok)), fail: join(...outs.map((o) => o.fail)) };
  }

  private command(node: Node, s: State): Outcome {
    const name = node.childForFieldName("name");
    const args = node.childrenForFieldName("argument").filter((a): a is Node => !!a);
    if (!name) return pass(s);
    const nameWord = wordOf(name);
    if (!FLOW_COMMANDS.has(nameWord.value) && !nameWord.dynamic) return pass(s);
    let words = [nameWord, ...args.map((a) => wordOf(a))];
    while (words.length && !words[0]!.dynamic && (words[0]!.value === "builtin" || words[0]!.value === "command") && words[1] && !words[1].value.startsWith("-")) words = words.slice(1);
    const first = words[0]!;
    if (first.dynamic) return pass(null);
    const rest = words.slice(1);
    switch (first.value) {
      case "cd":
      case "pushd": {
        const operands: typeof rest = [];
        let optionsDone = false;
        let noChange = false;
        for (const w of rest) {
          if (!optionsDone && w.value === "--") {
            optionsDone = true;
            continue;
          }
          if (!optionsDone && /^-[LPe@n]+$/.test(w.value) && !w.dynamic) {
            if (first.value === "pushd" && w.value.includes("n")) noChange = true;
            continue;
          }
          operands.push(w);
        }
        if (noChange) return pass(s);
        // `cd -P a/..` goes up from where a's symlink points, which only the file system knows.
        const physical = rest.some((w) => /^-[a-zA-Z@]*P/.test(w.value)) || this.physical;
        if (operands.length === 0) return { ok: first.value === "cd" ? [resolveFrom("/", this.home, this.home)] : null, fail: s };
        const target = operands[0]!;
        if (operands.length > 1 || (first.value === "pushd" && /^[+-]\d*$/.test(target.value)) || target.value === "-") return { ok: null, fail: s };
        const path = staticPath(target, this.home);
        if (path === undefined) return { ok: null, fail: s };
        if (physical && /(^|\/)[^/.][^/]*\/+\.\.(\/|$)|(^|\/)\.[^/.][^/]*\/+\.\.(\/|$)/.test(path)) return { ok: null, fail: s };
        const ok = s === DEAD ? DEAD : s === null ? (path.startsWith("/") ? [resolveFrom("/", path, this.home)] : null) : dedupe(s.map((d) => resolveFrom(d, path, this.home)));
        return { ok, fail: s };
      }
      case "popd":
        return { ok: null, fail: s };
      case "set":
        if (rest.some((w) => /^-[a-zA-Z]*P/.test(w.value) || w.value === "physical")) this.physical = true;
        return pass(s);
      case "exit":
      case "return":
        return pass(DEAD);
      case "break":
      case "continue": {
        const loop = this.loopExits[this.loopExits.length - 1];
        // `break 2` and friends leave several loops: treat as leaving to anywhere after them.
        if (loop && rest.length === 0) (first.value === "break" ? loop.breaks : loop.continues).push(s);
        else for (const l of this.loopExits) l.breaks.push(null);
        return pass(DEAD);
      }
      case "exec":
        return rest.length ? pass(DEAD) : pass(s);
      case "source":
      case ".":
      case "eval":
        return pass(null);
      default:
        return pass(s);
    }
  }
}

function dedupe(dirs: string[]): CwdSet {
  const out: string[] = [];
  for (const d of dirs) if (!out.includes(d)) out.push(d);
  return out.length > MAX_CWDS ? null : out;
}

function isPattern(item: Node, child: Node): boolean {
  const kids = item.children;
  for (let i = 0; i < kids.length; i++) if (kids[i]?.id === child.id) return item.fieldNameForChild(i) === "value";
  return false;
}
