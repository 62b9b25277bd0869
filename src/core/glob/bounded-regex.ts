/**
 * A regular-expression matcher that cannot backtrack: the expressions picomatch compiles globs to
 * (and the shell analysis's own glob expressions), run in O(input × expression) time.
 *
 * JavaScript's engine backtracks: `+(*a)X` becomes `(?:[^/]*?a)+X`, which it takes exponential time
 * to refuse on a 40-character name — a repository's deny rule `Read(**\/+(*a)X)` held the
 * permission check past 20 s (issue 18). Here the expression is parsed (the ECMAScript syntax
 * without the `u` flag, Annex B, as far as picomatch emits it or a glob can pass it through) into
 * a Thompson automaton and simulated over the input's UTF-16 units with the set of live states,
 * never more than once per state and position. Lookarounds (picomatch's dot rules and `!(…)`) are
 * position tests, answered when first asked: one of bounded length (`(?!\.{1,2}(?:\/|$))`) by
 * running its automaton from that position (at most its length), a longer one for every position
 * at once by one scan of its own automaton (right to left for a lookahead, left to right for a
 * lookbehind). An expression starting with `^` is started once, and its scan stops when no state is left.
 * Without back-references (refused here), a match exists in this reading exactly when the
 * backtracking engine finds one (lazy and greedy quantifiers differ only in which match it finds).
 *
 * Refused (undefined: the caller decides the safe reading): back-references and octal escapes,
 * `\k` in an expression with named groups, the `u`/`v`/`m`/`y` flags, counted repetitions past
 * MAX_REPEAT, a group name used twice, groups nested past MAX_NESTING, automata past MAX_STATES.
 */

/** A compiled expression: `test`/`exec` as RegExp's (picomatch.test calls `exec`, matchBase `test`). */
export interface BoundedRegExp {
  readonly source: string;
  readonly flags: string;
  test(input: string): boolean;
  /** A one-element array when some part of the input matches (not the match itself), or null. */
  exec(input: string): [string] | null;
  /** Automaton steps (states entered, characters tested) of the last `test`/`exec` — for tests of the bound. */
  readonly lastSteps: number;
  /** States of the automaton, all lookarounds included. */
  readonly size: number;
}

/** Counted repetitions (`{n,m}`) past this are refused. */
export const MAX_REPEAT = 1000;
/** Automata (all lookarounds together) past this many states are refused. */
export const MAX_STATES = 100_000;
/** Groups nested deeper than this are refused (parsing and compiling recurse per level: 2,000 nested lookaheads overflowed the stack). */
export const MAX_NESTING = 256;

type CharTest = (c: number) => boolean;

type Node =
  | { k: "set"; test: CharTest; negate: boolean }
  | { k: "seq"; items: Node[] }
  | { k: "alt"; alts: Node[] }
  | { k: "rep"; body: Node; min: number; max: number }
  | { k: "bol" }
  | { k: "eol" }
  | { k: "wordb"; negate: boolean }
  | { k: "look"; behind: boolean; negate: boolean; body: Node; key: string };

class Refused extends Error {}

const range =
  (lo: number, hi: number): CharTest =>
  (c) =>
    c >= lo && c <= hi;
const anyOf =
  (tests: CharTest[]): CharTest =>
  (c) =>
    tests.some((t) => t(c));
const DIGIT = range(48, 57);
const WORD = anyOf([DIGIT, range(65, 90), range(97, 122), (c) => c === 95]);
const SPACE_UNITS = new Set([9, 10, 11, 12, 13, 32, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
const SPACE: CharTest = (c) => SPACE_UNITS.has(c) || (c >= 0x2000 && c <= 0x200a);
const LINE_TERMINATOR: CharTest = (c) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const not =
  (t: CharTest): CharTest =>
  (c) =>
    !t(c);

const CONTROL: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11 };
const CLASS_ESCAPES: Record<string, CharTest> = { d: DIGIT, D: not(DIGIT), w: WORD, W: not(WORD), s: SPACE, S: not(SPACE) };

class Parser {
  private i = 0;
  private depth = 0;
  private readonly names = new Set<string>();
  constructor(
    private readonly src: string,
    private readonly dotAll: boolean,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i !== this.src.length) throw new Refused();
    return node;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.src[this.i] === "|") {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { k: "alt", alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") items.push(this.term());
    return items.length === 1 ? items[0]! : { k: "seq", items };
  }

  private term(): Node {
    const start = this.i;
    const atom = this.atom();
    const q = this.quantifier();
    if (!q) return atom;
    if (atom.k === "bol" || atom.k === "eol" || atom.k === "wordb" || atom.k === "look") {
      // `^*`, `\b+`, `(?<=a)?` are syntax errors; a lookahead (Annex B) or a group holding one
      // assertion may be quantified. An assertion matches empty, and ECMAScript refuses an empty
      // iteration past the minimum: with a minimum of 0 it is never tested, else tested once.
      if (this.src[start] !== "(" || /^\(\?<[=!]/.test(this.src.slice(start, start + 4))) throw new Refused();
      return q.min === 0 ? { k: "seq", items: [] } : atom;
    }
    return { k: "rep", body: atom, min: q.min, max: q.max };
  }

  private quantifier(): { min: number; max: number } | undefined {
    const c = this.src[this.i];
    let q: { min: number; max: number } | undefined;
    if (c === "*") q = { min: 0, max: Infinity };
    else if (c === "+") q = { min: 1, max: Infinity };
    else if (c === "?") q = { min: 0, max: 1 };
    else if (c === "{") {
      const m = this.bracedQuantifier();
      if (!m) return undefined; // Annex B: a lone `{` is a literal (read by the next atom)
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) throw new Refused();
      this.i += m[0].length - 1;
      q = { min, max };
    }
    if (!q) return undefined;
    this.i++;
    if (this.src[this.i] === "?") this.i++; // lazy: the same set of matches
    return q;
  }

  /** `{n}`, `{n,}` or `{n,m}` at the current position (digits of any length: `a{0000…2}` is `a{2}`). */
  private bracedQuantifier(): RegExpExecArray | null {
    const re = /\{(\d+)(,(\d*))?\}/y;
    re.lastIndex = this.i;
    return re.exec(this.src);
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    switch (c) {
      case "^":
        return { k: "bol" };
      case "$":
        return { k: "eol" };
      case ".":
        return { k: "set", test: this.dotAll ? () => true : not(LINE_TERMINATOR), negate: false };
      case "[":
        return this.charClass();
      case "(":
        return this.group();
      case "\\":
        return this.escape();
      case ")":
      case "*":
      case "+":
      case "?":
      case "|":
        throw new Refused();
      case "{":
        // A braced quantifier with nothing to repeat (`{2}`, `a{2}{3}`) is a syntax error, not a literal.
        this.i--;
        if (this.bracedQuantifier()) throw new Refused();
        this.i++;
        return { k: "set", test: (x) => x === 123, negate: false };
      default: {
        const code = c.charCodeAt(0);
        return { k: "set", test: (x) => x === code, negate: false };
      }
    }
  }

  private group(): Node {
    if (++this.depth > MAX_NESTING) throw new Refused();
    const start = this.i;
    let look: { behind: boolean; negate: boolean } | undefined;
    if (this.src.startsWith("?:", this.i)) this.i += 2;
    else if (this.src.startsWith("?=", this.i) || this.src.startsWith("?!", this.i)) {
      look = { behind: false, negate: this.src[this.i + 1] === "!" };
      this.i += 2;
    } else if (this.src.startsWith("?<=", this.i) || this.src.startsWith("?<!", this.i)) {
      look = { behind: true, negate: this.src[this.i + 2] === "!" };
      this.i += 3;
    } else if (this.src.startsWith("?<", this.i)) {
      const m = /^\?<[A-Za-z_$][\w$]*>/.exec(this.src.slice(this.i, this.i + 200));
      // A name used twice (RegExp allows it only in different alternatives): not read here.
      if (!m || this.names.has(m[0])) throw new Refused();
      this.names.add(m[0]);
      this.i += m[0].length;
    } else if (this.src[this.i] === "?") throw new Refused();
    const bodyStart = this.i;
    const body = this.alternation();
    if (this.src[this.i] !== ")") throw new Refused();
    const key = `${this.src.slice(start, bodyStart)}${this.src.slice(bodyStart, this.i)}`;
    this.i++;
    this.depth--;
    return look ? { k: "look", ...look, body, key } : body;
  }

  /** An escape outside a class. */
  private escape(): Node {
    const c = this.src[this.i];
    if (c === "b" || c === "B") {
      this.i++;
      return { k: "wordb", negate: c === "B" };
    }
    const v = this.escapeValue(false);
    return { k: "set", test: typeof v === "number" ? (x) => x === v : v, negate: false };
  }

  /** An escape (after the `\\`): the one code unit it names, or a class escape's set. */
  private escapeValue(inClass: boolean): number | CharTest {
    const c = this.src[this.i++];
    if (c === undefined) throw new Refused();
    if (CLASS_ESCAPES[c]) return CLASS_ESCAPES[c];
    if (CONTROL[c] !== undefined) return CONTROL[c];
    if (inClass && c === "b") return 8;
    if (c === "0" && !/[0-9]/.test(this.src[this.i] ?? "")) return 0;
    // Annex B: `\cX` is X's code modulo 32 for a letter (and, in a class, a digit or `_`); other forms are not read here.
    if (c === "c") {
      if ((inClass ? /[A-Za-z0-9_]/ : /[A-Za-z]/).test(this.src[this.i] ?? "")) return this.src.charCodeAt(this.i++) % 32;
      // Any other `\c` is a backslash, and the `c` is read next as itself.
      this.i--;
      return 92;
    }
    // Annex B: without named groups anywhere in the expression, `\k` is the letter k.
    if (c === "k" && !/\(\?<(?![=!])/.test(this.src)) return 107;
    if (c === "x" || c === "u") {
      const len = c === "x" ? 2 : 4;
      const hex = this.src.slice(this.i, this.i + len);
      if (!(c === "x" ? /^[0-9A-Fa-f]{2}$/ : /^[0-9A-Fa-f]{4}$/).test(hex)) throw new Refused();
      this.i += len;
      return parseInt(hex, 16);
    }
    // Back-references, octal escapes, control letters, named references: not read here.
    if (/[0-9ck]/.test(c)) throw new Refused();
    return c.charCodeAt(0);
  }

  private charClass(): Node {
    let negate = false;
    if (this.src[this.i] === "^") {
      negate = true;
      this.i++;
    }
    const tests: CharTest[] = [];
    for (;;) {
      const c = this.src[this.i];
      if (c === undefined) throw new Refused();
      if (c === "]") {
        this.i++;
        break;
      }
      const lo = this.classAtom();
      if (this.src[this.i] === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined) {
        this.i++;
        const hi = this.classAtom();
        if (typeof lo !== "number" || typeof hi !== "number") {
          // Annex B: a class escape at either end (`[\d-z]`) is no range: both ends and `-` itself.
          for (const t of [lo, 45, hi]) tests.push(typeof t === "number" ? (x) => x === t : t);
          continue;
        }
        if (lo > hi) throw new Refused();
        tests.push(range(lo, hi));
      } else tests.push(typeof lo === "number" ? (x) => x === lo : lo);
    }
    return { k: "set", test: anyOf(tests), negate };
  }

  /** One class member: a code unit, or a class escape's set. */
  private classAtom(): number | CharTest {
    const c = this.src[this.i++]!;
    return c === "\\" ? this.escapeValue(true) : c.charCodeAt(0);
  }
}

// --- case folding (the `i` flag without `u`: ECMAScript's Canonicalize) ---

let canonTable: Uint16Array | undefined;
let foldGroups: Map<number, number[]> | undefined;

function canonical(): { table: Uint16Array; groups: Map<number, number[]> } {
  if (!canonTable || !foldGroups) {
    canonTable = new Uint16Array(0x10000);
    foldGroups = new Map();
    for (let c = 0; c < 0x10000; c++) {
      const u = String.fromCharCode(c).toUpperCase();
      let cu = u.length === 1 ? u.charCodeAt(0) : c;
      if (c >= 128 && cu < 128) cu = c;
      canonTable[c] = cu;
      const g = foldGroups.get(cu);
      if (g) g.push(c);
      else foldGroups.set(cu, [c]);
    }
  }
  return { table: canonTable, groups: foldGroups };
}

/** A set's final test: with `i`, some member folds as the unit folds; then the class's negation. */
function finalTest(node: { test: CharTest; negate: boolean }, ignoreCase: boolean): CharTest {
  const { test, negate } = node;
  if (!ignoreCase) return negate ? (c) => !test(c) : test;
  const { table, groups } = canonical();
  const memo = new Map<number, boolean>();
  return (c) => {
    let hit = memo.get(c);
    if (hit === undefined) {
      hit = (groups.get(table[c]!) ?? [c]).some(test) !== negate;
      memo.set(c, hit);
    }
    return hit;
  };
}

// --- the automaton ---

const CHAR = 0;
const EPS = 1;
const ASSERT = 2;
const MATCH = 3;

interface Look {
  behind: boolean;
  negate: boolean;
  /** Of bounded length: tested at a position when asked, by running its automaton from there (else: one scan of the whole input). */
  lazy: boolean;
  automaton: Automaton;
}

/** The longest input a node can match (Infinity when unbounded). */
function maxLength(node: Node): number {
  switch (node.k) {
    case "set":
      return 1;
    case "seq":
      return node.items.reduce((a, n) => a + maxLength(n), 0);
    case "alt":
      return Math.max(...node.alts.map(maxLength));
    case "rep": {
      const body = maxLength(node.body);
      return body === 0 ? 0 : node.max === Infinity ? Infinity : node.max * body;
    }
    default:
      return 0;
  }
}

/** Whether every match must start at the input's start (a leading `^`): the scan then starts once, not at every position. */
function startsAnchored(node: Node): boolean {
  if (node.k === "bol") return true;
  if (node.k === "seq") return node.items.length > 0 && startsAnchored(node.items[0]!);
  if (node.k === "alt") return node.alts.every(startsAnchored);
  return false;
}

/** Whether every match must end at the input's end (a trailing `$`). */
function endsAnchored(node: Node): boolean {
  if (node.k === "eol") return true;
  if (node.k === "seq") return node.items.length > 0 && endsAnchored(node.items[node.items.length - 1]!);
  if (node.k === "alt") return node.alts.every(endsAnchored);
  return false;
}

/** Lookarounds matching at most this many characters are tested lazily, per position asked. */
const LAZY_LOOK = 64;

class Program {
  kind: number[] = [];
  next: number[] = [];
  outs: number[][] = [];
  tests: Array<CharTest | undefined> = [];
  /** ASSERT: -1 bol, -2 eol, -3 word boundary, -4 not a word boundary, k ≥ 0 the lookaround k. */
  assertion: number[] = [];
  looks: Look[] = [];
  /** Marks of the closure being taken (a generation per closure). */
  mark = new Int32Array(0);
  gen = 0;
  private lookIndex = new Map<string, number>();

  constructor(private readonly ignoreCase: boolean) {}

  private add(kind: number, next = -1, test?: CharTest, assertion = 0): number {
    if (this.kind.length >= MAX_STATES) throw new Refused();
    this.kind.push(kind);
    this.next.push(next);
    this.outs.push([]);
    this.tests.push(test);
    this.assertion.push(assertion);
    return this.kind.length - 1;
  }

  /** `restart`: a match may start at every position (false: only where the scan starts). */
  automaton(node: Node, reverse: boolean, restart: boolean): Automaton {
    const match = this.add(MATCH);
    return new Automaton(this, this.compile(node, match, reverse), restart);
  }

  /** States for `node` followed by `next` (read right to left when `reverse`). */
  private compile(node: Node, next: number, reverse: boolean): number {
    switch (node.k) {
      case "set":
        return this.add(CHAR, next, finalTest(node, this.ignoreCase));
      case "seq": {
        let at = next;
        const items = reverse ? node.items : [...node.items].reverse();
        for (const item of items) at = this.compile(item, at, reverse);
        return at;
      }
      case "alt": {
        const split = this.add(EPS);
        this.outs[split] = node.alts.map((a) => this.compile(a, next, reverse));
        return split;
      }
      case "rep": {
        let at = next;
        if (node.max === Infinity) {
          const loop = this.add(EPS);
          this.outs[loop] = [this.compile(node.body, loop, reverse), next];
          at = loop;
        } else {
          for (let k = node.min; k < node.max; k++) {
            const opt = this.add(EPS);
            this.outs[opt] = [this.compile(node.body, at, reverse), next];
            at = opt;
          }
        }
        for (let k = 0; k < node.min; k++) at = this.compile(node.body, at, reverse);
        return at;
      }
      case "bol":
        return this.add(ASSERT, next, undefined, -1);
      case "eol":
        return this.add(ASSERT, next, undefined, -2);
      case "wordb":
        return this.add(ASSERT, next, undefined, node.negate ? -4 : -3);
      case "look": {
        const key = `${node.behind ? "<" : ">"}${node.key}`;
        let k = this.lookIndex.get(key);
        if (k === undefined) {
          // A short lookaround is run from the position asked, in its own direction; a long one's
          // positions are found by one scan (a lookahead's right to left, its automaton reversed).
          const lazy = maxLength(node.body) <= LAZY_LOOK;
          const automaton = lazy ? this.automaton(node.body, node.behind, false) : this.automaton(node.body, !node.behind, true);
          k = this.looks.length;
          this.looks.push({ behind: node.behind, negate: node.negate, lazy, automaton });
          this.lookIndex.set(key, k);
        }
        return this.add(ASSERT, next, undefined, k);
      }
    }
  }
}

/** Interned state sets past this (per automaton) are forgotten; within one long input, no more are kept (each set holds a few hundred bytes of tables: a glob keeps at most a few MB). */
const MAX_CACHED_SETS = 2_000;
/** Assertions up to this in one automaton: its closures are kept in arrays indexed by the mask. */
const SMALL_MASK_BITS = 6;
/** Assertions past this in one automaton: its sets are not cached (a position's assertions are a bit mask). */
const MAX_CACHED_ASSERTIONS = 24;

/**
 * One automaton (the expression's, or one lookaround's) and the state sets it has met: a set of
 * states before the closure at a position, with the mask of assertions holding there, gives the
 * same character states every time, and those with one character the same next set — so a glob
 * matched against many paths pays for each set once (a lazily built DFA, as RE2 does).
 */
class Automaton {
  /** The assertions its states test; bit k of a position's mask says whether asserts[k] holds. */
  readonly asserts: number[];
  private readonly bit = new Map<number, number>();
  private readonly cacheable: boolean;
  private preIds = new Map<string, number>();
  private pres: number[][] = [];
  private closedIds = new Map<string, number>();
  private closedChars: number[][] = [];
  private closedMatch: boolean[] = [];
  /** Per pre-closure set: mask → closed set. Per closed set: character → next set. */
  private closeCache: Array<Map<number, number>> = [];
  /** Per closed set: the next set after an ASCII unit (-1: not met yet); other units in stepCache. */
  private asciiSteps: Int32Array[] = [];
  private stepCache: Array<Map<number, number>> = [];
  private startPre = -1;
  /** At most SMALL_MASK_BITS assertions: a pre-closure set's closed sets in an array by mask. */
  private readonly smallMasks: boolean;
  private closeRows: Int32Array[] = [];

  constructor(
    private readonly p: Program,
    readonly start: number,
    readonly restart: boolean,
  ) {
    const seen = new Set<number>();
    const asserts = new Set<number>();
    const stack = [start];
    while (stack.length) {
      const st = stack.pop()!;
      if (seen.has(st)) continue;
      seen.add(st);
      const kind = p.kind[st];
      if (kind === EPS) stack.push(...p.outs[st]!);
      else if (kind !== MATCH) stack.push(p.next[st]!);
      if (kind === ASSERT) asserts.add(p.assertion[st]!);
    }
    this.asserts = [...asserts];
    this.asserts.forEach((a, k) => this.bit.set(a, k));
    this.cacheable = this.asserts.length <= MAX_CACHED_ASSERTIONS;
    this.smallMasks = this.asserts.length <= SMALL_MASK_BITS;
  }

  private reset(): void {
    this.preIds = new Map();
    this.pres = [];
    this.closedIds = new Map();
    this.closedChars = [];
    this.closedMatch = [];
    this.closeCache = [];
    this.closeRows = [];
    this.asciiSteps = [];
    this.stepCache = [];
    this.startPre = -1;
  }

  private internPre(states: number[]): number {
    const key = states.join(",");
    let id = this.preIds.get(key);
    if (id === undefined) {
      id = this.pres.length;
      this.pres.push(states);
      this.closeCache.push(new Map());
      if (this.smallMasks) this.closeRows.push(new Int32Array(1 << this.asserts.length).fill(-1));
      this.preIds.set(key, id);
    }
    return id;
  }

  private internClosed(chars: number[], matched: boolean): number {
    const key = `${matched ? "m" : ""}${chars.join(",")}`;
    let id = this.closedIds.get(key);
    if (id === undefined) {
      id = this.closedChars.length;
      this.closedChars.push(chars);
      this.closedMatch.push(matched);
      this.stepCache.push(new Map());
      this.asciiSteps.push(new Int32Array(128).fill(-1));
      this.closedIds.set(key, id);
    }
    return id;
  }

  /**
   * The character states (sorted) reached from `states` through empty moves whose assertions `mask`
   * allows (bit k for asserts[k]), or, without a mask, those holding at `pos` (more than 31
   * assertions do not fit a mask: the 33rd read the 1st's bit, and a failing lookahead passed).
   */
  private closure(run: Run, states: number[], mask: number | undefined, pos = 0): { chars: number[]; matched: boolean } {
    const p = this.p;
    const gen = ++p.gen;
    const chars: number[] = [];
    let matched = false;
    const stack = [...states];
    while (stack.length) {
      const st = stack.pop()!;
      if (p.mark[st] === gen) continue;
      p.mark[st] = gen;
      run.steps++;
      const kind = p.kind[st];
      if (kind === CHAR) chars.push(st);
      else if (kind === EPS) for (const o of p.outs[st]!) stack.push(o);
      else if (kind === ASSERT) {
        const a = p.assertion[st]!;
        if (mask === undefined ? run.holds(a, pos) : (mask >>> this.bit.get(a)!) & 1) stack.push(p.next[st]!);
      } else matched = true;
    }
    chars.sort((x, y) => x - y);
    return { chars, matched };
  }

  /** The states after `c` from the character states, with a new start (sorted, no repeats). */
  private step(run: Run, chars: number[], c: number): number[] {
    const p = this.p;
    const out = new Set<number>(this.restart ? [this.start] : []);
    for (const st of chars) {
      run.steps++;
      if (p.tests[st]!(c)) out.add(p.next[st]!);
    }
    return [...out].sort((x, y) => x - y);
  }

  private mask(run: Run, pos: number): number {
    if (this.asserts.length === 0) return 0;
    let mask = 0;
    for (let k = 0; k < this.asserts.length; k++) if (run.holds(this.asserts[k]!, pos)) mask |= 1 << k;
    return mask;
  }

  /**
   * Runs from position `from` to the input's end (`forward`) or start: with `found`, marks every
   * position where a match ends (a match started at `from`, or anywhere on the way when the
   * automaton restarts) and returns -1; without, returns the first such position (-1: none).
   * A reversed automaton read right to left finds where matches start.
   */
  scan(run: Run, forward: boolean, from: number, found?: Uint8Array): number {
    if (found || !this.cacheable || this.restart) return new Cursor(this, run, forward, from).advance(Infinity, found);
    // The common case (a short lookaround asked at a position): the cached sets, no cursor.
    const s = run.s;
    const last = forward ? s.length - from : from;
    let pre = this.startSet();
    for (let step = 0; step <= last; step++) {
      if (this.full()) return new Cursor(this, run, forward, from).advance(Infinity);
      const pos = forward ? from + step : from - step;
      run.steps++;
      const closed = this.closedOf(run, pre, this.mask(run, pos));
      if (this.closedMatch[closed]) return pos;
      if (step === last || this.closedChars[closed]!.length === 0) return -1;
      pre = this.nextOf(run, closed, s.charCodeAt(forward ? pos : pos - 1));
    }
    return -1;
  }

  /** The closed set (interned) of pre-closure set `pre` at a position whose assertions give `mask`. */
  closedOf(run: Run, pre: number, mask: number): number {
    if (this.smallMasks) {
      const row = this.closeRows[pre]!;
      let closed = row[mask]!;
      if (closed < 0) {
        const { chars, matched } = this.closure(run, this.pres[pre]!, mask);
        closed = row[mask] = this.internClosed(chars, matched);
      }
      return closed;
    }
    let closes = this.closeCache[pre]!;
    let closed = closes.get(mask);
    if (closed === undefined) {
      const { chars, matched } = this.closure(run, this.pres[pre]!, mask);
      closed = this.internClosed(chars, matched);
      closes = this.closeCache[pre]!;
      closes.set(mask, closed);
    }
    return closed;
  }

  /** The pre-closure set (interned) after unit `c` from closed set `closed`. */
  nextOf(run: Run, closed: number, c: number): number {
    if (c < 128) {
      const ascii = this.asciiSteps[closed]!;
      let pre = ascii[c]!;
      if (pre < 0) pre = ascii[c] = this.internPre(this.step(run, this.closedChars[closed]!, c));
      return pre;
    }
    const steps = this.stepCache[closed]!;
    let next = steps.get(c);
    if (next === undefined) {
      next = this.internPre(this.step(run, this.closedChars[closed]!, c));
      steps.set(c, next);
    }
    return next;
  }

  /** Where a scan starts: the interned start set, or -1 when sets are not cached (too many assertions, too many sets). */
  startSet(): number {
    if (!this.cacheable) return -1;
    // Closed sets count too: one pre-closure set meets a closed set per mask of assertions (up to 2^24), so they
    // could grow across calls while the pre-closure sets stay few (red team D, session 17).
    if (this.pres.length > MAX_CACHED_SETS || this.closedChars.length > MAX_CACHED_SETS * 4) this.reset();
    if (this.startPre < 0) this.startPre = this.internPre([this.start]);
    return this.startPre;
  }

  /** Too many sets met in this scan to keep more. */
  full(): boolean {
    return this.pres.length > MAX_CACHED_SETS * 2 || this.closedChars.length > MAX_CACHED_SETS * 8;
  }

  setOf(pre: number): number[] {
    return this.pres[pre]!;
  }

  matches(closed: number): boolean {
    return this.closedMatch[closed]!;
  }

  charsOf(closed: number): number[] {
    return this.closedChars[closed]!;
  }

  /** Uncached: the closure at a position. */
  closeStates(run: Run, states: number[], pos: number): { chars: number[]; matched: boolean } {
    return this.closure(run, states, undefined, pos);
  }

  /** Uncached: the states after unit `c`. */
  stepStates(run: Run, chars: number[], c: number): number[] {
    return this.step(run, chars, c);
  }

  maskAt(run: Run, pos: number): number {
    return this.mask(run, pos);
  }
}

/** A scan that can stop after some steps and go on later (the two directions of a match run in turns). */
class Cursor {
  private step = 0;
  private readonly last: number;
  /** The interned set before the closure at the current position (cached mode). */
  private pre: number;
  /** The states before the closure (uncached mode). */
  private states: number[] | undefined;
  private done = false;

  constructor(
    private readonly a: Automaton,
    private readonly run: Run,
    private readonly forward: boolean,
    private readonly from: number,
  ) {
    this.last = forward ? run.s.length - from : from;
    this.pre = a.startSet();
    if (this.pre < 0) this.states = [a.start];
  }

  /**
   * At most `budget` positions more: -2 when the budget ran out first; else as Automaton.scan
   * (with `found`: every match end marked, -1; without: the first match's position, -1 for none).
   */
  advance(budget: number, found?: Uint8Array): number {
    if (this.done) return -1;
    const { a, run, forward, from, last } = this;
    const s = run.s;
    for (let n = 0; n < budget; n++, this.step++) {
      const step = this.step;
      const pos = forward ? from + step : from - step;
      run.steps++;
      if (!this.states && a.full()) this.states = a.setOf(this.pre);
      let chars: number[];
      let matched: boolean;
      let closed = -1;
      if (this.states) {
        ({ chars, matched } = a.closeStates(run, this.states, pos));
      } else {
        closed = a.closedOf(run, this.pre, a.maskAt(run, pos));
        chars = a.charsOf(closed);
        matched = a.matches(closed);
      }
      if (matched) {
        if (!found) {
          this.done = true;
          return pos;
        }
        found[pos] = 1;
      }
      if (step === last || (chars.length === 0 && !a.restart)) {
        this.done = true;
        return -1;
      }
      const c = s.charCodeAt(forward ? pos : pos - 1);
      if (this.states) this.states = a.stepStates(run, chars, c);
      else this.pre = a.nextOf(run, closed, c);
    }
    return -2;
  }
}

/** One input's match: the lookarounds' answers, found when first asked. */
class Run {
  steps = 0;
  /** Long lookarounds: every position's answer, from one scan. */
  private readonly full: Array<Uint8Array | undefined> = [];
  /** Short lookarounds: 1 holds, 0 does not, -1 not asked yet. */
  private readonly memo: Array<Int8Array | undefined> = [];

  constructor(
    private readonly p: Program,
    readonly s: string,
  ) {}

  holds(a: number, pos: number): boolean {
    const s = this.s;
    if (a === -1) return pos === 0;
    if (a === -2) return pos === s.length;
    if (a === -3 || a === -4) {
      const before = pos > 0 && WORD(s.charCodeAt(pos - 1));
      const after = pos < s.length && WORD(s.charCodeAt(pos));
      return (before !== after) === (a === -3);
    }
    const look = this.p.looks[a]!;
    if (look.lazy) {
      let memo = this.memo[a];
      if (!memo) memo = this.memo[a] = new Int8Array(s.length + 1).fill(-1);
      if (memo[pos] === -1) memo[pos] = look.automaton.scan(this, !look.behind, pos) >= 0 !== look.negate ? 1 : 0;
      return memo[pos] === 1;
    }
    let at = this.full[a];
    if (!at) {
      at = new Uint8Array(s.length + 1);
      // A lookahead: its reversed automaton read right to left marks where matches start; a lookbehind's, left to right, where they end.
      look.automaton.scan(this, look.behind, look.behind ? 0 : s.length, at);
      if (look.negate) for (let i = 0; i < at.length; i++) at[i] = at[i] ? 0 : 1;
      this.full[a] = at;
    }
    return at[pos] === 1;
  }
}

/** Compiles `source` (a RegExp's `source`) with `flags`, or undefined where it uses syntax not read here. */
export function boundedRegExp(source: string, flags = ""): BoundedRegExp | undefined {
  if (/[^is]/.test(flags)) return undefined;
  let program: Program;
  let main: Automaton;
  let back: Automaton | undefined;
  try {
    const node = new Parser(source, flags.includes("s")).parse();
    program = new Program(flags.includes("i"));
    main = program.automaton(node, false, !startsAnchored(node));
    // Anchored at both ends (every glob's expression): also read from the end, right to left. The
    // two run in turns and the first to finish answers — `**/.env` against a long path that does
    // not end so is refused at its last character, `src/**` at its first.
    if (startsAnchored(node) && endsAnchored(node)) back = program.automaton(node, true, false);
    program.mark = new Int32Array(program.kind.length);
  } catch (err) {
    if (err instanceof Refused) return undefined;
    throw err;
  }
  let lastSteps = 0;
  const test = (input: string): boolean => {
    const run = new Run(program, input);
    let found: boolean;
    if (!back) found = main.scan(run, true, 0) >= 0;
    else {
      const ahead = new Cursor(main, run, true, 0);
      const behind = new Cursor(back, run, false, input.length);
      for (let budget = 16; ; budget *= 2) {
        const f = ahead.advance(budget);
        if (f !== -2) {
          found = f >= 0;
          break;
        }
        const b = behind.advance(budget);
        if (b !== -2) {
          found = b >= 0;
          break;
        }
      }
    }
    lastSteps = run.steps;
    return found;
  };
  return {
    source,
    flags,
    test,
    exec: (input) => (test(input) ? [input] : null),
    get lastSteps() {
      return lastSteps;
    },
    size: program.kind.length,
  };
}
