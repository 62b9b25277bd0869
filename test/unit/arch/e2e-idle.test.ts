// Every end-to-end test file with more than one test per VS Code chooses: each test starts from the
// idle state (eachTestStartsIdle: one slow or failed test cannot fail the ones after it), or the
// file says why its tests are one story (testsBuildOnEachOther). Issue 20: tests that do not cascade.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const E2E = join(__dirname, "../../e2e");

/** The text of the call starting at `open` (the index of its "("), up to the matching ")". */
function callText(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** One problem per useYokeVscode call followed by more than one test that chose neither way. */
export function undecided(text: string): string[] {
  const problems: string[] = [];
  const calls = [...text.matchAll(/useYokeVscode\(/g)].map((m) => m.index! + "useYokeVscode".length);
  calls.forEach((open, k) => {
    const rest = text.slice(open, calls[k + 1] ?? text.length);
    const tests = rest.match(/^\s*it\(/gm)?.length ?? 0;
    const options = callText(text, open);
    if (tests > 1 && !/\beachTestStartsIdle\s*:\s*(true|\{)/.test(options) && !/\btestsBuildOnEachOther\s*:\s*["'`]\S/.test(options)) {
      problems.push(`${tests} tests share the VS Code of ${options.slice(0, 60).replace(/\s+/g, " ")}… without eachTestStartsIdle or testsBuildOnEachOther`);
    }
  });
  return problems;
}

describe("end-to-end tests do not cascade", () => {
  it("every file with several tests per VS Code resets to idle before each, or says why its tests are one story", () => {
    const files = readdirSync(E2E).filter((f) => f.endsWith(".e2e.test.ts"));
    expect(files.length).toBeGreaterThan(20);
    const problems = files.flatMap((f) => undecided(readFileSync(join(E2E, f), "utf8")).map((p) => `${f}: ${p}`));
    expect(problems).toEqual([]);
  });

  it("the check fires on a planted file whose two tests chose neither", () => {
    const planted = `describe("x", () => {\n  const vs = useYokeVscode({ name: "x", model: { script } });\n  it("a", async () => {});\n  it("b", async () => {});\n});\n`;
    expect(undecided(planted)).toHaveLength(1);
    expect(undecided(planted.replace("model: { script }", "model: { script }, eachTestStartsIdle: true"))).toEqual([]);
    expect(undecided(planted.replace("model: { script }", 'model: { script }, testsBuildOnEachOther: "one tour"'))).toEqual([]);
    // A single test needs neither: it starts in the VS Code beforeAll launched.
    expect(undecided(planted.replace(`  it("b", async () => {});\n`, ""))).toEqual([]);
  });
});
