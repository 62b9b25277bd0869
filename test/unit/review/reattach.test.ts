// Where a proposal sits in a document restored after a window reload: all of it, some hunks
// rejected (their original lines back), the user's typing in it, or nothing of it.
import { describe, expect, it } from "vitest";
import { applyHunks, computeHunks, proposalRanges, splitLines } from "../../../src/core/review-hunks";
import { findProposal, followInto, locateHunks } from "../../../src/host/review/reattach";

const before = Array.from({ length: 14 }, (_, i) => `line ${i + 1}\n`).join("");
const after = before.replace("line 2\n", "two\n2b\n").replace("line 7\n", "").replace("line 12\n", "twelve\n");
const hunks = computeHunks(before, after);

/** The text of lines [start, end) of a text. */
const lines = (text: string, r: { start: number; end: number }) => splitLines(text).slice(r.start, r.end).join("");

describe("findProposal", () => {
  it("has three hunks to work with", () => {
    expect(hunks.map((h) => [h.beforeLines.length, h.afterLines.length])).toEqual([
      [1, 2],
      [1, 0],
      [1, 1],
    ]);
  });

  it("takes a document that holds the whole proposal as it is", () => {
    expect(findProposal(before, after, hunks, after, true)).toEqual({ ranges: proposalRanges(hunks), decisions: [undefined, undefined, undefined], touched: [] });
  });

  it("also when the editor normalised the line endings", () => {
    expect(findProposal(before, after, hunks, after.replace(/\n/g, "\r\n"), true)?.ranges).toEqual(proposalRanges(hunks));
  });

  it("gives null for the original (the proposal must be written in again), dirty or not", () => {
    expect(findProposal(before, after, hunks, before, false)).toBeNull();
    expect(findProposal(before, after, hunks, before, true)).toBeNull();
  });

  it("gives null for a saved document that is something else (the caller refuses: the file changed)", () => {
    expect(findProposal(before, after, hunks, "something else\n", false)).toBeNull();
  });

  it("finds hunks rejected before the reload (original lines back) and marks them rejected", () => {
    for (const decisions of [
      ["accepted", "rejected", "accepted"],
      ["rejected", "accepted", "accepted"],
      ["rejected", "rejected", "accepted"],
      ["accepted", "accepted", "rejected"],
    ] as const) {
      const current = applyHunks(before, hunks, decisions);
      const placed = findProposal(before, after, hunks, current, true)!;
      expect(placed.decisions).toEqual(decisions.map((d) => (d === "rejected" ? "rejected" : undefined)));
      // Each hunk still to decide is found on its proposed lines.
      hunks.forEach((h, k) => {
        if (decisions[k] === "accepted") expect(lines(current, placed.ranges[k]!)).toBe(h.afterLines.join(""));
      });
    }
  });

  it("follows the user's typing: hunks it touches are marked, the others keep their lines", () => {
    const typed = after.replace("two\n", "two (edited)\n").replace("line 1\n", "line 1\nnew first\n");
    const placed = findProposal(before, after, hunks, typed, true)!;
    expect(placed.touched).toEqual([0]);
    expect(placed.decisions).toEqual([undefined, undefined, undefined]);
    expect(lines(typed, placed.ranges[2]!)).toBe("twelve\n");
    // A touched hunk's range grows over what the typing wrote next to it (as while the user types live).
    expect(lines(typed, placed.ranges[0]!)).toContain("two (edited)\n2b\n");
    // The deletion marker moved down with the inserted line.
    expect(placed.ranges[1]).toEqual({ start: proposalRanges(hunks)[1]!.start + 1, end: proposalRanges(hunks)[1]!.start + 1 });
  });
});

describe("locateHunks", () => {
  it("refuses a document with other changes between the hunks", () => {
    const current = after.replace("line 5\n", "five\n");
    expect(locateHunks(before, hunks, current)).toBeNull();
  });

  it("tells apart a hunk that adds a copy of the line before it", () => {
    const b = "x\ny\n";
    const a = "x\nx\ny\n";
    const hs = computeHunks(b, a);
    expect(locateHunks(b, hs, a)).toMatchObject({ present: [true] });
    expect(locateHunks(b, hs, b)).toMatchObject({ present: [false] });
  });
});

describe("followInto", () => {
  it("keeps ranges when the texts are equal and moves them past deleted lines", () => {
    const ranges = proposalRanges(hunks);
    expect(followInto(after, after, ranges).ranges).toEqual(ranges);
    const fewer = after.replace("line 1\n", "");
    expect(followInto(after, fewer, ranges).ranges).toEqual(ranges.map((r) => ({ start: r.start - 1, end: r.end - 1 })));
  });
});
