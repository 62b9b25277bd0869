// Red team 22-merged: guidance globs whose picomatch match backtracks without bound are not used
// (test/integration/red22m-rule-glob-hang.test.ts shows the hang in a session).
import { describe, expect, it } from "vitest";
import { globTester } from "../../../src/core/guidance/match";
import { costlyGlob, parseRule } from "../../../src/core/guidance/parse";

describe("costly guidance globs", () => {
  it("ordinary globs are used; more than 3 single * in one path part are not", () => {
    for (const g of ["**/*.ts", "src/**/*.{ts,tsx}", "**/*.test.*", "*foo*bar*", "a*/b*/c*/d*/e*", "**/**/**/x"]) expect(costlyGlob(g), g).toBe(false);
    for (const g of ["*a*b*c*d", "**/*a*a*a*a*a*a*a*a*X", "src/*{a,b}*{c,d}*e*"]) expect(costlyGlob(g), g).toBe(true);
  });

  it("a costly glob never matches (it is not compiled), so a long file name costs nothing", () => {
    expect(globTester("**/*a*a*a*a*a*a*a*a*X")(`src/${"a".repeat(250)}`)).toBe(false);
    expect(globTester("**/*.ts")(`src/${"a".repeat(250)}.ts`)).toBe(true);
  });

  it("the rule says which glob is not used, and keeps its others", () => {
    const r = parseRule(
      { path: "/w/.windsurf/rules/x.md", source: ".windsurf/rules/x.md", origin: "workspace", text: '---\ntrigger: glob\nglobs: "**/*.ts, **/*a*a*a*a*X"\n---\nBody.\n' },
      "windsurf",
    );
    expect(r.entry?.match.globs).toEqual(["**/*.ts"]);
    expect(r.problems).toEqual([{ path: "/w/.windsurf/rules/x.md", line: 3, message: expect.stringContaining('glob "**/*a*a*a*a*X" not used: more than 3 "*" in one path part') }]);
  });
});
