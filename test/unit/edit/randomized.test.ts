import { beforeAll, describe, expect, it } from "vitest";
import { GENERATORS, runRetryRounds, runRounds } from "../../../src/bench/edit-random";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import type { HashlineOp } from "../../../src/core/edit/types";
import { block, edit } from "./edit-helpers";

beforeAll(() => hashlineReady());

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function join(lines: string[], crlf: boolean, finalNewline: boolean): string {
  const eol = crlf ? "\r\n" : "\n";
  return lines.join(eol) + (finalNewline && lines.length ? eol : "");
}

describe("randomized edits against a line-array model", () => {
  it("applies random non-overlapping hashline ops exactly as the model of them says", () => {
    for (let round = 0; round < 300; round++) {
      const r = rng(round + 1);
      const n = 1 + Math.floor(r() * 30);
      // The last line is never empty: "a\n" is one line with a final newline, as the view counts it.
      const lines = Array.from({ length: n }, (_, i) => (r() < 0.15 && i < n - 1 ? "" : `line ${i} ${Math.floor(r() * 1000)}`));
      const crlf = r() < 0.3;
      const finalNewline = r() < 0.8;
      const file = join(lines, crlf, finalNewline);
      // Pick disjoint ranges from top to bottom.
      const ops: HashlineOp[] = [];
      const expected: string[] = [];
      let i = 0;
      while (i < n) {
        const roll = r();
        if (roll < 0.2) {
          const len = 1 + Math.floor(r() * Math.min(3, n - i));
          const repl = r() < 0.3 ? [] : Array.from({ length: Math.floor(r() * 3) + 1 }, (_, k) => `new ${i}.${k}`);
          const op: HashlineOp = { op: "replace", pos: lineTag(i + 1, lines[i]!), lines: repl.length ? repl : null };
          if (len > 1) op.end = lineTag(i + len, lines[i + len - 1]!);
          ops.push(op);
          expected.push(...repl);
          i += len;
        } else if (roll < 0.3) {
          ops.push({ op: "prepend", pos: lineTag(i + 1, lines[i]!), lines: [`before ${i}`] });
          expected.push(`before ${i}`, lines[i]!);
          i++;
        } else if (roll < 0.4) {
          ops.push({ op: "append", pos: lineTag(i + 1, lines[i]!), lines: [`after ${i}`] });
          expected.push(lines[i]!, `after ${i}`);
          i++;
        } else {
          expected.push(lines[i]!);
          i++;
        }
      }
      if (ops.length === 0) continue;
      // Shuffle: the order of ops in a call must not matter.
      for (let k = ops.length - 1; k > 0; k--) {
        const j = Math.floor(r() * (k + 1));
        [ops[k], ops[j]] = [ops[j]!, ops[k]!];
      }
      const out = edit(file, ops);
      // A file without any line ending gives new lines "\n".
      const want = join(expected, crlf && file.includes("\n"), finalNewline);
      if (want === file) {
        expect(out.ok, `round ${round}`).toBe(false);
        continue;
      }
      expect(out.ok ? out.after : out.message, `round ${round}`).toBe(want);
    }
  });

  it("applies random unique SEARCH/REPLACE blocks and preserves endings", () => {
    for (let round = 0; round < 200; round++) {
      const r = rng(1000 + round);
      const n = 2 + Math.floor(r() * 25);
      const lines = Array.from({ length: n }, (_, i) => `${"  ".repeat(Math.floor(r() * 3))}stmt_${i}(${Math.floor(r() * 100)});`);
      const crlf = r() < 0.4;
      const finalNewline = r() < 0.7;
      const file = join(lines, crlf, finalNewline);
      const at = Math.floor(r() * n);
      const len = 1 + Math.floor(r() * Math.min(4, n - at));
      const search = lines.slice(at, at + len);
      const replace = r() < 0.2 ? [] : [...search.slice(0, 1), `${search[0]!.match(/^\s*/)![0]}inserted_${round}();`, ...search.slice(1)];
      const out = edit(file, [block(search, replace)]);
      const expected = [...lines.slice(0, at), ...replace, ...lines.slice(at + len)];
      expect(out.ok ? out.after : out.message, `round ${round}`).toBe(join(expected, crlf, finalNewline && expected.length > 0));
    }
  });

  it("never applies a drifted SEARCH anywhere but the intended place", () => {
    let applied = 0;
    for (let round = 0; round < 300; round++) {
      const r = rng(5000 + round);
      const n = 3 + Math.floor(r() * 30);
      const pool = ["x = 1;", "y();", "return z;", "}", "if (a) {", "", "log(x);"];
      const unit = r() < 0.3 ? "\t" : "  ";
      const lines = Array.from({ length: n }, () => {
        const body = pool[Math.floor(r() * pool.length)]!;
        return body === "" ? "" : unit.repeat(Math.floor(r() * 3)) + body + (r() < 0.1 ? "  " : "");
      });
      lines[n - 1] = "end();";
      const file = lines.join("\n") + "\n";
      const at = Math.floor(r() * (n - 1));
      const len = 1 + Math.floor(r() * Math.min(3, n - 1 - at));
      const region = lines.slice(at, at + len);
      const j = region.findIndex((l) => l.trim() !== "");
      if (j < 0) continue;
      // Drift: trailing whitespace dropped, everything indented 4 more, or tabs written as 4 spaces.
      const drift = r();
      const search = region.map((l) => (drift < 0.4 ? l.trimEnd() : drift < 0.7 ? (l === "" ? "" : "    " + l) : l.replace(/^\t+/, (t) => "    ".repeat(t.length))));
      const replace = search.map((l, k) => (k === j ? l + " // changed" : l));
      // A drifted SEARCH that is exactly some other place's text is taken at its word: skip those.
      if (("\n" + file).includes("\n" + search.join("\n") + "\n")) continue;
      const asJson = r() < 0.5;
      // A JSON old_string is first an exact substring (Claude Code's Edit): when it is one, that is what it means.
      if (asJson && file.includes(search.join("\n"))) continue;
      const out = edit(file, [asJson ? { old_string: search.join("\n"), new_string: replace.join("\n") } : block(search, replace)]);
      if (!out.ok) continue;
      applied++;
      const want = [...lines.slice(0, at), ...region.map((l, k) => (k === j ? (drift < 0.4 ? l.trimEnd() : l) + " // changed" : l)), ...lines.slice(at + len)];
      expect(out.after, `round ${round}`).toBe(want.join("\n") + "\n");
    }
    expect(applied).toBeGreaterThan(50);
  });
});

/**
 * The tolerance rules and dialects against a known intent (src/bench/edit-random.ts): exactly the
 * intended file, or a refusal. The suite runs a few hundred rounds of each; `npm run bench` runs
 * 10^5 in all, and YOKE_EDIT_ROUNDS=N runs N of each here.
 */
describe("randomized tolerance rules and dialects against a known intent", () => {
  const rounds = Number(process.env.YOKE_EDIT_ROUNDS ?? 400);
  // Applied as intended (not only refused): each generator must mostly apply, or it proves nothing.
  const minApplied: Record<string, number> = { echoes: 0.7, indentation: 0.5, reflow: 0.95, blocks: 0.65, flattened: 0.6 };
  it.each(Object.keys(GENERATORS))(
    "%s: never a wrong apply, and mostly applied",
    (name) => {
      const r = runRounds(name, rounds);
      expect(r.wrong, JSON.stringify(r.wrong.slice(0, 3), null, 1)).toEqual([]);
      expect(r.rounds).toBeGreaterThan(rounds * 0.6);
      expect(r.applied / r.rounds).toBeGreaterThan(minApplied[name]!);
    },
    600_000,
  );

  it("refusals fix themselves: a retry using only what the refusal shows lands, and nothing is ever wrong", () => {
    const r = runRetryRounds(rounds, 3);
    expect(r.wrong).toBe(0);
    expect(r.rounds).toBeGreaterThan(rounds * 0.8);
    const refusedFirst = r.rounds - r.firstLanded;
    expect(r.retryLanded / refusedFirst).toBeGreaterThan(0.95);
    // A typo in a kept line is a near-miss the similarity stage applies on the first attempt.
    expect(r.byNoise.typo![1] / r.byNoise.typo![0]).toBeGreaterThan(0.9);
    // A stale value never lands on the first attempt (it is not a slip); the retry does.
    expect(r.byNoise["stale-value"]![1]).toBe(0);
    expect(r.byNoise["stale-value"]![2]).toBe(r.byNoise["stale-value"]![0]);
  });

  it("exercises every kind of round, refusing only where the intent cannot be known", () => {
    const r = runRounds("indentation", rounds);
    expect(r.byKind["structure change"]?.[0] ?? 0).toBe(0);
    expect(r.byKind["dedent on purpose"]?.[1] ?? 0).toBe(0);
    expect(r.byKind["lost indentation, same lines"]![0]).toBeGreaterThan(0);
    const e = runRounds("echoes", rounds);
    for (const k of ["append + echo", "prepend + echo", "replace + echo", "duplicate on purpose"]) expect(e.byKind[k]![0], k).toBeGreaterThan(0);
    const b = runRounds("blocks", rounds);
    for (const k of ["roo", "hint", "spacing", "lead-blank", "trail-blank", "search-lost-indent"]) expect(b.byKind[k]![0], k).toBeGreaterThan(0);
    // SEARCH and REPLACE both flattened: same lines and added lines apply; a structure change is never guessed.
    const f = runRounds("flattened", rounds);
    expect(f.byKind["flattened: lost indentation, same lines"]![0]).toBeGreaterThan(0);
    expect(f.byKind["flattened: lost indentation, line added"]![0]).toBeGreaterThan(0);
    expect(f.byKind["flattened: structure change"]?.[0] ?? 0).toBe(0);
    expect(
      Object.entries(b.byKind)
        .filter(([k]) => k.endsWith("truncated"))
        .every(([, v]) => v[0] === 0),
    ).toBe(true);
  }, 600_000);
});
