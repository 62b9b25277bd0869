/**
 * The patch corpus (test/fixtures/edit-corpus/*.patch-cases, written from the V4A apply_patch and
 * unified diff specifications): every case applies exactly as expected or is refused with the
 * expected reason; none applies wrongly.
 */
import { describe, expect, it } from "vitest";
import { loadPatchCorpus, parsePatchCases, runPatchCase } from "../../../src/bench/patch-corpus";
import { createSyntaxChecker } from "../../../src/core/edit/syntax-check";
import { nodeGrammarWasm } from "../../../src/node/tree-sitter-wasm";

const cases = loadPatchCorpus();
/** The parse check of tolerant chunks with the real grammars, as apply_patch has it. */
const syntax = createSyntaxChecker(nodeGrammarWasm());

describe("patch corpus", () => {
  it("has cases of both dialects", () => {
    expect(cases.filter((c) => c.dialect === "apply_patch").length).toBeGreaterThanOrEqual(30);
    expect(cases.filter((c) => c.dialect === "unified_diff").length).toBeGreaterThanOrEqual(15);
  });
  for (const c of cases) {
    it(`${c.source}: ${c.name}`, async () => {
      const r = await runPatchCase(c, syntax);
      expect(r.status, r.detail).toBe("refused" in c.expect ? "refused-correctly" : "applied-correctly");
    });
  }
  it("a case file's sections: files, options and expectations", () => {
    const [c] = parsePatchCases("@@@ case x\n@@@ options crlf\n@@@ file a\n1\n@@@ patch\n*** Begin Patch\n*** Delete File: a\n@@@ gone a\n", "t");
    expect(c).toMatchObject({ name: "x", dialect: "apply_patch", files: { a: "1\r\n" }, expect: { gone: ["a"], files: {} } });
  });
});
