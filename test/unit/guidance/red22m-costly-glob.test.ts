// Red team 22-merged: guidance globs whose picomatch match backtracked without bound hung the session
// (test/integration/red22m-rule-glob-hang.test.ts shows it in a session). Since issue 18's bounded
// matcher (src/core/glob) such globs are used and answer in bounded time; only a glob passing
// regular-expression syntax the matcher does not read (a back-reference) is left out, and said so.
import { describe, expect, it } from "vitest";
import { globTester } from "../../../src/core/guidance/match";
import { parseRule, unmatchableGlob } from "../../../src/core/guidance/parse";

describe("guidance globs in bounded time", () => {
  it("ordinary, many-star and extglob globs are used; a back-reference is not", () => {
    for (const g of ["**/*.ts", "src/**/*.{ts,tsx}", "**/*.test.*", "*a*b*c*d", "**/*a*a*a*a*a*a*a*a*X", "src/*{a,b}*{c,d}*e*", "**/+(*a)X", "!(*.md)"]) expect(unmatchableGlob(g), g).toBe(false);
    for (const g of ["x\\1y", "(a)\\1"]) expect(unmatchableGlob(g), g).toBe(true);
  });

  it("a many-star or extglob glob answers right on a long file name (it used to take hours)", () => {
    const long = `src/${"a".repeat(250)}`;
    expect(globTester("**/*a*a*a*a*a*a*a*a*X")(long)).toBe(false);
    expect(globTester("**/*a*a*a*a*a*a*a*a*X")(`${long}X`)).toBe(true);
    expect(globTester("**/+(*a)X")(long)).toBe(false);
    expect(globTester("**/+(a|a?)+(a|?a)X")(`${long}X`)).toBe(true);
    expect(globTester("**/*.ts")(`${long}.ts`)).toBe(true);
    // No `/`: any folder (picomatch's basename).
    expect(globTester("+(*a)X")(`${long}X`)).toBe(true);
  });

  it("the rule says which glob is not used, and keeps its others", () => {
    const r = parseRule(
      { path: "/w/.windsurf/rules/x.md", source: ".windsurf/rules/x.md", origin: "workspace", text: '---\ntrigger: glob\nglobs: "**/*.ts, **/*a*a*a*a*X, x\\\\1y"\n---\nBody.\n' },
      "windsurf",
    );
    expect(r.entry?.match.globs).toEqual(["**/*.ts", "**/*a*a*a*a*X"]);
    expect(r.problems).toEqual([{ path: "/w/.windsurf/rules/x.md", line: 3, message: expect.stringContaining('glob "x\\\\1y" not used: it passes regular-expression syntax') }]);
  });
});
