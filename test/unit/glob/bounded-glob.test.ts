/**
 * Issue 18: globs matched in bounded time (src/core/glob). picomatch's own expression backtracks
 * exponentially on extglobs (`+(*a)X` against 40 `a`s: past 20 s); the bounded matcher runs the same
 * expression as an automaton. Shown here: the same answers as picomatch on random globs and paths
 * where picomatch is fast (seeded), the same answers as JavaScript's RegExp on random expressions,
 * and a bound on the steps for the inputs that hung (steps, not time: the machine is shared).
 */
import picomatch from "picomatch/posix";
import { describe, expect, it } from "vitest";
import { boundedRegExp, globMatcher } from "../../../src/core/glob";
import { MAX_MATCHED_PATH, matcher } from "../../../src/core/permissions/path-spec";
import { segmentMatcher, segmentRegex } from "../../../src/core/permissions/shell/expand";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return (s >>> 8) / 0x1000000;
  };
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

// Glob pieces: wildcards, classes (POSIX, negated both ways), braces and ranges, every extglob,
// nesting, escapes, and characters picomatch passes through as expression syntax.
const GLOB_ATOMS = [
  "a",
  "b",
  "A",
  "x",
  ".",
  "/",
  "-",
  "é",
  "İ",
  "*",
  "**",
  "**/",
  "/**/",
  "?",
  "[ab]",
  "[!a]",
  "[^b]",
  "[a-c]",
  "[[:alpha:]]",
  "[[:digit:]]",
  "{a,b}",
  "{a,}",
  "{1..3}",
  "{a..c}",
  "@(a|b)",
  "*(a|b)",
  "+(a|*b)",
  "?(a)",
  "!(a)",
  "!(*.b)",
  "!(a|b)*",
  "*!(a)",
  "@(*|a)",
  "+(*a)",
  "+(a|a?)",
  "+(a|?a)",
  "*(?|a)",
  "\\*",
  "\\a",
  "(a|b)",
  ".*",
  "*.*",
  "|",
  ")",
  "(",
  "{",
  "}",
  "]",
  "$",
  "^",
  "a{2}",
  "(?!a)",
  "(?<=a)",
  "\\1",
] as const;
const PATH_CHARS = ["a", "b", "A", "B", ".", "/", "x", "1", "é", "İ", "-", "_", "X"] as const;
const OPTIONS = [{ dot: true }, { dot: true, nocase: true }, { dot: false }, { dot: true, basename: true }] as const;

describe("globMatcher: picomatch's answers in bounded time", () => {
  it("agrees with picomatch on random globs and paths (seeded)", () => {
    const r = rng(20261218);
    const disagreements: string[] = [];
    let pairs = 0;
    let matched = 0;
    let refused = 0;
    let globs = 0;
    for (let k = 0; k < 1500; k++) {
      let glob = "";
      for (let i = 1 + Math.floor(r() * 5); i > 0; i--) glob += pick(r, GLOB_ATOMS);
      for (const opts of OPTIONS) {
        let reference: (s: string) => boolean;
        try {
          reference = picomatch(glob, { ...opts, windows: false });
        } catch {
          continue;
        }
        globs++;
        const ours = globMatcher(glob, opts);
        if (!ours) {
          refused++;
          continue;
        }
        for (let j = 0; j < 8; j++) {
          let path = "";
          for (let i = Math.floor(r() * 8); i > 0; i--) path += pick(r, PATH_CHARS);
          // Now and then the glob itself, or a path built from its letters, so matches are common.
          if (j === 0) path = glob;
          if (j === 1) path = glob.replace(/[^a-zA-Z./]/g, "a");
          pairs++;
          const want = reference(path);
          if (want) matched++;
          if (ours(path) !== want) disagreements.push(`${JSON.stringify(glob)} ${JSON.stringify(opts)} ${JSON.stringify(path)}: picomatch ${want}`);
        }
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    // Not a vacuous agreement: thousands of pairs, hundreds of matches, few globs refused (only \1-style syntax).
    expect(pairs).toBeGreaterThan(40_000);
    expect(matched).toBeGreaterThan(1_000);
    expect(refused).toBeLessThan(globs / 10);
  });

  it("the strict reading (dotAll) is never narrower than picomatch, and crosses names holding a newline", () => {
    const r = rng(20261222);
    for (let k = 0; k < 800; k++) {
      let glob = "";
      for (let i = 1 + Math.floor(r() * 5); i > 0; i--) glob += pick(r, GLOB_ATOMS);
      let reference: (s: string) => boolean;
      try {
        reference = picomatch(glob, { dot: true, nocase: true, windows: false });
      } catch {
        continue;
      }
      const strict = globMatcher(glob, { dot: true, nocase: true, dotAll: true });
      if (!strict) continue;
      for (let j = 0; j < 6; j++) {
        let path = "";
        for (let i = Math.floor(r() * 8); i > 0; i--) path += pick(r, [...PATH_CHARS, "\n", "\u2028"]);
        if (reference(path)) expect(strict(path), `${glob} ~ ${JSON.stringify(path)}`).toBe(true);
      }
    }
    // picomatch's globstar does not cross a name with a newline; the strict reading does.
    expect(picomatch("**/.env", { dot: true, windows: false })("a\nb/.env")).toBe(false);
    expect(globMatcher("**/.env", { dot: true, nocase: true, dotAll: true })!("a\nb/.env")).toBe(true);
    expect(globMatcher("**/.env", { dot: true, nocase: true, dotAll: true })!("a\u2028b/x/.env")).toBe(true);
  });

  it("refuses only what it does not read: a back-reference the glob passes through", () => {
    expect(globMatcher("x\\1y", { dot: true })).toBeUndefined();
    expect(globMatcher("(a)\\1", { dot: true })).toBeUndefined();
    for (const g of ["**/+(*a)X", "!(*.md)", "src/**/*.{ts,tsx}", "[[:alpha:]]*", "(?<=a)b"]) expect(globMatcher(g, { dot: true }), g).toBeDefined();
  });

  it("answers the inputs that hung picomatch, in steps linear in the name", () => {
    for (const glob of ["**/+(*a)X", "**/+(a|a?)+(a|?a)X", "**/*a*a*a*a*a*a*a*a*X", "**/!(*a*a*a*a*a*a*X)/y", "**/@(+(a)|+(a))+X"]) {
      const regex = picomatch.makeRe(glob, { dot: true, windows: false, nocase: true });
      const bounded = boundedRegExp(regex.source, regex.flags)!;
      expect(bounded, glob).toBeDefined();
      const steps = (n: number, tail = "") => {
        expect(bounded.test(`src/${"a".repeat(n)}${tail}`)).toBe(tail === "X" && !glob.includes("/y"));
        return bounded.lastSteps;
      };
      const at40 = steps(40);
      const at400 = steps(400);
      const at4000 = steps(4000);
      // Linear: ten times the name, about ten times the steps (a backtracking engine doubles per `a`).
      expect(at400, glob).toBeLessThan(at40 * 12);
      expect(at4000, glob).toBeLessThan(at400 * 12);
      // And bounded by the automaton's size times the name (each state at most once per position and pass).
      expect(at4000, glob).toBeLessThan(bounded.size * 4010 * 4);
      steps(40, "X");
    }
  });

  it("agrees with RegExp where the sets met outgrow the cache (the uncached walk takes over)", () => {
    // `a` then 14 of a/b then X, read left to right only (no `$`): up to 2^15 sets on a random a/b name.
    const source = "^(?:a|b)*a[ab]{14}X";
    const reference = new RegExp(source);
    const ours = boundedRegExp(source)!;
    const r = rng(20261221);
    for (let k = 0; k < 4; k++) {
      let name = "";
      for (let i = 0; i < 6000; i++) name += r() < 0.5 ? "a" : "b";
      for (const tail of ["", "X", "aX", `a${"b".repeat(14)}X`]) expect(ours.test(name + tail), `${k}${tail}`).toBe(reference.test(name + tail));
    }
  });

  it("a 98 KB path of 49,000 parts is answered without recursion", () => {
    const m = globMatcher("**/+(*a)X", { dot: true, nocase: true })!;
    expect(m(`${"a/".repeat(49_000)}b`)).toBe(false);
    expect(m(`${"a/".repeat(49_000)}aX`)).toBe(true);
  });
});

// Random expressions in the syntax picomatch writes and a glob can pass through.
const RE_ATOMS = [
  "a",
  "b",
  "A",
  ".",
  "\\.",
  "\\/",
  "[^/]",
  "[a-c]",
  "[^a]",
  "[]",
  "[^]",
  "\\d",
  "\\w",
  "\\s",
  "\\W",
  "\\b",
  "\\B",
  "^",
  "$",
  "(?:a|b)",
  "(a|)",
  "(?=a)",
  "(?!b)",
  "(?<=a)",
  "(?<!b)",
  "(?=.)",
  "(?!\\.{1,2}(?:\\/|$))",
  "x{2}",
  "\\x41",
  "\\u00e9",
  "é",
  "İ",
  "{",
  "}",
  "]",
  "[\\]a]",
  "[\\w-]",
  "[-a]",
  "\\-",
] as const;
const QUANTIFIERS = ["", "", "", "*", "+", "?", "*?", "+?", "{0,2}", "{1,}", "{2}"] as const;

describe("boundedRegExp: RegExp's answers without backtracking", () => {
  it("agrees with RegExp on random expressions and strings (seeded)", () => {
    const r = rng(20261219);
    const disagreements: string[] = [];
    let pairs = 0;
    let matched = 0;
    for (let k = 0; k < 3000; k++) {
      let source = "";
      for (let i = 1 + Math.floor(r() * 6); i > 0; i--) {
        let atom: string = pick(r, RE_ATOMS);
        if (r() < 0.2) atom = `(?:${atom}${pick(r, RE_ATOMS)}|${pick(r, RE_ATOMS)})`;
        const q = pick(r, QUANTIFIERS);
        source += /^(?:\^|\$|\\b|\\B|\(\?[=!<])/.test(atom) ? atom : atom + q;
      }
      const flags = pick(r, ["", "i", "s", "is"]);
      let reference: RegExp;
      try {
        reference = new RegExp(source, flags);
      } catch {
        continue;
      }
      const ours = boundedRegExp(reference.source, reference.flags);
      expect(ours, source).toBeDefined();
      for (let j = 0; j < 10; j++) {
        let s = "";
        for (let i = Math.floor(r() * 7); i > 0; i--) s += pick(r, ["a", "b", "A", "B", ".", "/", "x", "1", " ", "\n", "é", "É", "İ", "i", "]", "{"]);
        pairs++;
        const want = reference.test(s);
        if (want) matched++;
        if (ours!.test(s) !== want) disagreements.push(`/${source}/${flags} ${JSON.stringify(s)}: RegExp ${want}`);
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([]);
    expect(pairs).toBeGreaterThan(20_000);
    expect(matched).toBeGreaterThan(2_000);
  });

  it("refuses back-references, octal escapes, other flags, counts past the limit", () => {
    for (const [source, flags] of [
      ["(a)\\1", ""],
      ["\\k<x>(?<x>a)", ""],
      ["\\07", ""],
      ["\\08", ""],
      ["a", "u"],
      ["a", "m"],
      ["a{1001}", ""],
    ] as const) {
      expect(boundedRegExp(source, flags), `/${source}/${flags}`).toBeUndefined();
    }
  });
});

describe("segmentMatcher (the shell analysis's own globs) runs without backtracking", () => {
  it("agrees with its expression through RegExp on random segments and names (seeded)", () => {
    const r = rng(20261220);
    const atoms = ["*", "?", "a", "b", ".", "[ab]", "[!a]", "[^b]", "[[:alpha:]]", "[[:punct:]]", "\\*", "[", "é", "😀"];
    for (let k = 0; k < 2000; k++) {
      let seg = "";
      for (let i = 1 + Math.floor(r() * 6); i > 0; i--) seg += pick(r, atoms);
      const re = new RegExp(`^${segmentRegex(seg)}$`, "s");
      const m = segmentMatcher(seg);
      for (let j = 0; j < 6; j++) {
        let name = "";
        for (let i = 1 + Math.floor(r() * 6); i > 0; i--) name += pick(r, ["a", "b", ".", "x", "é", "😀", "*", "["]);
        const hidden = name.startsWith(".") && !(seg.startsWith(".") || seg.startsWith("\\."));
        const special = (name === "." || name === "..") && !(seg.startsWith(".") || seg.startsWith("\\."));
        expect(m(name), `${seg} ~ ${name}`).toBe(!hidden && !special && re.test(name));
      }
    }
  });

  it("a model's many-star glob beside a long name answers", () => {
    const long = "a".repeat(4000);
    expect(segmentMatcher("*a*a*a*a*a*a*a*a*X")(long)).toBe(false);
    expect(segmentMatcher("*a*a*a*a*a*a*a*a*X")(`${long}X`)).toBe(true);
    expect(segmentMatcher("xaybzcwd?.env")("xaybzcwd😀.env")).toBe(true);
  });
});

describe("rule paths past MAX_MATCHED_PATH are read the safe way", () => {
  it("deny/ask readings match a path no call can open; allow readings do not; shorter paths are matched", () => {
    const long = `${"a/".repeat(MAX_MATCHED_PATH / 2)}x`;
    expect(matcher("**/.env", true)(long)).toBe(true);
    expect(matcher("**/.env", false)(long)).toBe(false);
    const under = `${"a/".repeat(MAX_MATCHED_PATH / 2 - 8)}.env`;
    expect(under.length).toBeLessThanOrEqual(MAX_MATCHED_PATH);
    expect(matcher("**/.env", false)(under)).toBe(true);
    expect(matcher("**/.env", true)(`${under}x`)).toBe(false);
  });
});
