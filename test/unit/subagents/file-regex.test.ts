// Roo Code's fileRegex comes from a repository file; JavaScript's engine backtracks, so it is run by
// the glob matcher's automaton (file-regex.ts), linear in the path: patterns that backtrack for
// minutes in RegExp answer at once, and every pattern answers as RegExp does.
import { describe, expect, it } from "vitest";
import { boundedFileRegex, editAllowed } from "../../../src/core/subagents/file-regex";

const ok = (source: string) => {
  const r = boundedFileRegex(source);
  if ("problem" in r) throw new Error(`${source}: ${r.problem}`);
  return r;
};

/** A seeded generator (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("boundedFileRegex", () => {
  const REAL = [
    "\\.md$",
    "\\.(md|mdx)$",
    "^docs/.*\\.mdx?$",
    "^(src|lib)/.*\\.(css|scss)$",
    ".*\\.test\\.[jt]sx?$",
    "^(?!.*node_modules).*\\.ts$",
    "(^|/)README\\.md$",
    "\\.(test|spec)\\.(ts|tsx|js)$",
  ];
  const PATHS = ["README.md", "docs/a.md", "docs/a.mdx", "src/x.css", "lib/y.scss", "src/a.test.tsx", "node_modules/p/a.ts", "src/a.ts", "a/README.md", "src/b.spec.js", "x.txt"];

  it("answers the patterns real .roomodes files use exactly as RegExp does", () => {
    for (const re of REAL) for (const p of PATHS) expect(ok(re).regex.test(p), `${re} ${p}`).toBe(new RegExp(re).test(p));
  });

  it("answers patterns that make RegExp backtrack for minutes, in steps linear in the path", () => {
    // RegExp: `a.*a.*a.*b` on 1,024 letters ran 288 s; `^(a+)+$` on "a"×30 + "!" is exponential.
    const three = ok("a.*a.*a.*b");
    expect(three.regex.test("a".repeat(1024))).toBe(false);
    const small = three.regex.lastSteps;
    expect(three.regex.test("a".repeat(10_240))).toBe(false);
    expect(three.regex.lastSteps).toBeLessThan(small * 12);
    expect(editAllowed([three], "a/a/a/b")).toEqual({ ok: true });
    const nested = ok("^(a+)+$");
    expect(nested.regex.test(`${"a".repeat(30)}!`)).toBe(false);
    expect(nested.regex.test("a".repeat(30))).toBe(true);
    expect(ok("^(\\w+\\s?)*$").regex.test(`${"word ".repeat(40)}!`)).toBe(false);
  });

  it("agrees with RegExp on random patterns and paths where RegExp is quick", () => {
    const r = rng(20261205);
    const atoms = ["a", "b", "/", ".", "\\.", "[ab]", "[^/]", "\\w", "(a|b)", "(?:ab)", "x"];
    const quants = ["", "", "*", "+", "?", "{1,2}"];
    let agreed = 0;
    for (let i = 0; i < 400; i++) {
      let src = r() < 0.3 ? "^" : "";
      const n = 1 + Math.floor(r() * 5);
      for (let k = 0; k < n; k++) src += atoms[Math.floor(r() * atoms.length)]! + quants[Math.floor(r() * quants.length)]!;
      if (r() < 0.3) src += "$";
      const mine = ok(src);
      for (let j = 0; j < 8; j++) {
        let p = "";
        const len = Math.floor(r() * 8);
        for (let k = 0; k < len; k++) p += "ab/.x"[Math.floor(r() * 5)]!;
        expect(mine.regex.test(p), `${src} ${JSON.stringify(p)}`).toBe(new RegExp(src).test(p));
        agreed++;
      }
    }
    expect(agreed).toBe(3200);
  });

  it("refuses back-references, invalid and over-long patterns", () => {
    for (const [re, why] of [
      ["(.*)\\1", /back-reference/],
      ["(?<n>a)\\k<n>", /back-reference/],
      ["[", /not a valid regular expression/],
    ] as const) {
      const r = boundedFileRegex(re);
      expect("problem" in r ? r.problem : "accepted", re).toMatch(why);
    }
    expect(boundedFileRegex("a".repeat(1001))).toMatchObject({ problem: "longer than 1000 characters" });
  });

  it("editAllowed: any one limit matching is enough; a refused pattern lets nothing through and says why", () => {
    const md = boundedFileRegex("\\.md$", "Markdown");
    const docs = boundedFileRegex("^docs/");
    expect(editAllowed([md, docs], "notes/a.md")).toEqual({ ok: true });
    expect(editAllowed([md, docs], "docs/x.txt")).toEqual({ ok: true });
    expect(editAllowed([md, docs], "src/a.ts")).toEqual({ ok: false, why: "src/a.ts does not match /\\.md$/ (Markdown) or /^docs//" });
    const bad = boundedFileRegex("(a)\\1");
    expect(editAllowed([bad], "aa")).toEqual({ ok: false, why: expect.stringMatching(/^its fileRegex was refused \(\(a\)\\1: it uses a back-reference .*\), so it may edit no file$/) });
  });
});
