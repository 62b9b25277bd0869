import { beforeAll, describe, expect, it } from "vitest";
import { loadCorpus, runCase } from "../../../src/bench/edit-corpus";
import { hashlineReady } from "../../../src/core/edit/hashline";

beforeAll(() => hashlineReady());

const corpus = loadCorpus();

describe("edit corpus", () => {
  it("has at least 60 cases over every category", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((c) => c.category))).toEqual(
      new Set(["exact", "whitespace", "indentation", "crlf", "unicode", "elision", "multiple", "ambiguous", "missing", "hashline", "stale"]),
    );
  });

  it.each(corpus.map((c) => [`${c.category}/${c.name}`, c] as const))("gives the expected result for %s", (_name, c) => {
    const r = runCase(c);
    expect(r.status, r.detail).not.toBe("wrong-apply");
    expect(r.status, r.detail).toBe("content" in c.expect ? "applied-correctly" : "refused-correctly");
  });
});
