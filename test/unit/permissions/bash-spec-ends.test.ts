/**
 * The literal-ends filter in front of the pattern intersection (bash-spec.ts): it may only say
 * "cannot match" where the full intersection says so too. Randomized against `intersect` itself,
 * and the slow shape it was made for (a 1,420-deep xargs chain under rules with wildcards).
 */
import { describe, expect, it } from "vitest";
import { endsAgree, intersect } from "../../../src/core/permissions/bash-spec";

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pattern(r: () => number): Array<string | null> {
  const n = Math.floor(r() * 7);
  const out: Array<string | null> = [];
  for (let i = 0; i < n; i++) out.push(r() < 0.25 ? null : "ab "[Math.floor(r() * 3)]!);
  return out;
}

describe("endsAgree", () => {
  it("never rules out a pair the intersection accepts (20,000 random pairs of patterns)", () => {
    const r = rng(20261204);
    let agreed = 0;
    let rejected = 0;
    for (let i = 0; i < 20_000; i++) {
      const a = pattern(r);
      const b = pattern(r);
      const both = intersect(a, b);
      const ends = endsAgree(a, b);
      if (both) expect(ends, JSON.stringify([a, b])).toBe(true);
      if (ends) agreed++;
      else rejected++;
    }
    // The filter does work: a good share of pairs is ruled out without the intersection.
    expect(rejected).toBeGreaterThan(2_000);
    expect(agreed).toBeGreaterThan(2_000);
  });

  it("rules out by the first or last characters, and keeps what only a wildcard can decide", () => {
    const t = (s: string) => [...s].map((c) => (c === "*" ? null : c));
    expect(endsAgree(t("rm *"), t("xargs xargs ls *"))).toBe(false);
    expect(endsAgree(t("* --stat *"), t("git diff --stat"))).toBe(true);
    expect(endsAgree(t("*.lock"), t("yarn.txt"))).toBe(false);
    expect(endsAgree(t("git *"), t("git"))).toBe(false);
    expect(endsAgree(t("git*"), t("git"))).toBe(true);
    expect(endsAgree(t("ls"), t("ls"))).toBe(true);
    expect(endsAgree(t(""), t("*"))).toBe(true);
  });
});
