/**
 * Randomized round trips for the patch dialects (src/bench/patch-random.ts): a file, an intended
 * change, the patch a model would send with the noise models produce. Every round must give the
 * intended file or a refusal, never another file; most must apply.
 */
import { describe, expect, it } from "vitest";
import { makeRound, runPatchRounds } from "../../../src/bench/patch-random";
import { rng } from "../../../src/bench/edit-random";

describe("patch round trips", () => {
  for (const dialect of ["apply_patch", "unified_diff"] as const) {
    it(`${dialect}: 3000 rounds, the intended file or a refusal, never a wrong file`, async () => {
      const r = await runPatchRounds(dialect, 3000, 11);
      expect(r.wrong, JSON.stringify(r.wrongExamples[0])).toBe(0);
      expect(r.correct + r.refused).toBe(3000);
      expect(r.correct / r.rounds).toBeGreaterThan(0.75);
    });
  }
  it("renders the noise it says it does", () => {
    const r = rng(3);
    const rounds = Array.from({ length: 400 }, (_, i) => makeRound(r, i % 2 ? "apply_patch" : "unified_diff", i));
    const noises = new Set(rounds.flatMap((x) => x.noise));
    for (const n of [
      "crlf-file",
      "lost-indentation",
      "trailing-space",
      "blank-context-without-space",
      "wrong-line-numbers",
      "wrong-counts",
      "short-context",
      "context-headers",
      "no-end-patch",
      "fence",
      "heredoc",
      "crlf-patch",
    ]) {
      expect(noises.has(n), n).toBe(true);
    }
    const crlf = rounds.find((x) => x.noise.includes("crlf-file"))!;
    expect(crlf.file).toContain("\r\n");
    expect(crlf.intended).toContain("\r\n");
  });
});
