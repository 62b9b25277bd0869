// Roo Code's fileRegex comes from a repository file and is run by a backtracking engine: its shape
// is read first (file-regex.ts). Patterns with exponential worst cases are refused; the others are
// tested only on paths short enough for their polynomial worst case to stay within MAX_STEPS.
import { describe, expect, it } from "vitest";
import { boundedFileRegex, editAllowed, MAX_STEPS } from "../../../src/core/subagents/file-regex";

const ok = (source: string) => {
  const r = boundedFileRegex(source);
  if ("problem" in r) throw new Error(`${source}: ${r.problem}`);
  return r;
};

describe("boundedFileRegex", () => {
  it("reads the patterns real .roomodes files use, with room for any real path", () => {
    for (const re of [
      "\\.md$",
      "\\.(md|mdx)$",
      "^docs/.*\\.mdx?$",
      "^(src|lib)/.*\\.(css|scss)$",
      ".*\\.test\\.[jt]sx?$",
      "^(?!.*node_modules).*\\.ts$",
      "(^|/)README\\.md$",
      "\\.(test|spec)\\.(ts|tsx|js)$",
    ])
      expect(ok(re).maxPath, re).toBeGreaterThanOrEqual(256);
  });

  it("refuses what can take exponential time: a repeated group, a backreference", () => {
    for (const [re, why] of [
      ["^(a+)+$", /repeated group/],
      ["(a|a)*b", /repeated group/],
      ["^(\\w+\\s?)*$", /repeated group/],
      ["(x|y){2,}z", /repeated group/],
      ["(.*)\\1", /backreference/],
      ["(?<n>a)\\k<n>", /backreference/],
      ["[", /not a valid regular expression/],
    ] as const) {
      const r = boundedFileRegex(re);
      expect("problem" in r ? r.problem : "accepted", re).toMatch(why);
    }
    expect(boundedFileRegex("a".repeat(1001))).toMatchObject({ problem: "longer than 1000 characters" });
    expect(boundedFileRegex("a?".repeat(30))).toMatchObject({ problem: expect.stringMatching(/too many optional parts/) });
  });

  it("a pattern with several repeats is tested only on paths its worst case allows (n^(k+1) within the step budget)", () => {
    // Three repeats: against a long run of "a" this pattern backtracks for minutes (measured: 288 s at 1,024 characters).
    const three = ok("a.*a.*a.*b");
    expect(three.maxPath ** 4).toBeLessThanOrEqual(MAX_STEPS);
    // Anchored: one start position, one factor of n less.
    expect(ok("^a.*a.*a.*b").maxPath ** 3).toBeLessThanOrEqual(MAX_STEPS);
    expect(ok("^a.*a.*a.*b").maxPath).toBeGreaterThan(three.maxPath);
    // Not anchored as a whole: `^x|…` tries the second alternative everywhere.
    expect(ok("^x|a.*a.*a.*b").maxPath).toBeLessThanOrEqual(three.maxPath);
    expect(three.maxPath).toBeLessThan(60);
    const long = "a".repeat(1024);
    const got = editAllowed([three], long);
    expect(got).toEqual({ ok: false, why: expect.stringMatching(/^a{20}.* is too long \(1024 characters\) to be checked against \/a\.\*a\.\*a\.\*b\/ in bounded time \(at most \d+\)$/) });
    expect(editAllowed([three], "a/a/a/b")).toEqual({ ok: true });
    // Classes and escapes are atoms; a quantifier inside a class is a character.
    expect(ok("[*+]{0,1}x\\*").maxPath).toBeGreaterThan(1000);
  });

  it("editAllowed: any one limit matching is enough; a refused pattern lets nothing through and says why", () => {
    const md = boundedFileRegex("\\.md$", "Markdown");
    const docs = boundedFileRegex("^docs/");
    expect(editAllowed([md, docs], "notes/a.md")).toEqual({ ok: true });
    expect(editAllowed([md, docs], "docs/x.txt")).toEqual({ ok: true });
    expect(editAllowed([md, docs], "src/a.ts")).toEqual({ ok: false, why: "src/a.ts does not match /\\.md$/ (Markdown) or /^docs//" });
    const bad = boundedFileRegex("^(a+)+$");
    expect(editAllowed([bad], "aaaa")).toEqual({ ok: false, why: expect.stringMatching(/^its fileRegex was refused \(\^\(a\+\)\+\$: a repeated group .*\), so it may edit no file$/) });
  });
});
