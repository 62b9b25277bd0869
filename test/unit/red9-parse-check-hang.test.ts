// Red team round 9: the parse check of tolerant edits (core/edit/syntax-check.ts) parsed any file
// up to 2,000,000 characters synchronously, with no time bound: 1.4 MB of `a<b<c<…` as TypeScript
// took 13 s per parse on this machine (two parses per edit: before and after), holding the
// extension host's event loop with no way to cancel (class: a hang from repository content).
// A parse past its time budget is given up (the check is skipped, as for a file with no grammar).
import { describe, expect, it } from "vitest";
import { createSyntaxChecker, PARSE_BUDGET_MS } from "../../src/core/edit/syntax-check";
import { nodeGrammarWasm } from "../../src/node/tree-sitter-wasm";

describe("red9: the parse check on a pathological file", () => {
  it("gives up within its time budget instead of holding the event loop", async () => {
    const checker = createSyntaxChecker(nodeGrammarWasm());
    // The grammar and runtime load first (not part of the bound).
    expect(await checker.problems("warm.ts", "const a = 1;\n")).toEqual([]);
    const text = "a<b<c<d<e<f<g<".repeat(140_000); // 1.96 MB, under the 2,000,000-character limit
    const t0 = Date.now();
    const r = await checker.problems("gen.ts", text);
    const ms = Date.now() - t0;
    expect(r).toBeUndefined();
    // The budget plus slack for a loaded machine; without the budget this took 13–30 s.
    expect(ms).toBeLessThan(PARSE_BUDGET_MS + 4000);
    // The same parser then checks the next file afresh (a cancelled parse is not resumed on it).
    expect(await checker.problems("next.ts", "const b = 2;\n")).toEqual([]);
    expect((await checker.problems("next2.ts", "const c = (;\n"))!.length).toBeGreaterThan(0);
  }, 120_000);

  it("ordinary files are still checked", async () => {
    const checker = createSyntaxChecker(nodeGrammarWasm());
    expect(await checker.problems("ok.py", "def f(x):\n    return x\n")).toEqual([]);
    expect((await checker.problems("bad.py", "def f(x:\n    return x\n"))!.length).toBeGreaterThan(0);
  }, 60_000);
});
