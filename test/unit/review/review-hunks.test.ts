import { describe, expect, it } from "vitest";
import { adjustRange, applyHunks, computeHunks, countChanges, lineEditOf, proposalRanges, rebaseHunks, splitLines, type HunkDecision } from "../../../src/core/review-hunks";

const lines = (n: number, prefix = "line") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join("");

/** Every subset of decisions for `n` hunks. */
function subsets(n: number): HunkDecision[][] {
  const out: HunkDecision[][] = [];
  for (let m = 0; m < 1 << n; m++) out.push(Array.from({ length: n }, (_, k) => ((m >> k) & 1 ? "accepted" : "rejected")));
  return out;
}

describe("splitLines", () => {
  it("keeps terminators and has no empty last line when the text ends in a newline", () => {
    expect(splitLines("a\r\nb\nc")).toEqual(["a\r\n", "b\n", "c"]);
    expect(splitLines("a\n")).toEqual(["a\n"]);
    expect(splitLines("")).toEqual([]);
  });
});

describe("computeHunks", () => {
  it("finds two hunks when two changes are far apart", () => {
    const before = lines(30);
    const after = before.replace("line 3\n", "LINE THREE\n").replace("line 27\n", "line 27\nnew after 27\n");
    const hunks = computeHunks(before, after);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toEqual({ index: 1, beforeStart: 2, beforeLines: ["line 3\n"], afterStart: 2, afterLines: ["LINE THREE\n"] });
    expect(hunks[1]).toMatchObject({ index: 2, beforeStart: 27, beforeLines: [], afterStart: 27, afterLines: ["new after 27\n"] });
    expect(countChanges(hunks)).toEqual({ added: 2, removed: 1 });
  });

  it("merges changes one unchanged line apart into one hunk", () => {
    const before = "a\nb\nc\nd\n";
    const hunks = computeHunks(before, "A\nb\nC\nd\n");
    expect(hunks).toHaveLength(1);
    expect(hunks[0]).toMatchObject({ beforeLines: ["a\n", "b\n", "c\n"], afterLines: ["A\n", "b\n", "C\n"] });
  });

  it("makes one hunk of a whole new file", () => {
    expect(computeHunks(null, "x\ny")).toEqual([{ index: 1, beforeStart: 0, beforeLines: [], afterStart: 0, afterLines: ["x\n", "y"] }]);
  });

  it("finds no hunks when nothing changes", () => {
    expect(computeHunks("same\n", "same\n")).toEqual([]);
  });
});

describe("applyHunks", () => {
  const cases: Array<[string, string, string]> = [
    ["two far-apart hunks", lines(20), lines(20).replace("line 2\n", "two\n").replace("line 18\n", "eighteen\n")],
    ["CRLF line endings", lines(12).replace(/\n/g, "\r\n"), lines(12).replace(/\n/g, "\r\n").replace("line 1\r\n", "first\r\n").replace("line 11\r\n", "")],
    ["no final newline, last line changed", "a\nb\nc\nd\ne\nf", "A\nb\nc\nd\ne\nF"],
    ["final newline added", "a\nb\nc\nd\ne\nf", "a\nb\nc\nd\ne\nf\n"],
    ["final newline removed, first line changed", "a\nb\nc\nd\ne\nf\n", "Z\nb\nc\nd\ne\nf"],
    ["additions at start and end", "m1\nm2\nm3\nm4\n", "top\nm1\nm2\nm3\nm4\nbottom\n"],
    ["deletions only", lines(10), lines(10).replace("line 1\n", "").replace("line 9\nline 10\n", "")],
    ["new file", "", "fresh\ncontent\n"],
  ];
  for (const [name, before, after] of cases) {
    it(`gives the exact text for every subset of hunks with ${name}`, () => {
      const hunks = computeHunks(before, after);
      expect(hunks.length).toBeGreaterThan(0);
      expect(
        applyHunks(
          before,
          hunks,
          hunks.map(() => "accepted"),
        ),
      ).toBe(after);
      expect(
        applyHunks(
          before,
          hunks,
          hunks.map(() => "rejected"),
        ),
      ).toBe(before);
      for (const d of subsets(hunks.length)) {
        const got = applyHunks(before, hunks, d);
        // Each hunk region holds exactly the accepted or the original lines.
        const expected = splitLines(before);
        for (let k = hunks.length - 1; k >= 0; k--) {
          const h = hunks[k]!;
          if (d[k] === "accepted") expected.splice(h.beforeStart, h.beforeLines.length, ...h.afterLines);
        }
        expect(got).toBe(expected.join(""));
      }
    });
  }

  it("keeps hunk 1 and drops hunk 2 when only the first is accepted", () => {
    const before = "a\nb\nc\nd\ne\nf\n";
    const after = "A\nb\nc\nd\ne\nF\n";
    const hunks = computeHunks(before, after);
    expect(applyHunks(before, hunks, ["accepted", "rejected"])).toBe("A\nb\nc\nd\ne\nf\n");
    expect(applyHunks(before, hunks, ["rejected", "accepted"])).toBe("a\nb\nc\nd\ne\nF\n");
  });

  it("treats undecided hunks as rejected", () => {
    const hunks = computeHunks("a\n", "b\n");
    expect(applyHunks("a\n", hunks, [])).toBe("a\n");
  });
});

describe("lineEditOf and adjustRange", () => {
  const hunk = { start: 10, end: 13 };

  it("shifts a hunk down when the user presses Enter at the end of the line above it", () => {
    const e = lineEditOf({ startLine: 9, startChar: 7, endLine: 9, endChar: 7, text: "\n" });
    expect(e).toEqual({ start: 9, oldCount: 1, newCount: 2 });
    expect(adjustRange(hunk, e)).toEqual({ range: { start: 11, end: 14 }, touched: false });
  });

  it("shifts a hunk up when whole lines above it are deleted", () => {
    const e = lineEditOf({ startLine: 2, startChar: 0, endLine: 5, endChar: 0, text: "" });
    expect(e).toEqual({ start: 2, oldCount: 3, newCount: 0 });
    expect(adjustRange(hunk, e).range).toEqual({ start: 7, end: 10 });
  });

  it("shifts a hunk when lines are inserted right above it", () => {
    const e = lineEditOf({ startLine: 10, startChar: 0, endLine: 10, endChar: 0, text: "x\ny\n" });
    expect(adjustRange(hunk, e)).toEqual({ range: { start: 12, end: 15 }, touched: false });
  });

  it("leaves a hunk alone when the edit is below it", () => {
    const e = lineEditOf({ startLine: 13, startChar: 0, endLine: 13, endChar: 0, text: "after\n" });
    expect(adjustRange(hunk, e)).toEqual({ range: hunk, touched: false });
  });

  it("marks a hunk touched and grows it when the user types a new line inside it", () => {
    const e = lineEditOf({ startLine: 11, startChar: 3, endLine: 11, endChar: 3, text: "x\ny" });
    expect(adjustRange(hunk, e)).toEqual({ range: { start: 10, end: 14 }, touched: true });
  });

  it("keeps a deletion marker before the line it precedes when that line is edited", () => {
    const marker = { start: 5, end: 5 };
    const edit = lineEditOf({ startLine: 5, startChar: 1, endLine: 5, endChar: 2, text: "z" });
    expect(adjustRange(marker, edit)).toEqual({ range: marker, touched: false });
    const insert = lineEditOf({ startLine: 5, startChar: 0, endLine: 5, endChar: 0, text: "new\n" });
    expect(adjustRange(marker, insert).range).toEqual({ start: 6, end: 6 });
  });

  it("follows the other hunks through rejecting one hunk", () => {
    const before = lines(20);
    const after = before.replace("line 2\n", "two\ntwo and a half\n").replace("line 18\n", "eighteen\n");
    const hunks = computeHunks(before, after);
    const ranges = proposalRanges(hunks);
    expect(ranges).toEqual([
      { start: 1, end: 3 },
      { start: 18, end: 19 },
    ]);
    // Rejecting hunk 1 replaces its two lines by the original one.
    const e = lineEditOf({ startLine: 1, startChar: 0, endLine: 3, endChar: 0, text: "line 2\n" });
    expect(adjustRange(ranges[1]!, e).range).toEqual({ start: 17, end: 18 });
  });
});

describe("rebaseHunks", () => {
  const before = lines(20);
  const after = before.replace("line 3\n", "three\n").replace("line 15\n", "line 15\nfifteen and a half\n");

  it("moves hunks below the user's unsaved lines and applies to exactly the expected text", () => {
    const current = before.replace("line 8\n", "line 8\nuser line a\nuser line b\n");
    const hunks = rebaseHunks(before, current, computeHunks(before, after))!;
    expect(hunks.map((h) => [h.beforeStart, h.afterStart])).toEqual([
      [2, 2],
      [17, 17],
    ]);
    const applied = applyHunks(current, hunks, ["accepted", "accepted"]);
    expect(applied).toBe(after.replace("line 8\n", "line 8\nuser line a\nuser line b\n"));
    expect(proposalRanges(hunks)).toEqual([
      { start: 2, end: 3 },
      { start: 17, end: 18 },
    ]);
  });

  it("refuses when the user changed a line of a hunk", () => {
    const current = before.replace("line 3\n", "line 3 (mine)\n");
    expect(rebaseHunks(before, current, computeHunks(before, after))).toBeNull();
  });

  it("refuses an insertion where the user inserted lines at the same place", () => {
    const current = before.replace("line 15\n", "line 15\nmine\n");
    expect(rebaseHunks(before, current, computeHunks(before, after))).toBeNull();
  });
});
