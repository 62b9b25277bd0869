/**
 * Glob matching without backtracking, for the rule patterns picomatch cannot match in bounded time.
 *
 * picomatch compiles a glob to a regular expression; a path part with several `*` (`*a*a*a*a*X`)
 * becomes `[^/]*?a[^/]*?a…X`, which JavaScript's backtracking engine takes exponential time to
 * refuse on a long name: a repository's deny rule `Read(**\/*a*a*a*a*a*a*a*a*X)` held a permission
 * check past 30 s on a 200-character file name (red team 22). Such patterns are matched here
 * instead: each path part by the classic wildcard walk (one remembered `*`, O(name × pattern)),
 * `**` parts over the path's parts by a memoised walk. Supported: literals, `\x`, `?`, `*`,
 * `[…]` classes (ranges, `^` negation — a leading `!` is a character of the class, as picomatch reads it), `**` as a whole part, and braces
 * (expanded as the shell analysis expands them, at most 64 alternatives). Anything else (extglobs, `**` inside a part) returns undefined: the caller
 * decides the safe reading.
 */
import { braceExpand, MAX_STARS_PER_PART, STAR, wildcardWalk, type WalkToken } from "./shell/expand";

/** Whether picomatch could take exponential time on this pattern (some part holds more than MAX_STARS_PER_PART `*` runs). */
export function costlyGlob(pattern: string): boolean {
  return pattern.split("/").some((part) => part !== "**" && (part.match(/\*+/g)?.length ?? 0) > MAX_STARS_PER_PART);
}

/**
 * One UTF-16 unit folded as picomatch's case-insensitive expression folds it (the `i` flag without `u`:
 * upper case, unless that changes the length or maps a non-ASCII unit into ASCII). Folding each unit
 * keeps a name's length: `"İ".toLowerCase()` is two units, and a `?` or literal after it missed a
 * deny rule's file (red team 23).
 */
function foldUnit(c: string): string {
  const u = c.toUpperCase();
  if (u.length !== 1) return c;
  if (c.charCodeAt(0) >= 128 && u.charCodeAt(0) < 128) return c;
  return u;
}

function foldName(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) out += foldUnit(name[i]!);
  return out;
}

type Token = WalkToken;

const MAX_ALTERNATIVES = 64;

/** One path part's tokens, or undefined for syntax not read here. */
function tokenize(part: string, nocase: boolean): Token[] | undefined {
  const tokens: Token[] = [];
  const fold = (c: string) => (nocase ? foldUnit(c) : c);
  for (let i = 0; i < part.length; i++) {
    const c = part[i]!;
    if (c === "\\") {
      const lit = fold(part[++i] ?? "\\");
      tokens.push((x) => x === lit);
    } else if (c === "*") {
      while (part[i + 1] === "*") i++;
      if (tokens.at(-1) !== STAR) tokens.push(STAR);
    } else if (c === "?") {
      if (part[i + 1] === "(") return undefined;
      tokens.push(() => true);
    } else if (c === "[") {
      const cls = readClass(part, i, nocase);
      if (!cls) {
        tokens.push((x) => x === "[");
        continue;
      }
      tokens.push(cls.test);
      i = cls.end;
    } else if ((c === "!" || c === "+" || c === "@") && part[i + 1] === "(") return undefined;
    else if (c === "(" || c === ")" || c === "|") return undefined;
    else {
      const lit = fold(c);
      tokens.push((x) => x === lit);
    }
  }
  return tokens;
}

function readClass(part: string, start: number, nocase: boolean): { test: (c: string) => boolean; end: number } | undefined {
  let i = start + 1;
  // As picomatch reads classes: `^` negates; a leading `!` is one of the class's characters.
  const negate = part[i] === "^";
  if (negate) i++;
  const ranges: Array<[string, string]> = [];
  let first = true;
  for (; i < part.length; i++) {
    let c = part[i]!;
    if (c === "]" && !first) {
      const test = (x: string) => {
        const hit = ranges.some(
          ([lo, hi]) =>
            (x >= lo && x <= hi) || (nocase && ((x.toUpperCase() >= lo && x.toUpperCase() <= hi) || (x.toLowerCase() >= lo && x.toLowerCase() <= hi) || (foldUnit(x) >= lo && foldUnit(x) <= hi))),
        );
        return negate ? !hit : hit;
      };
      return { test, end: i };
    }
    if (c === "[" && part[i + 1] === ":") return undefined; // POSIX classes: not read here
    if (c === "\\") c = part[++i] ?? "\\";
    first = false;
    if (part[i + 1] === "-" && part[i + 2] !== undefined && part[i + 2] !== "]") {
      ranges.push([c, part[i + 2]!]);
      i += 2;
    } else ranges.push([c, c]);
  }
  return undefined;
}

type Part = "**" | Token[];

/**
 * Whether the parts match the names, `**` taking any number of names: filled from the last part back,
 * one row of names at a time (no recursion: a path may have tens of thousands of parts).
 */
function pathMatches(parts: Part[], names: string[]): boolean {
  const n = names.length;
  let next = new Uint8Array(n + 1);
  next[n] = 1;
  for (let p = parts.length - 1; p >= 0; p--) {
    const row = new Uint8Array(n + 1);
    const part = parts[p]!;
    for (let i = n; i >= 0; i--) {
      if (part === "**") row[i] = next[i] || (i < n ? row[i + 1]! : 0);
      else row[i] = i < n && next[i + 1] && wildcardWalk(part, names[i]!) ? 1 : 0;
    }
    next = row;
  }
  return next[0] === 1;
}

/**
 * A matcher for a whole relative path (parts split on `/`), or undefined when the pattern uses
 * syntax not read here. `nocase`: letters compare without case.
 */
export function linearGlob(pattern: string, nocase = false): ((path: string) => boolean) | undefined {
  // Braces as the shell analysis expands them (lists, sequences, nested), at most MAX_ALTERNATIVES.
  const alternatives = braceExpand(pattern, MAX_ALTERNATIVES);
  if (!alternatives) return undefined;
  const compiled: Part[][] = [];
  for (const alt of alternatives) {
    const parts: Part[] = [];
    for (const part of alt.split("/")) {
      if (part === "**") {
        if (parts.at(-1) !== "**") parts.push("**");
        continue;
      }
      // `**` inside a part (`**a`) crosses `/` in picomatch: not read here.
      if (part.includes("**")) return undefined;
      const tokens = tokenize(part, nocase);
      if (!tokens) return undefined;
      parts.push(tokens);
    }
    compiled.push(parts);
  }
  return (path: string) => {
    const names = path.split("/").map((n) => (nocase ? foldName(n) : n));
    return compiled.some((parts) => pathMatches(parts, names));
  };
}
