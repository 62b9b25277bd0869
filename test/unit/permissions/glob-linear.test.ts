// Glob patterns whose regular expressions backtrack exponentially (many `*` in one path part) are
// matched without backtracking: the same answers as the regular expressions on short names
// (randomized), and an answer at all on long ones (a hang fails the test by its timeout).
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { costlyGlob, linearGlob } from "../../../src/core/permissions/glob-linear";
import { matcher } from "../../../src/core/permissions/path-spec";
import { segmentMatcher, segmentRegex } from "../../../src/core/permissions/shell/expand";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function randomPart(r: () => number, pieces: readonly string[]): string {
  let out = "";
  const n = 1 + Math.floor(r() * 7);
  for (let i = 0; i < n; i++) out += pick(r, pieces);
  return out;
}

describe("glob matching without backtracking", () => {
  it("never matches less than picomatch on short paths, and rarely more (randomized: 20,000 pattern/path pairs)", () => {
    const r = rng(20261205);
    const patternPieces = ["a", "b", ".", "*", "?", "[ab]", "[^a]", "[!a]", "x", "{a,b}", "A"];
    const namePieces = ["a", "b", ".", "x", "A", "ab", "ba"];
    let compared = 0;
    let broader = 0;
    for (let i = 0; i < 20_000; i++) {
      const parts = Array.from({ length: 1 + Math.floor(r() * 3) }, () => (r() < 0.15 ? "**" : randomPart(r, patternPieces).replace(/^\.+$/, "a")));
      const pattern = parts.join("/");
      // Paths are normalised before any rule sees them: no `.` or `..` parts.
      const path = Array.from({ length: 1 + Math.floor(r() * 3) }, () => randomPart(r, namePieces).replace(/^\.+$/, "a")).join("/");
      const nocase = r() < 0.3;
      const ours = linearGlob(pattern, nocase);
      // `**` inside a part is not read here (the caller reads such a pattern the safe way).
      if (!ours) {
        expect(
          pattern.split("/").some((p) => p !== "**" && p.includes("**")),
          pattern,
        ).toBe(true);
        compared++;
        continue;
      }
      const theirs = picomatch(pattern, { dot: true, windows: false, nocase });
      // Never narrower than picomatch (a deny rule read here never matches less); broader only where picomatch has a
      // quirk of its own (a `**` after `*` over a dot-name part), counted below.
      if (theirs(path)) expect(ours!(path), `${pattern} ~ ${path} (nocase ${nocase})`).toBe(true);
      else if (ours!(path)) broader++;
      compared++;
    }
    expect(compared).toBe(20_000);
    expect(broader).toBeLessThan(200);
  });

  it("case-insensitive (deny) matching is never narrower than picomatch on non-ASCII names whose case changes length (red team 23)", () => {
    // "İ".toLowerCase() is two UTF-16 units, "ß".toUpperCase() is two: folding the whole name shifted every `?` and literal after it.
    const chars = ["İ", "ı", "ß", "ŉ", "ǰ", "K", "ſ", "Σ", "ς", "ﬀ", "a", "A"];
    for (const c of chars) {
      for (const pattern of ["*a*b*c*d?.env", `*a*b*c*d${c}.env`, "*a*b*c*d[^x].env", `*a*b*c*?${c}?.env`]) {
        for (const name of [`xaybzcwd${c}.env`, `xaybzcw${c}${c}${c}.env`, `xaybzcwd${c.toUpperCase()}.env`, `xaybzcwd${c.toLowerCase()}.env`]) {
          if (picomatch(pattern, { dot: true, windows: false, nocase: true })(name)) expect(linearGlob(pattern, true)!(name), `${pattern} ~ ${name}`).toBe(true);
        }
      }
    }
    expect(matcher("**/*a*b*c*d?.env", true)("sub/xaybzcwdİ.env")).toBe(true);
  });

  it("a bash glob's ? and [!…] match a character past U+FFFF as bash does in a UTF-8 locale, by the expression and the walk (red team 23)", () => {
    for (const seg of ["xaybzcwd?.env", "xaybzcwd[!x].env", "*a*d?.env", "*a*b*c*d?.env", "*a*b*c*d[!x].env"]) {
      expect(segmentMatcher(seg)("xaybzcwd😀.env"), seg).toBe(true);
      expect(segmentMatcher(seg)("xaybzcwdx.env"), seg).toBe(!seg.includes("[!x]"));
    }
  });

  it("a bash glob segment: the walk answers as the regular expression does (randomized: 20,000 pairs)", () => {
    const r = rng(7);
    const pieces = ["a", "b", "*", "?", "[ab]", "[!a]", "x", "\\*", "[[:digit:]]", "1"];
    const names = ["a", "b", "x", "1", "ab", "*", "ba1"];
    for (let i = 0; i < 20_000; i++) {
      // At least four stars, so the walk is used.
      const seg = `*${randomPart(r, pieces)}*${randomPart(r, pieces)}*${randomPart(r, pieces)}*`;
      const name = randomPart(r, names);
      const re = new RegExp(`^${segmentRegex(seg)}$`, "s");
      expect(segmentMatcher(seg)(name), `${seg} ~ ${name}`).toBe(!name.startsWith(".") && re.test(name));
    }
  });

  it("answers at once where the regular expressions take exponential time", () => {
    const long = "a".repeat(250);
    expect(costlyGlob("**/*a*a*a*a*a*a*a*a*X")).toBe(true);
    expect(costlyGlob("src/**/*.test.ts")).toBe(false);
    // A deny rule's reading (nocase) and an allow rule's.
    expect(matcher("**/*a*a*a*a*a*a*a*a*X", true)(`src/${long}`)).toBe(false);
    expect(matcher("**/*a*a*a*a*a*a*a*a*X", true)(`src/${long}x`)).toBe(true);
    expect(matcher("**/*a*a*a*a*a*a*a*a*X", false)(`src/${long}X`)).toBe(true);
    // A folder the rule names: everything below it.
    expect(matcher("*a*a*a*a*b", true)(`${long}b/secret.txt`)).toBe(true);
    // A path of 60,000 parts (the walk over parts keeps no call stack per part).
    const deep = `${Array.from({ length: 60_000 }, () => "d").join("/")}/${long}x`;
    expect(matcher("**/*a*a*a*a*a*a*a*a*X", true)(deep)).toBe(true);
    expect(matcher("**/*a*a*a*a*a*a*a*a*X", true)(`${deep}/y`)).toBe(true);
    // The shell's own glob expansion, for a model's `cat *a*a*a*a*a*a*a*a*X`.
    expect(segmentMatcher("*a*a*a*a*a*a*a*a*X")(long)).toBe(false);
    expect(segmentMatcher("*a*a*a*a*a*a*a*a*X")(`${long}X`)).toBe(true);
  });

  it("syntax the walk does not read is read the safe way: a deny rule matches, an allow rule does not", () => {
    const pattern = "*a*a*a*a*@(x|y)";
    expect(costlyGlob(pattern)).toBe(true);
    expect(linearGlob(pattern)).toBeUndefined();
    expect(matcher(pattern, true)("anything/at/all")).toBe(true);
    expect(matcher(pattern, false)("aaaax")).toBe(false);
  });
});
