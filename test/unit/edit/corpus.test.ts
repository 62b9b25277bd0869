import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, runCase } from "../../../src/bench/edit-corpus";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { createSyntaxChecker } from "../../../src/core/edit/syntax-check";
import { nodeGrammarWasm } from "../../../src/node/tree-sitter-wasm";

beforeAll(() => hashlineReady());

const corpus = loadCorpus();
/** The parse check of tolerant edits, with the real grammars (as the tools and `yoke edit apply` have it). */
const syntax = createSyntaxChecker(nodeGrammarWasm());

describe("edit corpus", () => {
  it("has at least 150 cases over every category", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(150);
    expect(new Set(corpus.map((c) => c.category))).toEqual(
      new Set([
        "exact",
        "whitespace",
        "indentation",
        "crlf",
        "unicode",
        "elision",
        "multiple",
        "ambiguous",
        "missing",
        "hashline",
        "stale",
        "hashline-echo",
        "hashline-indent",
        "hashline-reflow",
        "hashline-anchors",
        "roo",
        "spacing",
        "edge-blanks",
        "markers",
        "shapes",
        "tolerance",
        "near-miss",
        "peer-shapes",
        "parse-check",
      ]),
    );
  });

  it.each(corpus.map((c) => [`${c.category}/${c.name}`, c] as const))("gives the expected result for %s", async (_name, c) => {
    const r = await runCase(c, syntax);
    expect(r.status, r.detail).not.toBe("wrong-apply");
    expect(r.status, r.detail).toBe("content" in c.expect ? "applied-correctly" : "refused-correctly");
  });
});
