/**
 * Brace, tilde and pathname expansion as bash does it (brace expansion first, then `~`, then
 * globs against the real file system through the injected `listDir` port), bounded. A word whose
 * value is only known when it runs yields `unknown`; so does an expansion too large to enumerate.
 *
 * Patterns use the escaping of shell/words.ts: a backslash makes the next character literal.
 */
import { boundedRegExp } from "../../glob/bounded-regex";

export interface ExpandBudget {
  /** Directory listings left for this check. */
  listings: number;
  /** Words that expansions may still produce for this check. */
  words: number;
}

export const DEFAULT_BUDGET = (): ExpandBudget => ({ listings: 200, words: 2000 });

export interface ExpandEnv {
  home: string;
  /** Entry names of a folder, or undefined when it is not a readable folder. */
  listDir?: (absPath: string) => Promise<string[] | undefined>;
  budget: ExpandBudget;
  /** Listings already made in this check. */
  cache?: Map<string, Promise<string[] | undefined>>;
}

export type Expansion = { words: string[] } | { unknown: string };

/** Thrown inside expansion when a bound is hit; turned into `unknown` by the callers here. */
class TooLarge extends Error {}

/** Removes the escaping of a pattern: the literal word bash passes when nothing matches. */
export function unescapePattern(p: string): string {
  let out = "";
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\" && i + 1 < p.length) out += p[++i];
    else out += c;
  }
  return out;
}

/** Has the pattern an unescaped `*`, `?` or `[` (a pathname pattern)? */
export function hasGlob(p: string): boolean {
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") i++;
    else if (c === "*" || c === "?" || c === "[") return true;
  }
  return false;
}

/**
 * Brace expansion (`a{b,c}d`, `{1..3}`, `{a..e..2}`, nested). Returns undefined when it would make
 * more than `limit` words.
 */
export function braceExpand(pattern: string, limit = 256): string[] | undefined {
  try {
    const out = expandBraces(pattern, limit, 0);
    return out;
  } catch (err) {
    if (err instanceof TooLarge) return undefined;
    throw err;
  }
}

function expandBraces(p: string, limit: number, depth: number): string[] {
  if (depth > 20) throw new TooLarge();
  // Find the first top-level brace group that is a list or a sequence.
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c !== "{") continue;
    // `${` is a parameter expansion, never a brace list.
    if (i > 0 && p[i - 1] === "$" && p[i - 2] !== "\\") continue;
    const close = matchingBrace(p, i);
    if (close < 0) continue;
    const body = p.slice(i + 1, close);
    const items = splitTopLevelCommas(body);
    let alternatives: string[] | undefined;
    if (items.length > 1) alternatives = items;
    else alternatives = sequence(body, limit);
    if (!alternatives) continue;
    const prefix = p.slice(0, i);
    const suffixes = expandBraces(p.slice(close + 1), limit, depth + 1);
    const out: string[] = [];
    for (const alt of alternatives) {
      for (const a of expandBraces(alt, limit, depth + 1)) {
        for (const s of suffixes) {
          out.push(prefix + a + s);
          if (out.length > limit) throw new TooLarge();
        }
      }
    }
    return out;
  }
  return [p];
}

function matchingBrace(p: string, open: number): number {
  let depth = 0;
  for (let i = open; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function splitTopLevelCommas(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

/** `{1..5}`, `{05..10..2}`, `{a..e}`: the words, or undefined when the body is not a sequence. */
function sequence(body: string, limit: number): string[] | undefined {
  const num = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  if (num) {
    const a = Number(num[1]);
    const b = Number(num[2]);
    const step = Math.abs(Number(num[3] ?? 1)) || 1;
    const width = /^-?0\d/.test(num[1]!) || /^-?0\d/.test(num[2]!) ? Math.max(num[1]!.length, num[2]!.length) : 0;
    if (Math.abs(b - a) / step > limit) throw new TooLarge();
    const out: string[] = [];
    for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
      const s = String(Math.abs(v)).padStart(width - (v < 0 ? 1 : 0), "0");
      out.push(v < 0 ? `-${s}` : s);
    }
    return out;
  }
  const chr = /^([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (chr) {
    const a = chr[1]!.charCodeAt(0);
    const b = chr[2]!.charCodeAt(0);
    const step = Math.abs(Number(chr[3] ?? 1)) || 1;
    const out: string[] = [];
    for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step) {
      const ch = String.fromCharCode(v);
      // Characters between Z and a (`[`, `\`…) come out escaped so they stay literal.
      out.push(/[A-Za-z]/.test(ch) ? ch : `\\${ch}`);
    }
    return out;
  }
  return undefined;
}

/**
 * Tilde expansion of a pattern's leading `~`: `~` and `~/x` give the home folder; `~+`, `~-`,
 * `~user` and `~N` depend on the running shell (unknown). Patterns without a leading unescaped `~`
 * are returned unchanged.
 */
export function tildeExpand(pattern: string, home: string): string | { unknown: string } {
  if (!pattern.startsWith("~")) return pattern;
  const slash = pattern.indexOf("/");
  const prefix = slash < 0 ? pattern : pattern.slice(0, slash);
  if (prefix === "~") return escapeLiteral(home) + (slash < 0 ? "" : pattern.slice(slash));
  if (prefix.includes("\\")) return pattern; // a quoted character in the prefix: no expansion
  return { unknown: `${prefix} is a folder only the running shell knows` };
}

export function escapeLiteral(s: string): string {
  return s.replace(/[*?[\]{},~\\]/g, (c) => `\\${c}`);
}

/** Options that change how pathname expansion works (from `shopt`/`set` in the same command line). */
export interface GlobOptions {
  /** Something in the command line may change the glob options (shopt, set -f…): expansions are unknown. */
  unknown?: boolean;
}

/**
 * Pathname expansion of one pattern (after brace and tilde expansion) relative to `cwd`.
 * No match: the literal word, as bash does without nullglob/failglob.
 */
export async function globExpand(pattern: string, cwd: string, env: ExpandEnv): Promise<Expansion> {
  if (!hasGlob(pattern)) return { words: [unescapePattern(pattern)] };
  if (!env.listDir) return { unknown: `the pattern ${unescapePattern(pattern)} cannot be expanded here (no folder listing)` };
  try {
    const absolute = pattern.startsWith("/");
    const segments = pattern.split("/");
    // Leading empty segment for absolute patterns; a trailing slash keeps only folders.
    let bases: Array<{ shown: string; abs: string }> = [{ shown: absolute ? "" : "", abs: absolute ? "/" : cwd }];
    let first = true;
    for (let s = absolute ? 1 : 0; s < segments.length; s++) {
      const seg = segments[s]!;
      const last = s === segments.length - 1;
      const next: Array<{ shown: string; abs: string }> = [];
      const join = (b: { shown: string; abs: string }, name: string) => ({
        shown: first && !absolute ? name : `${b.shown}/${name}`,
        abs: b.abs === "/" ? `/${name}` : `${b.abs}/${name}`,
      });
      if (seg === "") {
        // `a//b` or a trailing `/`: keep as written; only folders survive a trailing slash.
        for (const b of bases) next.push({ shown: `${b.shown}/`, abs: b.abs });
        if (last) {
          const dirs: typeof next = [];
          for (const b of next) if ((await list(b.abs, env)) !== undefined) dirs.push(b);
          bases = dirs;
        } else bases = next;
        first = false;
        continue;
      }
      if (!hasGlob(seg)) {
        const name = unescapePattern(seg);
        for (const b of bases) next.push(join(b, name));
      } else {
        const match = segmentMatcher(seg);
        for (const b of bases) {
          const entries = await list(b.abs, env);
          if (!entries) continue;
          const names = [...entries];
          if (seg.startsWith(".") || seg.startsWith("\\.")) names.push(".", "..");
          for (const name of names.sort()) {
            if (!match(name)) continue;
            next.push(join(b, name));
            if (--env.budget.words < 0) throw new TooLarge();
          }
        }
        // Intermediate segments must be folders (checked when the next segment lists them or, for
        // literal segments, when the result is used); a non-folder yields no listing above.
      }
      bases = next;
      first = false;
      if (bases.length === 0) break;
    }
    if (bases.length === 0) return { words: [unescapePattern(pattern)] };
    // Literal segments after the last pattern segment: bash only keeps names that exist.
    const lastGlob = lastGlobSegment(segments);
    if (lastGlob < segments.length - 1) {
      const kept: typeof bases = [];
      for (const b of bases) if ((await exists(b.abs, env)) === true) kept.push(b);
      if (kept.length === 0) return { words: [unescapePattern(pattern)] };
      bases = kept;
    }
    return { words: bases.map((b) => b.shown || "/") };
  } catch (err) {
    if (err instanceof TooLarge) return { unknown: `the pattern ${unescapePattern(pattern)} matches too many files to check` };
    throw err;
  }
}

function lastGlobSegment(segments: string[]): number {
  for (let i = segments.length - 1; i >= 0; i--) if (hasGlob(segments[i]!)) return i;
  return -1;
}

async function list(abs: string, env: ExpandEnv): Promise<string[] | undefined> {
  env.cache ??= new Map();
  let listed = env.cache.get(abs);
  if (!listed) {
    if (--env.budget.listings < 0) throw new TooLarge();
    listed = env.listDir!(abs).catch(() => undefined);
    env.cache.set(abs, listed);
  }
  return listed;
}

/** Does `abs` exist? Known through the listing of its folder (undefined when that is unreadable). */
async function exists(abs: string, env: ExpandEnv): Promise<boolean | undefined> {
  const slash = abs.lastIndexOf("/");
  const dir = slash <= 0 ? "/" : abs.slice(0, slash);
  const name = abs.slice(slash + 1);
  const entries = await list(dir, env);
  if (!entries) return undefined;
  return entries.includes(name) || name === "." || name === "..";
}

const POSIX_CLASSES: Record<string, string> = {
  alpha: "A-Za-z",
  digit: "0-9",
  alnum: "A-Za-z0-9",
  upper: "A-Z",
  lower: "a-z",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  xdigit: "0-9A-Fa-f",
  word: "A-Za-z0-9_",
  cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e",
  graph: "\\x21-\\x7e",
};

/**
 * A matcher for one path segment of a bash pattern (`*`, `?`, `[...]`, escapes; leading dots explicit).
 * Its expression runs without backtracking (src/core/glob): a model's `cat *a*a*a*a*a*a*a*a*X` beside
 * a 60-character name held the check over a minute of CPU with JavaScript's engine.
 */
export function segmentMatcher(seg: string): (name: string) => boolean {
  const re = boundedRegExp(`^${segmentRegex(seg)}$`, "s");
  // Every piece segmentPieces writes is read by the bounded matcher (a unit test draws them); were
  // one not, the check fails closed rather than guess bash's words.
  if (!re) throw new Error(`the pattern ${seg} cannot be matched here`);
  const test = (name: string) => re.test(name);
  const explicitDot = seg.startsWith(".") || seg.startsWith("\\.");
  return (name) => (explicitDot || !name.startsWith(".")) && (name !== "." && name !== ".." ? true : explicitDot) && test(name);
}

export function segmentRegex(seg: string): string {
  return segmentPieces(seg)
    .map((p) => (p === STAR ? "[^/]*" : p))
    .join("");
}

/**
 * One character past U+FFFF (two UTF-16 units): bash's `?` and `[!…]` match it as one character in a
 * UTF-8 locale, the expressions here read units, so `cat xaybzcwd?.env` hid xaybzcwd😀.env from a deny
 * rule naming that file (red team 23).
 */
const ASTRAL = "[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]";

/** A `*` among a segment's pieces; every other piece is a regular expression for exactly one character. */
const STAR = Symbol("star");
type Piece = string | typeof STAR;

function segmentPieces(seg: string): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "\\") {
      out.push(escapeRe(seg[i + 1] ?? "\\"));
      i++;
    } else if (c === "*") out.push(STAR);
    else if (c === "?") out.push(`(?:${ASTRAL}|[^/])`);
    else if (c === "[") {
      const parsed = bracket(seg, i);
      if (parsed) {
        out.push(parsed.re);
        i = parsed.end;
      } else out.push("\\[");
    } else out.push(escapeRe(c));
  }
  return out;
}

function bracket(seg: string, open: number): { re: string; end: number } | undefined {
  let i = open + 1;
  let negate = false;
  if (seg[i] === "!" || seg[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let firstChar = true;
  for (; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "]" && !firstChar) return { re: negate ? `(?:${ASTRAL}|[^${body}])` : `[${body}]`, end: i };
    firstChar = false;
    if (c === "[" && seg[i + 1] === ":") {
      const close = seg.indexOf(":]", i + 2);
      const name = close > 0 ? seg.slice(i + 2, close) : "";
      if (close > 0 && POSIX_CLASSES[name]) {
        body += POSIX_CLASSES[name];
        i = close + 1;
        continue;
      }
    }
    if (c === "\\" && i + 1 < seg.length) {
      body += escapeClass(seg[++i]!);
      continue;
    }
    if (c === "-" && body !== "" && seg[i + 1] !== "]") {
      body += "-";
      continue;
    }
    body += escapeClass(c);
  }
  return undefined;
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
const escapeClass = (c: string) => c.replace(/[\]\\^\-[]/g, "\\$&");

/**
 * The path a word names when it needs no pathname expansion and no run-time value (`~/x` gives
 * the home folder), or undefined. A literal leading `~` (quoted) comes back as `./~…`.
 */
export function staticPath(word: { dynamic: boolean; glob: boolean; value: string; pattern?: string }, home: string): string | undefined {
  if (word.dynamic || word.glob) return undefined;
  const pattern = word.pattern ?? escapeLiteral(word.value);
  const t = tildeExpand(pattern, home);
  if (typeof t !== "string") return undefined;
  const value = unescapePattern(t);
  return value.startsWith("~") ? `./${value}` : value;
}
