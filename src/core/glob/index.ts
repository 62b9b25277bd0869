/**
 * Glob matching in bounded time, with picomatch's semantics: picomatch parses the glob and writes
 * its regular expression (its reading of `*`, `**`, `?`, classes, braces, extglobs, dot files, case),
 * and that expression is run by the automaton in bounded-regex.ts instead of JavaScript's
 * backtracking engine — O(path × expression) for any glob, so a repository's rule or a model's
 * pattern cannot hold the check (issue 18: `Read(**\/+(*a)X)` against a 40-character name).
 * picomatch's own matcher logic around its expression is repeated here (`picomatch.test`: an empty
 * input never matches, the glob itself always does; `basename` tests the last non-empty part).
 */
import picomatch from "picomatch/posix";
import { boundedRegExp } from "./bounded-regex";

export { boundedRegExp, type BoundedRegExp } from "./bounded-regex";

export interface GlobOptions {
  dot?: boolean;
  nocase?: boolean;
  /** A glob without `/` is matched against the last path part (picomatch's `basename`). */
  basename?: boolean;
  /**
   * `.` in picomatch's expression (its globstar) also takes line terminators: picomatch's own
   * reading of a globstar rule for `.env` does not match `a\nb/.env`, and a deny rule read so let a
   * file in a folder with a newline in its name be read in bypassPermissions. For the strict
   * (deny/ask) reading: broader, never narrower.
   */
  dotAll?: boolean;
}

const cache = new Map<string, ((input: string) => boolean) | undefined>();
const CACHE_LIMIT = 2000;

/**
 * A bounded matcher for `glob` (POSIX paths), or undefined when picomatch's expression for it uses
 * syntax the automaton does not read (a back-reference the glob passed through, `(?<=…)` quantified…):
 * the caller decides the safe reading. A glob picomatch refuses (empty, too long) throws as picomatch does.
 */
export function globMatcher(glob: string, options: GlobOptions = {}): ((input: string) => boolean) | undefined {
  const key = `${options.dot ? "d" : "-"}${options.nocase ? "i" : "-"}${options.basename ? "b" : "-"}${options.dotAll ? "s" : "-"}:${glob}`;
  if (cache.has(key)) return cache.get(key);
  const opts = { dot: options.dot, nocase: options.nocase, basename: options.basename, windows: false };
  const regex = picomatch.makeRe(glob, opts);
  const bounded = boundedRegExp(regex.source, options.dotAll ? `${regex.flags}s` : regex.flags);
  const m =
    bounded &&
    ((input: string) => {
      if (input === "") return false;
      if (input === glob) return true;
      return bounded.test(options.basename ? lastPart(input) : input);
    });
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, m);
  return m;
}

/** picomatch's `utils.basename` for POSIX paths: the last part, or the one before a trailing `/`. */
function lastPart(path: string): string {
  const parts = path.split("/");
  const last = parts[parts.length - 1]!;
  return last === "" ? (parts[parts.length - 2] ?? "") : last;
}
