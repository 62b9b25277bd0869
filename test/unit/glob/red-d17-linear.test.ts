/**
 * Red team D (session 17) on red team C's change to the bounded matcher (each lookaround asked at the
 * position directly past 24 assertions, instead of a 32-bit mask). The matcher must stay linear: the
 * automaton steps (`lastSteps`) of an input ten times longer must be about ten times as many, never a
 * hundred — with many unbounded lookarounds (the uncached walk), lookarounds inside `*` loops, nested
 * unbounded lookarounds, short lookarounds asked at every position, and picomatch globs with many `**`
 * segments against long matching paths. Answers are compared with RegExp where RegExp is fast.
 */
import picomatch from "picomatch/posix";
import { describe, expect, it } from "vitest";
import { boundedRegExp } from "../../../src/core/glob/bounded-regex";

const many = (k: number, f: (i: number) => string) => Array.from({ length: k }, (_, i) => f(i)).join("");

const CASES: Array<{ name: string; source: string; input: (n: number) => string; expected: boolean }> = [
  { name: "40 unbounded negative lookaheads (uncached walk)", source: `^${many(40, (i) => `(?!.*x${i})`)}.*$`, input: (n) => "a".repeat(n), expected: true },
  { name: "40 unbounded lookaheads, unanchored, no match", source: `${many(40, (i) => `(?!.*x${i})`)}z`, input: (n) => "a".repeat(n), expected: false },
  { name: "unbounded lookahead inside a * loop", source: "^(?:(?!.*x)a)*$", input: (n) => "a".repeat(n), expected: true },
  { name: "30 unbounded lookaheads inside a * loop", source: `^(?:${many(30, (i) => `(?!.*x${i})`)}a)*$`, input: (n) => "a".repeat(n), expected: true },
  { name: "unbounded lookbehind inside a * loop", source: "^(?:(?<!x.*)a)*$", input: (n) => "a".repeat(n), expected: true },
  { name: "lookarounds nested five deep, unbounded", source: "^(?:(?=.*(?=.*(?=.*(?=.*(?!.*x).)a)a)a)a)*$", input: (n) => "a".repeat(n), expected: true },
  { name: "30 short lookaheads asked at every position", source: `^(?:${many(30, (i) => `(?!a{${i}}b)`)}a)*$`, input: (n) => "a".repeat(n), expected: true },
  { name: "a long (past 64) lookahead in a loop", source: "^(?:(?![ab]{65}x)a)*$", input: (n) => "a".repeat(n), expected: true },
];

for (const glob of ["**/*/**/*/**/*/**/*/**/.env", "**/a*/**/*b/**/*c*/**/.env", "!(*x)/**/+(*b)/**/.env"]) {
  CASES.push({ name: `glob ${glob}`, source: picomatch.makeRe(glob).source, input: (n) => "ab/".repeat(Math.ceil(n / 3)) + "acb/ab/.env", expected: true });
}

describe("boundedRegExp stays linear with many and nested lookarounds (red team D, session 17)", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const re = boundedRegExp(c.source);
      expect(re, "compiled").toBeDefined();
      // RegExp's answer where it is fast (short input), then the step counts as the input grows ×10.
      const short = c.input(40);
      expect(re!.test(short)).toBe(new RegExp(c.source).test(short));
      const steps: number[] = [];
      for (const n of [2_000, 20_000]) {
        expect(re!.test(c.input(n))).toBe(c.expected);
        steps.push(re!.lastSteps);
      }
      expect(steps[0]).toBeGreaterThan(0);
      // Linear: ~×10 (the constant part gives a little more); quadratic would be ~×100.
      expect(steps[1]! / steps[0]!).toBeLessThan(14);
    });
  }
});
